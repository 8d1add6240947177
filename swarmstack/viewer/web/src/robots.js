// Every robot drawn from its group's Body (disc or box, half extents, height) and its type's
// LED layout, so a new robot type needs nothing here.
//
// Each group is one mesh whose vertices are the group's body (with a white heading wedge on
// top) repeated per robot and moved to each robot's pose on the CPU every frame; lit LEDs are
// one mesh of small octahedra. Shading is baked into vertex colours (top faces full colour,
// sides darker, the front a little lighter), so no normals are moved or lit per frame.
// Software WebGL (SwiftShader, what headless Chromium has without a GPU) draws a few large
// meshes far faster than instanced ones: 1 000 instances of a single triangle cost it as much
// as 100 000 plain triangles.
import * as THREE from 'three';

const PALETTE = [0x3b6ea8, 0xb5651d, 0x4f8f4f, 0x8e4b8e, 0x9c8b2e, 0x2e8c8c, 0x8c2e3a];
const HEADING = new THREE.Color(0xf5f5f5);

function mergeTwo(a, b) {
  const out = new THREE.BufferGeometry();
  for (const name of ['position', 'normal']) {
    const x = a.attributes[name].array, y = b.attributes[name].array;
    const m = new Float32Array(x.length + y.length);
    m.set(x); m.set(y, x.length);
    out.setAttribute(name, new THREE.BufferAttribute(m, 3));
  }
  return out;
}

function bodyGeometry(body, segments) {
  const h = body.height_m;
  let g;
  if (body.shape === 'box') {
    g = new THREE.BoxGeometry(2 * body.half_x, 2 * body.half_y, h);
  } else {
    // no bottom cap: robots stand on the floor (a drone seen from below shows its inside)
    g = new THREE.CylinderGeometry(body.half_x, body.half_x, h, segments, 1, true);
    const top = new THREE.CircleGeometry(body.half_x, segments);
    top.rotateX(-Math.PI / 2); top.translate(0, h / 2, 0);
    g = mergeTwo(g.toNonIndexed(), top.toNonIndexed());
    g.rotateX(Math.PI / 2); // three's cylinders stand along y
  }
  g.translate(0, 0, h / 2); // a pose's z is the height of the body's base
  return g.index ? g.toNonIndexed() : g;
}

function headingGeometry(body) {
  // a flat wedge on the top face pointing along the body's +x
  const len = body.half_x * 0.9, w = Math.min(body.half_y, body.half_x) * 0.45;
  const shape = new THREE.Shape();
  shape.moveTo(len, 0); shape.lineTo(0, w); shape.lineTo(0, -w); shape.closePath();
  const g = new THREE.ShapeGeometry(shape);
  g.translate(0, 0, body.height_m + 0.0005);
  return g.toNonIndexed();
}

// one robot's template: positions, normals and colours of its triangles (body then wedge)
function template(body, colour, segments) {
  const parts = [[bodyGeometry(body, segments), colour], [headingGeometry(body), HEADING]];
  const n = parts.reduce((s, [g]) => s + g.attributes.position.count, 0);
  const pos = new Float32Array(n * 3), nor = new Float32Array(n * 3), col = new Float32Array(n * 3);
  let at = 0;
  for (const [g, c] of parts) {
    const p = g.attributes.position.array, q = g.attributes.normal.array;
    pos.set(p, at * 3); nor.set(q, at * 3);
    for (let v = 0; v < p.length / 3; v++) {
      const nx = q[v * 3], nz = q[v * 3 + 2];
      const shade = nz > 0.5 ? 1 : nz < -0.5 ? 0.45 : 0.68 + 0.12 * nx;
      col[(at + v) * 3] = c.r * shade; col[(at + v) * 3 + 1] = c.g * shade; col[(at + v) * 3 + 2] = c.b * shade;
    }
    at += p.length / 3;
  }
  return { pos, nor, col, n };
}

function dynamicMesh(vertices, material, colours) {
  const geo = new THREE.BufferGeometry();
  geo.setAttribute('position', new THREE.BufferAttribute(new Float32Array(vertices * 3), 3).setUsage(THREE.DynamicDrawUsage));
  geo.setAttribute('color', new THREE.BufferAttribute(colours ?? new Float32Array(vertices * 3), 3).setUsage(THREE.DynamicDrawUsage));
  const mesh = new THREE.Mesh(geo, material);
  mesh.frustumCulled = false;
  return mesh;
}

export class Robots {
  constructor(header) {
    this.object = new THREE.Group();
    this.groups = [];
    const segments = header.robots > 300 ? 10 : 28;
    header.groups.forEach((g, gi) => {
      const t = template(g.body, new THREE.Color(PALETTE[gi % PALETTE.length]), segments);
      const col = new Float32Array(t.n * 3 * g.count);
      for (let i = 0; i < g.count; i++) col.set(t.col, i * t.n * 3);
      const mesh = dynamicMesh(t.n * g.count,
        new THREE.MeshBasicMaterial({ vertexColors: true }), col);
      this.object.add(mesh);
      this.groups.push({ g, t, mesh });
    });
    // a thin line down to the floor and a shadow under every robot off the ground: altitude
    // is readable in any view
    const stalkGeo = new THREE.BufferGeometry();
    stalkGeo.setAttribute('position', new THREE.BufferAttribute(new Float32Array(header.robots * 6), 3).setUsage(THREE.DynamicDrawUsage));
    this.stalks = new THREE.LineSegments(stalkGeo, new THREE.LineBasicMaterial({ color: 0x555555 }));
    this.stalks.frustumCulled = false;
    this.object.add(this.stalks);
    const marks = header.groups.reduce(
      (s, g) => s + (g.leds ? g.count * g.leds.emitters_m.length : 0), 0);
    this.led = null;
    if (marks > 0) {
      const small = Math.min(...header.groups.filter((g) => g.leds).map((g) => Math.min(g.body.half_x, g.body.half_y)));
      const ledR = Math.max(0.003, small * 0.14);
      const oct = new THREE.OctahedronGeometry(ledR, header.robots > 300 ? 0 : 1).toNonIndexed();
      // an emitter inside the body (e.g. a drone's LED ring at its centre) would never be
      // seen: it is drawn on the top face above where it is
      for (const grp of this.groups) {
        const { g } = grp;
        if (!g.leds) continue;
        const b = g.body;
        grp.emitters = g.leds.emitters_m.map(([x, y, z]) => {
          const inside = b.shape === 'box'
            ? Math.abs(x) < b.half_x - ledR / 2 && Math.abs(y) < b.half_y - ledR / 2
            : Math.hypot(x, y) < b.half_x - ledR / 2;
          return inside && z < b.height_m ? [x, y, b.height_m + ledR * 0.3] : [x, y, z];
        });
      }
      this.ledTemplate = oct.attributes.position.array;
      this.ledVerts = oct.attributes.position.count;
      this.led = dynamicMesh(marks * this.ledVerts, new THREE.MeshBasicMaterial({ vertexColors: true }));
      this.led.geometry.setDrawRange(0, 0);
      this.object.add(this.led);
    }
  }

  update(pose, leds) {
    const col = new THREE.Color();
    let lit = 0; // lit LEDs are packed first; only they are drawn
    const lpos = this.led ? this.led.geometry.attributes.position.array : null;
    const lcol = this.led ? this.led.geometry.attributes.color.array : null;
    const lt = this.ledTemplate, lv = this.ledVerts;
    const S = this.stalks.geometry.attributes.position.array;
    let up = 0;
    for (const { g, t, mesh, emitters } of this.groups) {
      const P = mesh.geometry.attributes.position.array;
      const tp = t.pos, nv = t.n;
      const em = emitters ?? null;
      const owner = g.leds ? g.leds.owner : null;
      for (let i = 0; i < g.count; i++) {
        const p = (g.first_row + i) * 6;
        const x = pose[p], y = pose[p + 1], z = pose[p + 2];
        const cr = Math.cos(pose[p + 3]), sr = Math.sin(pose[p + 3]);
        const cp = Math.cos(pose[p + 4]), sp = Math.sin(pose[p + 4]);
        const cy = Math.cos(pose[p + 5]), sy = Math.sin(pose[p + 5]);
        // R = Rz(yaw) Ry(pitch) Rx(roll)
        const r00 = cy * cp, r10 = sy * cp, r20 = -sp;
        const r01 = cy * sp * sr - sy * cr, r11 = sy * sp * sr + cy * cr, r21 = cp * sr;
        const r02 = cy * sp * cr + sy * sr, r12 = sy * sp * cr - cy * sr, r22 = cp * cr;
        if (z > 0.005) {
          S.set([x, y, 0.001, x, y, z], up * 6);
          up++;
        }
        let o = i * nv * 3;
        for (let v = 0; v < nv * 3; v += 3, o += 3) {
          const a = tp[v], b = tp[v + 1], c = tp[v + 2];
          P[o] = x + r00 * a + r01 * b + r02 * c;
          P[o + 1] = y + r10 * a + r11 * b + r12 * c;
          P[o + 2] = z + r20 * a + r21 * b + r22 * c;
        }
        if (!em) continue;
        for (let e = 0; e < em.length; e++) {
          const led = (g.leds.first + i * g.leds.count + owner[e]) * 3;
          const lr = leds[led], lg = leds[led + 1], lb = leds[led + 2];
          if (!(lr | lg | lb)) continue; // an LED that is off is not drawn
          const lx = em[e][0], ly = em[e][1], lz = em[e][2];
          const cx = x + r00 * lx + r01 * ly + r02 * lz;
          const cyy = y + r10 * lx + r11 * ly + r12 * lz;
          const cz = z + r20 * lx + r21 * ly + r22 * lz;
          col.setRGB(lr / 255, lg / 255, lb / 255, THREE.SRGBColorSpace);
          let q = lit * lv * 3;
          for (let v = 0; v < lv * 3; v += 3, q += 3) {
            lpos[q] = cx + lt[v]; lpos[q + 1] = cyy + lt[v + 1]; lpos[q + 2] = cz + lt[v + 2];
            lcol[q] = col.r; lcol[q + 1] = col.g; lcol[q + 2] = col.b;
          }
          lit++;
        }
      }
      mesh.geometry.attributes.position.needsUpdate = true;
    }
    this.stalks.geometry.setDrawRange(0, up * 2);
    this.stalks.geometry.attributes.position.needsUpdate = true;
    if (this.led) {
      this.led.geometry.setDrawRange(0, lit * lv);
      const a = this.led.geometry.attributes;
      a.position.needsUpdate = true;
      a.color.needsUpdate = true;
      // only the lit part is sent to the GPU
      a.position.clearUpdateRanges(); a.position.addUpdateRange(0, lit * lv * 3);
      a.color.clearUpdateRanges(); a.color.addUpdateRange(0, lit * lv * 3);
    }
  }
}
