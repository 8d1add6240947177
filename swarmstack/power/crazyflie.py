"""Crazyflie battery: one cubic discharge curve for hover and flight, as a sensor device.

Stolfi & Danoy, *An ARGoS plug-in for the Crazyflie drone* (arXiv 2401.16948), §3.2.2, §4.3.1,
Alg. 1 and Fig. 9: the charge of the drone's LiPo follows ``P(t) = D + C·t + B·t² + A·t³``
(t in seconds since full) until the observed maximum flight time ``Tmax = 427.21 s``, where the
drone can no longer stay in the air and the charge drops to 0. The curve does not depend on speed.

Each tick after the first, for every drone with ``q > 0``::

    t* = root of P(t) = q on [0, Tmax]      (P decreases there, so the root is unique)
    t  = t* + dt
    q  = 0 if t > Tmax else max(0, P(t))
    time_left = Tmax − t                     (0 once empty)

Once ``q`` is 0 it stays 0: a flight model detects the empty battery from ``charge == 0``.

The coefficients are read from ``data/crazyflie_cubic.csv`` (or a replacement file with the same
columns and exactly one row) by the size-limited, regular-file reader of
:mod:`swarmstack.power.tables`. The device's readings are the charge (float64, one per drone);
its state is the time left (float64 seconds, one per drone), refreshed with the charge.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from numba import njit
from swarmstack.power.battery import CRAZYFLIE_FILE, BatteryModel, crazyflie_battery
from swarmstack.power.kernels import cubic_root, cubic_time_left
from swarmstack.power.tables import BatteryTableError, data_path

__all__ = ["CrazyflieBattery", "battery_device", "crazyflie_step",
           "default_data_file", "load_crazyflie_model", "time_left"]


def load_crazyflie_model(path: Path | str | None = None, start_charge: float = 1.0) -> BatteryModel:
    """The Crazyflie cubic from ``path`` (default: the shipped ``crazyflie_cubic.csv``).

    The file must hold exactly one row (speed 0): the model is one curve for hover and flight.
    Any problem raises :class:`~swarmstack.power.tables.BatteryTableError` naming the file.
    """
    model = crazyflie_battery(path=path, start_charge=start_charge)
    if model.table.n_speeds != 1:
        raise BatteryTableError(
            f"{model.table.source}: {model.table.n_speeds} data rows; expected exactly one "
            "(speed_cm_s 0): the Crazyflie model is one curve, independent of speed")
    return model


@njit(cache=True)
def crazyflie_step(charge, p0, p1, p2, p3, tmax_s, dt_s, time_left_out):
    """One tick of Alg. 1 for every drone, in place: ``charge`` and ``time_left_out`` (s)."""
    for i in range(charge.shape[0]):
        q = charge[i]
        if not q > 0.0:
            time_left_out[i] = 0.0
            continue
        t = cubic_root(p0, p1, p2, p3, tmax_s, q) + dt_s
        if t > tmax_s:
            charge[i] = 0.0
            time_left_out[i] = 0.0
        else:
            charge[i] = max(0.0, p0 + t * (p1 + t * (p2 + t * p3)))
            time_left_out[i] = tmax_s - t if charge[i] > 0.0 else 0.0
    return charge


def time_left(charge, model: BatteryModel) -> np.ndarray:
    """``Tmax − t*(q)`` per drone (s); 0 for an empty battery."""
    q = np.ascontiguousarray(np.atleast_1d(np.asarray(charge, dtype=np.float64)))
    return cubic_time_left(q, model.table.coeffs, model.table.tmax_s,
                           np.zeros(q.shape[0], dtype=np.int64), np.empty_like(q))


@dataclass(frozen=True, eq=False)
class CrazyflieBattery:
    """The battery device: readings = charge 0–1 per drone, state = time left (s) per drone.

    Tick 0 (the readings after ``start()``) leaves the charge at ``start_charge``, as the plug-in
    does not discharge on its first tick; tick ``k`` has discharged ``k·dt`` seconds.
    """

    model: BatteryModel
    name: str = "battery"
    scalar: bool = True
    stream: str = "battery"   # draws nothing

    @property
    def tmax_s(self) -> float:
        return float(self.model.table.tmax_s[0])

    @property
    def coefficients(self) -> tuple[float, float, float, float]:
        """``(p0, p1, p2, p3)``: ``P(t) = p0 + p1·t + p2·t² + p3·t³`` (i.e. D, C, B, A)."""
        c = self.model.table.coeffs[0]
        return float(c[0]), float(c[1]), float(c[2]), float(c[3])

    def allocate(self, n: int) -> np.ndarray:
        return np.full(n, self.model.start_charge, dtype=np.float64)

    def make_state(self, n: int) -> np.ndarray:
        return time_left(np.full(n, self.model.start_charge), self.model)

    def step(self, charge: np.ndarray, dt_s: float, time_left_out: np.ndarray) -> np.ndarray:
        """One discharge tick of ``dt_s`` seconds for the drones in ``charge`` (in place)."""
        if not dt_s > 0.0:
            raise ValueError(f"dt_s {dt_s!r}; expected > 0")
        p0, p1, p2, p3 = self.coefficients
        return crazyflie_step(charge, p0, p1, p2, p3, self.tmax_s, float(dt_s), time_left_out)

    def plan(self, world, group, keys, out, state):
        """The tick's call: one discharge step of ``out`` (the charges) and ``state`` (time
        left), from tick 1 on."""
        def discharge() -> None:
            if world.tick > 0:
                self.step(out, world.dt, state)
        return discharge


def battery_device(options, base_dir: Path | None = None) -> CrazyflieBattery:
    """The Crazyflie battery device for ``options`` (``start_charge`` 0–1 and ``data_file``, as
    ``robots.options.CrazyflieBatteryOptions`` validates them); a relative ``data_file`` is
    taken from ``base_dir`` (the experiment's folder)."""
    path = options.data_file
    if path is not None and base_dir is not None:
        path = Path(base_dir) / path
    return CrazyflieBattery(load_crazyflie_model(path, start_charge=options.start_charge))


def default_data_file() -> Path:
    """The shipped coefficient file."""
    return data_path(CRAZYFLIE_FILE)
