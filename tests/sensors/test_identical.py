"""The rebuilt light, lux, camera, proximity and ToF kernels read exactly what the frozen
originals (``oracle``) read, on random scenes — serial and parallel forms alike.

A scene: a batch of runs with different robot counts, poses anywhere (overlapping one another,
touching or inside walls, some lifted off the floor), bodies of two sizes, walls of random
height (lights above some), boxes and cylinders, lights of random intensity and colour, and
emitters lit at random. Every device reads a sub-slice of the robots too (a group that does not
start at robot 0).
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from types import SimpleNamespace

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle import camera as old_camera
from oracle import light as old_light
from oracle import long_rays as old_long_rays

from swarmstack.sim import threads
from swarmstack.robots import epuck2
from swarmstack.sensors.camera import Camera
from swarmstack.sensors.light import Light, illumination, illumination_state
from swarmstack.sensors.lux import Lux
from swarmstack.sensors.proximity import Proximity
from swarmstack.sensors.ranging import RayLayout, cast
from swarmstack.sensors.tof import ToF
from swarmstack.world.arena import Arena, wall_boxes
from swarmstack.world.rng import FIXED_WORDS
from swarmstack.world.scene import GroupSlice, Scene
from swarmstack.world.state import Bodies, Emitters, World

EXAMPLES = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
NOISES = ("none", "uniform", "gaussian")


@contextlib.contextmanager
def thread_mode(parallel: bool):
    """Two threads and parallel kernels from one robot on, or one thread; restored after."""
    before = (threads.threads(), threads.parallel_min())
    threads.set_threads(2 if parallel else 1)
    threads.set_parallel_min(1)
    try:
        yield
    finally:
        threads.set_threads(before[0])
        threads.set_parallel_min(before[1])


def random_world(seed: int, max_per_run: int = 45):
    """A random batch (see the module doc) of up to ``max_per_run`` − 1 robots a run; returns
    ``(world, keys, rng)``."""
    rng = np.random.default_rng(seed)
    w = rng.uniform(0.4, 2.5)
    h = rng.uniform(0.4, 2.5)
    bounds = (-w / 2, -h / 2, w / 2, h / 2)
    thick = rng.uniform(0.005, 0.05)
    boxes = [wall_boxes(bounds, thick, rng.choice([0.02, 0.04, 0.1, rng.uniform(0.01, 0.3)]))]
    for _ in range(rng.integers(0, 5)):
        boxes.append(np.array([[rng.uniform(-w / 2, w / 2), rng.uniform(-h / 2, h / 2),
                                rng.uniform(0.005, 0.2), rng.uniform(0.005, 0.2),
                                rng.uniform(-math.pi, math.pi), rng.uniform(0.01, 0.2)]]))
    cyl = np.array([[rng.uniform(-w / 2, w / 2), rng.uniform(-h / 2, h / 2),
                     rng.uniform(0.01, 0.15), rng.uniform(0.01, 0.2)]
                    for _ in range(rng.integers(0, 5))]).reshape(-1, 4)
    n_lights = rng.integers(0, 9)
    lights = np.column_stack([rng.uniform(-w / 2, w / 2, n_lights),
                              rng.uniform(-h / 2, h / 2, n_lights),
                              rng.choice([0.0, 0.043, 0.1, 0.3], n_lights),
                              rng.choice([0.0, 0.1, 1.0, 3.0], n_lights)]).reshape(-1, 4)
    light_rgb = (rng.integers(0, 2, (n_lights, 3)) * 255).astype(np.uint8)
    arena = Arena(bounds, boxes=np.concatenate(boxes), cylinders=cyl, lights=lights,
                  light_rgb=light_rgb)
    n_runs = int(rng.integers(1, 4))
    per_run = [int(rng.integers(0, max_per_run)) for _ in range(n_runs)]
    if sum(per_run) == 0:
        per_run[0] = 1
    run = np.repeat(np.arange(n_runs), per_run)
    ids = np.concatenate([np.arange(k) for k in per_run])
    n = run.shape[0]
    x = rng.uniform(-w / 2, w / 2, n)
    y = rng.uniform(-h / 2, h / 2, n)
    edge = rng.random(n) < 0.15  # touching a wall
    x[edge] = -w / 2 + thick + epuck2.RADIUS_M
    twin = rng.random(n) < 0.15  # overlapping the previous robot
    twin[0] = False
    x[twin] = x[np.flatnonzero(twin) - 1] + rng.uniform(-0.03, 0.03, twin.sum())
    y[twin] = y[np.flatnonzero(twin) - 1]
    yaw = rng.uniform(-math.pi, math.pi, n)
    yaw[rng.random(n) < 0.1] = 0.0
    # headings never wrapped (a user's pose), some beyond where a camera's pre-test
    # approximates them
    far = rng.random(n) < 0.1
    yaw[far] += rng.choice([-1.0, 1.0], far.sum()) * 2 * math.pi * rng.choice(
        [1.0, 1e3, 1e4, 2e4], far.sum())
    z = np.where(rng.random(n) < 0.1, rng.uniform(0.0, 0.1, n), 0.0)
    radius = np.where(rng.random(n) < 0.2, 0.05, epuck2.RADIUS_M)
    height = np.where(rng.random(n) < 0.2, 0.02, epuck2.HEIGHT_M)
    bodies = Bodies(run, ids, x, y, z, yaw, radius, height)
    local, _ = epuck2.led_emitters()
    e = local.shape[0]
    rgb = np.zeros((n, e, 3), dtype=np.uint8)
    lit = rng.random((n, e)) < rng.choice([0.0, 0.05, 0.3])
    rgb[lit] = rng.integers(0, 256, (int(lit.sum()), 3))
    em = Emitters(np.repeat(local[None], n, axis=0), np.zeros((n, e, 3)), rgb,
                  rng.choice([0.0, 0.1, 1.0], (n, e)), rng.integers(0, e + 1, n))
    scene = Scene.create(arena, [GroupSlice("g", "epuck2", 0, n, max(per_run), 0)], n_runs, 0.1,
                         float(radius.max()))
    world = World(scene, bodies, em)
    from swarmstack.actuators.leds import update_emitters

    update_emitters(bodies.x, bodies.y, bodies.z, bodies.yaw, em.local, em.world)
    world.tick = int(rng.integers(0, 1 << 20))
    keys = rng.integers(0, 1 << 63, (n, 11), dtype=np.uint64)
    return world, keys, rng


def groups(world, rng):
    """The whole batch, and a slice of it that does not start at robot 0."""
    n = world.bodies.n
    a = int(rng.integers(0, n))
    b = int(rng.integers(a + 1, n + 1))
    return [SimpleNamespace(start=0, stop=n, n=n), SimpleNamespace(start=a, stop=b, n=b - a)]


def both_forms(new):
    """``new()`` once on one thread and once on the parallel kernels: both must agree."""
    with thread_mode(False):
        serial = new()
    with thread_mode(True):
        parallel = new()
    for s, p in zip(serial, parallel):
        assert np.array_equal(s, p)
    return serial


def sensed(dev, world, g, k, out, state):
    """One tick of ``dev`` into ``out``, planned and called as a simulation does."""
    dev.plan(world, g, own_keys(dev, k), out, state)()


def own_keys(dev, k):
    """The column of ``k`` (uint64[n, streams], as the oracles read it) that is ``dev``'s
    own stream."""
    return np.ascontiguousarray(k[:, FIXED_WORDS[dev.stream]])


def moved(world, rng):
    """The robots of ``world`` moved a little and turned (emitters and grid follow)."""
    from swarmstack.actuators.leds import update_emitters

    b = world.bodies
    n = b.n
    b.pose[0] += rng.uniform(-0.05, 0.05, n)
    b.pose[1] += rng.uniform(-0.05, 0.05, n)
    b.pose[5] += rng.uniform(-1.0, 1.0, n)
    em = world.emitters
    update_emitters(b.x, b.y, b.z, b.yaw, em.local, em.world)
    world.refresh_grid()


def noise(rng):
    kind = NOISES[int(rng.integers(0, 3))]
    return {"noise": kind, "noise_level": float(rng.choice([0.0, 0.01, 0.2]))}


@EXAMPLES
@given(seed=st.integers(0, 2**32 - 1))
def test_light_and_lux(seed):
    world, keys, rng = random_world(seed)
    light = epuck2.light_device(**noise(rng))
    if rng.random() < 0.5:  # another layout: fewer sensors, longer range, other gain
        light = Light((0.3, -2.0, 3.1), 0.05, 0.02, float(rng.uniform(0.1, 1.5)),
                      float(rng.uniform(0.01, 0.3)), 1023, **noise(rng))
    lux = Lux((0.05, 0.01, 0.08), 138.9171, float(rng.uniform(0.2, 3.0)), 2000.0, **noise(rng))
    for g in groups(world, rng):
        k = keys[g.start:g.stop]
        for dev, old in ((light, old_light.light), (lux, old_light.lux)):
            want = dev.allocate(g.n)
            old(dev, world, g, k, want)

            def new(dev=dev, g=g, k=k):
                out = dev.allocate(g.n)
                sensed(dev, world, g, k, out, dev.make_state(g.n))
                return (out,)

            assert np.array_equal(both_forms(new)[0], want)
        # the shared sum, as other devices call it
        st_old = old_light.illumination_state(light.angles_rad, light.ring_m, light.elevation_m,
                                              g.n)
        want = old_light.illumination(world, g, st_old, light.range_m, 0.3, False).copy()

        def sums(g=g):
            state = illumination_state(light.angles_rad, light.ring_m, light.elevation_m, g.n)
            return (illumination(world, g, state, light.range_m, 0.3, False).copy(),)

        assert np.array_equal(both_forms(sums)[0], want)


@EXAMPLES
@given(seed=st.integers(0, 2**32 - 1))
def test_camera(seed):
    world, keys, rng = random_world(seed)
    cams = [epuck2.camera_device(max_blobs=int(rng.choice([1, 3, 64])),
                                 owner_occludes=bool(rng.random() < 0.5), **noise(rng)),
            Camera(int(rng.integers(2, 400)), int(rng.integers(2, 400)),
                   float(rng.uniform(5.0, 170.0)), float(rng.uniform(0.1, 3.0)),
                   (float(rng.uniform(-0.05, 0.05)), float(rng.uniform(-0.05, 0.05)),
                    float(rng.uniform(0.0, 0.1))), max_blobs=int(rng.integers(1, 20)),
                   grey=bool(rng.random() < 0.5), **noise(rng))]
    for g in groups(world, rng):
        k = keys[g.start:g.stop]
        for cam in cams:
            want = cam.allocate(g.n)
            old_camera.camera(cam, world, g, k, want)

            def new(cam=cam, g=g, k=k):
                out = cam.allocate(g.n)
                sensed(cam, world, g, k, out, cam.make_state(g.n))
                return (out,)

            assert np.array_equal(both_forms(new)[0], want)


@EXAMPLES
@given(seed=st.integers(0, 2**32 - 1))
def test_camera_next_tick(seed):
    """A camera reading the same array tick after tick (as in a simulation: it rewrites only
    the rows that held blobs) reads what a fresh array would, greyscale too."""
    world, keys, rng = random_world(seed)
    cam = epuck2.camera_device(max_blobs=int(rng.choice([1, 3, 64])),
                               grey=bool(rng.random() < 0.5), **noise(rng))
    g = groups(world, rng)[int(rng.integers(0, 2))]
    k = keys[g.start:g.stop]
    for parallel in (False, True):
        with thread_mode(parallel):
            out, state = cam.allocate(g.n), cam.make_state(g.n)
            call = cam.plan(world, g, own_keys(cam, k), out, state)
            for _ in range(3):
                want = cam.allocate(g.n)
                old_camera.camera(cam, world, g, k, want)
                call()
                assert np.array_equal(out, want)
                moved(world, rng)


@EXAMPLES
@given(seed=st.integers(0, 2**32 - 1))
def test_camera_at_the_borders(seed):
    """Lights exactly at the image's edges (the half-pixel margin) and at exactly the range,
    seen by robots of all headings, some never wrapped: where a pre-test that rejects pairs
    early would err first."""
    world, keys, rng = random_world(seed)
    b = world.bodies
    cam = epuck2.camera_device(max_blobs=int(rng.choice([1, 3, 64])))
    if rng.random() < 0.5:
        cam = Camera(int(rng.integers(2, 400)), int(rng.integers(2, 400)),
                     float(rng.uniform(5.0, 170.0)), float(rng.uniform(0.1, 3.0)),
                     (float(rng.uniform(-0.05, 0.05)), float(rng.uniform(-0.05, 0.05)),
                      float(rng.uniform(0.0, 0.1))), max_blobs=int(rng.integers(1, 20)))
    i = int(rng.integers(0, b.n))
    px, py, pz = cam.position_m
    c, s = math.cos(b.yaw[i]), math.sin(b.yaw[i])
    ox = b.x[i] + c * px - s * py
    oy = b.y[i] + s * px + c * py
    oz = b.z[i] + pz
    cx0 = 0.5 * (cam.width_px - 1)
    cy0 = 0.5 * (cam.height_px - 1)
    lights = []
    for col in (-0.5, cx0 * 2 + 0.5, cx0):
        for row in (-0.5, cy0 * 2 + 0.5, cy0):
            # the point at that pixel, at depth and at distance range_m from the camera
            ly = (cx0 - col) / cam.focal_px
            lz = (cy0 - row) / cam.focal_px
            for depth in (cam.range_m / math.sqrt(1 + ly * ly + lz * lz),
                          float(rng.uniform(0.01, cam.range_m))):
                wx = ox + depth * (c - s * ly)
                wy = oy + depth * (s + c * ly)
                lights.append((wx, wy, oz + depth * lz, 1.0))
    arena = dataclasses.replace(world.arena, lights=np.array(lights),
                                light_rgb=np.full((len(lights), 3), 255, dtype=np.uint8))
    world = World(Scene.create(arena, world.groups, world.n_runs, 0.1, world.max_radius), b,
                  world.emitters)
    for g in groups(world, rng):
        k = keys[g.start:g.stop]
        want = cam.allocate(g.n)
        old_camera.camera(cam, world, g, k, want)

        def new(g=g, k=k):
            out = cam.allocate(g.n)
            sensed(cam, world, g, k, out, cam.make_state(g.n))
            return (out,)

        assert np.array_equal(both_forms(new)[0], want)


def _ranging_devices(rng):
    a, b, c = epuck2.PROXIMITY_EQ1
    long_layout = RayLayout(rng.uniform(-math.pi, math.pi, 5), rng.uniform(0.0, 0.05, 5),
                            rng.uniform(0.0, 0.06, 5), float(rng.uniform(0.2, 3.0)))
    return [epuck2.proximity_device(**noise(rng)),
            Proximity(long_layout, 0.0, -1.0 / long_layout.range_m, 1.0, 1000, **noise(rng)),
            epuck2.tof_device(**noise(rng)),
            ToF((0.02, 0.0, 0.01), float(rng.uniform(0.05, 4.0)), 20, 4000, **noise(rng))]


@EXAMPLES
@given(seed=st.integers(0, 2**32 - 1))
def test_proximity_and_tof(seed):
    world, keys, rng = random_world(seed)
    _same_ranging(world, keys, rng, old_long_rays)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_proximity_and_tof_crowded(seed):
    """Batches with runs of up to 300 robots: long rays test every robot of a run up to
    ``ranging.SMALL_RUN`` and search the grid beyond, and both find what the grid search
    did before."""
    world, keys, rng = random_world(seed, 301)
    _same_ranging(world, keys, rng, old_long_rays)


def _same_ranging(world, keys, rng, oracle):
    """Every ranging device (``_ranging_devices``) reads what ``oracle`` reads, on the whole
    batch and on a slice of it, serial and parallel alike. Long rays are compared with
    the frozen grid search (``oracle.long_rays``): the older walk along the grid
    (``oracle.ranging``) stops where a ray leaves the grid, and misses a robot whose body
    reaches past the arena's edge beyond that point (a ray over a low wall)."""
    for g in groups(world, rng):
        k = keys[g.start:g.stop]
        for dev in _ranging_devices(rng):
            old = oracle.proximity if isinstance(dev, Proximity) else oracle.tof
            want = dev.allocate(g.n)
            want_dist = dev.make_state(g.n)
            old(dev, world, g, k, want, want_dist)

            def new(dev=dev, g=g, k=k):
                out = dev.allocate(g.n)
                dist = dev.make_state(g.n)
                sensed(dev, world, g, k, out, dist)
                return out, dist

            got, dist = both_forms(new)
            assert np.array_equal(got, want)
            assert np.array_equal(dist, want_dist)  # the viewer draws these distances
            # the plain ray cast other devices call
            layout = dev.layout

            def rays(layout=layout, g=g):
                out = np.zeros((g.n, layout.count))
                cast(world, g, layout, out)
                return (out,)

            assert np.array_equal(both_forms(rays)[0], want_dist)
