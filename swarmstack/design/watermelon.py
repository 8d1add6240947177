"""AutoMoDe-Watermelon's modules for the Sphero RVR (Mercator report §4.5), vectorised over every
robot of every run, on the RVR reference model (report §4.4, Table 1; ``docs/rvr.md``).

Ids are those of the published Watermelon controller's PFSM builder, which keeps Chocolate's
numbering (so a string means the same module in both flavours) and adds colour detection:

Behaviours: 0 exploration (``rwm`` τ ∈ {1…100}), 1 stop, 2 phototaxis, 3 anti-phototaxis,
4 attraction (``att`` α ∈ [1, 5]), 5 repulsion (``rep`` α ∈ [1, 5]).
Conditions: 0 black floor, 1 gray floor, 2 white floor (``p`` β ∈ [0, 1]), 3 neighbour count,
4 inverted neighbour count (``p`` ξ ∈ {0…10}, ``w`` η ∈ [0, 20]), 5 fixed probability (``p`` β),
6 colour detection (``p`` β, ``l`` c ∈ {0 red, 1 green, 2 blue, 3 yellow}).

Where the report differs from Chocolate:

- exploration turns also when a neighbour is in front; "front" is the RVR's sensors at +45°, 0°
  and −45° (the report's indices 1, 2, 7, 8 are the e-puck's), and a neighbour is in front when
  it is within ±45° and 0.75 m (the reach of the lidar clustering) — both DERIVED;
- attraction follows ``w = k_w·Σ (α/d, ∠q) − k_o·w_o`` with k_w = 1.2, k_o = 5 and d in m
  (Eq. 18); repulsion ``w = −Σ (α/d, ∠q) − 5 w_o`` (Eq. 19);
- floor conditions on the grey level (luma) of the labelled ground colour: black < 0.05,
  white > 0.78, gray "around 0.5", here 0.3 < g < 0.7 (DERIVED);
- colour detection: the hue of the labelled ground colour within 15° of the colour's hue
  (circular distance; an achromatic colour has no hue and matches none).

The report leaves phototaxis and anti-phototaxis out of Watermelon: the RVR has one light sensor
(and the prototype's is covered), so a light vector cannot be formed. They are kept under their
ids, DERIVED as one-sensor klinotaxis: go straight while the light reading rises (falls, for
anti-phototaxis) or while no light is perceived, and turn on the spot, left, in a cycle when it
fell (rose) since the previous one; obstacle avoidance as in the other behaviours.

Wheels: behaviours compute tread speeds in the reference model's unit, cm/s, at most 12 cm/s
(the RVR reference model's speed); they are clamped to Table 1's ±155 cm/s and turned into m/s
(``value / 100``, as ``set_treads``) once per tick.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from swarmstack.design.chocolate import (ANTI_PHOTOTAXIS, ATTRACTION, BLACK, CHOCOLATE,
                                         EXPLORATION, FIXED, GRAY, INVERTED_NEIGHBOURS,
                                         NEIGHBOURS, OBSTACLE_GAIN, PHOTOTAXIS,
                                         MIN_VECTOR, PROXIMITY_THRESHOLD, REPULSION, STOP, WHITE,
                                         Inputs, Kit, _follow, _vector, count, exploration, fixed,
                                         floor, neighbours, stop)
from swarmstack.design.pfsm import Flavour, Module, Param
from swarmstack.design.pfsm_kernel import TAXIS_KLINO, Table
from swarmstack.robots.rvr import (PROX_ANGLES_RAD, REFERENCE_WHEELS_M_S_PER_UNIT,
                                   REFERENCE_WHEELS_MAX)
from swarmstack.robots.rvr_reference import CLUSTER_MAX_M
from swarmstack.world.floor import LUMA

MAX_SPEED_CM_S = 12.0         # the RVR reference model's wheel speed (cm/s, Table 1's unit)
ATTRACTION_GAIN = 1.2         # k_w of Eq. 18
BLACK_BELOW = 0.05            # §4.5 condition 1
GRAY_BAND = (0.3, 0.7)        # "around 0.5": DERIVED
WHITE_ABOVE = 0.78            # §4.5 condition 3
HUE_TOLERANCE_DEG = 15.0      # §4.5 condition 7
# the colours of condition 7, in the report's order: red, green, blue, yellow (hue, degrees)
COLOURS = ("red", "green", "blue", "yellow")
COLOUR_HUES_DEG = np.array([0.0, 120.0, 240.0, 60.0])
FRONT_HALF_ANGLE = np.pi / 4  # the sensors at +45°, 0°, −45°; neighbours within ±45°
NEIGHBOUR_AHEAD_M = CLUSTER_MAX_M
_PROX_ANGLES = np.mod(np.asarray(PROX_ANGLES_RAD), 2 * np.pi)
FRONT = np.flatnonzero(np.abs(np.asarray(PROX_ANGLES_RAD)) <= FRONT_HALF_ANGLE + 1e-9)

COLOUR = 6

# Chocolate's modules, with exploration's random walk at least one step (the published
# Watermelon builder) and the colour condition added
WATERMELON = Flavour(
    "watermelon",
    behaviours=(Module(EXPLORATION, "exploration", (Param("rwm", 1, 100, integer=True),)),
                *(m for m in CHOCOLATE.behaviours if m.id != EXPLORATION)),
    conditions=(*CHOCOLATE.conditions,
                Module(COLOUR, "colour", (Param("p", 0.0, 1.0),
                                          Param("l", 0, len(COLOURS) - 1, integer=True)))))


@dataclass
class RVRInputs(Inputs):
    """Chocolate's inputs (``pull`` = Σ (1/d[m], ∠q) over the neighbours) and the RVR's own."""

    hue: np.ndarray = None     # float64[n] degrees in [0, 360) of the ground colour; NaN: grey
    lux: np.ndarray = None     # float64[n] the one light sensor
    ahead: np.ndarray = None   # bool[n] a neighbour in front
    ahead_w: np.ndarray = None  # float64[n, 2] Σ (1, ∠q) over the neighbours in front


def hue_deg(rgb) -> np.ndarray:
    """The hue (degrees, [0, 360)) of RGB colours (…, 3); NaN where the colour is achromatic
    (all channels equal: greys, black, white)."""
    c = np.asarray(rgb, dtype=np.float64)
    r, g, b = c[..., 0], c[..., 1], c[..., 2]
    hi = c.max(axis=-1)
    delta = hi - c.min(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        h = np.where(hi == r, (g - b) / delta,
                     np.where(hi == g, 2.0 + (b - r) / delta, 4.0 + (r - g) / delta))
    return np.where(delta > 0, np.mod(60.0 * h, 360.0), np.nan)


def colour_index(rgb) -> np.ndarray:
    """Index in :data:`COLOURS` of the colour whose hue is within 15° of each RGB colour's
    hue (…, 3), −1 for none."""
    h = hue_deg(rgb)[..., None]
    d = np.abs(np.mod(h - COLOUR_HUES_DEG + 180.0, 360.0) - 180.0)
    close = d < HUE_TOLERANCE_DEG            # NaN compares False: greys match nothing
    return np.where(close.any(axis=-1), np.argmin(np.where(close, d, np.inf), axis=-1), -1)


def rvr_inputs(group) -> RVRInputs:
    """The Watermelon reference model of an RVR group, from its ``reference`` record."""
    ref = group.reference
    n = ref.shape[0]
    dist = ref["neighbour_distance"]
    ang = ref["neighbour_angle"]
    seen = np.isfinite(dist) & (dist > 0)
    with np.errstate(divide="ignore"):
        inv = np.where(seen, 1.0 / np.where(seen, dist, 1.0), 0.0)
    c, s = np.cos(ang), np.sin(ang)
    pull = np.stack([(inv * c).sum(axis=1), (inv * s).sum(axis=1)], axis=1)
    front = seen & (dist <= NEIGHBOUR_AHEAD_M) & (c >= np.cos(FRONT_HALF_ANGLE) - 1e-12)
    ahead_w = np.stack([(front * c).sum(axis=1), (front * s).sum(axis=1)], axis=1)
    rgb = ref["ground"]
    return RVRInputs(prox=ref["prox"], prox_angle=_PROX_ANGLES,
                     light=np.zeros((n, 1)), light_angle=np.zeros(1),
                     ground=(rgb.astype(np.float64) @ LUMA) / 255.0,
                     neighbours=ref["neighbours"].astype(np.int64), pull=pull,
                     hue=hue_deg(rgb), lux=ref["light"].astype(np.float64),
                     ahead=front.any(axis=1), ahead_w=ahead_w)


def _front(inp: RVRInputs, rows):
    """Something in front: a front sensor ≥ 0.1 or a neighbour ahead; what is sensed is the
    proximity vector plus the neighbours ahead."""
    prox = inp.prox[rows]
    blocked = (prox[:, FRONT] >= PROXIMITY_THRESHOLD).any(axis=1) | inp.ahead[rows]
    return blocked, _vector(prox, inp.prox_angle) + inp.ahead_w[rows]


def _klinotaxis(sign: float):
    """One-sensor (anti-)phototaxis (see the module docstring)."""
    def behaviour(inp: RVRInputs, rows, param, mem, u, speed):
        lux = inp.lux[rows]
        before = mem.previous[rows]
        with np.errstate(invalid="ignore"):
            worse = (sign * (lux - before) < 0) & (lux > 0)    # NaN before: not worse
        mem.previous[rows] = lux
        w = np.where(worse[:, None], [-1.0, 0.0], [1.0, 0.0]) \
            - OBSTACLE_GAIN * _vector(inp.prox[rows], inp.prox_angle)
        return _follow(w, speed)
    return behaviour


def _colour(inp: RVRInputs, robots, params):
    h = inp.hue[robots]
    target = COLOUR_HUES_DEG[np.clip(params["l"].astype(np.int64), 0, len(COLOURS) - 1)]
    d = np.abs(np.mod(h - target + 180.0, 360.0) - 180.0)
    with np.errstate(invalid="ignore"):
        return np.where(d < HUE_TOLERANCE_DEG, params["p"], 0.0)


def treads_to_m_s(wheels_cm_s: np.ndarray) -> np.ndarray:
    """Table 1's tread speeds (cm/s, magnitude ≤ 155) as wheel commands in m/s."""
    return np.clip(wheels_cm_s, -REFERENCE_WHEELS_MAX, REFERENCE_WHEELS_MAX) \
        * REFERENCE_WHEELS_M_S_PER_UNIT


WATERMELON_KIT = Kit(
    WATERMELON, rvr_inputs,
    behaviours={EXPLORATION: exploration(_front), STOP: stop,
                PHOTOTAXIS: _klinotaxis(1.0), ANTI_PHOTOTAXIS: _klinotaxis(-1.0),
                ATTRACTION: neighbours(1.0, ATTRACTION_GAIN), REPULSION: neighbours(-1.0)},
    conditions={BLACK: floor(-1.0, BLACK_BELOW, True, False),
                GRAY: floor(GRAY_BAND[0], GRAY_BAND[1], False, False),
                WHITE: floor(WHITE_ABOVE, 2.0, False, True),
                NEIGHBOURS: count(False), INVERTED_NEIGHBOURS: count(True), FIXED: fixed,
                COLOUR: _colour},
    max_speed=MAX_SPEED_CM_S, needs=("reference",), radio=False, to_m_s=treads_to_m_s,
    table=Table(front=FRONT, ahead=True, proximity_threshold=PROXIMITY_THRESHOLD,
                obstacle_gain=OBSTACLE_GAIN, min_vector=MIN_VECTOR,
                floors=np.array([[-1.0, BLACK_BELOW, 1, 0],
                                 [GRAY_BAND[0], GRAY_BAND[1], 0, 0],
                                 [WHITE_ABOVE, 2.0, 0, 1]]),
                taxis=TAXIS_KLINO, attraction_gain=ATTRACTION_GAIN,
                colour_hues_deg=COLOUR_HUES_DEG, hue_tolerance_deg=HUE_TOLERANCE_DEG))
