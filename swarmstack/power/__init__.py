"""Battery discharge models, vectorised over all robots (numpy/numba only; no simulator imports).

``discharge(charge, distance_m, rotation_rad, dt_s, model)`` steps every robot's charge by one tick;
models come from :func:`epuck2_battery` (``simple``, ``linear``, ``cubic``, ``approximated``) and
:func:`crazyflie_battery`, with coefficients read from replaceable CSV files in ``data/``.
See ``docs/power.md``.
"""

from swarmstack.power.analytic import autonomy_s, cardano_root, curve, start_offset_s
from swarmstack.power.battery import (
    CUBIC_CUTOFFS,
    INTERPOLATIONS,
    KINDS,
    BatteryModel,
    crazyflie_battery,
    discharge,
    discharge_at_tick,
    epuck2_battery,
    initial_charge,
    load_model,
    speed_row,
    step_of,
    time_left_s,
)
from swarmstack.power.tables import BatteryTableError, data_path

__all__ = [
    "BatteryModel", "BatteryTableError", "CUBIC_CUTOFFS", "INTERPOLATIONS", "KINDS",
    "autonomy_s", "cardano_root", "crazyflie_battery", "curve", "data_path", "discharge",
    "discharge_at_tick", "epuck2_battery", "initial_charge", "load_model", "speed_row",
    "start_offset_s", "step_of", "time_left_s",
]
