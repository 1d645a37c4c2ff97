// three.js's GLTFLoader decodes embedded images with createImageBitmap, which Node lacks:
// this module provides it over pngjs and jpeg-js, the pure-JavaScript PNG and JPEG
// decoders, so the pixels three.js gets are real decodes. Import it before loading a GLB;
// it exports the GLTFLoader of web/node_modules/three.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
// THREE_NODE_DECODERS overrides where the decoders are found.
const decoders = process.env.THREE_NODE_DECODERS || path.join(here, '..', 'node_modules');
const require = createRequire(path.join(decoders, 'x.js'));
const { PNG } = require('pngjs');
const jpeg = require('jpeg-js');
const three = path.join(here, '..', 'node_modules', 'three');

globalThis.self = globalThis;
globalThis.createImageBitmap = async (blob) => {
  const bytes = Buffer.from(await blob.arrayBuffer());
  const isPng = bytes.subarray(0, 8).equals(Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]));
  const img = isPng ? PNG.sync.read(bytes) : jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true });
  return { width: img.width, height: img.height, data: img.data, close() {} };
};

export const { GLTFLoader } = await import(path.join(three, 'examples/jsm/loaders/GLTFLoader.js'));
export const THREE = await import(path.join(three, 'build/three.module.js'));
const { MeshoptDecoder } = await import(path.join(three, 'examples/jsm/libs/meshopt_decoder.module.js'));
await MeshoptDecoder.ready;

/** Parses the GLB at `buf` (a Buffer) with GLTFLoader (and three.js's MeshoptDecoder,
 *  for EXT_meshopt_compression). */
export async function parseGlb(buf) {
  const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  const loader = new GLTFLoader().setMeshoptDecoder(MeshoptDecoder);
  return new Promise((ok, bad) => loader.parse(ab, '', ok, bad));
}
