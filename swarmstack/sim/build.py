"""Turn a validated experiment into a static scene, a dynamic world and robot groups.

Everything the tick needs is made here, once: the arena (``Scene``), the placement of every
robot of every run, the struct-of-arrays world (``World``), and per group its robot type's
devices, command arrays, actuators, drive state and random streams. ``simulation`` then only
steps what was built.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np

from swarmstack.experiments.config import (MAX_ROBOTS, ConfigError, ExperimentCfg, WallsCfg,
                                           key, one_line)
from swarmstack.experiments.files import regular_file
from swarmstack.geometry.overlap import SHAPE_BOX, SHAPE_DISC
from swarmstack.robots import base as robot_types
from swarmstack.robots.base import RobotType
from swarmstack.world.arena import Arena, box_row, wall_boxes
from swarmstack.world.floor import Floor, FloorTooLarge
from swarmstack.world.placement import Occupancy, PlacementError, place_group
from swarmstack.world.rng import Streams, robot_seeds, run_generator
from swarmstack.world.scene import (MAX_STATIC_ENTRIES, GroupSlice, Scene, SceneTooLarge,
                                    static_index_entries)
from swarmstack.world.state import Bodies, Emitters, World


@dataclass
class Group:
    """A robot group at run time: its type, devices, readings, commands, actuators, streams.

    Arrays have the group's robots (all runs of the batch) on axis 0. ``params[r]`` are the
    controller parameters of run ``r``.
    """

    cfg: Any
    slice: GroupSlice
    robot_type: RobotType
    devices: dict
    readings: dict
    states: dict
    commands: dict
    actuators: list
    streams: Streams               # the robots' random stream keys, by stream name
    params: list = field(default_factory=list)
    controllers: list = field(default_factory=list)
    views: list = field(default_factory=list)
    batched: bool = False

    @property
    def name(self) -> str:
        return self.slice.name


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
    return Arena(bounds=bounds,
                 boxes=np.array(boxes, dtype=np.float64).reshape(-1, 6),
                 cylinders=np.array(cyl, dtype=np.float64).reshape(-1, 4),
                 lights=np.array(lights, dtype=np.float64).reshape(-1, 4),
                 light_rgb=np.array(rgb, dtype=np.uint8).reshape(-1, 3),
                 floor=build_floor(cfg, base_dir, source))


def build_floor(cfg: ExperimentCfg, base_dir: Path, source: str) -> Floor:
    f = cfg.floor
    if f.image is not None:
        path = (base_dir / f.image)
        try:
            exists, is_file = path.exists(), path.is_file()
        except (OSError, ValueError) as exc:
            raise ConfigError([f"{source}: floor.image: cannot use {str(path)!r} "
                               f"({one_line(exc)})"]) from None
        if not is_file:
            raise ConfigError([f"{source}: floor.image: file {str(path)!r} "
                               + ("is not a regular file" if exists else "does not exist")])
        try:
            return Floor.from_image(path)
        except Exception as exc:
            raise ConfigError([f"{source}: floor.image: cannot read {str(path)!r} as an image "
                               f"({one_line(exc)})"]) from None
    if f.regions:
        regions = []
        for r in f.regions:
            shape = {k: getattr(r, k) for k in ("rect", "circle", "ring") if getattr(r, k)}
            regions.append({"rgb": r.color, **shape})
        try:
            return Floor.painted(cfg.arena.bounds, f.background, regions, f.resolution)
        except FloorTooLarge as exc:
            raise ConfigError([f"{source}: floor.regions: {exc}"]) from None
    if f.grey is not None:
        return Floor.uniform_grey(f.grey)
    return Floor(np.full((1, 1, 3), f.background, dtype=np.uint8))


MAX_SCRIPT_BYTES = 16 << 20   # a Buzz or Lua script
MAX_FRAME_BYTES = 1 << 28     # radio frame buffers of a batch (bodies × largest payload)
MAX_READING_BYTES = 1 << 30   # one sensor's readings of a group (all runs of a batch)


def check_scripts(cfg: ExperimentCfg, base_dir: Path, source: str) -> None:
    """Buzz scripts the groups name must be regular files of a sane size (a device such as
    ``/dev/zero`` would be read forever); a missing one is reported where it is read."""
    for gi, g in enumerate(cfg.robots):
        c = g.controller
        key = None if c is None else "buzz" if c.buzz is not None else \
            "lua" if c.lua is not None else None
        if key is None:
            continue
        script = getattr(c, key)
        try:
            regular_file(base_dir / script, MAX_SCRIPT_BYTES,
                         "the Buzz script" if key == "buzz" else "the Lua script")
        except FileNotFoundError:
            continue
        except (OSError, ValueError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            raise ConfigError([f"{source}: robots[{gi}].controller.{key}: cannot read "
                               f"{str(base_dir / script)!r} ({one_line(reason)})"]) \
                from None


def layout(cfg: ExperimentCfg, runs: int) -> list[GroupSlice]:
    """Group-major slices: group g holds its robots of run 0, then run 1, …"""
    slices, start, id_offset = [], 0, 0
    for gi, g in enumerate(cfg.robots):
        stop = start + g.n * runs
        slices.append(GroupSlice(g.name, g.type, start, stop, g.n, id_offset, gi))
        start, id_offset = stop, id_offset + g.n
    return slices


def place(cfg: ExperimentCfg, arena: Arena, types: list[RobotType], seed: int, runs: int,
          source: str) -> np.ndarray:
    """Initial poses float64[N, 4] (x, y, z, yaw), group-major; each run draws from its own
    stream, groups in order, and no two bodies overlap (true shapes)."""
    per_batch = sum(g.n for g in cfg.robots) * runs
    if per_batch > MAX_ROBOTS:
        raise ConfigError([f"{source}: robots: {per_batch // runs} robots × {runs} runs = "
                           f"{per_batch} robots in one batch; at most {MAX_ROBOTS} (fewer runs "
                           "per batch)"])
    per_run = [[None] * len(cfg.robots) for _ in range(runs)]
    # occupancy cells wide enough that two cells cover any pair of touching bodies
    occ_cell = max(0.1, 2.0 * max(t.body.radius_m for t in types))
    for r in range(runs):
        rng = run_generator(seed, r)
        occ = Occupancy.empty(occ_cell)
        for gi, g in enumerate(cfg.robots):
            try:
                per_run[r][gi] = place_group(gi, g.name, g.n, types[gi].body, g.placement,
                                             arena, occ, rng, can_fly=flies(types[gi]),
                                             type_name=types[gi].name)
            except PlacementError as exc:
                raise ConfigError([f"{source}: robots[{gi}].placement: {exc}"]) from None
    return np.concatenate([per_run[r][gi] for gi in range(len(cfg.robots))
                           for r in range(runs)]).reshape(-1, 4)


def flies(rt: RobotType) -> bool:
    """Whether robots of the type fly, and so may start above the floor."""
    return bool(getattr(rt.dynamics, "flies", False))


def start_flying(world: World, slices, types: list[RobotType]) -> None:
    """Drones placed above the floor start flying where they were placed (their dynamics'
    ``start_flying``)."""
    b = world.bodies
    for sl, rt, drive in zip(slices, types, world.drive):
        rows = np.flatnonzero(b.z[sl.slice] > 0.0)
        if rows.size and flies(rt):
            i = sl.start + rows
            rt.dynamics.start_flying(drive, rows, np.column_stack([b.x[i], b.y[i], b.z[i],
                                                                   b.yaw[i]]))


def streams(cfg: ExperimentCfg, slices: list[GroupSlice], seed: int, runs: int) -> list[Streams]:
    """Per group its robots' streams: robot i of run r draws from run r's spawned children."""
    n_run = sum(g.n for g in cfg.robots)
    per_run = [robot_seeds(seed, r, n_run) for r in range(runs)]
    return [Streams([s for r in range(runs)
                     for s in per_run[r][sl.id_offset:sl.id_offset + sl.per_run]])
            for sl in slices]


def make_bodies(slices, types: list[RobotType], poses: np.ndarray, runs: int) -> Bodies:
    cols = {k: [] for k in ("run", "id", "shape", "radius", "half_x", "half_y", "height")}
    for sl, rt in zip(slices, types):
        b = rt.body
        n = sl.n
        cols["run"].append(np.repeat(np.arange(runs), sl.per_run))
        cols["id"].append(np.tile(sl.id_offset + np.arange(sl.per_run), runs))
        cols["shape"].append(np.full(n, SHAPE_BOX if b.shape == "box" else SHAPE_DISC))
        cols["radius"].append(np.full(n, b.radius_m))
        cols["half_x"].append(np.full(n, b.half_x))
        cols["half_y"].append(np.full(n, b.half_y))
        cols["height"].append(np.full(n, b.height_m))
    cat = {k: np.concatenate(v) if v else np.zeros(0) for k, v in cols.items()}
    return Bodies(cat["run"], cat["id"], poses[:, 0], poses[:, 1], poses[:, 2], poses[:, 3],
                  cat["radius"], cat["height"], shape=cat["shape"], half_x=cat["half_x"],
                  half_y=cat["half_y"])


def make_emitters(slices, types: list[RobotType]) -> Emitters:
    n = slices[-1].stop if slices else 0
    layouts = [t.emitters for t in types]
    e_max = max((l.positions_m.shape[0] for l in layouts if l is not None), default=0)
    local = np.zeros((n, e_max, 3))
    count = np.zeros(n, dtype=np.int64)
    intensity = np.zeros((n, e_max))
    for sl, lay in zip(slices, layouts):
        if lay is None:
            continue
        e = lay.positions_m.shape[0]
        local[sl.slice, :e] = lay.positions_m
        count[sl.slice] = e
        intensity[sl.slice, :e] = lay.light_intensity
    return Emitters(local=local, world=np.zeros_like(local),
                    rgb=np.zeros((n, e_max, 3), dtype=np.uint8), intensity=intensity,
                    count=count)


def make_group(gi: int, g, sl: GroupSlice, rt: RobotType, streams: Streams, params: list,
               base_dir: Path, source: str) -> Group:
    devices = {}
    for name, spec in rt.devices.items():  # the type's order, whatever the file's
        opts = g.sensors.get(name)
        if opts is None or not getattr(opts, "enabled", True):
            continue
        try:
            devices[name] = spec.make(opts, base_dir)
        except (OSError, ValueError) as exc:  # e.g. a missing or malformed data file
            raise ConfigError([f"{source}: robots[{gi}].sensors.{key(name)}: "
                               f"{one_line(exc)}"]) from None
    for name, dev in devices.items():  # e.g. a camera's max_blobs × robots
        need = getattr(dev.allocate(1), "nbytes", 0) * sl.n
        if need > MAX_READING_BYTES:
            raise ConfigError([f"{source}: robots[{gi}].sensors.{key(name)}: the readings of "
                               f"{sl.n} robots need {need / 2 ** 30:.3g} GiB; at most "
                               f"{MAX_READING_BYTES >> 30} GiB per sensor and group"])
    actuators = []
    for spec in rt.actuators:
        opts = g.actuators.get(spec.name)
        if opts is None and spec.options is not None:
            opts = spec.options()
        actuators.append((spec, spec.make(opts)))
    return Group(
        cfg=g, slice=sl, robot_type=rt, devices=devices,
        readings={d.name: d.allocate(sl.n) for d in devices.values()},
        states={d.name: d.make_state(sl.n) for d in devices.values()},
        commands={c.name: c.allocate(sl.n) for c in rt.commands},
        actuators=actuators, streams=streams, params=params)


def run_params(cfg: ExperimentCfg, runs: int,
               params: Optional[Sequence[dict]] = None) -> list[list[dict]]:
    """Per group, per run: the controller parameters. ``params[r]`` (optional) maps group
    names to parameters that replace the file's for run ``r``."""
    if params is not None and len(params) != runs:
        raise ValueError(f"params: expected one entry per run ({runs}), found {len(params)}")
    out = []
    for g in cfg.robots:
        base = dict(g.controller.params) if g.controller else {}
        out.append([dict(params[r].get(g.name, base)) if params is not None else dict(base)
                    for r in range(runs)])
    return out


def radio_range(g: Group) -> float:
    """The range of a group's frames: its ``radio.range``, else its type's board's."""
    r = g.cfg.radio
    return r.range if r is not None and r.range is not None else g.robot_type.radio.range_m


def check_radio(cfg: ExperimentCfg, world: World, groups: list[Group], source: str):
    """The medium's frame buffers (one frame of the largest payload per body), and the index of
    static shapes within the longest range per grid cell (as the scene's own), bounded."""
    radios = [(gi, g) for gi, g in enumerate(groups)
              if g.cfg.radio_on and g.robot_type.radio is not None]
    if not radios:
        return
    n = world.bodies.n
    payload, gi = max((g.cfg.radio.payload_bytes if g.cfg.radio is not None and
                       g.cfg.radio.payload_bytes is not None else
                       g.robot_type.radio.payload_bytes, gi) for gi, g in radios)
    if n * payload > MAX_FRAME_BYTES:  # outbox and inbox: one frame buffer per body each
        raise ConfigError([
            f"{source}: robots[{gi}].radio.payload_bytes: {payload}-byte frames for {n} robots "
            f"need {n * payload / 2 ** 20:.3g} MiB of frame buffers; at most "
            f"{MAX_FRAME_BYTES >> 20} MiB (smaller frames or fewer robots)"])
    ranges = [(radio_range(g), gi) for gi, g in radios]
    reach, gi = max(ranges)
    arena = world.scene.arena
    entries = static_index_entries(world.scene.grid, arena.boxes, arena.cylinders, reach)
    if entries > MAX_STATIC_ENTRIES:
        raise ConfigError([
            f"{source}: robots[{gi}].radio.range: a {reach:g} m range over "
            f"{arena.boxes.shape[0] + arena.cylinders.shape[0]} walls, boxes and cylinders needs "
            f"an occlusion index of {entries / 1e6:.3g} M entries; at most "
            f"{MAX_STATIC_ENTRIES / 1e6:.3g} M (a shorter range or fewer obstacles)"])


def build_medium(cfg: ExperimentCfg, world: World, groups: list[Group]):
    """The range-and-bearing medium, or None when no group has its radio on. Range and payload
    come from the group's ``radio`` table, else from its robot type's board; drop, noise and
    capacity are the receivers'."""
    if not any(g.cfg.radio_on for g in groups):
        return None
    from swarmstack.media.rab import Medium, RadioParams

    per_group = {}
    for g in groups:
        r = g.cfg.radio
        if not g.cfg.radio_on or g.robot_type.radio is None:
            per_group[g.name] = {"range_m": 0.0}     # no radio: neither sends nor hears
        elif r is not None:                          # the file's values over the board's
            per_group[g.name] = {"range_m": radio_range(g), "drop": r.drop,
                                 "range_noise_m": r.range_noise,
                                 "bearing_noise_rad": r.bearing_noise, "capacity": r.capacity,
                                 **({"payload_bytes": r.payload_bytes}
                                    if r.payload_bytes is not None else {})}
    keys = np.concatenate([g.streams.keys("radio") for g in groups])
    params = RadioParams.for_world(world, per_group, keys=keys, occlusion=cfg.radio.occlusion,
                                   robots_occlude=cfg.radio.robots_occlude,
                                   mixed_sizes=cfg.radio.mixed_sizes)
    return Medium(params, world.scene.n_runs)


def build(cfg: ExperimentCfg, seed: int, runs: int, base_dir: Path, source: str,
          params: Optional[Sequence[dict]] = None) -> tuple[World, list[Group]]:
    """The world (scene + dynamic state) and the groups of ``runs`` runs of ``cfg``."""
    check_scripts(cfg, base_dir, source)
    arena = build_arena(cfg, base_dir, source)
    types = [robot_types.get(g.type) for g in cfg.robots]
    slices = layout(cfg, runs)
    poses = place(cfg, arena, types, seed, runs, source)
    bodies = make_bodies(slices, types, poses, runs)
    try:
        scene = Scene.create(arena, slices, runs, cfg.simulation.dt,
                             float(bodies.radius.max()) if bodies.n else 0.0,
                             cfg.arena.grid_cell)
    except SceneTooLarge as exc:
        where = "arena.size" if exc.what == "grid" else "boxes"
        (sx, sy) = cfg.arena.size
        raise ConfigError([f"{source}: {where}: a {sx:g} m × {sy:g} m arena: {exc}"]) from None
    world = World(scene, bodies, make_emitters(slices, types),
                  drive=[t.dynamics.make_state(sl.n) for sl, t in zip(slices, types)])
    start_flying(world, slices, types)
    per_group = run_params(cfg, runs, params)
    seeds = streams(cfg, slices, seed, runs)
    groups = [make_group(gi, g, slices[gi], types[gi], seeds[gi], per_group[gi], base_dir,
                         source) for gi, g in enumerate(cfg.robots)]
    check_group_names(groups, source)
    check_radio(cfg, world, groups, source)
    return world, groups


def check_group_names(groups: list[Group], source: str) -> None:
    """A device that watches other groups (``reads_groups``, e.g. a downward camera's targets)
    names groups that exist."""
    names = [g.slice.name for g in groups]
    for gi, g in enumerate(groups):
        for name, dev in g.devices.items():
            for other in getattr(dev, "reads_groups", ()):
                if other not in names:
                    raise ConfigError([f"{source}: robots[{gi}].sensors.{key(name)}: no robot "
                                       f"group named {other!r} (groups: {', '.join(names)})"])
