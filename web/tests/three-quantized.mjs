// three.js reads idmodel's quantized GLBs (KHR_mesh_quantization, and with --meshopt
// EXT_meshopt_compression too) as the plain ones: for each pair `PLAIN.glb QUANT.glb`, GLTFLoader in Node.js loads both, and every mesh's
// vertices in world space in every frame (the base and every morph target, through the
// dequantizing node's scale and translation; a quantized mesh whose first target is frame 0
// is matched frame by frame) are compared: within half the quantization step (plus float
// rounding), and the normals shown in every frame within 5 degrees (see below). Exit 1 on any difference past that.
//
//   (cd web && npm ci) && node web/tests/three-quantized.mjs A.glb A.q.glb B.glb B.q.glb ...
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { THREE, parseGlb } from './node-images.mjs';

/**
 * Whether `o` draws a glTF mesh whose own weights are `[1, 0, …]`: its first morph target
 * is frame 0 (idmodel's quantized form when some normals need a hidden base), so target
 * `f` shows frame `f`; otherwise the base is frame 0 and target `f - 1` shows frame `f`.
 */
function leads(gltf, o) {
  const m = gltf.parser.associations.get(o)?.meshes;
  const w = m === undefined ? undefined : gltf.parser.json.meshes[m].weights;
  return !!w && w[0] === 1 && w.slice(1).every((x) => x === 0);
}

/** Every mesh of the scene, grouped by its shape (vertex and frame counts). */
function meshes(gltf) {
  gltf.scene.updateMatrixWorld(true);
  const out = new Map();
  gltf.scene.traverse((o) => {
    if (!o.isMesh) return;
    const g = o.geometry;
    const targets = g.morphAttributes.position?.length ?? 0;
    o.userData.lead = leads(gltf, o);
    const frames = o.userData.lead ? targets : targets + 1;
    const key = `${g.attributes.position.count}/${frames}`;
    if (!out.has(key)) out.set(key, []);
    out.get(key).push(o);
  });
  return out;
}

/** The morph target that shows frame `f` of `mesh` (-1: the base). */
function targetOf(mesh, f) {
  return mesh.userData.lead ? f : f - 1;
}

/** World position of vertex `i` of `mesh` in morph target `t` (-1: the base). */
function world(mesh, i, t) {
  const g = mesh.geometry;
  const v = new THREE.Vector3().fromBufferAttribute(g.attributes.position, i);
  if (t >= 0) v.add(new THREE.Vector3().fromBufferAttribute(g.morphAttributes.position[t], i));
  return v.applyMatrix4(mesh.matrixWorld);
}

/** The normal a renderer shows at vertex `i` in morph target `t`: base plus displacement, made unit. */
function normal(mesh, i, t) {
  const g = mesh.geometry;
  const a = g.attributes.normal;
  if (!a) return null;
  const n = new THREE.Vector3().fromBufferAttribute(a, i);
  const d = g.morphAttributes.normal?.[t];
  if (t >= 0 && d) n.add(new THREE.Vector3().fromBufferAttribute(d, i));
  return n.applyMatrix3(new THREE.Matrix3().getNormalMatrix(mesh.matrixWorld)).normalize();
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
      const frames = (a.geometry.morphAttributes.position?.length ?? 0) + 1;
      for (let f = 0; f < frames; f++) {
        const [ta, tb] = [targetOf(a, f), targetOf(b, f)];
        for (let i = 0; i < n; i++) {
          const d = world(a, i, ta).distanceTo(world(b, i, tb));
          // Per axis at most half a step: at most √3 × that apart.
          if (d > half * Math.sqrt(3) + 1e-4 * (1 + world(a, i, ta).length())) {
            problems.push(`vertex ${i} of ${a.name} (frame ${f}) is ${d} apart, step ${step}`);
            return;
          }
          worst = Math.max(worst, d);
          const [na, nb] = [normal(a, i, ta), normal(b, i, tb)];
          if (na && nb) worstNormal = Math.min(worstNormal, na.dot(nb));
        }
      }
      compared += 1;
    });
  }
  // 2.6° for a byte displacement, plus up to 2° for MD3, whose quantized scene decodes
  // each normal at the centre of the cell q3map's encoder maps to it (the engine decodes
  // on its own 256-step table).
  if (worstNormal < Math.cos((5 * Math.PI) / 180)) problems.push(`a normal turned by ${(Math.acos(worstNormal) * 180 / Math.PI).toFixed(2)}°`);
  // A model of tags only draws nothing in either file.
  if (compared === 0 && (plain.size > 0 || quant.size > 0)) problems.push('no mesh compared');
  const ok = problems.length === 0;
  if (!ok) failed += 1;
  console.log(`${ok ? 'ok' : 'FAIL'} ${path.basename(quantFile)}: ${compared} meshes, largest move ${worst.toExponential(2)} (half step ${tol.toExponential(2)})${ok ? '' : ': ' + problems.slice(0, 3).join('; ')}`);
}
process.exit(failed ? 1 : 0);
