// three.js reads idmodel's quantized GLBs (KHR_mesh_quantization, and with --meshopt
// EXT_meshopt_compression too) as the plain ones: for each pair `PLAIN.glb QUANT.glb`, GLTFLoader in Node.js loads both, and every mesh's
// vertices in world space (base and every morph target, through the dequantizing node's
// scale and translation) are compared: within half the quantization step (plus float
// rounding), normals within 3 degrees. Exit 1 on any difference past that.
//
//   (cd web && npm ci) && node web/tests/three-quantized.mjs A.glb A.q.glb B.glb B.q.glb ...
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { THREE, parseGlb } from './node-images.mjs';

/** Every mesh of the scene, grouped by its shape (vertex and morph target counts). */
function meshes(gltf) {
  gltf.scene.updateMatrixWorld(true);
  const out = new Map();
  gltf.scene.traverse((o) => {
    if (!o.isMesh) return;
    const g = o.geometry;
    const key = `${g.attributes.position.count}/${g.morphAttributes.position?.length ?? 0}`;
    if (!out.has(key)) out.set(key, []);
    out.get(key).push(o);
  });
  return out;
}

/** World position of vertex `i` of `mesh` in morph target `t` (-1: the base). */
function world(mesh, i, t) {
  const g = mesh.geometry;
  const v = new THREE.Vector3().fromBufferAttribute(g.attributes.position, i);
  if (t >= 0) v.add(new THREE.Vector3().fromBufferAttribute(g.morphAttributes.position[t], i));
  return v.applyMatrix4(mesh.matrixWorld);
}

function normal(mesh, i) {
  const n = g_normal(mesh, i);
  return n && n.applyMatrix3(new THREE.Matrix3().getNormalMatrix(mesh.matrixWorld)).normalize();
}
function g_normal(mesh, i) {
  const a = mesh.geometry.attributes.normal;
  return a ? new THREE.Vector3().fromBufferAttribute(a, i) : null;
}

let failed = 0;
const args = process.argv.slice(2);
for (let k = 0; k + 1 < args.length; k += 2) {
  const [plainFile, quantFile] = [args[k], args[k + 1]];
  const plain = meshes(await parseGlb(await readFile(plainFile)));
  const quant = meshes(await parseGlb(await readFile(quantFile)));
  let worst = 0, tol = 0, worstNormal = 1, compared = 0, problems = [];
  for (const [key, list] of plain) {
    const other = quant.get(key) ?? [];
    if (other.length !== list.length) {
      problems.push(`${list.length} meshes of shape ${key}, ${other.length} in the quantized file`);
      continue;
    }
    list.forEach((a, m) => {
      const b = other[m];
      const step = new THREE.Vector3().setFromMatrixScale(b.matrixWorld).x;
      const half = (b.geometry.attributes.position.normalized || b.geometry.attributes.position.array instanceof Float32Array) ? 0 : step / 2;
      tol = Math.max(tol, half);
      const n = a.geometry.attributes.position.count;
      const targets = a.geometry.morphAttributes.position?.length ?? 0;
      for (let t = -1; t < targets; t++) {
        for (let i = 0; i < n; i++) {
          const d = world(a, i, t).distanceTo(world(b, i, t));
          // Per axis at most half a step: at most √3 × that apart.
          if (d > half * Math.sqrt(3) + 1e-4 * (1 + world(a, i, t).length())) {
            problems.push(`vertex ${i} of ${a.name} (target ${t}) is ${d} apart, step ${step}`);
            return;
          }
          worst = Math.max(worst, d);
        }
      }
      for (let i = 0; i < n; i++) {
        const [na, nb] = [normal(a, i), normal(b, i)];
        if (na && nb) worstNormal = Math.min(worstNormal, na.dot(nb));
      }
      compared += 1;
    });
  }
  if (worstNormal < Math.cos((3 * Math.PI) / 180)) problems.push(`a normal turned by ${(Math.acos(worstNormal) * 180 / Math.PI).toFixed(2)}°`);
  // A model of tags only draws nothing in either file.
  if (compared === 0 && (plain.size > 0 || quant.size > 0)) problems.push('no mesh compared');
  const ok = problems.length === 0;
  if (!ok) failed += 1;
  console.log(`${ok ? 'ok' : 'FAIL'} ${path.basename(quantFile)}: ${compared} meshes, largest move ${worst.toExponential(2)} (half step ${tol.toExponential(2)})${ok ? '' : ': ' + problems.slice(0, 3).join('; ')}`);
}
process.exit(failed ? 1 : 0);
