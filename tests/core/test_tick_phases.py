"""A tick is control → actuate → dynamics → contacts → (tick + 1) → sense → radio, whether it
runs as ``step()`` or phase by phase; hooks registered around a phase run at that point of every
tick, see the simulation as it is there, and stop when removed."""

import numpy as np
import pytest

from swarmstack import Simulation
from swarmstack.sim import threads
from swarmstack.sim.simulation import PHASES


def _mixed(ticks_per_second=10.0, **kw):
    """Per-robot and batched controllers, colliding robots, lights (LEDs placed each tick), a
    radio: every part of a tick has work. At 2 ticks a second an E-Puck2 at full speed covers
    more than its safe step, so its run's ticks are cut into sub-steps."""
    cfg = {"simulation": {"ticks_per_second": ticks_per_second},
           "arena": {"size": [0.6, 0.6], "walls": True},
           "lights": [{"position": [0.1, 0.1, 0.1]}],
           "robots": [
               {"name": "w", "count": 5, "radio": True,
                "controller": {"python": "tests.core.controllers:Wanderer"},
                "sensors": {"proximity": True, "encoders": True, "light": True}},
               {"name": "r", "count": 5, "radio": True,
                "controller": {"python": "tests.core.controllers:RandomWheelsLeds"},
                "sensors": {"light": True, "battery": {"model": "cubic"}}}]}
    return Simulation.from_dict(cfg, seed=3, runs=2, **kw)


def _state(sim):
    """Poses (and the poses before the tick), LED positions and colours, commands, readings."""
    w = sim.world
    parts = [w.bodies.pose.ravel(), w.bodies.prev_pose.ravel(), w.emitters.world.ravel(),
             w.emitters.rgb.ravel().astype(float)]
    for g in sim.groups:
        parts += [np.asarray(v, dtype=float).ravel() for v in g.commands.values()]
        parts += [np.asarray(v, dtype=float).ravel() for v in g.readings.values()]
    return np.concatenate(parts)


def _phase(sim, phase):
    """One phase called by hand; the tick count advances after the contacts, as in a step."""
    getattr(sim, phase)()
    if phase == "contacts":
        sim.world.tick += 1


@pytest.mark.parametrize("ticks_per_second", [10.0, 2.0])
def test_step_equals_its_phases_called_one_by_one(ticks_per_second):
    a, b = _mixed(ticks_per_second), _mixed(ticks_per_second)
    a.start()
    b.start()
    for t in range(40):
        a.step()
        for phase in PHASES:
            _phase(b, phase)
        assert np.array_equal(_state(a), _state(b)), f"tick {t + 1}"
    assert a.world.tick == b.world.tick == 40
    assert a.collisions() == b.collisions() and sum(a.collisions()) > 0
    assert a.radio_stats() == b.radio_stats()


def test_hooks_run_at_their_point_of_the_tick_and_stop_when_removed():
    """Around each phase of a hooked simulation, a twin stepped phase by phase in the hooks
    themselves is in the same state: a hook before a phase sees the state the phase starts
    from, a hook after it the state it leaves."""
    sim, twin = _mixed(), _mixed()
    sim.run(3)    # hooks added after the first ticks, not only before the start
    twin.run(3)
    calls = []

    def before(phase):
        def hook(s):
            assert s is sim
            calls.append(("before", phase, s.tick))
            assert np.array_equal(_state(s), _state(twin)), f"before {phase}, tick {s.tick}"
        return hook

    def after(phase):
        def hook(s):
            calls.append(("after", phase, s.tick))
            _phase(twin, phase)
            if phase == "contacts":  # the tick count advances after this hook
                twin.world.tick -= 1
            assert np.array_equal(_state(s), _state(twin)), f"after {phase}, tick {s.tick}"
            if phase == "contacts":
                twin.world.tick += 1
        return hook

    hooks = [(phase, before(phase), after(phase)) for phase in PHASES]
    for phase, b, a in hooks:
        sim.hooks.before(phase, b)
        sim.hooks.after(phase, a)
    sim.run(4)
    # once per tick and phase, in the tick's order; sense and radio see the new tick count
    expected = [(when, phase, t + (PHASES.index(phase) >= PHASES.index("sense")))
                for t in range(3, 7) for phase in PHASES for when in ("before", "after")]
    assert calls == expected
    assert sum(sim.collisions()) > 0 and sim.collisions() == twin.collisions()

    for phase, b, a in hooks:
        sim.hooks.remove(phase, b)
        sim.hooks.remove(phase, a)
    sim.run(2)
    assert len(calls) == len(expected)   # no hook is called any more
    plain = _mixed()
    plain.run(9)
    assert np.array_equal(_state(sim), _state(plain))  # the hooks changed nothing


def test_a_hook_after_control_has_the_last_word_on_the_commands():
    """As a server feeding commands from outside does: what a hook after ``control`` writes is
    what the robots do, whatever their controllers wrote; removed, the controllers drive
    again."""
    sim = _mixed()
    sim.run(2)

    def park(s):
        for g in s.groups:
            g.commands["wheels"][...] = 0.0

    sim.hooks.after("control", park)
    parked = sim.world.bodies.pose.copy()
    sim.run(5)
    assert np.array_equal(sim.world.bodies.pose, parked)
    sim.hooks.remove("control", park)
    sim.run(2)
    assert not np.array_equal(sim.world.bodies.pose, parked)


def test_hooks_of_sense_and_radio_see_the_start_and_a_reset():
    sim = _mixed()
    seen = []
    sim.hooks.after("sense", lambda s: seen.append(("sense", s.tick)))
    sim.hooks.before("radio", lambda s: seen.append(("radio", s.tick)))
    sim.hooks.before("control", lambda s: seen.append(("control", s.tick)))
    sim.run(2)   # the first step starts the simulation: tick 0 sensed and delivered
    assert seen == [("sense", 0), ("radio", 0), ("control", 0), ("sense", 1), ("radio", 1),
                    ("control", 1), ("sense", 2), ("radio", 2)]
    seen.clear()
    sim.reset()
    assert seen == [("sense", 0), ("radio", 0)]


def test_a_hook_of_an_unknown_phase_or_not_registered_is_refused():
    sim = _mixed()
    with pytest.raises(ValueError, match=r"unknown phase 'physics': expected one of control, "
                                         r"actuate, dynamics, contacts, sense, radio"):
        sim.hooks.before("physics", print)
    with pytest.raises(ValueError, match="not a hook of phase 'sense'"):
        sim.hooks.remove("sense", print)


def test_a_hook_that_raises_stops_the_step_and_the_simulation_goes_on_without_it():
    sim = _mixed()
    sim.run(2)

    def broken(s):
        raise RuntimeError("hook failed")

    sim.hooks.before("sense", broken)
    with pytest.raises(RuntimeError, match="hook failed"):
        sim.step()
    sim.hooks.remove("sense", broken)
    sim.step()
    assert sim.tick == 4


def test_thread_settings_changed_between_steps_give_the_same_ticks():
    """A step after the thread settings changed binds the kernels anew (a group may now go
    parallel); either way every tick is the same, bit for bit."""
    with threads.using(1):
        a, b = _mixed(), _mixed()
        a.run(5)
        b.run(5)
        with threads.using(2, parallel_min=1, chunk_max=2):
            a.run(10)
        a.run(5)
        b.run(15)
    assert np.array_equal(_state(a), _state(b))


def test_a_run_stopped_by_hand_holds_its_safe_commands_under_a_batched_controller():
    cfg = {"arena": {"size": [0.6, 0.6], "walls": True},
           "robots": [{"name": "r", "count": 4,
                       "controller": {"python": "tests.core.controllers:RandomWheelsLeds"}}]}
    sim = Simulation.from_dict(cfg, seed=3, runs=2)
    sim.run(5)
    sim.stop_run(1)
    g = sim.group("r")
    run1 = sim.world.bodies.run[g.slice.slice] == 1
    held = sim.world.bodies.pose[:, sim.world.bodies.run == 1].copy()
    for _ in range(3):
        sim.step()  # the batched controller writes random speeds for every robot each tick
        assert np.all(g.commands["wheels"][run1] == 0.0)
        assert np.all(g.commands["wheels"][~run1] != 0.0)
    assert np.array_equal(sim.world.bodies.pose[:, sim.world.bodies.run == 1], held)
    sim.reset()
    sim.step()
    assert np.all(g.commands["wheels"] != 0.0)  # every run restarts


def test_a_failing_controller_stops_its_run_and_the_others_go_on():
    cfg = {"arena": {"size": [1.0, 1.0]},
           "robots": [{"name": "c", "count": 3,
                       "controller": {"python": "tests.core.controllers:CrashAt",
                                      "params": {"tick": 4, "robot_id": 1}}}]}
    sim = Simulation.from_dict(cfg, seed=1, runs=2, isolate_runs=True,
                               params=[{"c": {"tick": 4, "robot_id": 1}},
                                       {"c": {"tick": 10 ** 6, "robot_id": 1}}])
    sim.run(8)
    assert sim.stop_tick.tolist()[0] == 4 and sim.stop_tick[1] > 8
    assert [e["run"] for e in sim.run_errors] == [0]
    g = sim.group("c")
    run0 = sim.world.bodies.run[g.slice.slice] == 0
    assert np.all(g.commands["wheels"][run0] == 0.0)
    assert np.all(g.commands["wheels"][~run0] == 0.05)


@pytest.mark.parametrize("noisy", [False, True])
def test_the_ticks_planned_calls_equal_calls_planned_anew_tick_by_tick(noisy):
    """The tick calls wheels, encoders and the battery as planned once (without noise, the
    tick is left out of the wheels' call); calls planned anew every tick give the same
    numbers, and noise, when on, is drawn anew every tick."""
    sensors = {"encoders": {"noise": "uniform", "level": 0.3} if noisy else True,
               "battery": {"model": "cubic"}}
    cfg = {"arena": {"size": [1.0, 1.0]},
           "robots": [{"name": "r", "count": 3, "sensors": sensors,
                       "wheels": {"noise": "gaussian", "level": 0.05} if noisy else {},
                       "controller": {"python": "tests.core.controllers:RandomWheels"}}]}
    bound, by_method = Simulation.from_dict(cfg, seed=2), Simulation.from_dict(cfg, seed=2)
    for sim in (bound, by_method):
        sim.start()
    g = by_method.groups[0]
    wheels, = [a for s, a in g.actuators if s.name == "wheels"]
    w = by_method.world
    errors = []
    for _ in range(20):
        bound.step()
        by_method.control()
        wheels.plan(w, g.slice, g.streams.keys("wheels"), g.commands, w.drive[g.slice.index])()
        by_method.dynamics()
        by_method.contacts()
        w.tick += 1
        for name in ("encoders", "battery"):
            dev = g.devices[name]
            dev.plan(w, g.slice, g.streams.keys(dev.stream), g.readings[name], g.states[name])()
        assert np.array_equal(bound.readings("r")["battery"], g.readings["battery"])
        b_drive = bound.world.drive[0]
        assert np.array_equal(b_drive["wheel_speed"], w.drive[g.slice.index]["wheel_speed"])
        assert np.array_equal(bound.readings("r")["encoders"], g.readings["encoders"])
        assert np.array_equal(bound.groups[0].states["encoders"], g.states["encoders"])
        cmd = bound.groups[0].commands["wheels"]
        clamped = np.clip(cmd, -wheels.max_speed_m_s, wheels.max_speed_m_s)
        errors.append(b_drive["wheel_speed"] / clamped - 1.0)  # the relative noise drawn
    errors = np.array(errors)
    if noisy:  # a new draw every tick, for every robot and wheel
        assert len(np.unique(errors)) == errors.size
    else:
        assert np.all(errors == 0.0)


def test_a_hook_that_removes_itself_lets_the_next_one_run():
    sim = _mixed()
    calls = []

    def once(s):
        calls.append("once")
        s.hooks.remove("actuate", once)

    sim.hooks.before("actuate", once)
    sim.hooks.before("actuate", lambda s: calls.append("every"))
    sim.run(3)
    assert calls == ["once", "every", "every", "every"]
