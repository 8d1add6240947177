"""LEDs set by one robot's controller are seen by another robot's camera and light sensors."""

import math

import numpy as np

from swarmstack import Simulation
from swarmstack.sensors.camera import blobs


def _pair(rgb, distance=0.3):
    cfg = {
        "arena": {"size": [2.0, 2.0]},
        "robots": [{
            "name": "r",
            # robot 0 ahead of robot 1, robot 1 looking at it
            "placement": {"kind": "explicit", "poses": [[distance, 0.0, math.pi], [0.0, 0.0, 0.0]]},
            "controller": {"python": "tests.core.controllers:LightUp", "params": {"rgb": list(rgb)}},
            "sensors": {"camera": True, "light": True},
        }],
    }
    sim = Simulation.from_dict(cfg)
    sim.run(2)
    return sim


def test_camera_sees_lit_leds_in_their_colour():
    sim = _pair((0, 0, 255))
    seen = blobs(sim.readings("r")["camera"][1])
    assert seen, "robot 1 should see robot 0's LEDs"
    colours = {c for _, _, c in seen}
    # RGB ring LEDs show blue; red-only and green-only LEDs cannot show blue and stay dark
    assert colours == {(0, 0, 255)}
    cols = [c for c, _, _ in seen]
    # straight ahead: the ring's LEDs sit symmetrically about the image centre
    assert abs(np.mean(cols) - 79.5) < 1.0 and all(abs(c - 79.5) < 45 for c in cols)
    # robot 0 sees nothing: robot 1's LEDs are off
    assert blobs(sim.readings("r")["camera"][0]) == []


def test_red_only_leds_show_only_red():
    sim = _pair((255, 255, 0))
    colours = {c for _, _, c in blobs(sim.readings("r")["camera"][1])}
    assert (255, 0, 0) in colours and (255, 255, 0) in colours
    assert all(c in {(255, 0, 0), (255, 255, 0), (0, 255, 0)} for c in colours)


def test_light_sensors_see_a_close_lit_robot():
    far = _pair((255, 255, 255), distance=0.3).readings("r")["light"][1]
    near = _pair((255, 255, 255), distance=0.08).readings("r")["light"][1]
    dark = _pair((0, 0, 0), distance=0.08).readings("r")["light"][1]
    assert np.all(dark == 4095)
    assert near[[0, 7]].min() < far[[0, 7]].min() <= 4095
    assert near[[0, 7]].min() < 4095


def test_leds_switched_off_go_dark_at_the_next_tick():
    # lit, then every LED of the group off: the slots turn black (the all-off path writes
    # only what is not black yet), and the camera and light sensors see them so
    sim = _pair((255, 255, 255), distance=0.08)
    assert blobs(sim.readings("r")["camera"][1]) and sim.world.emitters.rgb.any()
    for c in sim.groups[0].controllers:
        c.rgb = (0, 0, 0)
    sim.run(2)
    assert not sim.world.emitters.rgb.any()
    assert blobs(sim.readings("r")["camera"][1]) == []
    assert np.all(sim.readings("r")["light"][1] == 4095)
