"""AutoMoDe-Chocolate's modules for the E-Puck2, vectorised over every robot of every run.

Behaviours (Francesca et al. 2014, 2015): exploration (``rwm`` τ ∈ {1…100}), stop,
phototaxis, anti-phototaxis, attraction (``att`` α ∈ [1, 5]), repulsion (``rep`` α ∈ [1, 5]).
Conditions: black, gray and white floor (``p`` β ∈ [0, 1]), neighbour count and inverted
neighbour count (``p`` ξ ∈ {0…10}, ``w`` η ∈ [0, 20]), fixed probability (``p`` β). Ids are those
of AutoMoDe's command-line strings.

Everything reads the *reference model*, not the raw devices: proximity and light as eight
values in [0, 1] at the sensors' angles, the ground as one grey level in [0, 1] (0 black) and
the neighbours heard on the range-and-bearing board (count, and Σ (1/(1 + d[cm]), ∠bearing)).
A robot flavour is this table of modules plus :class:`Kit.inputs`, the function that reads its
reference model from a group; Watermelon (RVR, ``watermelon.py``) is another :class:`Kit`
reusing the module factories here (``exploration``, ``neighbours``, ``floor``, ``count``).

One :func:`step` call advances every robot's PFSM by one control cycle, as AutoMoDe's
``AutoMoDeFiniteStateMachine::ControlStep`` does for one robot: on entering a state the
behaviour starts afresh and no condition is tested that cycle; otherwise the behaviour acts,
then each outgoing condition is tested, in random order, and the first that holds moves the
robot — equivalently, one of the conditions that hold, chosen uniformly.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from swarmstack.design.pfsm import MAX_TRANSITIONS, Flavour, Module, Packed, Param, \
    condition_param_names
from swarmstack.design.pfsm_kernel import TAXIS_VECTOR, Table, step_kernel
from swarmstack.robots.epuck2 import IR_ANGLES_RAD

MAX_SPEED_M_S = 0.12          # the e-puck reference model's wheel speed bound (Vanilla, Table 1)
PROXIMITY_THRESHOLD = 0.1     # exploration: an obstacle in front (prox_i ≥ 0.1)
OBSTACLE_GAIN = 5.0           # k of w = w' − k·w_o (phototaxis … repulsion)
MIN_VECTOR = 0.1              # a shorter vector to follow means "go straight"
BLACK_BELOW = 0.1             # AutoMoDeConditionBlackFloor: grey ≤ 0.1
WHITE_ABOVE = 0.95            # AutoMoDeConditionWhiteFloor: grey ≥ 0.95 (gray in between)
FRONT = np.array([0, 1, 6, 7])  # e-puck sensors at 15°, 50°, 310°, 345° (clockwise)
_IR_ANGLES = np.asarray(IR_ANGLES_RAD)

EXPLORATION, STOP, PHOTOTAXIS, ANTI_PHOTOTAXIS, ATTRACTION, REPULSION = range(6)
BLACK, GRAY, WHITE, NEIGHBOURS, INVERTED_NEIGHBOURS, FIXED = range(6)

_BETA = Param("p", 0.0, 1.0)
CHOCOLATE = Flavour(
    "chocolate",
    behaviours=(Module(EXPLORATION, "exploration", (Param("rwm", 1, 100, integer=True),)),
                Module(STOP, "stop"),
                Module(PHOTOTAXIS, "phototaxis"),
                Module(ANTI_PHOTOTAXIS, "anti-phototaxis"),
                Module(ATTRACTION, "attraction", (Param("att", 1.0, 5.0),)),
                Module(REPULSION, "repulsion", (Param("rep", 1.0, 5.0),))),
    conditions=(Module(BLACK, "black-floor", (_BETA,)),
                Module(GRAY, "gray-floor", (_BETA,)),
                Module(WHITE, "white-floor", (_BETA,)),
                Module(NEIGHBOURS, "neighbour-count", (Param("p", 0, 10, integer=True),
                                                       Param("w", 0.0, 20.0))),
                Module(INVERTED_NEIGHBOURS, "inverted-neighbour-count",
                       (Param("p", 0, 10, integer=True), Param("w", 0.0, 20.0))),
                Module(FIXED, "fixed-probability", (_BETA,))))


@dataclass
class Inputs:
    """The reference model of n robots for one control cycle."""

    prox: np.ndarray          # float64[n, 8] in [0, 1]
    prox_angle: np.ndarray    # float64[8] rad, CCW from the heading
    light: np.ndarray         # float64[n, 8] in [0, 1]
    light_angle: np.ndarray   # float64[8]
    ground: np.ndarray        # float64[n] grey level, 0 black … 1 white
    neighbours: np.ndarray    # int64[n] robots heard this cycle
    pull: np.ndarray          # float64[n, 2] Σ (1/(1 + d[cm]), ∠bearing) over them


@dataclass
class Memory:
    """Per robot: current state, whether it just entered it, exploration's turning state and
    the previous cycle's reading a one-sensor behaviour compares with (NaN: none yet)."""

    state: np.ndarray
    entering: np.ndarray
    turn_steps: np.ndarray
    turn_left: np.ndarray
    previous: np.ndarray

    @staticmethod
    def fresh(n: int) -> "Memory":
        return Memory(np.zeros(n, np.int64), np.ones(n, bool), np.zeros(n, np.int64),
                      np.zeros(n, bool), np.full(n, np.nan))


_DIRECTIONS: dict = {}


def _dirs(angles: np.ndarray) -> np.ndarray:
    """float64[k, 2] unit vectors of a sensor ring, made once per ring."""
    dirs = _DIRECTIONS.get(id(angles))
    if dirs is None or dirs[0] is not angles:
        dirs = _DIRECTIONS[id(angles)] = (angles, np.stack([np.cos(angles), np.sin(angles)],
                                                           axis=1))
    return dirs[1]


def _vector(values: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """Σ_i (values_i, ∠angles_i) per row: float64[n, 2]."""
    return values @ _dirs(angles)


def _follow(w: np.ndarray, max_speed: float) -> np.ndarray:
    """AutoMoDe's ComputeWheelsVelocityFromVector: the wheel on the vector's side slows by
    the cosine of its angle; a vector shorter than 0.1 means straight ahead."""
    short = np.hypot(w[:, 0], w[:, 1]) < MIN_VECTOR
    w = np.where(short[:, None], [1.0, 0.0], w)
    a = np.arctan2(w[:, 1], w[:, 0]) % (2 * np.pi)
    c = np.cos(a)
    left_half = (a > 0) & (a < np.pi)
    wheels = np.empty((w.shape[0], 2))
    wheels[:, 0] = np.where(left_half, c, 1.0)
    wheels[:, 1] = np.where(left_half, 1.0, c)
    return wheels * max_speed


def exploration(obstacle: Callable):
    """Exploration with the flavour's idea of an obstacle in front: ``obstacle(inputs, rows)``
    gives (bool[m] something in front, float64[m, 2] the vector of what is sensed)."""
    def behaviour(inp: Inputs, rows, param, mem: Memory, u: np.ndarray, speed: float):
        turning = mem.turn_steps[rows] > 0
        wheels = np.full((rows.size, 2), speed)
        # turning: count down, spin away from the obstacle seen when the turn began
        tl = mem.turn_left[rows]
        wheels[turning, 0] = np.where(tl[turning], -speed, speed)
        wheels[turning, 1] = np.where(tl[turning], speed, -speed)
        steps = mem.turn_steps[rows] - turning
        front, w = obstacle(inp, rows)
        blocked = ~turning & front
        # a turn of U{0 … τ} cycles, away from the side of the sensed vector
        draw = np.floor(u * (np.floor(param) + 1.0)).astype(np.int64)
        side_right = np.arctan2(w[:, 1], w[:, 0]) < 0
        steps = np.where(blocked, np.maximum(draw, 1), steps)
        mem.turn_left[rows] = np.where(blocked, side_right, tl)
        mem.turn_steps[rows] = steps
        return wheels
    return behaviour


def _front_proximity(inp: Inputs, rows):
    prox = inp.prox[rows]
    return ((prox[:, FRONT] >= PROXIMITY_THRESHOLD).any(axis=1),
            _vector(prox, inp.prox_angle))


def stop(inp, rows, param, mem, u, speed):
    return np.zeros((rows.size, 2))


def _taxis(sign: float):
    def behaviour(inp: Inputs, rows, param, mem, u, speed):
        w = sign * _vector(inp.light[rows], inp.light_angle) \
            - OBSTACLE_GAIN * _vector(inp.prox[rows], inp.prox_angle)
        return _follow(w, speed)
    return behaviour


def neighbours(sign: float, gain: float = 1.0):
    """Attraction (sign 1) or repulsion (−1): follow ``sign·gain·α·pull − k·w_prox``."""
    def behaviour(inp: Inputs, rows, param, mem, u, speed):
        w = (sign * gain) * param[:, None] * inp.pull[rows] \
            - OBSTACLE_GAIN * _vector(inp.prox[rows], inp.prox_angle)
        return _follow(w, speed)
    return behaviour


def floor(low: float, high: float, closed_low: bool, closed_high: bool):
    def condition(inp: Inputs, robots, params):
        g = inp.ground[robots]
        inside = ((g >= low) if closed_low else (g > low)) & \
            ((g <= high) if closed_high else (g < high))
        return np.where(inside, params["p"], 0.0)
    return condition


def count(inverted: bool):
    def condition(inp: Inputs, robots, params):
        n = inp.neighbours[robots]
        with np.errstate(over="ignore"):
            z = 1.0 / (1.0 + np.exp(params["w"] * (params["p"] - n)))
        return 1.0 - z if inverted else z
    return condition


def fixed(inp, robots, params):
    return params["p"]


# the range-and-bearing board's distances are in cm: a neighbour weighs 1/(1 + d[cm])
PULL_PER_M = 100.0


def epuck2_inputs(group) -> Inputs:
    """The Chocolate reference model of an E-Puck2 group: proximity 0–4095 → [0, 1], light
    4095 (dark) – 0 → [0, 1], the middle ground sensor 0–1023 → [0, 1], neighbours from the
    range-and-bearing inbox (distances in cm, as AutoMoDe's e-puck board reports them)."""
    n = group.n
    count, pull = group.neighbour_sums(PULL_PER_M)
    angles = _IR_ANGLES
    # without a light sensor (an arena with no light) the robot sees darkness: phototaxis
    # and anti-phototaxis then go straight, as they do in the dark (the reading is looked up
    # in the view's attributes: a missing one would raise an AttributeError with suggestions)
    light = (4095.0 - group.light) / 4095.0 if "light" in vars(group) else np.zeros((n, 8))
    return Inputs(prox=group.proximity / 4095.0, prox_angle=angles,
                  light=light, light_angle=angles,
                  ground=group.ground[:, 1] / 1023.0, neighbours=count, pull=pull)


@dataclass(frozen=True)
class Kit:
    """A flavour's modules as functions, and how its reference model is read from a group."""

    flavour: Flavour
    inputs: Callable                  # group -> Inputs
    behaviours: dict                  # id -> fn(inputs, rows, param, memory, u, speed) -> wheels
    conditions: dict                  # id -> fn(inputs, robots, params) -> probability
    max_speed: float                  # in the unit the behaviours' wheels are in
    needs: tuple[str, ...]            # readings the reference model reads
    radio: bool = True                # neighbours heard on the range-and-bearing radio
    to_m_s: Optional[Callable] = None  # behaviours' wheels -> m/s (None: already m/s)
    table: Optional[Table] = None     # the modules as numbers: run by the compiled kernel


CHOCOLATE_KIT = Kit(
    CHOCOLATE, epuck2_inputs,
    behaviours={EXPLORATION: exploration(_front_proximity), STOP: stop,
                PHOTOTAXIS: _taxis(1.0), ANTI_PHOTOTAXIS: _taxis(-1.0),
                ATTRACTION: neighbours(1.0), REPULSION: neighbours(-1.0)},
    conditions={BLACK: floor(-1.0, BLACK_BELOW, True, True),
                GRAY: floor(BLACK_BELOW, WHITE_ABOVE, False, False),
                WHITE: floor(WHITE_ABOVE, 2.0, True, True),
                NEIGHBOURS: count(False), INVERTED_NEIGHBOURS: count(True), FIXED: fixed},
    max_speed=MAX_SPEED_M_S, needs=("proximity", "ground"),
    table=Table(front=FRONT, ahead=False, proximity_threshold=PROXIMITY_THRESHOLD,
                obstacle_gain=OBSTACLE_GAIN, min_vector=MIN_VECTOR,
                floors=np.array([[-1.0, BLACK_BELOW, 1, 1],
                                 [BLACK_BELOW, WHITE_ABOVE, 0, 0],
                                 [WHITE_ABOVE, 2.0, 1, 1]]),
                taxis=TAXIS_VECTOR, attraction_gain=1.0, colour_hues_deg=np.zeros(1),
                hue_tolerance_deg=0.0))

_param_names = functools.cache(condition_param_names)   # asked every control cycle


DRAWS = 1 + 2 * MAX_TRANSITIONS   # uniform numbers a robot uses per cycle


def step(kit: Kit, pk: Packed, which: np.ndarray, mem: Memory, inp: Inputs,
         u: np.ndarray) -> np.ndarray:
    """One control cycle of every robot: float64[n, 2] wheel speeds (m/s, through
    ``kit.to_m_s``). ``which[i]`` is robot i's PFSM (a row of ``pk``); ``u`` float64[n, DRAWS]
    its own uniform draws. Runs the compiled kernel when the kit has a :class:`Table`,
    :func:`step_reference` otherwise."""
    t = kit.table
    if t is None:
        return step_reference(kit, pk, which, mem, inp, u)
    n = which.shape[0]
    names = _param_names(kit.flavour)
    q = [names.index(x) if x in names else 0 for x in ("p", "w", "l")]
    extra = _rvr_fields(inp, n)
    wheels = np.zeros((n, 2))
    step_kernel(pk.behaviour, pk.bparam, pk.ntrans, pk.dest, pk.cond, pk.cparam, q[0], q[1],
                q[2], which, mem.state, mem.entering, mem.turn_steps, mem.turn_left,
                mem.previous, inp.prox, _dirs(inp.prox_angle), inp.light,
                _dirs(inp.light_angle), inp.ground, inp.neighbours, inp.pull, *extra,
                np.ascontiguousarray(u), t.front, t.ahead, t.proximity_threshold,
                t.obstacle_gain, t.min_vector, t.floors, t.taxis, t.attraction_gain,
                t.colour_hues_deg, t.hue_tolerance_deg, float(kit.max_speed), wheels)
    return wheels if kit.to_m_s is None else kit.to_m_s(wheels)


def _rvr_fields(inp: Inputs, n: int) -> tuple:
    """``hue, lux, ahead, ahead_w`` of the Watermelon inputs (zeros for flavours without)."""
    hue = getattr(inp, "hue", None)
    if hue is None:
        return np.zeros(n), np.zeros(n), np.zeros(n, dtype=np.bool_), np.zeros((n, 2))
    return (np.asarray(hue, np.float64), np.asarray(inp.lux, np.float64),
            np.asarray(inp.ahead, np.bool_), np.asarray(inp.ahead_w, np.float64))


def step_reference(kit: Kit, pk: Packed, which: np.ndarray, mem: Memory, inp: Inputs,
                   u: np.ndarray) -> np.ndarray:
    """:func:`step` written with the kit's module functions over groups of robots: what each
    module does, readable; the compiled kernel computes the same."""
    n = which.shape[0]
    entering = mem.entering.copy()
    # a state just entered starts its behaviour afresh
    mem.turn_steps[entering] = 0
    mem.previous[entering] = np.nan
    beh = pk.behaviour[which, mem.state]
    bparam = pk.bparam[which, mem.state]
    wheels = np.zeros((n, 2))
    for ident, fn in kit.behaviours.items():
        rows = np.flatnonzero(beh == ident)
        if rows.size:
            wheels[rows] = fn(inp, rows, bparam[rows], mem, u[rows, 0], kit.max_speed)
    mem.entering[:] = False
    # conditions of the robots that did not just enter their state
    t = MAX_TRANSITIONS
    valid = (np.arange(t)[None, :] < pk.ntrans[which, mem.state][:, None]) & ~entering[:, None]
    cond = pk.cond[which, mem.state]                 # [n, T]
    cpar = pk.cparam[which, mem.state]               # [n, T, P]
    prob = np.zeros((n, t))
    names = _param_names(kit.flavour)
    robot_of = np.broadcast_to(np.arange(n)[:, None], (n, t))
    for ident, fn in kit.conditions.items():
        mask = valid & (cond == ident)
        if mask.any():
            params = {name: cpar[..., q][mask] for q, name in enumerate(names)}
            prob[mask] = fn(inp, robot_of[mask], params)
    fire = valid & (u[:, 1:1 + t] < prob)
    key = np.where(fire, 1.0 + u[:, 1 + t:1 + 2 * t], 0.0)
    moved = fire.any(axis=1)
    if moved.any():
        rows = np.flatnonzero(moved)
        j = key[rows].argmax(axis=1)
        mem.state[rows] = pk.dest[which[rows], mem.state[rows], j]
        mem.entering[rows] = True
    return wheels if kit.to_m_s is None else kit.to_m_s(wheels)
