"""Floors from the experiment file: uniform grey, an image stretched over the arena, regions."""

import numpy as np
import pytest
from PIL import Image

from swarmstack import Simulation


def _ground(floor: dict, poses, tmp_path=None):
    cfg = {"arena": {"size": [2.0, 1.0]}, "floor": floor,
           "robots": [{"name": "g", "placement": {"kind": "explicit", "poses": poses},
                       "sensors": {"ground": True}}]}
    sim = Simulation.from_dict(cfg, base_dir=tmp_path or ".")
    sim.start()
    return sim.readings("g")["ground"]


def test_uniform_grey_floor():
    out = _ground({"grey": 0.5}, [[0, 0, 0]])
    assert out.tolist() == [[round(128 * 1023 / 255)] * 3]


def test_image_floor_is_stretched_over_the_arena(tmp_path):
    # a 4 × 2 image: left half black, right half white, top-right pixel red
    img = np.zeros((2, 4, 3), dtype=np.uint8)
    img[:, 2:] = 255
    img[0, 3] = (255, 0, 0)
    Image.fromarray(img).save(tmp_path / "floor.png")
    poses = [[-0.6, -0.2, 0.0], [0.3, -0.2, 0.0], [0.7, 0.3, 0.0]]  # black, white, red
    out = _ground({"image": "floor.png"}, poses, tmp_path)
    assert out[0].tolist() == [0, 0, 0]
    assert out[1].tolist() == [1023, 1023, 1023]
    assert out[2].tolist() == [round(0.299 * 255 * 1023 / 255)] * 3


def test_regions_paint_in_order():
    floor = {"background": "white", "regions": [
        {"color": "black", "rect": [-1.0, -0.5, 0.0, 0.5]},
        {"color": 0.5, "circle": [-0.5, 0.0, 0.2]}]}
    out = _ground(floor, [[-0.9, 0.4, 0.0], [-0.53, 0.0, 0.0], [0.5, 0.0, 0.0]])
    assert out[0].tolist() == [0, 0, 0]
    assert out[1].tolist() == [round(128 * 1023 / 255)] * 3
    assert out[2].tolist() == [1023] * 3


def test_missing_image_is_a_config_error(tmp_path):
    from swarmstack.experiments.config import ConfigError

    with pytest.raises(ConfigError, match="floor.image"):
        _ground({"image": "nope.png"}, [[0, 0, 0]], tmp_path)
