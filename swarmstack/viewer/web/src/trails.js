// The trajectories overlay: each robot's path over the last TRAIL_FRAMES frames, drawn from
// the frames already fetched (one line segment per robot per frame step).
import * as THREE from 'three';

const TRAIL_FRAMES = 100;

export class Trails {
  constructor(header) {
    this.n = header.robots;
    this.positions = new Float32Array(this.n * (TRAIL_FRAMES - 1) * 2 * 3);
    const geo = new THREE.BufferGeometry();
    geo.setAttribute('position', new THREE.BufferAttribute(this.positions, 3).setUsage(THREE.DynamicDrawUsage));
    this.object = new THREE.LineSegments(geo, new THREE.LineBasicMaterial({ color: 0x444c5c, transparent: true, opacity: 0.6 }));
    this.object.frustumCulled = false;
    this.geo = geo;
  }

  hide() {
    this.object.visible = false;
  }

  update(frames, f) {
    this.object.visible = true;
    const pos = this.positions, n = this.n;
    let seg = 0;
    let later = frames.cached(f);
    for (let k = 1; k < TRAIL_FRAMES && f - k >= 0 && later; k++) {
      const earlier = frames.cached(f - k);
      if (!earlier) break;
      const a = earlier.pose, b = later.pose;
      for (let i = 0; i < n; i++) {
        const o = seg * 6, p = i * 6;
        pos[o] = a[p]; pos[o + 1] = a[p + 1]; pos[o + 2] = a[p + 2] + 0.002;
        pos[o + 3] = b[p]; pos[o + 4] = b[p + 1]; pos[o + 5] = b[p + 2] + 0.002;
        seg++;
      }
      later = earlier;
    }
    this.geo.setDrawRange(0, seg * 2);
    this.geo.attributes.position.needsUpdate = true;
  }
}
