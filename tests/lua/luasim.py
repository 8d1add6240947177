"""A simulation of one group running a Lua script given as text."""

from pathlib import Path

from swarmstack.sim.simulation import Simulation


def lua_sim(tmp_path: Path, source: str = None, *, count: int = 3, robot_type: str = "epuck2",
            sensors: dict | None = None, radio=None, params: dict | None = None,
            runtime: str = "lua5.3",
            extra: dict | None = None, arena: float = 1.0, top: dict | None = None,
            **kw) -> Simulation:
    path = tmp_path / "ctrl.lua"
    path.write_text(source)
    group = {"name": "g", "type": robot_type, **({"count": count} if count else {}),
             "controller": {"lua": "ctrl.lua", **({"params": params} if params else {}),
                            **({"runtime": runtime} if runtime != "lua5.3" else {})},
             "sensors": sensors or {}, **(extra or {})}
    if radio is not None:
        group["radio"] = radio
    cfg = {"arena": {"size": [arena, arena], "walls": True}, "robots": [group], **(top or {})}
    return Simulation.from_dict(cfg, base_dir=tmp_path, source=str(tmp_path / "exp.toml"), **kw)


def lua_globals(sim, name: str) -> list:
    ctrl = sim.groups[0].controllers[0]
    return [ctrl.get_global(k, name) for k in range(len(ctrl.views))]
