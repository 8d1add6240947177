"""Helpers for the .argos import tests: write a small .argos file around an arena body."""

from __future__ import annotations

from pathlib import Path

import pytest

HEAD = """<?xml version="1.0" ?>
<argos-configuration>
  <framework>
    <experiment length="{length}" ticks_per_second="10" random_seed="{seed}" />
  </framework>
  <controllers>
    <lua_controller id="lua">
      <actuators><differential_steering implementation="default" /></actuators>
      <sensors><epuck2_proximity implementation="default" /></sensors>
      <params script="ctrl.lua" />
    </lua_controller>
    <native id="native" library="libnative">
      <sensors><epuck2_encoder implementation="default" /></sensors>
      <params speed="3" />
    </native>
  </controllers>
  <arena size="{size}" center="0,0,0.5">
{arena}
  </arena>
{tail}
</argos-configuration>
"""

ROBOT = """    <e-puck2 id="r0"><body position="0,0,0" orientation="0,0,0" />
      <controller config="native" /></e-puck2>"""


@pytest.fixture
def argos(tmp_path):
    """``argos(arena_xml, tail='', name='exp.argos', …)`` → path of a written .argos file."""

    def write(arena: str = ROBOT, tail: str = "", name: str = "exp.argos", length="20",
              seed="4", size="2, 2, 1") -> Path:
        path = tmp_path / name
        path.write_text(HEAD.format(arena=arena, tail=tail, length=length, seed=seed,
                                    size=size), encoding="utf-8")
        return path

    return write
