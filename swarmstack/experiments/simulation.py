"""Build a world from an experiment and step it: the tick as a visible sequence of calls.

    sense → control → actuate → physics

One :class:`Simulation` holds ``runs`` independent runs of the same experiment in one set of
arrays (run ``k`` uses seed ``seed + k``); kernels handle all runs at once and spatial queries
never cross runs, so each run evolves exactly as it would alone.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from swarmstack.actuators.wheels import Wheels
from swarmstack.controllers.api import ControllerError
from swarmstack.controllers.loader import ControllerLoadError, load_class
from swarmstack.controllers.views import GroupView, RobotView
from swarmstack.experiments.config import (ConfigError, ExperimentCfg, WallsCfg,
                                           parse_experiment)
from swarmstack.physics.contacts import resolve
from swarmstack.physics.diffdrive import integrate
from swarmstack.robots import ROBOT_TYPES
from swarmstack.world.arena import Arena, box_row, wall_boxes
from swarmstack.world.floor import Floor
from swarmstack.world.placement import Occupancy, PlacementError, place_group
from swarmstack.world.rng import STREAM, robot_stream_keys, run_generator
from swarmstack.world.state import Bodies, Emitters, GroupSlice, World

CONTACT_ITERATIONS = 4


@dataclass
class Clock:
    tick: int
    dt: float


@dataclass
class GroupRuntime:
    """A robot group: its devices, reading/command arrays, actuators and controllers."""

    cfg: Any
    slice: GroupSlice
    kind: Any                      # the robot-type module (e.g. robots.epuck2)
    devices: dict
    readings: dict
    states: dict
    wheels_cmd: np.ndarray         # float64[n, 2] m/s, written by controllers
    leds_cmd: np.ndarray           # uint8[n, n_leds, 3]
    wheels: Wheels
    keys: np.ndarray               # uint64[n, n_streams]
    axle: np.ndarray               # float64[n]
    controllers: list = field(default_factory=list)
    views: list = field(default_factory=list)
    batched: bool = False


def build_arena(cfg: ExperimentCfg, base_dir: Path, source: str) -> Arena:
    bounds = cfg.arena.bounds
    boxes = [box_row(b.center, b.size, b.yaw) for b in cfg.boxes]
    walls = cfg.arena.walls
    if walls:
        w = WallsCfg() if isinstance(walls, bool) else walls
        boxes = list(wall_boxes(bounds, w.thickness, w.height)) + boxes
    cyl = [(c.center[0], c.center[1], c.radius, c.height) for c in cfg.cylinders]
    lights = [(l.position[0], l.position[1], l.position[2], l.intensity) for l in cfg.lights]
    rgb = [l.color for l in cfg.lights]
    f = cfg.floor
    if f.image is not None:
        path = (base_dir / f.image)
        if not path.is_file():
            raise ConfigError([f"{source}: floor.image: file {str(path)!r} does not exist"])
        try:
            floor = Floor.from_image(path)
        except Exception as exc:
            raise ConfigError([f"{source}: floor.image: cannot read {str(path)!r} as an image "
                               f"({exc})"]) from None
    elif f.regions:
        regions = []
        for r in f.regions:
            shape = {k: getattr(r, k) for k in ("rect", "circle", "ring") if getattr(r, k)}
            regions.append({"rgb": r.color, **shape})
        floor = Floor.painted(bounds, f.background, regions, f.resolution)
    elif f.grey is not None:
        floor = Floor.uniform_grey(f.grey)
    else:
        floor = Floor(np.full((1, 1, 3), f.background, dtype=np.uint8))
    return Arena(bounds=bounds,
                 boxes=np.array(boxes, dtype=np.float64).reshape(-1, 6),
                 cylinders=np.array(cyl, dtype=np.float64).reshape(-1, 4),
                 lights=np.array(lights, dtype=np.float64).reshape(-1, 4),
                 light_rgb=np.array(rgb, dtype=np.uint8).reshape(-1, 3),
                 floor=floor)


class Simulation:
    """``runs`` runs of one experiment, stepped together."""

    def __init__(self, cfg: ExperimentCfg, seed: int | None = None, runs: int = 1,
                 base_dir: Path | str = ".", source: str = "<experiment>"):
        self.cfg = cfg
        self.seed = cfg.simulation.seed if seed is None else int(seed)
        self.runs = int(runs)
        self.source = source
        base_dir = Path(base_dir)
        arena = build_arena(cfg, base_dir, source)
        self.clock = Clock(0, cfg.simulation.dt)

        kinds = [ROBOT_TYPES[g.type] for g in cfg.robots]
        per_run = [g.n for g in cfg.robots]
        n_run = sum(per_run)
        # poses: per run, groups in order (placement draws from the run's own stream)
        poses = [[None] * len(cfg.robots) for _ in range(self.runs)]
        # occupancy cells wide enough that two cells cover any pair of touching bodies
        occ_cell = max(0.1, 2.0 * max(k.body()["radius"] for k in kinds))
        for r in range(self.runs):
            rng = run_generator(self.seed, r)
            occ = Occupancy.empty(occ_cell)
            for gi, g in enumerate(cfg.robots):
                radius = kinds[gi].body()["radius"]
                try:
                    poses[r][gi] = place_group(gi, g.name, g.n, radius, g.placement, arena, occ,
                                               rng)
                except PlacementError as exc:
                    raise ConfigError([f"{source}: robots[{gi}].placement: {exc}"]) from None
        run_keys = [robot_stream_keys(self.seed, r, n_run) for r in range(self.runs)]

        # group-major arrays
        cols = {k: [] for k in ("run", "id", "x", "y", "yaw", "radius", "height")}
        slices = []
        start = 0
        id_offset = 0
        for gi, g in enumerate(cfg.robots):
            body = kinds[gi].body()
            for r in range(self.runs):
                p = poses[r][gi]
                cols["run"].append(np.full(g.n, r))
                cols["id"].append(id_offset + np.arange(g.n))
                cols["x"].append(p[:, 0])
                cols["y"].append(p[:, 1])
                cols["yaw"].append(p[:, 2])
                cols["radius"].append(np.full(g.n, body["radius"]))
                cols["height"].append(np.full(g.n, body["height"]))
            stop = start + g.n * self.runs
            slices.append(GroupSlice(g.name, g.type, start, stop, g.n, id_offset))
            start = stop
            id_offset += g.n
        cat = {k: np.concatenate(v) for k, v in cols.items()}
        n = cat["x"].shape[0]
        bodies = Bodies(run=cat["run"].astype(np.int64), robot_id=cat["id"].astype(np.int64),
                        x=cat["x"].copy(), y=cat["y"].copy(), z=np.zeros(n),
                        yaw=cat["yaw"].copy(), radius=cat["radius"], height=cat["height"])
        emitters = self._make_emitters(kinds, slices)
        self.world = World(arena=arena, bodies=bodies, emitters=emitters, groups=slices,
                           n_runs=self.runs, dt=cfg.simulation.dt)

        self.groups: list[GroupRuntime] = []
        for gi, g in enumerate(cfg.robots):
            sl = slices[gi]
            kind = kinds[gi]
            body = kind.body()
            keys = np.concatenate([run_keys[r][sl.id_offset:sl.id_offset + g.n]
                                   for r in range(self.runs)])
            try:
                devices = kind.devices(g.sensors, base_dir)
            except (OSError, ValueError) as exc:  # e.g. a missing or malformed data file
                raise ConfigError([f"{source}: robots[{gi}].sensors: {exc}"]) from None
            readings = {d.name: d.allocate(sl.n) for d in devices.values()}
            states = {d.name: d.make_state(sl.n) for d in devices.values()}
            self.groups.append(GroupRuntime(
                cfg=g, slice=sl, kind=kind, devices=devices, readings=readings, states=states,
                wheels_cmd=np.zeros((sl.n, 2)),
                leds_cmd=np.zeros((sl.n, body["n_leds"], 3), dtype=np.uint8),
                wheels=Wheels(body["axle"], body["max_speed"], g.wheels.noise, g.wheels.level),
                keys=keys, axle=np.full(sl.n, body["axle"])))
        self._axle = np.concatenate([g.axle for g in self.groups])
        # LEDs only matter to devices that look at them (light sensors, cameras): otherwise
        # placing and colouring emitters every tick would be wasted work
        self._needs_emitters = any(getattr(d, "needs_emitters", False)
                                   for g in self.groups for d in g.devices.values())
        self._load_controllers(base_dir)
        self._initial_pose = (bodies.x.copy(), bodies.y.copy(), bodies.yaw.copy())
        self._started = False

    # ------------------------------------------------------------------ construction helpers
    @classmethod
    def from_dict(cls, data: dict, **kw) -> "Simulation":
        return cls(parse_experiment(data, kw.get("source", "<experiment>")), **kw)

    @classmethod
    def from_file(cls, path: Path | str, **kw) -> "Simulation":
        from swarmstack.experiments.config import load_experiment

        path = Path(path)
        return cls(load_experiment(path), base_dir=path.parent, source=str(path), **kw)

    def _make_emitters(self, kinds, slices) -> Emitters:
        n = slices[-1].stop if slices else 0
        per_type = [k.led_emitters()[0] if hasattr(k, "led_emitters") else np.zeros((0, 3))
                    for k in kinds]
        e_max = max((p.shape[0] for p in per_type), default=0)
        local = np.zeros((n, e_max, 3))
        count = np.zeros(n, dtype=np.int64)
        intensity = np.zeros((n, e_max))
        for sl, p, k in zip(slices, per_type, kinds):
            local[sl.slice, :p.shape[0]] = p
            count[sl.slice] = p.shape[0]
            intensity[sl.slice, :p.shape[0]] = getattr(k, "LED_LIGHT_INTENSITY", 0.0)
        return Emitters(local=local, world=np.zeros_like(local),
                        rgb=np.zeros((n, e_max, 3), dtype=np.uint8), intensity=intensity,
                        count=count)

    def _load_controllers(self, base_dir: Path) -> None:
        for gi, g in enumerate(self.groups):
            ccfg = g.cfg.controller
            if ccfg is None:
                continue
            try:
                cls = load_class(ccfg.python, base_dir)
            except ControllerLoadError as exc:
                raise ConfigError([f"{self.source}: robots[{gi}].controller.python: {exc}"]) \
                    from None
            b = self.world.bodies
            sl = g.slice
            g.batched = bool(getattr(cls, "batched", False))
            if g.batched:
                view = GroupView(sl.name, g.readings, g.wheels_cmd, g.leds_cmd,
                                 b.robot_id[sl.slice], b.run[sl.slice], g.keys, self.clock)
                g.controllers = [cls()]
                g.views = [view]
            else:
                for i in range(sl.n):
                    rng = np.random.Generator(np.random.PCG64(
                        int(g.keys[i, STREAM["controller"]])))
                    g.views.append(RobotView(sl.name, i, int(b.robot_id[sl.start + i]),
                                             int(b.run[sl.start + i]), g.readings, g.wheels_cmd,
                                             g.leds_cmd, rng, self.clock))
                    g.controllers.append(cls())

    # ------------------------------------------------------------------ the tick
    def _call_controllers(self, method: str) -> None:
        for g in self.groups:
            params = dict(g.cfg.controller.params) if g.cfg.controller else {}
            for k, (ctrl, view) in enumerate(zip(g.controllers, g.views)):
                try:
                    fn = getattr(ctrl, method, None)
                    if fn is None:
                        continue
                    fn(view, params) if method == "init" else fn(view)
                except Exception:
                    self._raise_controller_error(g, k)

    def _raise_controller_error(self, g: GroupRuntime, k: int):
        tb = traceback.format_exc()
        if g.batched:
            raise ControllerError(g.slice.name, -1, None, tb) from None
        view = g.views[k]
        raise ControllerError(g.slice.name, view.run, view.id, tb) from None

    def start(self) -> None:
        """Sense once and call every controller's ``init`` (done by the first ``step``)."""
        if self._started:
            return
        self._started = True
        self._refresh_emitters()
        self.sense()
        self._compile_kernels()
        self._call_controllers("init")

    def _compile_kernels(self) -> None:
        """Run the actuator and physics kernels once without changing the world, so that
        Numba compiles (or loads) them here rather than inside the first timed tick."""
        w = self.world
        b = w.bodies
        saved = w.wheel_speed.copy()
        for g in self.groups:
            g.wheels.apply(w, g.slice, g.keys, np.zeros_like(g.wheels_cmd))
            apply_leds = getattr(g.kind, "apply_leds", None)
            if apply_leds is not None and self._needs_emitters:
                apply_leds(w, g.slice, g.leds_cmd)  # still all off: init() has not run yet
        np.copyto(w.wheel_speed, saved)
        integrate(b.x, b.y, b.yaw, w.wheel_speed[:, 0], w.wheel_speed[:, 1], self._axle, 0.0)
        resolve(b.x, b.y, b.x, b.y, b.radius, b.run, w.n_runs, w.arena.boxes, w.arena.cylinders,
                w.bounds, w.grid, w.static, w.cell_start, w.order, CONTACT_ITERATIONS)

    def reset(self) -> None:
        """Back to tick 0: initial poses, fresh sensor state (encoders at 0, full batteries),
        no commands, every robot's random streams restarted; then sense and call each
        controller's ``reset``. A reset simulation replays the same run."""
        w = self.world
        b = w.bodies
        x0, y0, yaw0 = self._initial_pose
        np.copyto(b.x, x0)
        np.copyto(b.y, y0)
        np.copyto(b.yaw, yaw0)
        b.remember_pose()
        w.tick = self.clock.tick = 0
        w.wheel_speed[:] = 0.0
        w.emitters.rgb[:] = 0
        w.refresh_grid()
        for g in self.groups:
            g.wheels_cmd[:] = 0.0
            g.leds_cmd[:] = 0
            for dev in g.devices.values():
                fresh = dev.allocate(g.slice.n)
                np.copyto(g.readings[dev.name], fresh)
                state = g.states[dev.name]
                if isinstance(state, np.ndarray):
                    state[...] = dev.make_state(g.slice.n)
                else:
                    g.states[dev.name] = dev.make_state(g.slice.n)
            for view in g.views:
                if isinstance(view, RobotView):
                    view.rng = np.random.Generator(np.random.PCG64(
                        int(g.keys[view._index, STREAM["controller"]])))
        self._refresh_emitters()
        self.sense()
        self._started = True
        self._call_controllers("reset")

    def sense(self) -> None:
        w = self.world
        for g in self.groups:
            for dev in g.devices.values():
                dev.update(w, g.slice, g.keys, g.readings[dev.name], g.states[dev.name])

    def control(self) -> None:
        for g in self.groups:
            if g.batched:
                view = g.views[0]
                view._new_tick()
                try:
                    g.controllers[0].step(view)
                except Exception:
                    self._raise_controller_error(g, 0)
            else:
                k = 0
                try:
                    for k, (ctrl, view) in enumerate(zip(g.controllers, g.views)):
                        ctrl.step(view)
                except Exception:
                    self._raise_controller_error(g, k)

    def actuate(self) -> None:
        w = self.world
        for g in self.groups:
            g.wheels.apply(w, g.slice, g.keys, g.wheels_cmd)
            apply_leds = getattr(g.kind, "apply_leds", None)
            if apply_leds is not None and self._needs_emitters:
                apply_leds(w, g.slice, g.leds_cmd)

    def physics(self) -> None:
        w = self.world
        b = w.bodies
        b.remember_pose()
        integrate(b.x, b.y, b.yaw, w.wheel_speed[:, 0], w.wheel_speed[:, 1], self._axle, w.dt)
        _, w.cell_start, w.order = resolve(
            b.x, b.y, b.prev_x, b.prev_y, b.radius, b.run, w.n_runs, w.arena.boxes,
            w.arena.cylinders, w.bounds, w.grid, w.static, w.cell_start, w.order,
            CONTACT_ITERATIONS)
        self._refresh_emitters()

    def _refresh_emitters(self) -> None:
        from swarmstack.actuators import leds

        w = self.world
        b = w.bodies
        if self._needs_emitters and w.emitters.local.shape[1]:
            leds.update_emitters(b.x, b.y, b.z, b.yaw, w.emitters.local, w.emitters.world)

    def step(self) -> None:
        """One tick: control → actuate → physics, then sense the new state.

        Readings therefore always describe the current world: after ``start()`` those of tick
        0, after k steps those of tick k — the ones the controllers will see next.
        """
        self.start()
        self.control()
        self.actuate()
        self.physics()
        self.world.tick += 1
        self.clock.tick = self.world.tick
        self.sense()

    def run(self, ticks: int) -> None:
        for _ in range(ticks):
            self.step()

    # ------------------------------------------------------------------ access
    def group(self, name: str) -> GroupRuntime:
        for g in self.groups:
            if g.slice.name == name:
                return g
        raise KeyError(name)

    def readings(self, name: str) -> dict:
        return self.group(name).readings

    def commands(self, name: str) -> dict:
        g = self.group(name)
        return {"wheels": g.wheels_cmd, "leds": g.leds_cmd}
