// Loads GLB files with three.js's GLTFLoader in Node.js (no browser) and reports, per file,
// every mesh's material and the size of the base-colour texture three.js decoded for it.
// Exit 1 unless every mesh of every file has a decoded texture.
//
//   (cd web && npm ci) && node web/tests/three-node.mjs A.glb ...
//
// three.js and the decoders come from web/node_modules (THREE_NODE_DECODERS overrides where
// the decoders are found); ci/viewer.sh runs it on an OpenArena player and UFO:AI models. GLTFLoader decodes embedded images
// with createImageBitmap, which Node lacks: it is provided here over pngjs and jpeg-js, the
// pure-JavaScript PNG and JPEG decoders, so the pixels three.js gets are real decodes.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const decoders = process.env.THREE_NODE_DECODERS || path.join(here, "..", "node_modules");
const require = createRequire(path.join(decoders, 'x.js'));
const { PNG } = require('pngjs');
const jpeg = require('jpeg-js');
const three = path.join(here, '..', 'node_modules', 'three');
const { GLTFLoader } = await import(path.join(three, 'examples/jsm/loaders/GLTFLoader.js'));

globalThis.self = globalThis;
globalThis.createImageBitmap = async (blob) => {
  const bytes = Buffer.from(await blob.arrayBuffer());
  const isPng = bytes.subarray(0, 8).equals(Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]));
  const img = isPng ? PNG.sync.read(bytes) : jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true });
  return { width: img.width, height: img.height, data: img.data, close() {} };
};

let failed = 0;
for (const file of process.argv.slice(2)) {
  const buf = await readFile(file);
  const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  const gltf = await new Promise((ok, bad) => new GLTFLoader().parse(ab, '', ok, bad));
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
