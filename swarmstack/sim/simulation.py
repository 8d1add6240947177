"""Step a built world: the tick as a visible sequence of calls.

    control → actuate → dynamics → contacts (→ emitters) → tick + 1 → sense → radio

Controllers read the readings and what the radio delivered at the end of the last tick, and
write commands and the frames the radio delivers at the end of this one.

One :class:`Simulation` holds ``runs`` independent runs of the same experiment in one set of
arrays (run ``k`` uses seed ``seed + k``); kernels handle all runs at once and spatial queries
never cross runs, so each run evolves exactly as it would alone. What the world *is* (arena,
robot types, devices) was decided by :func:`~swarmstack.sim.build.build`; nothing here
names a robot type.
"""

from __future__ import annotations

import collections
import sys
import traceback
from functools import partial
from pathlib import Path
from typing import Callable, Optional, Sequence

import numpy as np

from swarmstack.sim import threads
from swarmstack.actuators.leds import bind_lit_emitters
from swarmstack.controllers.api import ControllerError
from swarmstack.controllers.radio import RadioPort
from swarmstack.controllers.loader import ControllerLoadError, load_class
from swarmstack.controllers.views import GroupView, robot_view_class
from swarmstack.sim import build as builder
from swarmstack.sim.build import Group
from swarmstack.experiments.config import ConfigError, ExperimentCfg, one_line, parse_experiment
from swarmstack.experiments.checks import MAX_REPORT, excerpt, report
from swarmstack.world.rng import Streams

CONTACT_ITERATIONS = 4
NOT_STOPPED = np.iinfo(np.int64).max  # stop_tick of a run that is still running
PLACED = (0, 1, 2, 5)  # the pose rows ``builder.place`` gives: x, y, z, yaw
PHASES = ("control", "actuate", "dynamics", "contacts", "sense", "radio")  # a tick's, in order


def controller_error(group: str, run: Optional[int], robot_id: Optional[int], tick: int,
                     tb: str, error: Optional[ControllerError] = None) -> ControllerError:
    """A ControllerError (``error`` itself if given) whose message and ``tick`` say when it
    happened; ``run`` is None for a batched controller, which controls every run at once. The
    traceback is bounded (``checks.report``): a message of megabytes is not repeated whole."""
    tb = report(tb)
    if error is None:
        error = ControllerError(group, -1 if run is None else run, robot_id, tb)
    error.run = run
    error.tick = tick
    error.traceback = tb
    who = f"robot {robot_id} of group {group!r} (run {run})" if robot_id is not None else \
        f"the batched controller of group {group!r} (every run of the batch)"
    error.args = (f"controller of {who} raised at tick {tick}:\n{tb}",)
    return error


def _from_interrupt(exc: Optional[BaseException]) -> bool:
    """An error raised because Ctrl-C interrupted the code under it (e.g. a compiled kernel
    called by a controller turns the KeyboardInterrupt into a SystemError)."""
    seen = 0
    while exc is not None and seen < 20:
        if isinstance(exc, KeyboardInterrupt):
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


class Hooks:
    """Functions a simulation calls around the phases of its tick (``sim.hooks``).

    ``before(phase, fn)`` and ``after(phase, fn)`` have every ``step()`` call ``fn(sim)``
    just before or just after ``phase`` (one of :data:`PHASES`), in the order registered;
    ``remove(phase, fn)`` stops the calls. The hooks of ``sense`` and ``radio`` also run at
    tick 0, when ``start()`` or ``reset()`` senses and delivers for the first time. A hook
    observes a phase or adds to it (publishes readings, overwrites commands); the phase itself
    always runs. Calling a phase method by hand (``sim.sense()``) calls no hook.

    ``calls`` is what ``step()`` calls, one per phase in order: the simulation's method, or
    for a phase with hooks, a call of the method between them. Registering or removing a hook
    makes it anew; a hook that does so while a phase runs takes effect from the next call.
    """

    def __init__(self, sim: "Simulation"):
        self._sim = sim
        self._before: dict[str, tuple] = {p: () for p in PHASES}
        self._after: dict[str, tuple] = {p: () for p in PHASES}
        self._make_calls()

    @staticmethod
    def _check(phase: str) -> None:
        if phase not in PHASES:
            raise ValueError(f"unknown phase {phase!r}: expected one of {', '.join(PHASES)}")

    def before(self, phase: str, fn: Callable[["Simulation"], None]) -> None:
        self._check(phase)
        self._before[phase] += (fn,)
        self._make_calls()

    def after(self, phase: str, fn: Callable[["Simulation"], None]) -> None:
        self._check(phase)
        self._after[phase] += (fn,)
        self._make_calls()

    def remove(self, phase: str, fn: Callable[["Simulation"], None]) -> None:
        """Stop calling ``fn`` around ``phase`` (before and after); ValueError if it is not
        registered there."""
        self._check(phase)
        if fn not in self._before[phase] and fn not in self._after[phase]:
            raise ValueError(f"{fn!r} is not a hook of phase {phase!r}")
        for hooks in (self._before, self._after):
            hooks[phase] = tuple(h for h in hooks[phase] if h != fn)
        self._make_calls()

    def call(self, phase: str) -> None:
        """``phase`` between its hooks, now."""
        self.calls[PHASES.index(phase)]()

    def _make_calls(self) -> None:
        self.calls = tuple(self._call_of(phase) for phase in PHASES)

    def _call_of(self, phase: str) -> Callable[[], None]:
        sim = self._sim
        method = getattr(sim, phase)
        before, after = self._before[phase], self._after[phase]
        if not (before or after):
            return method

        def call() -> None:
            for fn in before:
                fn(sim)
            method()
            for fn in after:
                fn(sim)

        return call


class Simulation:
    """``runs`` runs of one experiment, stepped together.

    ``params`` (optional, one dict per run mapping group names to controller parameters)
    gives each run of the batch its own parameters, e.g. candidate controllers of an
    optimiser; by default every run uses the file's.

    Script ``log`` lines go to ``on_log(group, run, robot_id, tick, text)``; without it the
    last 10 000 are kept in ``logs``. A Buzz robot whose VM fails stops alone (its failure is
    in ``robot_failures()``) unless ``strict``: then the run stops with a ControllerError.

    A Python controller that raises stops the simulation with a :class:`ControllerError`
    naming the group, run, robot and tick — unless ``isolate_runs``: then a per-robot
    controller's error stops only its run (:meth:`stop_run`: its robots hold their type's safe
    commands, its controllers are no longer called, its radio falls silent; the error is in
    ``run_errors`` and ``stop_tick[run]`` says when) and the other runs go on. A batched
    controller sees every run at once: its error always stops the whole batch.
    """

    def __init__(self, cfg: ExperimentCfg, seed: int | None = None, runs: int = 1,
                 base_dir: Path | str = ".", source: str = "<experiment>",
                 params: Optional[Sequence[dict]] = None, strict: bool = False,
                 on_log: Optional[Callable[[str, int, int, int, str], None]] = None,
                 isolate_runs: bool = False):
        self.cfg = cfg
        self.seed = cfg.simulation.seed if seed is None else int(seed)
        self.runs = int(runs)
        self.source = source
        self.base_dir = Path(base_dir)
        self.strict = strict
        self.isolate_runs = bool(isolate_runs)
        # runs stopped by an error: the tick each stopped at (NOT_STOPPED while running)
        self.stop_tick = np.full(self.runs, NOT_STOPPED, dtype=np.int64)
        self.stopped_any = False
        self.run_errors: list[dict] = []
        self._hold: list = []  # (command array, rows, safe value) of the stopped runs' robots
        self.logs: collections.deque = collections.deque(maxlen=10_000)
        sink = on_log if on_log is not None else \
            (lambda group, run, rid, tick, text: self.logs.append((group, run, rid, tick, text)))
        self.on_log = self._gated_log(sink) if self.isolate_runs else sink
        self.world, self.groups = builder.build(cfg, self.seed, self.runs, self.base_dir,
                                                source, params)
        self.medium = builder.build_medium(cfg, self.world, self.groups)
        self.ports = [RadioPort(self.medium, self.world.bodies, g.slice.slice)
                      if self.medium is not None and g.cfg.radio_on else None
                      for g in self.groups]
        # LEDs only matter to devices that look at them (light sensors, cameras): otherwise
        # placing and colouring emitters every tick would be wasted work
        self._needs_emitters = any(getattr(d, "needs_emitters", False)
                                   for g in self.groups for d in g.devices.values())
        n = self.world.bodies.n
        self._before_contacts = np.empty_like(self.world.bodies.pose)
        self._pushed = np.zeros(n, dtype=np.bool_)        # the last contact pass moved it
        self._collisions = np.zeros(n, dtype=np.int64)    # per body (physics.collisions)
        self._classes = [self._controller_class(gi, g) for gi, g in enumerate(self.groups)]
        self._make_controllers()
        self._initial = self.world.snapshot()
        self._restart()
        self._started = False
        self.hooks = Hooks(self)
        self._plan()

    # ------------------------------------------------------------------ construction helpers
    @classmethod
    def from_dict(cls, data: dict, **kw) -> "Simulation":
        return cls(parse_experiment(data, kw.get("source", "<experiment>"), kw.get("base_dir")),
                   **kw)

    @classmethod
    def from_file(cls, path: Path | str, **kw) -> "Simulation":
        from swarmstack.experiments.config import load_experiment

        path = Path(path)
        return cls(load_experiment(path), base_dir=path.parent, source=str(path), **kw)

    def _controller_class(self, gi: int, g: Group):
        """The Python controller class, ``(script path, source)`` of a Buzz script or
        ``(script path, source, "lua")`` of a Lua script."""
        ccfg = g.cfg.controller
        if ccfg is None:
            return None
        if ccfg.lua is not None:
            from swarmstack.controllers.lua import LuaScriptError, compile_script as lua_compile

            path = self.base_dir / ccfg.lua
            try:
                return path, lua_compile(path, ccfg.runtime), "lua"
            except LuaScriptError as exc:
                raise ConfigError([f"{self.source}: robots[{gi}].controller.lua: "
                                   f"{one_line(exc)}"]) from None
        if ccfg.buzz is not None:
            from swarmstack.controllers.buzz import BuzzScriptError, compile_script

            path = self.base_dir / ccfg.buzz
            try:
                return path, compile_script(path, ccfg.profile)
            except BuzzScriptError as exc:
                raise ConfigError([f"{self.source}: robots[{gi}].controller.buzz: "
                                   f"{one_line(exc)}"]) from None
        try:
            return load_class(ccfg.python, self.base_dir)
        except ControllerLoadError as exc:
            raise ConfigError([f"{self.source}: robots[{gi}].controller.python: {exc}"]) \
                from None

    def _views_of(self, g: Group, port) -> list:
        """The group's per-robot views, remembered so that :meth:`_restart` can restart them."""
        b = self.world.bodies
        sl = g.slice
        view_cls = robot_view_class(g.robot_type)
        views = []
        for i in range(sl.n):
            run = int(b.run[sl.start + i])
            v = view_cls(sl.name, i, int(b.robot_id[sl.start + i]), run, g.readings,
                         g.commands, self._controller_rng(g, i), self.world, g.params[run])
            v._radio = port
            v._log = self.on_log
            views.append(v)
            self._robots.append((g, i, v))
        return views

    def _make_controllers(self) -> None:
        """Fresh controller instances and their views (``init`` is called by ``start``)."""
        b = self.world.bodies
        self._robots = []  # (group, row, view) of every robot view made (script controllers')
        for g, cls, port in zip(self.groups, self._classes, self.ports):
            g.controllers, g.views = [], []
            if cls is None:
                continue
            sl = g.slice
            g.batched = isinstance(cls, tuple) or bool(getattr(cls, "batched", False))
            if g.batched:
                view = GroupView(sl.name, g.readings, g.commands, b.robot_id[sl.slice],
                                 b.run[sl.slice], g.streams.keys("controller"), self.world,
                                 g.params, devices=tuple(g.robot_type.devices))
                view._radio = port
                view._log = self.on_log
                g.views = [view]
                if isinstance(cls, tuple) and cls[-1] == "lua":
                    from swarmstack.controllers.lua import LuaController

                    g.controllers = [LuaController(g, cls[0], cls[1], self._views_of(g, port),
                                                   port, self.on_log, self.strict)]
                elif isinstance(cls, tuple):
                    from swarmstack.controllers.buzz import BuzzController

                    path, text = cls
                    g.controllers = [BuzzController(g, path, text, self._views_of(g, port),
                                                    port, self.on_log, self.strict)]
                else:
                    g.controllers = [self._instantiate(g, cls)]
                continue
            g.views = self._views_of(g, port)
            g.controllers = [self._instantiate(g, cls) for _ in range(sl.n)]

    def _instantiate(self, g: Group, cls):
        """``cls()``; a constructor that raises (or exits) is the file's error, named."""
        try:
            return cls()
        except (Exception, SystemExit) as exc:
            raise ConfigError([f"{self.source}: robots[{g.slice.index}].controller.python: "
                               f"creating {cls.__name__}() raised {type(exc).__name__}: "
                               f"{exc}"]) from None

    @staticmethod
    def _controller_rng(g: Group, i: int) -> np.random.Generator:
        return np.random.Generator(np.random.PCG64(int(g.streams.keys("controller")[i])))

    def _plan(self) -> None:
        """The controllers to call, then the tick's kernel calls (:meth:`_plan_calls`)."""
        self._batched = [(g, g.controllers[0], g.views[0]) for g in self.groups
                         if g.batched and g.controllers]
        stop = self.stop_tick
        self._per_robot = [(g, [(c, v) for c, v in zip(g.controllers, g.views)
                                if stop[v.run] == NOT_STOPPED])
                           for g in self.groups if not g.batched and g.controllers]
        self._plan_calls()

    def _plan_calls(self) -> None:
        """The tick's kernel calls as calls without arguments: each actuator's and device's
        ``plan`` chooses its kernel's form (serial, or parallel for a group large enough) and
        binds its arrays and its own random stream keys. Planned again when the thread settings
        change (``threads.generation``)."""
        w = self.world
        b = w.bodies
        self._threads_seen = threads.generation
        self._actuate = [act.plan(w, g.slice, g.streams.keys(spec.name), g.commands,
                                  w.drive[g.slice.index])
                         for g in self.groups for spec, act in g.actuators
                         if self._needs_emitters or not spec.needs_emitters]
        self._sense = [dev.plan(w, g.slice, g.streams.keys(dev.stream), g.readings[dev.name],
                                g.states[dev.name])
                       for g in self.groups for dev in g.devices.values()]
        # per group whose dynamics bounds its bodies (``physics.substeps.bounded``) its planned
        # ``count`` and ``integrate``; the others' ``integrate`` in ``_trials``, measured after
        # (``_measure``)
        from swarmstack.physics.substeps import bounded, measure_by_run

        self._counts, self._integrates, self._trials = [], [], []
        self._k_run = np.ones(self.runs, dtype=np.int64)
        for g in self.groups:
            dyn = g.robot_type.dynamics
            args = (b, g.slice.start, g.slice.stop, w.drive[g.slice.index], w.scene.dt)
            if bounded(dyn):
                count, integrate = dyn.plan(*args, self._k_run)
                self._counts.append(count)
                self._integrates.append(integrate)
            else:
                self._trials.append(partial(dyn.integrate, *args))
        self._measure = measure_by_run
        self._contact_kernels = None  # (resolve, count_collisions), planned when first needed
        em = w.emitters
        self._place_emitters = (bind_lit_emitters(b.x, b.y, b.z, b.yaw, em.local, em.rgb,
                                                  em.world) if self._needs_emitters else None)

    # ------------------------------------------------------------------ controllers
    def _call_controllers(self, method: str) -> None:
        stop = self.stop_tick
        for g in self.groups:
            for ctrl, view in zip(g.controllers, g.views):
                if not g.batched and stop[view.run] != NOT_STOPPED:
                    continue
                try:
                    fn = getattr(ctrl, method, None)
                    if fn is None:
                        continue
                    if method == "init":
                        fn(view, g.params[0] if g.batched else view.params)
                    else:
                        fn(view)
                except Exception:
                    self._controller_failed(g, view)

    def _controller_failed(self, g: Group, view) -> None:
        """Inside an ``except``: the controller of ``view`` (a robot's, or the group's for a
        batched controller) raised. Raises a ControllerError naming the tick, or with
        ``isolate_runs`` stops only the robot's run."""
        exc = sys.exc_info()[1]
        tick = int(self.world.tick)
        if _from_interrupt(exc):
            raise KeyboardInterrupt from exc
        if isinstance(exc, ControllerError):  # a Buzz VM that failed in strict mode
            controller_error(exc.group, exc.run, exc.robot_id, tick, exc.traceback, exc)
            raise
        tb = traceback.format_exc()
        if g.batched:
            raise controller_error(g.slice.name, None, None, tick, tb) from None
        if not self.isolate_runs:
            raise controller_error(g.slice.name, view.run, view.id, tick, tb) from None
        self.stop_run(view.run, {"group": g.slice.name, "run": view.run, "robot": view.id,
                                 "tick": tick, "error": excerpt(f"{type(exc).__name__}: {exc}",
                                                                MAX_REPORT),
                                 "traceback": report(tb)})

    def stop_run(self, run: int, error: Optional[dict] = None) -> None:
        """Stop run ``run`` of the batch at the current tick: its robots hold their type's safe
        commands from now on, its controllers are no longer called, its radio falls silent and
        its log lines after this tick are dropped. ``error`` (a dict) goes to ``run_errors``.
        The other runs go on; ``reset`` restarts every run."""
        if self.stop_tick[run] != NOT_STOPPED:
            return
        self.stop_tick[run] = self.world.tick
        self.stopped_any = True
        if error is not None:
            self.run_errors.append(error)
        b = self.world.bodies
        for g in self.groups:
            rows = np.flatnonzero(b.run[g.slice.slice] == run)
            if rows.size:
                for c in g.robot_type.commands:
                    arr = g.commands[c.name]
                    arr[rows] = c.safe
                    self._hold.append((arr, rows, c.safe))
                for c in g.controllers:   # script controllers: the run's VMs no longer step
                    if hasattr(c, "paused"):
                        mask = np.zeros(g.slice.n, bool) if c.paused is None else c.paused
                        mask[rows] = True
                        c.paused = mask
        if self.medium is not None:
            rows = np.flatnonzero(b.run == run)
            self.medium.enabled[rows] = False
            self.medium.out_size[rows] = -1
        self._per_robot = [(g, [(c, v) for c, v in pairs if v.run != run])
                           for g, pairs in self._per_robot]

    @property
    def all_stopped(self) -> bool:
        """Every run of the batch was stopped by an error."""
        return self.stopped_any and bool((self.stop_tick != NOT_STOPPED).all())

    def _gated_log(self, sink):
        stop = self.stop_tick  # reset() clears it in place

        def log(group, run, robot_id, tick, text):
            if tick <= stop[run]:
                sink(group, run, robot_id, tick, text)

        return log

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        """Sense once and call every controller's ``init`` (done by the first ``step``)."""
        if self._started:
            return
        self._started = True
        self._warm_up()
        self._begin("init")

    def _warm_up(self) -> None:
        """One actuate + dynamics + contacts pass on the safe commands (without hooks), undone:
        Numba compiles (or loads) the kernels here rather than inside the first timed tick. The
        contact pass itself is left to the first tick that moves a body: a run whose robots
        never move (or that stops before) never loads it, nor the thread pool its parallel loop
        starts (20 ms of a 1-robot run's start)."""
        snap = self.world.snapshot()
        self.actuate()
        self.dynamics()
        self.contacts()
        self.world.restore(snap)
        self._clear_collisions()

    def _begin(self, hook: str) -> None:
        """Tick 0 of the runs, after the start or a reset: lit emitters placed, the first
        readings and the first delivery (with the hooks of ``sense`` and ``radio``), then every
        controller's ``hook`` (``init``, or ``reset`` for a replay)."""
        self._refresh_emitters()
        self.hooks.call("sense")
        self.hooks.call("radio")
        self._call_controllers(hook)

    def _restart(self) -> None:
        """Every piece of state a run changes back to what construction made: the world's
        arrays (poses, drive states, emitters, tick: ``World.snapshot``), collision counters,
        safe commands, fresh readings and device states, the radio and what its ports were
        told, each robot view's random stream and host-function memory, no run stopped.
        Construction calls it too, so a reset simulation starts exactly as a new one; state
        added to a run must be set back here."""
        self.stop_tick[:] = NOT_STOPPED
        self.stopped_any = False
        self.run_errors = []
        self._hold = []
        self._moved = False  # dynamics moved a body that the contacts have yet to clear
        self.world.restore(self._initial)
        self._clear_collisions()
        for g in self.groups:
            for c in g.robot_type.commands:
                g.commands[c.name][...] = c.safe
            for dev in g.devices.values():
                np.copyto(g.readings[dev.name], dev.allocate(g.slice.n))
                state = g.states[dev.name]
                if isinstance(state, np.ndarray):
                    state[...] = dev.make_state(g.slice.n)
                else:
                    g.states[dev.name] = dev.make_state(g.slice.n)
            for view in g.views if g.batched else ():
                view._new_tick()
        if self.medium is not None:
            self.medium.reset()
        for port in self.ports:
            if port is not None:
                port.reset()
        for g, i, view in self._robots:
            view._restart(self._controller_rng(g, i))

    def _clear_collisions(self) -> None:
        self._pushed[:] = False
        self._collisions[:] = 0

    def seed_runs(self, seeds: Sequence[int]) -> None:
        """Give run k the initial poses and random streams of seed ``seeds[k]`` — those of
        run 0 of ``Simulation(seed=seeds[k])`` — for any seeds, not only consecutive ones (a
        sweep's or a design's batch of instances). Takes effect at the next :meth:`reset`; a
        run's placement and streams depend on its seed only (``world/rng.py``), so each run
        then equals that seed simulated alone."""
        if len(seeds) != self.runs:
            raise ValueError(f"seeds: expected one per run ({self.runs}), found {len(seeds)}")
        types = [g.robot_type for g in self.groups]
        pose = self._initial["bodies"]["pose"]
        one = builder.layout(self.cfg, 1)
        robots = [[] for _ in self.groups]
        for k, s in enumerate(seeds):
            poses = builder.place(self.cfg, self.world.arena, types, int(s), 1, self.source)
            for g, sl1, streams, mine in zip(self.groups, one,
                                             builder.streams(self.cfg, one, int(s), 1), robots):
                n = g.slice.per_run
                rows = np.arange(g.slice.start + k * n, g.slice.start + (k + 1) * n)
                pose[np.ix_(PLACED, rows)] = poses[sl1.start:sl1.stop].T
                mine.extend(streams.robots)
        self._set_streams([Streams(r) for r in robots])
        self._initial_from_poses()

    def reset(self, seed: Optional[int] = None, params: Optional[Sequence[dict]] = None) -> None:
        """Back to tick 0, then sense and hand the controllers the first readings.

        Without arguments the simulation replays its runs: initial poses, fresh sensor state
        (encoders at 0, full batteries), safe commands, every robot's random streams restarted,
        and each controller's ``reset`` called. With ``seed`` (run k then uses ``seed + k``)
        and/or ``params`` (one dict per run, as in the constructor) new runs start: robots are
        placed anew from the new seed, every stream is re-keyed, and fresh controller instances
        get ``init`` with their run's parameters (as they do at a reset before the start, their
        ``init`` never having run). Either way the world, devices, radio and random streams
        start exactly as in a simulation built anew with that seed (:meth:`_restart`), whatever
        ran before; so do the robots, unless a replayed controller's ``reset`` keeps something
        its ``init`` would not. Arrays keep their identity.
        """
        # new runs, or controllers whose ``init`` never ran (a reset before the start)
        fresh = seed is not None or params is not None or not self._started
        if seed is not None:
            if isinstance(seed, bool) or not 0 <= int(seed) < 2 ** 63:
                raise ValueError(f"seed must be an integer 0 ≤ seed < 2⁶³, found {seed!r}")
            self.seed = int(seed)
            self._reseed()
        if params is not None:
            per_group = builder.run_params(self.cfg, self.runs, params)
            for g, p in zip(self.groups, per_group):
                g.params = p
        self._restart()  # every run restarts, as built
        if fresh:
            self._make_controllers()
        else:
            for g in self.groups:
                for c in g.controllers:   # robots of stopped runs step again
                    if getattr(c, "paused", None) is not None:
                        c.paused = None
        self._plan()
        self._started = True
        self._begin("init" if fresh else "reset")

    def _reseed(self) -> None:
        w = self.world
        poses = builder.place(self.cfg, w.arena, [g.robot_type for g in self.groups], self.seed,
                              self.runs, self.source)
        self._initial["bodies"]["pose"][PLACED, :] = poses.T
        self._set_streams(builder.streams(self.cfg, list(w.groups), self.seed, self.runs))
        self._initial_from_poses()

    def _set_streams(self, streams: list[Streams]) -> None:
        """Each group's random streams (one :class:`~swarmstack.world.rng.Streams` per group);
        devices and controllers take theirs at the next plan."""
        for g, s in zip(self.groups, streams):
            g.streams = s
            if self.medium is not None:
                self.medium.params.keys[g.slice.slice] = s.keys("radio")

    def _initial_from_poses(self) -> None:
        """``_initial`` as ``build`` makes it for the poses just written into it: previous
        poses equal to them, drive states made anew, drones placed in the air flying
        (``builder.start_flying``). The world itself is left as it is."""
        w = self.world
        live = w.snapshot()
        initial = self._initial
        initial["bodies"]["prev_pose"][...] = initial["bodies"]["pose"]
        for g, drive in zip(self.groups, initial["drive"]):
            drive.update(g.robot_type.dynamics.make_state(g.slice.n))
        w.restore(initial)
        builder.start_flying(w, list(w.groups), [g.robot_type for g in self.groups])
        self._initial = w.snapshot()
        w.restore(live)

    # ------------------------------------------------------------------ the tick
    def step(self) -> None:
        """One tick: control → actuate → dynamics → contacts, the tick count, then sense and
        radio on the new state; each phase a method, called between its hooks if it has some
        (:class:`Hooks`).

        Readings therefore always describe the current world: after ``start()`` those of tick
        0, after k steps those of tick k — the ones the controllers will see next. The first
        step starts the simulation; a step after the thread settings changed plans the
        kernels' calls anew (``threads.generation``).
        """
        if not self._started:
            self.start()
        if self._threads_seen != threads.generation:
            self._plan_calls()
        # each phase's method, or a call of it between its hooks
        control, actuate, dynamics, contacts, sense, radio = self.hooks.calls
        control()
        actuate()
        dynamics()
        contacts()
        self.world.tick += 1
        sense()
        radio()

    def run(self, ticks: int) -> None:
        for _ in range(ticks):
            self.step()

    def control(self) -> None:
        """Every live controller steps on the current readings; the stopped runs' robots then
        hold their safe commands, whatever a batched controller wrote for them."""
        for g, ctrl, view in self._batched:
            view._new_tick()
            try:
                ctrl.step(view)
            except Exception:
                self._controller_failed(g, view)
        for g, pairs in self._per_robot:
            while pairs:
                k = 0
                try:
                    for k, (ctrl, view) in enumerate(pairs):
                        ctrl.step(view)
                    break
                except Exception:
                    run = pairs[k][1].run
                    self._controller_failed(g, pairs[k][1])  # raises unless isolate_runs
                    # the run is stopped: the rest of the group steps without its robots
                    pairs = [p for p in pairs[k + 1:] if p[1].run != run]
        for arr, rows, safe in self._hold:
            arr[rows] = safe

    def actuate(self) -> None:
        """Each group's actuators turn its commands into drive states and LED colours."""
        for apply in self._actuate:
            apply()

    def dynamics(self) -> None:
        """Each group's dynamics moves its bodies over the tick, from the pose before it
        (kept in ``bodies.prev_pose``).

        When a body would travel further this tick than contacts can follow (its safe step,
        ``physics.substeps``: a fraction of its own smallest half extent), its run's tick is
        cut into ``k`` equal sub-steps, each integrated on the tick's drive state and followed
        by a contact pass, so that nothing passes through a wall or another body at any tick
        rate (:meth:`_substeps`). ``k`` is the run's own: the other runs of a batch are
        integrated as they would be alone (most in one step), whatever their companions do.
        At usual rates every ``k`` is 1: one integration here, one contact pass in
        :meth:`contacts`.

        Each run's ``k`` comes first: the dynamics that bound their own bodies raise it from
        the tick's drive state (the ``count`` their ``plan`` gave, moving nothing); the others
        integrate a trial of the whole tick, measured after the fact (``_measure``). When every
        ``k`` is 1 the bounded ones then integrate the whole tick too.
        """
        b = self.world.bodies
        b.prev_pose[...] = b.pose
        k_run = self._k_run   # every k 1 between ticks
        moved, k = False, 1
        for integrate in self._trials:
            moved |= bool(integrate())
        if self._trials:
            k = self._measure(b, k_run)
        for count in self._counts:
            k = max(k, count())
        if k > 1:
            self._substeps(k_run)  # contacts included
            k_run.fill(1)
            moved = False
        else:
            for integrate in self._integrates:
                moved |= bool(integrate())
        self._moved = moved

    def contacts(self) -> None:
        """Overlaps projected out of the poses the dynamics just gave, if a body moved (a run
        cut into sub-steps has had its contact passes already); then the lit emitters placed
        on the bodies where they now are."""
        if self._moved:
            self._resolve_contacts(self.world.bodies.prev_pose)
            self._moved = False
        self._refresh_emitters()

    def _substeps(self, k_run: np.ndarray) -> None:
        """The tick again from the pose before it, each run in the sub-steps its own bodies
        need (see :meth:`dynamics`): run ``r`` in ``k_run[r]`` sub-steps of ``dt / k_run[r]``,
        with the contacts after each; a run is left alone in the passes after its last one."""
        w = self.world
        b = w.bodies
        dt = w.scene.dt
        np.copyto(b.pose, b.prev_pose)  # the tick is sub-stepped from where it started
        # per group, its runs in spans of consecutive runs with the same k: (integrate, first
        # and end body, the span's rows of the drive state, k)
        spans = []
        for g in self.groups:
            sl = g.slice
            n = sl.per_run
            drive = w.drive[sl.index]
            r = 0
            while n and r < self.runs:
                e = r + 1
                while e < self.runs and k_run[e] == k_run[r]:
                    e += 1
                rows = slice(r * n, e * n)
                spans.append((g.robot_type.dynamics.integrate, sl.start + r * n,
                              sl.start + e * n, {k: v[rows] for k, v in drive.items()},
                              int(k_run[r])))
                r = e
        before = np.empty_like(b.pose)
        for s in range(int(k_run.max())):
            np.copyto(before, b.pose)
            moved = False
            for integrate, start, stop, state, k in spans:
                if s < k:
                    moved |= bool(integrate(b, start, stop, state, dt / k))
            if moved:
                self._resolve_contacts(before)

    def _resolve_contacts(self, prev) -> None:
        """Project overlaps out of the current poses; ``prev`` float64[6, N] the (valid) poses
        before the step just integrated, where a body that cannot be cleared goes back. Counts
        the collisions of the runs that moved in the step (``physics.collisions``)."""
        kernels = self._contact_kernels
        if kernels is None:
            # the first tick that moves a body: a run whose bodies never move never imports the
            # contact pass nor loads its kernels
            from swarmstack.physics.collisions import count_collisions
            from swarmstack.physics.contacts import plan

            kernels = self._contact_kernels = (plan(self.world.bodies.n), count_collisions)
        resolve, count_collisions = kernels
        w = self.world
        b = w.bodies
        before = self._before_contacts
        before[...] = b.pose
        bs, bi, cs, ci = w.scene.static
        _, w.cell_start, w.order = resolve(
            b.x, b.y, b.yaw, b.z, prev[0], prev[1], prev[5], b.shape, b.radius,
            b.half_x, b.half_y, b.height, b.run, w.scene.n_runs, w.scene.arena.boxes,
            w.scene.arena.cylinders, w.scene.bounds, w.scene.grid, bs, bi, cs, ci,
            w.cell_start, w.order, CONTACT_ITERATIONS)
        count_collisions(b.pose, before, prev, b.shape, b.run, w.scene.n_runs, self._pushed,
                         self._collisions)

    def _refresh_emitters(self) -> None:
        if self._place_emitters is not None:
            self._place_emitters()

    def sense(self) -> None:
        """Every device of every group refreshes its readings in place."""
        for update in self._sense:
            update()

    def radio(self) -> None:
        """Deliver the frames sent this tick, from where the robots now are."""
        if self.medium is not None:
            self.medium.inbox = self.medium.deliver(self.world)

    def finish(self) -> None:
        """The run is over: script controllers run their end hook (a Lua script's
        ``destroy()``). ``swarmstack run`` calls it after the last tick."""
        for g in self.groups:
            for c in g.controllers:
                if getattr(c, "has_destroy", False):
                    c.destroy()

    # ------------------------------------------------------------------ access
    @property
    def tick(self) -> int:
        return self.world.tick

    def group(self, name: str) -> Group:
        for g in self.groups:
            if g.slice.name == name:
                return g
        raise KeyError(name)

    def radio_stats(self) -> dict:
        """Radio counters: totals over the batch and ``per_run`` (one dict per run)."""
        keys = ("messages_sent", "messages_delivered", "messages_dropped", "messages_refused",
                "max_bytes_per_robot_tick")
        per_run = [self.medium.stats_of(r) if self.medium is not None else dict.fromkeys(keys, 0)
                   for r in range(self.runs)]
        total = {k: (max if k.startswith("max") else sum)(int(p[k]) for p in per_run)
                 for k in keys}
        return {**total, "per_run": per_run}

    def collisions(self) -> list[int]:
        """Collisions of each run so far: the times its robots ran into another robot, a wall
        or an obstacle (``physics.collisions``)."""
        from swarmstack.physics import collisions

        return collisions.per_run(self._collisions, self.world.bodies.run, self.runs)

    def drive_counters(self) -> dict:
        """``{group: {counter: [total of run 0, run 1, …]}}`` for the dynamics' ``counters``
        (e.g. the Crazyflie's set-points clamped to its flight envelope)."""
        out = {}
        for g in self.groups:
            names = getattr(g.robot_type.dynamics, "counters", ())
            if not names:
                continue
            drive = self.world.drive[g.slice.index]
            runs = self.world.bodies.run[g.slice.slice]
            out[g.name] = {n: np.bincount(runs, weights=drive[n], minlength=self.runs)
                           .astype(np.int64).tolist() for n in names}
        return out

    def robot_failures(self) -> list[dict]:
        """Robots whose Buzz VM or Lua script failed: group, run, robot, tick, where, error, report (not
        those of a stopped run after it stopped)."""
        stop = self.stop_tick
        return [f for g in self.groups for c in g.controllers
                for f in getattr(c, "failures", ()) if f["tick"] <= stop[f["run"]]]

    def buzz(self, name: str):
        """The Buzz controller of group ``name`` (final globals, stigmergy …)."""
        ctrl = self.group(name).controllers
        if not ctrl or not hasattr(ctrl[0], "robots"):
            raise KeyError(f"group {name!r} has no Buzz controller")
        return ctrl[0]

    def readings(self, name: str) -> dict:
        return self.group(name).readings

    def commands(self, name: str) -> dict:
        return self.group(name).commands
