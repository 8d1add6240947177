"""The RVR's reference model (Mercator report §4.4, Table 1): what AutoMoDe controllers read.

One device, ``reference``, whose reading per robot is a record:

- ``prox`` float64[8] in [0, 1] and ``prox_angle`` float64[8] in [0, 2π) (rad from the head):
  ``exp(−d)`` for a proximity reading ``d ≤ prox_range`` (0.4 m, the real robot's mapping), 1
  when an obstacle is closer than 0.05 m (reading −inf), 0 when nothing is in range;
- ``light`` lux in [0, 16000];
- ``ground`` int32[3] R, G, B in [0, 255]: the colour labeller's output (or the raw reading);
- neighbour localisation, computed two ways in the same tick: ``camera_count``,
  ``camera_distance``/``camera_angle`` (omnidirectional camera seeing the beacons on top of the
  other robots, the simulation path of the report) and ``lidar_count``,
  ``lidar_distance``/``lidar_angle`` (the real robot's path: clusters of lidar readings, §4.4);
  ``neighbours``, ``neighbour_distance``, ``neighbour_angle`` copy the one the experiment picks.
  Distances in m (≤ 10), angles in [0, 2π); unused slots read distance +inf, angle 0 (the
  counts say how many are used).

The wheels of Table 1 (``v ∈ [0, 155]²``, cm/s) are the host function ``set_treads``.

Lidar clustering (§4.4; thresholds of the report, the ≥ 5-point rule of the real robot's
code): walk the readings in angular order, keep those in [0.10, 0.75] m; a kept reading joins
the current cluster when it is within 2 cm and 10° of the previous kept one, otherwise it
starts a new one; the last and first clusters are merged when they meet that rule across the
start of the scan (the real code splits such a robot in two); clusters of fewer than 5
readings are dropped; each cluster is one neighbour at its mean distance and mean angle.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from numba import njit
from swarmstack.sensors import lidar as lidar_kernels
from swarmstack.sensors import lux as lux_kernels
from swarmstack.sensors import rangefinder as rangefinder_kernels
from swarmstack.sensors.beacons import beacons
from swarmstack.sensors.colour_ground import plan_colour
from swarmstack.sensors.colour_labeller import label_rows
from swarmstack.sensors.lidar import Lidar
from swarmstack.sensors.light import sensors, sources
from swarmstack.sensors.lux import Lux
from swarmstack.sensors.noise import NOISE_KINDS
from swarmstack.sensors.rangefinder import Rangefinders
from swarmstack.sensors.scan import masts

TWO_PI = 2.0 * math.pi
# §4.4 of the report
CLUSTER_MIN_M = 0.10
CLUSTER_MAX_M = 0.75
CLUSTER_DISTANCE_M = 0.02
CLUSTER_ANGLE_RAD = math.radians(10.0)
CLUSTER_MIN_POINTS = 5          # the real robot's code (not in the report)
PROX_MAPPING_RANGE_M = 0.4      # the real robot's controller: exp(−d) up to 0.4 m


@njit(cache=True, error_model="numpy")
def cluster_kernel(readings, angles, lo, hi, gap_m, gap_rad, min_points, count, dist, angle):
    """Lidar clustering (see module doc) for every row of ``readings`` float[n, K];
    ``angles`` float64[K] increasing over one turn. Writes ``count[i]`` and the first
    ``count[i]`` slots of ``dist``/``angle`` (angles in [0, 2π)); other slots +inf and 0."""
    n_rays = readings.shape[1]
    m_max = dist.shape[1]
    c_n = np.empty(n_rays, dtype=np.int64)
    c_sd = np.empty(n_rays)
    c_sa = np.empty(n_rays)
    c_first_d = np.empty(n_rays)
    c_first_a = np.empty(n_rays)
    for i in range(readings.shape[0]):
        nc = 0
        prev_d = 0.0
        prev_a = 0.0
        for k in range(n_rays):
            d = readings[i, k]
            if d < lo or d > hi:
                continue
            a = angles[k]
            if nc > 0 and abs(d - prev_d) < gap_m and a - prev_a < gap_rad:
                c_n[nc - 1] += 1
                c_sd[nc - 1] += d
                c_sa[nc - 1] += a
            else:
                c_n[nc] = 1
                c_sd[nc] = d
                c_sa[nc] = a
                c_first_d[nc] = d
                c_first_a[nc] = a
                nc += 1
            prev_d = d
            prev_a = a
        # a robot straddling the start of the scan: join the last cluster to the first
        if nc > 1 and abs(c_first_d[0] - prev_d) < gap_m \
                and c_first_a[0] + TWO_PI - prev_a < gap_rad:
            c_n[0] += c_n[nc - 1]
            c_sd[0] += c_sd[nc - 1]
            c_sa[0] += c_sa[nc - 1] - TWO_PI * c_n[nc - 1]
            nc -= 1
        m = 0
        for c in range(nc):
            if c_n[c] < min_points or m >= m_max:
                continue
            dist[i, m] = c_sd[c] / c_n[c]
            a = c_sa[c] / c_n[c]
            angle[i, m] = a - TWO_PI * math.floor(a / TWO_PI)
            m += 1
        count[i] = m
        for q in range(m, m_max):
            dist[i, q] = np.inf
            angle[i, q] = 0.0


def clusters(readings, angles, max_count: int = 64):
    """(count, distance, angle) of the neighbours found in lidar scans ``readings`` float[n, K]
    (NumPy entry point of :func:`cluster_kernel` with the report's thresholds)."""
    r = np.ascontiguousarray(np.atleast_2d(readings), dtype=np.float64)
    n = r.shape[0]
    count = np.zeros(n, dtype=np.int32)
    dist = np.empty((n, max_count))
    ang = np.empty((n, max_count))
    cluster_kernel(r, np.asarray(angles, dtype=np.float64), CLUSTER_MIN_M, CLUSTER_MAX_M,
                   CLUSTER_DISTANCE_M, CLUSTER_ANGLE_RAD, CLUSTER_MIN_POINTS, count, dist, ang)
    return count, dist, ang


def record_dtype(max_neighbours: int) -> np.dtype:
    m = int(max_neighbours)
    return np.dtype([
        ("prox", np.float64, (8,)), ("prox_angle", np.float64, (8,)), ("light", np.float64),
        ("ground", np.int32, (3,)),
        ("neighbours", np.int32), ("neighbour_distance", np.float64, (m,)),
        ("neighbour_angle", np.float64, (m,)),
        ("camera_count", np.int32), ("camera_distance", np.float64, (m,)),
        ("camera_angle", np.float64, (m,)),
        ("lidar_count", np.int32), ("lidar_distance", np.float64, (m,)),
        ("lidar_angle", np.float64, (m,)),
    ])


def prox_from_ranges(ranges, prox_range_m: float = PROX_MAPPING_RANGE_M) -> np.ndarray:
    """Table 1's prox ∈ [0, 1] from proximity readings (m, ±inf): ``exp(−d)`` within
    ``prox_range_m``, 1 for −inf (closer than 0.05 m), 0 beyond or +inf."""
    d = np.asarray(ranges, dtype=np.float64)
    with np.errstate(over="ignore"):
        v = np.where(d <= prox_range_m, np.exp(-d), 0.0)
    return np.clip(v, 0.0, 1.0)


@dataclass(frozen=True)
class Reference:
    proximity: Rangefinders
    light: Lux
    lidar: Lidar                  # the scan the clustering runs on (range cut to 0.75 m)
    ground_position_m: tuple
    ground_noise_std: float
    palette: tuple
    labelled: bool
    prox_range_m: float
    camera_z_m: float
    camera_range_m: float
    use_lidar: bool
    max_neighbours: int
    name: str = "reference"
    scalar: bool = False
    # it draws the noise of the devices it is made of: the streams of the rangefinders, lux
    # meter, colour sensor and lidar (``keys`` then holds one column per name, in this order)
    stream: tuple = ("proximity", "light", "ground_color", "lidar")
    needs_emitters: ClassVar[bool] = True

    def allocate(self, n: int) -> np.ndarray:
        out = np.zeros(n, dtype=record_dtype(self.max_neighbours))
        for f in ("neighbour", "camera", "lidar"):
            out[f"{f}_distance"] = np.inf
        out["prox_angle"] = np.mod(np.asarray(self.proximity.angles_rad), TWO_PI)
        return out

    def make_state(self, n: int) -> dict:
        m = self.max_neighbours
        return {"prox": self.proximity.make_state(n), "light": self.light.make_state(n),
                "lidar": self.lidar.make_state(n),
                "ranges": np.zeros((n, 8)), "lux": np.zeros(n),
                "scan": np.zeros((n, self.lidar.count)), "rgb": np.zeros((n, 3), np.int32),
                "index": np.zeros(n, np.int64),
                "palette": np.asarray(self.palette, dtype=np.int64).reshape(-1, 3),
                "count": np.zeros(n, np.int32), "dist": np.zeros((n, m)),
                "angle": np.zeros((n, m))}

    def plan(self, world, group, keys, out, state):
        """``keys`` uint64[n, 4]: the keys of the four names of ``stream``, in that order."""
        start, stop = group.start, group.stop
        k_prox, k_light, k_ground, k_lidar = (keys[:, c] for c in range(4))
        p, lx, ld = self.proximity, self.light, self.lidar
        prox_params = (p.min_m, p.max_m, p.noise_mean, p.noise_std)
        lux_params = (sources(world) + sensors(state["light"], lx.range_m, lx.gain, False)
                      + (lx.max_lux, NOISE_KINDS[lx.noise], lx.noise_level))
        read_colour = plan_colour(world, group, k_ground, state["rgb"], self.ground_position_m,
                                  0.0, self.ground_noise_std)
        r, _, top = masts(world)
        beacon_z = np.where(r > 0.0, top, 0.0)

        def sense():
            tick = world.tick
            rangefinder_kernels.transfer_rows(
                start, stop, start, None, None, prox_params, k_prox, tick,
                self.proximity.distances(world, group, state["prox"]), state["ranges"])
            out["prox"] = prox_from_ranges(state["ranges"], self.prox_range_m)
            lux_kernels.rows(start, stop, start, world.bodies_args, world.scene_args, lux_params,
                             k_light, tick, state["light"]["sums"], state["lux"])
            out["light"] = state["lux"]
            read_colour()
            if self.labelled:
                label_rows(start, stop, start, None, None, state["palette"], None, 0,
                           state["rgb"], state["index"])
                out["ground"] = state["palette"][state["index"]]
            else:
                out["ground"] = state["rgb"]
            # neighbours, the simulation's way: beacons on top of the other robots
            cnt, dist, ang = state["count"], state["dist"], state["angle"]
            beacons(world, group, beacon_z, self.camera_z_m, self.camera_range_m, cnt,
                    dist, ang)
            out["camera_count"], out["camera_distance"], out["camera_angle"] = cnt, dist, ang
            # and the real robot's: clusters of lidar readings
            raw = ld.distances(world, group, state["lidar"],
                               max_m=CLUSTER_MAX_M + ld.noise_width_m + 1e-6)
            lidar_kernels.transfer_rows(start, stop, start, None, None, ld.transfer_params,
                                        k_lidar, tick, raw, state["scan"])
            cluster_kernel(state["scan"], state["lidar"]["angles"], CLUSTER_MIN_M,
                           CLUSTER_MAX_M, CLUSTER_DISTANCE_M, CLUSTER_ANGLE_RAD,
                           CLUSTER_MIN_POINTS, cnt, dist, ang)
            out["lidar_count"], out["lidar_distance"], out["lidar_angle"] = cnt, dist, ang
            which = "lidar" if self.use_lidar else "camera"
            out["neighbours"] = out[f"{which}_count"]
            out["neighbour_distance"] = out[f"{which}_distance"]
            out["neighbour_angle"] = out[f"{which}_angle"]
        return sense
