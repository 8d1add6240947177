// Every robot drawn from its group's Body (disc or box, half extents, height) and its type's
// LED layout, so a new robot type needs nothing here. One InstancedMesh per group body, one
// for the heading marks, one for all LEDs: per frame only instance matrices and LED colours
// change.
import * as THREE from 'three';

const PALETTE = [0x3b6ea8, 0xb5651d, 0x4f8f4f, 0x8e4b8e, 0x9c8b2e, 0x2e8c8c, 0x8c2e3a];
const OFF = new THREE.Color(0x222222);

function bodyGeometry(body) {
  const h = body.height_m;
  let g;
  if (body.shape === 'box') {
    g = new THREE.BoxGeometry(2 * body.half_x, 2 * body.half_y, h);
  } else {
    g = new THREE.CylinderGeometry(body.half_x, body.half_x, h, 28);
    g.rotateX(Math.PI / 2);
  }
  g.translate(0, 0, h / 2); // a pose's z is the height of the body's base
  return g;
}

function headingGeometry(body) {
  // a flat wedge on the top face pointing along the body's +x
  const len = body.half_x * 0.9, w = Math.min(body.half_y, body.half_x) * 0.45;
  const shape = new THREE.Shape();
  shape.moveTo(len, 0); shape.lineTo(0, w); shape.lineTo(0, -w); shape.closePath();
  const g = new THREE.ShapeGeometry(shape);
  g.translate(0, 0, body.height_m + 0.0005);
  return g;
}

export class Robots {
  constructor(header) {
    this.object = new THREE.Group();
    this.groups = [];
    const nLedMarks = header.groups.reduce(
      (s, g) => s + (g.leds ? g.count * g.leds.emitters_m.length : 0), 0);
    this.ledMesh = null;
    if (nLedMarks > 0) {
      const small = Math.min(...header.groups.filter((g) => g.leds).map((g) => Math.min(g.body.half_x, g.body.half_y)));
      this.ledRadius = Math.max(0.003, small * 0.14);
      this.ledMesh = new THREE.InstancedMesh(new THREE.IcosahedronGeometry(this.ledRadius, 1),
        new THREE.MeshBasicMaterial({ color: 0xffffff }), nLedMarks);
      this.ledMesh.frustumCulled = false;
      this.ledMesh.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
      this.ledMesh.setColorAt(0, OFF);
      this.object.add(this.ledMesh);
    }
    let mark = 0;
    header.groups.forEach((g, gi) => {
      const mat = new THREE.MeshLambertMaterial({ color: PALETTE[gi % PALETTE.length] });
      const body = new THREE.InstancedMesh(bodyGeometry(g.body), mat, g.count);
      const head = new THREE.InstancedMesh(headingGeometry(g.body),
        new THREE.MeshBasicMaterial({ color: 0xf5f5f5 }), g.count);
      for (const m of [body, head]) {
        m.frustumCulled = false;
        m.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
        this.object.add(m);
      }
      this.groups.push({ g, body, head, firstMark: mark });
      if (g.leds) mark += g.count * g.leds.emitters_m.length;
    });
  }

  update(pose, leds) {
    const col = new THREE.Color();
    for (const { g, body, head, firstMark } of this.groups) {
      const bm = body.instanceMatrix.array, hm = head.instanceMatrix.array;
      const em = g.leds ? g.leds.emitters_m : null;
      const owner = g.leds ? g.leds.owner : null;
      const lm = this.ledMesh ? this.ledMesh.instanceMatrix.array : null;
      const lc = this.ledMesh ? this.ledMesh.instanceColor.array : null;
      for (let i = 0; i < g.count; i++) {
        const p = (g.first_row + i) * 6;
        const x = pose[p], y = pose[p + 1], z = pose[p + 2];
        const cr = Math.cos(pose[p + 3]), sr = Math.sin(pose[p + 3]);
        const cp = Math.cos(pose[p + 4]), sp = Math.sin(pose[p + 4]);
        const cy = Math.cos(pose[p + 5]), sy = Math.sin(pose[p + 5]);
        // R = Rz(yaw) Ry(pitch) Rx(roll), column-major
        const r00 = cy * cp, r10 = sy * cp, r20 = -sp;
        const r01 = cy * sp * sr - sy * cr, r11 = sy * sp * sr + cy * cr, r21 = cp * sr;
        const r02 = cy * sp * cr + sy * sr, r12 = sy * sp * cr - cy * sr, r22 = cp * cr;
        const o = i * 16;
        bm[o] = r00; bm[o + 1] = r10; bm[o + 2] = r20; bm[o + 3] = 0;
        bm[o + 4] = r01; bm[o + 5] = r11; bm[o + 6] = r21; bm[o + 7] = 0;
        bm[o + 8] = r02; bm[o + 9] = r12; bm[o + 10] = r22; bm[o + 11] = 0;
        bm[o + 12] = x; bm[o + 13] = y; bm[o + 14] = z; bm[o + 15] = 1;
        for (let k = 0; k < 16; k++) hm[o + k] = bm[o + k];
        if (!em) continue;
        const nE = em.length;
        for (let e = 0; e < nE; e++) {
          const q = (firstMark + i * nE + e);
          const led = (g.leds.first + i * g.leds.count + owner[e]) * 3;
          const lr = leds[led], lg = leds[led + 1], lb = leds[led + 2];
          const lit = lr | lg | lb;
          const lx = em[e][0], ly = em[e][1], lz = em[e][2];
          const s = lit ? 1 : 0; // an LED that is off is not drawn
          const m = q * 16;
          lm[m] = s; lm[m + 1] = 0; lm[m + 2] = 0; lm[m + 3] = 0;
          lm[m + 4] = 0; lm[m + 5] = s; lm[m + 6] = 0; lm[m + 7] = 0;
          lm[m + 8] = 0; lm[m + 9] = 0; lm[m + 10] = s; lm[m + 11] = 0;
          lm[m + 12] = x + r00 * lx + r01 * ly + r02 * lz;
          lm[m + 13] = y + r10 * lx + r11 * ly + r12 * lz;
          lm[m + 14] = z + r20 * lx + r21 * ly + r22 * lz;
          lm[m + 15] = 1;
          if (lit) {
            col.setRGB(lr / 255, lg / 255, lb / 255, THREE.SRGBColorSpace);
            lc[q * 3] = col.r; lc[q * 3 + 1] = col.g; lc[q * 3 + 2] = col.b;
          }
        }
      }
      body.instanceMatrix.needsUpdate = true;
      head.instanceMatrix.needsUpdate = true;
    }
    if (this.ledMesh) {
      this.ledMesh.instanceMatrix.needsUpdate = true;
      this.ledMesh.instanceColor.needsUpdate = true;
    }
  }
}
