// Loads GLB files with three.js's GLTFLoader in Node.js (no browser) and reports, per file,
// every mesh's material and the size of the base-colour texture three.js decoded for it.
// Exit 1 unless every mesh of every file has a decoded texture.
//
//   (cd web && npm ci) && node web/tests/three-node.mjs A.glb ...
//
// three.js and the decoders come from web/node_modules (see node-images.mjs, which gives
// GLTFLoader real PNG and JPEG decodes); ci/viewer.sh runs it on an OpenArena player and
// UFO:AI models.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseGlb } from './node-images.mjs';

let failed = 0;
for (const file of process.argv.slice(2)) {
  const gltf = await parseGlb(await readFile(file));
  let meshes = 0;
  let textured = 0;
  const sizes = new Set();
  // idmodel's MD3 tag frames (nodes named `frames of tag_…`, which three.js names
  // `frames_of_tag_…`) are data drawn at 1e-4 scale, without a material: not counted.
  const tagFrames = (o) => /^frames[ _]of[ _]/.test(o?.name ?? '');
  gltf.scene.traverse((o) => {
    if (!o.isMesh || tagFrames(o) || tagFrames(o.parent)) return;
    meshes += 1;
    const mats = Array.isArray(o.material) ? o.material : [o.material];
    for (const m of mats) {
      const img = m.map?.image;
      // A decoded image: its size and RGBA bytes that are not all zero.
      if (img?.width > 0 && img.data?.some((b) => b !== 0)) {
        textured += 1;
        sizes.add(`${img.width}x${img.height}`);
      }
    }
  });
  const ok = meshes > 0 && textured >= meshes;
  if (!ok) failed += 1;
  console.log(`${ok ? 'ok' : 'FAIL'} ${path.basename(file)}: ${textured}/${meshes} meshes textured (${[...sizes].join(', ')})`);
}
process.exit(failed ? 1 : 0);
