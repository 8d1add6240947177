// Sensor rays (from the frames), radio links and debug text (fetched per chunk, api/links/K,
// api/text/K, when shown).
// Rays: each ray of each ray-casting device from its start to what it hit (orange) or to the
// end of its range (grey).
// Links: a line from each sender's antenna to each robot that heard it in the frame shown.
// Text: each robot's last script log line of the last TEXT_HOLD_S simulated seconds, as a
// label over the robot.
import * as THREE from 'three';

const TEXT_HOLD_S = 2.0;
const MAX_LABELS = 300;

export class Overlays {
  constructor(header, labelsDiv) {
    this.header = header;
    this.cf = header.chunk_frames;
    this.cache = new Map(); // `${kind}/${k}` -> {data, frames (how many frames it covers)}
    this.heights = new Float32Array(header.robots);
    for (const g of header.groups) for (let i = 0; i < g.count; i++) this.heights[g.first_row + i] = g.body.height_m;
    this.geo = new THREE.BufferGeometry();
    this.capacity = 0;
    this.links = new THREE.LineSegments(this.geo, new THREE.LineBasicMaterial({ color: 0xd0402b, transparent: true, opacity: 0.7 }));
    this.links.frustumCulled = false;
    this.links.visible = false;
    this.labelsDiv = labelsDiv;
    this.labels = [];
    const nRays = header.rays ?? 0;
    const rg = new THREE.BufferGeometry();
    rg.setAttribute('position', new THREE.BufferAttribute(new Float32Array(nRays * 6), 3).setUsage(THREE.DynamicDrawUsage));
    rg.setAttribute('color', new THREE.BufferAttribute(new Float32Array(nRays * 6), 3).setUsage(THREE.DynamicDrawUsage));
    this.rays = new THREE.LineSegments(rg, new THREE.LineBasicMaterial({ vertexColors: true }));
    this.rays.frustumCulled = false;
    this.rays.visible = false;
  }

  showRays(pose, rays) {
    const P = this.rays.geometry.attributes.position.array, C = this.rays.geometry.attributes.color.array;
    let n = 0;
    for (const g of this.header.groups) {
      for (const dev of g.rays ?? []) {
        for (let i = 0; i < g.count; i++) {
          const p = (g.first_row + i) * 6;
          const x = pose[p], y = pose[p + 1], z = pose[p + 2], c = Math.cos(pose[p + 5]), s = Math.sin(pose[p + 5]);
          for (let k = 0; k < dev.count; k++) {
            const q = rays[dev.first + i * dev.count + k];
            const a = dev.angle_rad[k], ring = dev.ring_m[k];
            const ux = Math.cos(a), uy = Math.sin(a); // body frame
            const wx = c * ux - s * uy, wy = s * ux + c * uy;
            const len = (q === 255 ? 1 : q / 254) * dev.range_m;
            const sx = x + ring * wx, sy = y + ring * wy, sz = z + dev.elevation_m[k];
            P.set([sx, sy, sz, sx + len * wx, sy + len * wy, sz], n * 6);
            const col = q === 255 ? [0.6, 0.6, 0.6] : [0.95, 0.45, 0.05];
            C.set([...col, ...col], n * 6);
            n++;
          }
        }
      }
    }
    this.rays.geometry.setDrawRange(0, n * 2);
    this.rays.geometry.attributes.position.needsUpdate = true;
    this.rays.geometry.attributes.color.needsUpdate = true;
    this.rays.visible = true;
  }

  hideRays() { this.rays.visible = false; }

  async fetch(kind, k, frameInChunk, live) {
    const key = `${kind}/${k}`;
    const have = this.cache.get(key);
    if (have && (have.frames > frameInChunk || !live)) return have;
    const r = await fetch(`api/${kind}/${k}`, { cache: 'no-store' });
    if (!r.ok) return null;
    let entry;
    if (kind === 'links') {
      const buf = await r.arrayBuffer();
      const F = new Uint32Array(buf, 0, 1)[0];
      entry = { offsets: new Uint32Array(buf, 4, F + 1), pairs: new Uint32Array(buf, 8 + 4 * F), frames: F };
    } else {
      const lines = await r.json();
      entry = { lines, frames: live ? frameInChunk + 1 : this.cf };
    }
    this.cache.set(key, entry);
    if (this.cache.size > 24) this.cache.delete(this.cache.keys().next().value);
    return entry;
  }

  async showLinks(f, pose, live) {
    if (!this.header.overlays?.links) { this.links.visible = false; return; }
    const k = Math.floor(f / this.cf), i = f % this.cf;
    const e = await this.fetch('links', k, i, live);
    if (!e || e.frames <= i) { this.links.visible = false; return; }
    const a = e.offsets[i], b = e.offsets[i + 1], m = b - a;
    if (m * 2 > this.capacity) {
      this.capacity = Math.max(m * 2, this.capacity * 2, 1024);
      this.geo.setAttribute('position', new THREE.BufferAttribute(new Float32Array(this.capacity * 3), 3).setUsage(THREE.DynamicDrawUsage));
    }
    const P = this.geo.attributes.position.array;
    for (let j = 0; j < m; j++) {
      const s = e.pairs[(a + j) * 2], r = e.pairs[(a + j) * 2 + 1];
      P.set([pose[s * 6], pose[s * 6 + 1], pose[s * 6 + 2] + this.heights[s],
        pose[r * 6], pose[r * 6 + 1], pose[r * 6 + 2] + this.heights[r]], j * 6);
    }
    this.geo.setDrawRange(0, m * 2);
    this.geo.attributes.position.needsUpdate = true;
    this.links.visible = true;
  }

  hideLinks() { this.links.visible = false; }

  // robot row -> text of the last line within TEXT_HOLD_S before frame f
  async texts(f, live) {
    const hold = Math.max(1, Math.round(TEXT_HOLD_S / (this.header.dt_s * this.header.record_every)));
    const out = new Map();
    const k0 = Math.floor(Math.max(0, f - hold) / this.cf), k1 = Math.floor(f / this.cf);
    for (let k = k0; k <= k1; k++) {
      const e = await this.fetch('text', k, f - k * this.cf, live && k === k1);
      if (!e) continue;
      for (const [fi, row, text] of e.lines) {
        const frame = k * this.cf + fi;
        if (frame <= f && frame > f - hold) out.set(row, text);
      }
    }
    return out;
  }

  placeLabels(texts, pose, toScreen) {
    let n = 0;
    for (const [row, text] of texts) {
      if (n >= MAX_LABELS) break;
      let el = this.labels[n];
      if (!el) { el = document.createElement('div'); el.className = 'label'; this.labelsDiv.appendChild(el); this.labels.push(el); }
      const [x, y] = toScreen(pose[row * 6], pose[row * 6 + 1], pose[row * 6 + 2] + this.heights[row]);
      el.textContent = text;
      el.style.transform = `translate(${x.toFixed(1)}px, ${(y - 16).toFixed(1)}px) translateX(-50%)`;
      el.hidden = false;
      n++;
    }
    for (let j = n; j < this.labels.length; j++) this.labels[j].hidden = true;
    return n;
  }
}
