// The idmodel viewer page: files in, the wasm build of idmodel (web/src/lib.rs) turns
// them into a GLB and a state, three.js shows the GLB. Nothing is fetched from the
// network: the page, the script and the wasm are all in web/dist/.
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import { VertexNormalsHelper } from 'three/examples/jsm/helpers/VertexNormalsHelper.js';
import { MeshoptDecoder } from 'three/examples/jsm/libs/meshopt_decoder.module.js';
import init, { open } from '../pkg/idmodel_web.js';

const BACKGROUND = 0x303038;
/** A glTF file the page draws as it is (a GLB from `idmodel convert`, quantized or compressed). */
const GLTF_FILE = /\.(glb|gltf)$/i;
const $ = (id) => document.getElementById(id);

const canvas = $('canvas');
const renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(1);
const scene = new THREE.Scene();
scene.background = new THREE.Color(BACKGROUND);
scene.add(new THREE.HemisphereLight(0xffffff, 0x444450, 2.0));
const sun = new THREE.DirectionalLight(0xffffff, 1.5);
sun.position.set(1, 2, 1.5);
scene.add(sun);
const camera = new THREE.PerspectiveCamera(45, 1, 0.1, 10000);
camera.position.set(100, 40, 60);
const controls = new OrbitControls(camera, canvas);
controls.addEventListener('change', () => draw());

// What is loaded.
/** The extensions the GLB drawn requires. */
let required = [];
let files = [];          // [{name, bytes}]
let state = null;        // the full state from wasm
let glb = null;          // Uint8Array
let root = null;         // the glTF scene
let mixer = null;
let clips = [];          // THREE.AnimationClip
let action = null;
let frameTimes = [];     // key times of the current clip
let playing = true;
let helpers = [];
let blobUrls = [];
let loads = 0;
let timing = null;
const clock = new THREE.Clock();

function resize() {
  const w = canvas.clientWidth || 640;
  const h = canvas.clientHeight || 480;
  if (canvas.width !== w || canvas.height !== h) {
    renderer.setSize(w, h, false);
    camera.aspect = w / h;
    camera.updateProjectionMatrix();
  }
}

function draw() {
  resize();
  updateBones();
  renderer.render(scene, camera);
}

function loop() {
  requestAnimationFrame(loop);
  const dt = clock.getDelta();
  if (mixer && playing && action) {
    mixer.update(dt);
    showFrame(currentFrame());
  }
  draw();
}

function currentFrame() {
  if (!action || frameTimes.length === 0) return 0;
  const t = action.time;
  let best = 0;
  for (let i = 0; i < frameTimes.length; i++) if (frameTimes[i] <= t + 1e-6) best = i;
  return best;
}

function showFrame(n) {
  $('frame').value = String(n);
  $('frame-label').textContent = `${n}/${Math.max(frameTimes.length - 1, 0)}`;
}

function option(select, values, chosen) {
  select.replaceChildren(...values.map((v) => {
    const o = document.createElement('option');
    o.value = v;
    o.textContent = v;
    if (v === chosen) o.selected = true;
    return o;
  }));
  select.disabled = values.length < 2;
}

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

function fmt(v) {
  if (Array.isArray(v)) return v.map((x) => (typeof x === 'number' ? +x.toFixed(3) : x)).join(', ');
  if (v && typeof v === 'object') return Object.entries(v).map(([k, x]) => `${k}: ${fmt(x)}`).join('; ');
  return String(v);
}

function panels() {
  const info = $('info');
  info.replaceChildren();
  for (const { file, info: i } of state.info) {
    const t = el('table');
    t.append(el('caption', file));
    for (const [k, v] of Object.entries(i)) {
      const tr = el('tr');
      tr.append(el('td', k), el('td', fmt(v)));
      t.append(tr);
    }
    info.append(t);
  }
  if (state.archives.length) info.append(el('p', state.archives.join('; ')));
  const check = $('check');
  check.replaceChildren();
  for (const { file, verdicts } of state.check) {
    check.append(el('div', file));
    const ul = el('ul');
    for (const v of verdicts) {
      const li = el('li', `${v.engine ?? 'idmodel'}: ${v.ok ? 'loads it, no findings' : ''}`, v.ok ? 'ok' : 'bad');
      if (!v.ok) {
        const inner = el('ul');
        for (const f of v.findings) inner.append(el('li', f));
        li.append(inner);
      }
      ul.append(li);
    }
    check.append(ul);
  }
  const list = $('files');
  list.replaceChildren(...state.files.map((f) => el('li', `${f.name}: ${f.what}`)));
}

function clearModel() {
  if (root) scene.remove(root);
  if (bones) scene.remove(bones.lines);
  bones = null;
  for (const h of helpers) h.parent?.remove(h);
  helpers = [];
  root = null;
  mixer = null;
  clips = [];
  action = null;
  frameTimes = [];
  for (const u of blobUrls) URL.revokeObjectURL(u);
  blobUrls = [];
}

// A model without meshes (an md5anim): its joints drawn as lines, child to parent.
let bones = null;
function buildBones() {
  const pairs = [];
  let meshes = 0;
  root.traverse((o) => {
    if (o.isMesh) meshes++;
    else if (o !== root && o.parent && o.parent !== root) pairs.push([o.parent, o]);
  });
  if (meshes || !pairs.length) return;
  const geo = new THREE.BufferGeometry();
  geo.setAttribute('position', new THREE.BufferAttribute(new Float32Array(pairs.length * 6), 3));
  const lines = new THREE.LineSegments(geo, new THREE.LineBasicMaterial({ color: 0xffcc44, depthTest: false }));
  lines.frustumCulled = false;
  scene.add(lines);
  bones = { lines, pairs };
  updateBones();
}

function updateBones() {
  if (!bones) return;
  root.updateMatrixWorld(true);
  const a = bones.lines.geometry.attributes.position;
  const v = new THREE.Vector3();
  bones.pairs.forEach(([p, c], i) => {
    p.getWorldPosition(v);
    a.setXYZ(2 * i, v.x, v.y, v.z);
    c.getWorldPosition(v);
    a.setXYZ(2 * i + 1, v.x, v.y, v.z);
  });
  a.needsUpdate = true;
  bones.lines.geometry.computeBoundingBox();
}

function frameCamera() {
  const box = bones ? bones.lines.geometry.boundingBox.clone() : new THREE.Box3().setFromObject(root);
  if (box.isEmpty()) return;
  const sphere = box.getBoundingSphere(new THREE.Sphere());
  const r = Math.max(sphere.radius, 1e-3);
  const d = r / Math.sin((camera.fov * Math.PI) / 360);
  // id models face +X; glTF's Y-up keeps X, so look at the front, a little from above.
  camera.position.copy(sphere.center).add(new THREE.Vector3(0.8, 0.35, 0.5).normalize().multiplyScalar(d));
  camera.near = d / 100;
  camera.far = d * 100;
  camera.updateProjectionMatrix();
  controls.target.copy(sphere.center);
  controls.update();
  return r;
}

function decorate() {
  if (!root) return;
  for (const h of helpers) h.parent?.remove(h);
  helpers = [];
  const wire = $('wireframe').checked;
  const r = new THREE.Box3().setFromObject(root).getBoundingSphere(new THREE.Sphere()).radius || 1;
  root.traverse((o) => {
    if (o.isMesh) {
      for (const m of [o.material].flat()) m.wireframe = wire;
      if ($('normals').checked) {
        const h = new VertexNormalsHelper(o, r * 0.03, 0x00ff88);
        scene.add(h);
        helpers.push(h);
      }
    }
    if ($('tags').checked && /^tag_/i.test(o.name)) {
      const h = new THREE.AxesHelper(r * 0.15);
      o.add(h);
      helpers.push(h);
    }
  });
}

function setClip(name) {
  if (!mixer) return;
  const clip = clips.find((c) => c.name === name);
  if (!clip) return;
  mixer.stopAllAction();
  action = mixer.clipAction(clip);
  action.reset().play();
  const times = new Set();
  for (const t of clip.tracks) for (const x of t.times) times.add(+x.toFixed(5));
  frameTimes = [...times].sort((a, b) => a - b);
  $('frame').max = String(Math.max(frameTimes.length - 1, 0));
  $('clip').value = name;
  mixer.update(0);
  showFrame(0);
  draw();
}

function setFrame(n) {
  if (!action) return;
  playing = false;
  $('play').textContent = 'Play';
  const i = Math.max(0, Math.min(frameTimes.length - 1, Math.floor(n)));
  action.paused = false;
  action.time = frameTimes[i] ?? 0;
  mixer.update(0);
  showFrame(i);
  draw();
}

function showError(message) {
  const e = $('error');
  e.hidden = !message;
  e.textContent = message ?? '';
}

// One pass: the wasm opens the files (only the first frame when `firstFrame`), then
// GLTFLoader reads the GLB and it replaces what is drawn. Returns the times in ms.
async function pass(choice, firstFrame) {
  const t0 = performance.now();
  // Quantized GLBs (KHR_mesh_quantization, which GLTFLoader reads): about half the bytes.
  const viewed = open(files.map((f) => f.name), files.map((f) => f.bytes), choice.model ?? null, choice.skin ?? null, firstFrame, true);
  const next = JSON.parse(viewed.state);
  const bytes = viewed.glb;
  viewed.free();
  const t1 = performance.now();
  if (next.error || firstFrame === false) {
    state = next;
    glb = bytes;
    option($('model'), state.models, state.model);
    option($('skin'), state.skins, state.skin);
    panels();
    showError(state.error);
    $('download').disabled = !glb.length;
  } else if (!state || state.model !== next.model) {
    state = next;
    showError(null);
  }
  $('drop-hint').hidden = true;
  if (next.error) {
    clearModel();
    option($('clip'), [], null);
    draw();
    return { wasm: t1 - t0 };
  }
  const { manager, urls } = fileManager();
  const gltf = await loader(manager).parseAsync(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength), '');
  const t2 = performance.now();
  show(gltf, urls, !firstFrame && root !== null);
  const t3 = performance.now();
  // The frame is on screen when the browser has presented it.
  await new Promise((r) => requestAnimationFrame(() => r()));
  return { wasm: t1 - t0, parse: t2 - t1, draw: t3 - t2, total: performance.now() - t0 };
}

// A loading manager that serves the opened files by name (a glTF's images and buffers).
function fileManager() {
  const manager = new THREE.LoadingManager();
  const byName = new Map(files.map((f) => [f.name, f]));
  const base = new Map(files.map((f) => [f.name.split('/').pop(), f]));
  const urls = [];
  manager.setURLModifier((url) => {
    const name = decodeURIComponent(url);
    const f = byName.get(name) ?? base.get(name.split('/').pop());
    if (!f) return url;
    const u = URL.createObjectURL(new Blob([f.bytes]));
    urls.push(u);
    return u;
  });
  return { manager, urls };
}

// GLTFLoader with meshoptimizer's decoder (EXT_meshopt_compression, `--meshopt`);
// KHR_mesh_quantization (`--quantize`) it reads by itself.
function loader(manager) {
  return new GLTFLoader(manager).setMeshoptDecoder(MeshoptDecoder);
}

// Replaces what is drawn by a loaded glTF.
function show(gltf, urls, keepCamera) {
  clearModel();
  blobUrls = urls;
  root = gltf.scene;
  required = gltf.parser.json.extensionsRequired ?? [];
  scene.add(root);
  clips = gltf.animations;
  mixer = new THREE.AnimationMixer(root);
  option($('clip'), clips.map((c) => c.name), clips[0]?.name);
  buildBones();
  if (clips.length) setClip(clips[0].name);
  if (!keepCamera) frameCamera();
  decorate();
  draw();
}

// A glTF file drawn as it is: three.js reads it (no wasm); the state says what it holds.
async function passGltf(file) {
  const t0 = performance.now();
  const { manager, urls } = fileManager();
  const data = /\.gltf$/i.test(file.name)
    ? new TextDecoder().decode(file.bytes)
    : file.bytes.buffer.slice(file.bytes.byteOffset, file.bytes.byteOffset + file.bytes.byteLength);
  let gltf = null;
  let error = null;
  try {
    gltf = await loader(manager).parseAsync(data, '');
  } catch (e) {
    error = `${file.name}: ${String(e?.message ?? e).split('\n')[0]}`;
  }
  const t1 = performance.now();
  state = gltfState(file, gltf, error);
  glb = /\.glb$/i.test(file.name) ? file.bytes : new Uint8Array();
  option($('model'), state.models, state.model);
  option($('skin'), [], null);
  panels();
  showError(error);
  $('download').disabled = !glb.length;
  $('drop-hint').hidden = true;
  if (error) {
    for (const u of urls) URL.revokeObjectURL(u);
    clearModel();
    option($('clip'), [], null);
    draw();
    return { wasm: 0, parse: t1 - t0 };
  }
  show(gltf, urls, false);
  const t2 = performance.now();
  await new Promise((r) => requestAnimationFrame(() => r()));
  return { wasm: 0, parse: t1 - t0, draw: t2 - t1, total: performance.now() - t0 };
}

// The state of a glTF file, in the shape the wasm gives for a model.
function gltfState(file, gltf, error) {
  let vertices = 0;
  let triangles = 0;
  let frames = 1;
  let textured = 0;
  const json0 = gltf?.parser.json ?? {};
  gltf?.scene.traverse((o) => {
    if (!o.isMesh) return;
    const g = o.geometry;
    const n = g.attributes.position?.count ?? 0;
    vertices += n;
    triangles += Math.floor((g.index ? g.index.count : n) / 3);
    // Frames: the base and each target, or only the targets when the mesh rests at its
    // first one (its weights `[1, 0, …]`: a quantized GLB whose frame 0 is a target).
    const m = gltf.parser.associations.get(o)?.meshes;
    const w = m === undefined ? undefined : json0.meshes?.[m]?.weights;
    const lead = !!w && w[0] === 1 && w.slice(1).every((x) => x === 0);
    frames = Math.max(frames, (g.morphAttributes.position?.length ?? 0) + (lead ? 0 : 1));
    if ([o.material].flat().some((m) => m?.map)) textured++;
  });
  const json = gltf?.parser.json ?? {};
  const info = {
    generator: json.asset?.generator ?? 'unknown',
    'extensions used': (json.extensionsUsed ?? []).join(', ') || 'none',
    meshes: (json.meshes ?? []).length,
    nodes: (json.nodes ?? []).length,
    animations: (json.animations ?? []).length,
    images: (json.images ?? []).length,
  };
  return {
    format: 'gltf',
    frames: gltf ? frames : 0,
    vertices,
    triangles,
    clips: (gltf?.animations ?? []).map((c) => c.name),
    textured,
    error,
    info: gltf ? [{ file: file.name, info }] : [],
    check: [],
    archives: [],
    files: files.map((f) => ({ name: f.name, what: f === file ? 'glTF, drawn as it is' : GLTF_FILE.test(f.name) ? 'glTF (not drawn: one at a time)' : 'beside the glTF' })),
    models: [file.name],
    model: file.name,
    skins: [],
    skin: null,
  };
}

// Opens the files: the first frame at once, then the whole model (clips, checks).
async function load(choice = {}) {
  const t0 = performance.now();
  state = null;
  const gltfFile = files.find((f) => GLTF_FILE.test(f.name));
  if (gltfFile) {
    const one = await passGltf(gltfFile);
    one.pixels = state.error ? 0 : window.idmodelViewer.probe().other;
    timing = { ...one, first: performance.now() - t0, firstPass: one, total: performance.now() - t0 };
    loads++;
    return;
  }
  const first = await pass(choice, true);
  const firstMs = performance.now() - t0;
  first.pixels = state?.error ? 0 : window.idmodelViewer.probe().other;
  const full = state?.error ? first : await pass(choice, false);
  timing = { ...full, first: firstMs, firstPass: first, total: performance.now() - t0 };
  loads++;
}

async function readAll(list) {
  return Promise.all(list.map(async ({ name, file }) => ({ name, bytes: new Uint8Array(await file.arrayBuffer()) })));
}

async function openFiles(list) {
  const started = performance.now();
  files = await readAll(list);
  const read = performance.now() - started;
  await load();
  timing.read = read;
  timing.first += read;
  timing.total += read;
}

// Drag and drop, folders included.
async function entries(entry, out) {
  if (entry.isFile) {
    const file = await new Promise((res, rej) => entry.file(res, rej));
    out.push({ name: entry.fullPath.replace(/^\//, ''), file });
  } else if (entry.isDirectory) {
    const reader = entry.createReader();
    for (;;) {
      const batch = await new Promise((res, rej) => reader.readEntries(res, rej));
      if (!batch.length) break;
      for (const e of batch) await entries(e, out);
    }
  }
}

window.addEventListener('dragover', (e) => { e.preventDefault(); document.body.classList.add('dragging'); });
window.addEventListener('dragleave', () => document.body.classList.remove('dragging'));
window.addEventListener('drop', async (e) => {
  e.preventDefault();
  document.body.classList.remove('dragging');
  const out = [];
  const items = [...(e.dataTransfer.items ?? [])].map((i) => i.webkitGetAsEntry?.()).filter(Boolean);
  if (items.length) for (const it of items) await entries(it, out);
  else for (const f of e.dataTransfer.files) out.push({ name: f.name, file: f });
  await openFiles(out);
});

$('open').addEventListener('change', (e) => openFiles([...e.target.files].map((f) => ({ name: f.name, file: f }))));
$('open-folder').addEventListener('change', (e) =>
  openFiles([...e.target.files].map((f) => ({ name: f.webkitRelativePath || f.name, file: f }))));
$('model').addEventListener('change', (e) => load({ model: e.target.value }));
$('skin').addEventListener('change', (e) => load({ model: state?.model, skin: e.target.value }));
$('clip').addEventListener('change', (e) => setClip(e.target.value));
$('frame').addEventListener('input', (e) => setFrame(+e.target.value));
$('play').addEventListener('click', () => {
  playing = !playing;
  $('play').textContent = playing ? 'Pause' : 'Play';
  clock.getDelta();
});
for (const id of ['wireframe', 'normals', 'tags']) $(id).addEventListener('change', () => { decorate(); draw(); });
$('download').addEventListener('click', () => {
  if (!glb?.length) return;
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([glb], { type: 'model/gltf-binary' }));
  const base = (state.model ?? 'model').split('/').pop().replace(/\.[^.]*$/, '');
  a.download = `${base}.glb`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
});

// The test interface (README, web/tests/viewer.mjs).
window.idmodelViewer = {
  /** `null` before the first load, then {format, frames, vertices, triangles, clips, textured, error}. */
  state() {
    if (!state) return null;
    const { format, frames, vertices, triangles, clips: c, textured, error } = state;
    return { format, frames, vertices, triangles, clips: c, textured, error };
  },
  /** The whole state: info, check, files, skins, models. */
  details: () => state,
  /** The glTF extensions the drawn GLB requires (`KHR_mesh_quantization`). */
  required: () => required,
  setClip,
  setFrame,
  /** How many loads have finished. */
  loads: () => loads,
  /** Milliseconds of the last load: read, wasm, parse (GLTFLoader), draw, total. */
  timing: () => timing,
  /** Pixels of the canvas unlike the background, and a hash of the picture. */
  probe() {
    draw();
    const gl = renderer.getContext();
    const w = gl.drawingBufferWidth;
    const h = gl.drawingBufferHeight;
    const px = new Uint8Array(w * h * 4);
    gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
    const [br, bgc, bb] = [(BACKGROUND >> 16) & 255, (BACKGROUND >> 8) & 255, BACKGROUND & 255];
    let other = 0;
    let hash = 2166136261;
    for (let i = 0; i < px.length; i += 4) {
      if (Math.abs(px[i] - br) > 3 || Math.abs(px[i + 1] - bgc) > 3 || Math.abs(px[i + 2] - bb) > 3) other++;
      hash = Math.imul(hash ^ px[i] ^ (px[i + 1] << 8) ^ (px[i + 2] << 16), 16777619) >>> 0;
    }
    return { width: w, height: h, other, hash };
  },
};

// Compile the shaders a model's first frame uses before any file comes (software GL
// takes tens of milliseconds per program): glTF's standard material, with and without a
// texture.
function warmUp() {
  const geo = new THREE.BoxGeometry(1, 1, 1);
  const tex = new THREE.DataTexture(new Uint8Array([255, 255, 255, 255]), 1, 1);
  tex.needsUpdate = true;
  tex.colorSpace = THREE.SRGBColorSpace;
  const meshes = [new THREE.MeshStandardMaterial(), new THREE.MeshStandardMaterial({ map: tex })].map((m) => {
    const mesh = new THREE.Mesh(geo, m);
    scene.add(mesh);
    return mesh;
  });
  draw();
  for (const m of meshes) scene.remove(m);
  draw();
}
warmUp();

await init({ module_or_path: new URL('idmodel_web_bg.wasm', document.baseURI) });
document.body.dataset.ready = 'true';
loop();
