// The run viewer: loads a recording's header and chunks from the local server (api/…) and
// draws the arena and every robot with three.js. Replays a finished run, or follows a live one.
// Its state is published as window.viewerState (tests and the screenshot tool read it) and it
// is driven through window.viewer (seek, setMode, worldToScreen).
import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import { Frames } from './frames.js';
import { buildArena } from './arena.js';
import { Robots } from './robots.js';
import { Trails } from './trails.js';
import { Overlays } from './overlays.js';

THREE.Object3D.DEFAULT_UP.set(0, 0, 1); // z up, as in the simulator

const params = new URLSearchParams(location.search);
const state = {
  ready: false, noRun: false, message: '', robots: 0, tick: null, frame: 0, frames: 0,
  playing: false, speed: 1, mode: params.get('mode') === 'top' ? 'top' : '3d', live: false,
  stops: null, fps: 0, trails: params.get('trails') !== '0', rendered: 0,
  links: params.get('links') === '1', text: params.get('text') !== '0', labels: 0,
  rays: params.get('rays') === '1',
};
window.viewerState = state;

const $ = (id) => document.getElementById(id);
const canvas = $('view');
if (params.get('hud') === '0') document.body.classList.add('no-hud');

function say(text) {
  state.message = text;
  $('message').textContent = text;
  $('message').hidden = !text;
}

let renderer;
try {
  // antialiasing costs software WebGL dearly: kept for pictures (hud=0), off for live pages
  renderer = new THREE.WebGLRenderer({ canvas, antialias: params.get('hud') === '0' || params.get('aa') === '1' });
} catch (err) {
  say(`This browser cannot draw WebGL: ${err.message}`);
  state.ready = true;
  throw err;
}
renderer.setPixelRatio(window.devicePixelRatio || 1);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0xdfe4ea);
scene.add(new THREE.HemisphereLight(0xffffff, 0x888888, 2.2));
const sun = new THREE.DirectionalLight(0xffffff, 1.2);
sun.position.set(0.3, -0.5, 1);
scene.add(sun);

let header = null;
let dirty = true; // draw only when something changed: an idle page costs nothing
let frames = null;
let robots = null;
let trails = null;
let overlays = null;
let texts = new Map(); // robot row -> debug text shown
let pose = null;       // poses of the frame shown
let persp, ortho, camera, controls;

function size() {
  return [canvas.clientWidth || window.innerWidth, canvas.clientHeight || window.innerHeight];
}

function setupCameras(bounds) {
  const [x0, y0, x1, y1] = bounds;
  const cx = (x0 + x1) / 2, cy = (y0 + y1) / 2, span = Math.max(x1 - x0, y1 - y0);
  persp = new THREE.PerspectiveCamera(45, 1, span / 1000, span * 50);
  persp.position.set(cx, cy - 1.1 * span, 0.9 * span);
  ortho = new THREE.OrthographicCamera(-1, 1, 1, -1, 0.01, 100);
  ortho.position.set(cx, cy, 20);
  ortho.up.set(0, 1, 0); // top-down: +y up the screen, +x to the right
  ortho.userData.bounds = bounds;
  setMode(state.mode);
}

function fitOrtho() {
  const [w, h] = size();
  const [x0, y0, x1, y1] = ortho.userData.bounds;
  const margin = 1.03;
  const aw = (x1 - x0) * margin, ah = (y1 - y0) * margin;
  const scale = Math.max(aw / w, ah / h); // metres per pixel: the whole arena fits
  ortho.left = -w * scale / 2; ortho.right = w * scale / 2;
  ortho.top = h * scale / 2; ortho.bottom = -h * scale / 2;
  ortho.updateProjectionMatrix();
}

function setMode(mode) {
  state.mode = mode === 'top' ? 'top' : '3d';
  const [x0, y0, x1, y1] = header.arena.bounds;
  const target = new THREE.Vector3((x0 + x1) / 2, (y0 + y1) / 2, 0);
  if (controls) controls.dispose();
  camera = state.mode === 'top' ? ortho : persp;
  controls = new OrbitControls(camera, canvas);
  controls.target.copy(target);
  if (state.mode === 'top') {
    ortho.position.set(target.x, target.y, 20);
    ortho.zoom = 1;
    controls.enableRotate = false;
    controls.screenSpacePanning = true;
    controls.mouseButtons = { LEFT: THREE.MOUSE.PAN, MIDDLE: THREE.MOUSE.DOLLY, RIGHT: THREE.MOUSE.PAN };
  }
  controls.update();
  controls.addEventListener('change', () => { dirty = true; });
  dirty = true;
  $('mode').textContent = state.mode === 'top' ? '3-D' : 'Top';
  resize();
}

function resize() {
  const [w, h] = size();
  renderer.setSize(w, h, false);
  if (persp) { persp.aspect = w / h; persp.updateProjectionMatrix(); }
  if (ortho) fitOrtho();
  dirty = true;
}
window.addEventListener('resize', resize);

// ---------------------------------------------------------------------------- playback
let shown = -1;         // frame on screen
let loading = null;     // frame being fetched
let accum = 0;

async function show(f) {
  f = Math.max(0, Math.min(f, state.frames - 1));
  if (f < 0) return;
  loading = f;
  const fr = await frames.get(f);
  if (loading !== f && loading !== null) return; // a later seek overtook this one
  loading = null;
  if (!fr) return;
  robots.update(fr.pose, fr.leds);
  pose = fr.pose;
  if (state.trails) trails.update(frames, f); else trails.hide();
  if (state.rays) overlays.showRays(fr.pose, fr.rays); else overlays.hideRays();
  if (state.links) await overlays.showLinks(f, fr.pose, state.live); else overlays.hideLinks();
  texts = state.text ? await overlays.texts(f, state.live) : new Map();
  shown = f;
  dirty = true;
  state.frame = f;
  state.tick = fr.tick;
  $('slider').value = String(f);
  info();
}

function info() {
  const frameCount = state.frames ? ` · ${state.frames} frames` : '';
  $('info').textContent = `tick ${state.tick ?? '–'}${frameCount} · ${state.robots} robots` +
    (state.live ? ' · live' : '') + (state.playing ? '' : ' · paused');
}

function setPlaying(on) {
  state.playing = on;
  $('play').textContent = on ? 'Pause' : 'Play';
  info();
}

function step(delta) {
  setPlaying(false);
  return show(state.frame + delta);
}

async function pollStatus() {
  try {
    const st = await (await fetch('api/status', { cache: 'no-store' })).json();
    const atEnd = state.frame >= state.frames - 1;
    state.frames = st.frames;
    state.live = st.live;
    state.stops = st.stops;
    frames.setStatus(st);
    $('slider').max = String(Math.max(0, st.frames - 1));
    if (st.stops) say(`This recording ${st.stops}.`);
    if (state.live && atEnd && st.frames > 0) show(st.frames - 1); // follow the run
    info();
  } catch (err) {
    if (state.live) say('The live run is no longer reachable.');
    state.live = false;
  }
}

let lastT = performance.now();
let fpsCount = 0, fpsT = performance.now();
function loop(t) {
  requestAnimationFrame(loop);
  const dt = Math.min(0.25, (t - lastT) / 1000);
  lastT = t;
  if (state.playing && loading === null && state.frames) {
    // real time × speed: one frame covers record_every ticks of dt_s
    accum += dt * state.speed / (header.dt_s * header.record_every);
    const adv = Math.floor(accum);
    if (adv >= 1) {
      accum -= adv;
      const next = shown + adv;
      if (next >= state.frames) {
        if (!state.live) setPlaying(false);
        if (shown !== state.frames - 1) show(state.frames - 1);
      } else {
        show(next);
      }
    }
  }
  if (controls.update()) dirty = true; // damping still moving the camera
  if (!dirty) return;
  dirty = false;
  renderer.render(scene, camera);
  if (pose) state.labels = overlays.placeLabels(texts, pose, worldToScreen);
  state.rendered += 1;
  fpsCount += 1;
  if (t - fpsT >= 1000) { state.fps = fpsCount * 1000 / (t - fpsT); fpsCount = 0; fpsT = t; }
}

function worldToScreen(x, y, z = 0) {
  const v = new THREE.Vector3(x, y, z).project(camera);
  const [w, h] = size();
  return [(v.x + 1) / 2 * w, (1 - v.y) / 2 * h];
}

async function seekTick(tick) {
  // frames are every record_every ticks from tick 0; the last may be off that grid
  const f = Math.round(tick / header.record_every);
  await show(f);
  return state.tick;
}

window.viewer = {
  seek: (f) => show(f).then(() => state.frame),
  seekTick,
  step,
  play: () => setPlaying(true),
  pause: () => setPlaying(false),
  setSpeed: (s) => { state.speed = s; },
  setMode: (m) => setMode(m),
  setTrails: (on) => { state.trails = on; $('trails').checked = on; return show(shown); },
  setLinks: (on) => { state.links = on; $('links').checked = on; return show(shown); },
  setText: (on) => { state.text = on; $('text').checked = on; return show(shown); },
  setRays: (on) => { state.rays = on; $('rays').checked = on; return show(shown); },
  worldToScreen,
  // resolves once the frame on screen has been drawn at least once more
  drawn: () => new Promise((res) => { dirty = true; const n = state.rendered; const w = () => (state.rendered > n ? res(state.tick) : requestAnimationFrame(w)); w(); }),
};

// ---------------------------------------------------------------------------- start
async function main() {
  let resp;
  try {
    resp = await fetch('api/header', { cache: 'no-store' });
  } catch (err) {
    resp = null;
  }
  if (!resp || !resp.ok) {
    let why = 'no server answered';
    if (resp) { try { why = (await resp.json()).error; } catch (e) { why = resp.statusText; } }
    state.noRun = true;
    $('info').textContent = 'no run';
    $('hud').hidden = true;
    say(`No run to show: ${why}. Start one with "swarmstack view RESULTS_DIR" or "swarmstack run EXP --view".`);
    state.ready = true;
    return;
  }
  header = await resp.json();
  state.robots = header.robots;
  document.title = `swarmstack · ${header.source}`;
  frames = new Frames(header);
  scene.add(buildArena(header.arena));
  robots = new Robots(header);
  scene.add(robots.object);
  trails = new Trails(header);
  scene.add(trails.object);
  overlays = new Overlays(header, $('labels'));
  scene.add(overlays.links);
  scene.add(overlays.rays);
  if (!header.rays) $('rays-toggle').hidden = true;
  if (!header.overlays?.links) $('links-toggle').hidden = true;
  setupCameras(header.arena.bounds);
  await pollStatus();
  if (state.live) setInterval(pollStatus, 500);
  if (state.frames === 0) say(state.stops ? `This recording ${state.stops}.` : 'The run has recorded no frame yet.');
  const want = params.get('tick');
  if (want !== null) await seekTick(Number(want));
  else await show(state.live ? state.frames - 1 : 0);
  if (params.get('play') === '1') setPlaying(true);
  $('play').onclick = () => setPlaying(!state.playing);
  $('step').onclick = () => step(1);
  $('back').onclick = () => step(-1);
  $('speed').onchange = (e) => { state.speed = Number(e.target.value); };
  $('slider').oninput = (e) => { setPlaying(false); show(Number(e.target.value)); };
  $('mode').onclick = () => setMode(state.mode === 'top' ? '3d' : 'top');
  $('trails').checked = state.trails;
  $('trails').onchange = (e) => window.viewer.setTrails(e.target.checked);
  $('links').checked = state.links;
  $('links').onchange = (e) => window.viewer.setLinks(e.target.checked);
  $('rays').checked = state.rays;
  $('rays').onchange = (e) => window.viewer.setRays(e.target.checked);
  $('text').checked = state.text;
  $('text').onchange = (e) => window.viewer.setText(e.target.checked);
  info();
  requestAnimationFrame(loop);
  state.ready = true;
}

main().catch((err) => { say(`The viewer failed: ${err.message}`); state.ready = true; });
