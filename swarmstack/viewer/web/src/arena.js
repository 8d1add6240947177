// The static scene of a recording's header: floor (colour or image), walls and boxes,
// cylinders, and lights drawn as glowing spheres at their height.
import * as THREE from 'three';

export function buildArena(arena) {
  const root = new THREE.Group();
  const [x0, y0, x1, y1] = arena.bounds;
  const floorMat = new THREE.MeshLambertMaterial({ color: 0xffffff });
  if (arena.floor.image) {
    const tex = new THREE.TextureLoader().load('api/floor.png');
    tex.colorSpace = THREE.SRGBColorSpace;
    tex.magFilter = THREE.NearestFilter;
    floorMat.map = tex;
  } else {
    const [r, g, b] = arena.floor.rgb;
    floorMat.color = new THREE.Color(`rgb(${r}, ${g}, ${b})`);
  }
  // image row 0 is the arena's y_max edge: a plane's uv v = 1 is its +y edge (flipY)
  const floor = new THREE.Mesh(new THREE.PlaneGeometry(x1 - x0, y1 - y0), floorMat);
  floor.position.set((x0 + x1) / 2, (y0 + y1) / 2, 0);
  root.add(floor);

  const boxMat = new THREE.MeshLambertMaterial({ color: 0x8a8f99 });
  for (const b of arena.boxes) {
    const m = new THREE.Mesh(new THREE.BoxGeometry(2 * b.half_x, 2 * b.half_y, b.height), boxMat);
    m.position.set(b.cx, b.cy, b.height / 2);
    m.rotation.z = b.yaw;
    root.add(m);
  }
  const cylMat = new THREE.MeshLambertMaterial({ color: 0x7a8290 });
  for (const c of arena.cylinders) {
    const m = new THREE.Mesh(new THREE.CylinderGeometry(c.radius, c.radius, c.height, 32), cylMat);
    m.rotation.x = Math.PI / 2; // three's cylinders stand along y
    m.position.set(c.cx, c.cy, c.height / 2);
    root.add(m);
  }
  const span = Math.max(x1 - x0, y1 - y0);
  for (const l of arena.lights) {
    const [r, g, b] = l.rgb;
    const colour = new THREE.Color(`rgb(${r}, ${g}, ${b})`);
    const m = new THREE.Mesh(new THREE.SphereGeometry(Math.max(0.02, span * 0.01), 16, 12),
      new THREE.MeshBasicMaterial({ color: colour }));
    m.position.set(l.x, l.y, l.z);
    root.add(m);
    const glow = new THREE.PointLight(colour, 0.3 * l.intensity, 0, 1);
    glow.position.copy(m.position);
    root.add(glow);
  }
  return root;
}
