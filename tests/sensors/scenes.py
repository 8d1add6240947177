"""Small hand-built worlds for sensor tests: an arena plus E-Puck2 poses per run."""

from __future__ import annotations

import numpy as np

from swarmstack.actuators.leds import update_emitters
from swarmstack.robots import epuck2
from swarmstack.world.rng import Streams, robot_seeds
from swarmstack.world.scene import GroupSlice, Scene
from swarmstack.world.state import Bodies, Emitters, World


def build_world(arena, poses_per_run, dt: float = 0.1, seed: int = 0, group: str = "epuck2"):
    """A World with one E-Puck2 group; ``poses_per_run`` = [[(x, y, yaw), …] per run].

    Runs may hold different numbers of robots. Returns ``(world, keys)`` with ``keys`` the
    robots' noise keys (:class:`Keys`). Emitters are placed; LEDs start off.
    """
    runs, xs, ys, yaws, ids = [], [], [], [], []
    keys = []
    for r, poses in enumerate(poses_per_run):
        for k, (x, y, yaw) in enumerate(poses):
            runs.append(r)
            ids.append(k)
            xs.append(x)
            ys.append(y)
            yaws.append(yaw)
        keys.append(Streams(robot_seeds(seed, r, len(poses))))
    n = len(xs)
    bodies = Bodies(np.array(runs, dtype=np.int64), np.array(ids, dtype=np.int64),
                    np.array(xs, dtype=np.float64), np.array(ys, dtype=np.float64), np.zeros(n),
                    np.array(yaws, dtype=np.float64), np.full(n, epuck2.RADIUS_M),
                    np.full(n, epuck2.HEIGHT_M))
    local, _ = epuck2.led_emitters()
    e = local.shape[0]
    em = Emitters(np.repeat(local[None], n, axis=0), np.zeros((n, e, 3)),
                  np.zeros((n, e, 3), dtype=np.uint8), np.full((n, e), epuck2.LED_LIGHT_INTENSITY),
                  np.full(n, e, dtype=np.int64))
    per_run = max((len(p) for p in poses_per_run), default=0)
    scene = Scene.create(arena, [GroupSlice(group, "epuck2", 0, n, per_run, 0)],
                         len(poses_per_run), dt, epuck2.RADIUS_M)
    world = World(scene, bodies, em, drive=[epuck2.EPUCK2.dynamics.make_state(n)])
    place_emitters(world)
    return world, Keys(keys)


class Keys:
    """The noise keys of every robot of a :func:`build_world`, run after run."""

    def __init__(self, runs: list):
        self.runs = runs

    def of(self, stream) -> np.ndarray:
        """uint64[N]: each robot's key of ``stream`` (a device's ``stream``)."""
        return np.concatenate([r.keys(stream) for r in self.runs])


def place_emitters(world) -> None:
    b = world.bodies
    update_emitters(b.x, b.y, b.z, b.yaw, world.emitters.local, world.emitters.world)


def set_leds(world, robot: int, leds: dict) -> None:
    """Light logical LEDs of one robot: ``{led_index: (r, g, b)}`` (others untouched)."""
    from swarmstack.actuators.leds import apply_led_commands

    _, owner = epuck2.led_emitters()
    cmd = np.zeros((1, epuck2.N_LEDS, 3), dtype=np.uint8)
    # keep what is already lit on the other LEDs
    for slot, led in enumerate(owner):
        cmd[0, led] = np.maximum(cmd[0, led], world.emitters.rgb[robot, slot])
    for led, rgb in leds.items():
        cmd[0, led] = rgb
    apply_led_commands(cmd, owner, epuck2.led_channel_mask(), world.emitters.rgb, robot)


def read(device, world, keys, group: str = "epuck2"):
    """One refresh of ``device`` for the whole group; returns its readings array."""
    g = world.group(group)
    out = device.allocate(g.n)
    state = device.make_state(g.n)
    device.plan(world, g, keys.of(device.stream)[g.start:g.stop], out, state)()
    return out
