"""A tick is control → actuate → physics → (tick + 1) → sense → radio, whether it runs as
``step()`` or phase by phase, and a phase replaced on the instance (as ``--serve`` wraps
``control`` and ``sense``) is what the tick calls, from then on and until it is removed."""

import numpy as np
import pytest

from swarmstack import Simulation

PHASES = ("control", "actuate", "physics", "sense", "radio")


def _mixed(**kw):
    """Per-robot and batched controllers, colliding robots, lights (LEDs placed each tick), a
    radio: every part of a tick has work."""
    cfg = {"arena": {"size": [0.6, 0.6], "walls": True},
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
    b = sim.world.bodies
    parts = [b.pose.ravel(), sim.world.emitters.rgb.ravel().astype(float)]
    for g in sim.groups:
        parts += [np.asarray(v, dtype=float).ravel() for v in g.readings.values()]
    return np.concatenate(parts)


def _phase_by_phase(sim):
    sim.control()
    sim.actuate()
    sim.physics()
    sim.world.tick += 1
    sim.sense()
    sim.radio()


def test_step_equals_its_phases_called_one_by_one():
    a, b = _mixed(), _mixed()
    a.start()
    b.start()
    for t in range(40):
        a.step()
        _phase_by_phase(b)
        assert np.array_equal(_state(a), _state(b)), f"tick {t + 1}"
    assert a.world.tick == b.world.tick == 40
    assert a.collisions() == b.collisions() and sum(a.collisions()) > 0


@pytest.mark.parametrize("phase", PHASES)
def test_a_phase_replaced_on_the_instance_is_called_in_its_place(phase):
    sim = _mixed()
    plain = _mixed()
    for s in (sim, plain):
        s.run(3)  # replaced after the first ticks, not only before the start
    calls = []
    inner = getattr(sim, phase)

    def wrapper():
        calls.append((phase, sim.world.tick))
        inner()

    setattr(sim, phase, wrapper)
    sim.run(4)
    plain.run(4)
    # called once a tick, before the tick count advances for the first three phases, after it
    # for sense and radio; the simulation is the same as without the wrapper
    late = PHASES.index(phase) >= 3
    assert calls == [(phase, t + late) for t in range(3, 7)]
    assert np.array_equal(_state(sim), _state(plain))

    delattr(sim, phase)
    sim.run(2)
    assert len(calls) == 4  # the method again, not the removed wrapper


def test_a_replaced_phase_may_skip_the_work():
    sim = _mixed()
    sim.start()
    before = sim.world.bodies.pose.copy()
    sim.physics = lambda: None
    sim.run(5)
    assert np.array_equal(sim.world.bodies.pose, before)
    assert sim.world.tick == 5


def test_a_run_stopped_by_hand_holds_its_safe_commands_under_a_batched_controller():
    cfg = {"arena": {"size": [0.6, 0.6], "walls": True},
           "robots": [{"name": "r", "count": 4,
                       "controller": {"python": "tests.core.controllers:RandomWheelsLeds"}}]}
    sim = Simulation.from_dict(cfg, seed=3, runs=2)
    sim.run(5)
    sim.stop_run(1)
    g = sim.group("r")
    run1 = sim.world.bodies.run[g.slice.slice] == 1
    for _ in range(3):
        sim.step()  # the batched controller writes random speeds for every robot each tick
        assert np.all(g.commands["wheels"][run1] == 0.0)
        assert np.all(g.commands["wheels"][~run1] != 0.0)
    sim.reset()
    sim.step()
    assert np.all(g.commands["wheels"] != 0.0)  # every run restarts


@pytest.mark.parametrize("noisy", [False, True])
def test_the_ticks_bound_calls_equal_the_methods_tick_by_tick(noisy):
    """The tick calls wheels, encoders and the battery through bound calls (without noise,
    the tick is left out of the call); the methods, called with every argument, give the same
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
    encoders = g.devices["encoders"]
    w = by_method.world
    errors = []
    for _ in range(20):
        bound.step()
        by_method.control()
        wheels.apply(w, g.slice, g.keys, g.commands, w.drive[g.slice.index])
        by_method.physics()
        w.tick += 1
        encoders.update(w, g.slice, g.keys, g.readings["encoders"], g.states["encoders"])
        g.devices["battery"].update(w, g.slice, g.keys, g.readings["battery"], None)
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
