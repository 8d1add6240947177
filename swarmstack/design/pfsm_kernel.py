"""One control cycle of every robot's PFSM as a Numba kernel.

The modules of :mod:`~swarmstack.design.chocolate` and :mod:`~swarmstack.design.watermelon`,
written as NumPy over groups of robots, say what a flavour does and stay its reference
(``chocolate.step_reference``). A flavour that also describes itself as a :class:`Table` — its
thresholds, gains and which variant of a module it uses — runs here instead: one pass over
the robots, each following its own state's behaviour and testing its own transitions, with no
temporary arrays (a design batch spends most of a tick in its controllers otherwise). The
kernel computes what the reference computes, module for module, so both move every robot
alike (``tests/design/test_pfsm_kernel.py`` compares them on random inputs).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from numba import njit

# module ids shared by both flavours (chocolate.py)
_EXPLORATION, _STOP, _PHOTOTAXIS, _ANTI_PHOTOTAXIS, _ATTRACTION, _REPULSION = range(6)
_BLACK, _GRAY, _WHITE, _NEIGHBOURS, _INVERTED, _FIXED, _COLOUR = range(7)

TAXIS_VECTOR = 0       # phototaxis follows the light sensors' vector (Chocolate)
TAXIS_KLINO = 1        # one-sensor klinotaxis on ``lux`` (Watermelon)


@dataclass(frozen=True)
class Table:
    """What distinguishes a flavour's modules, as numbers the kernel reads.

    ``front``: the proximity sensors that see an obstacle in front (≥ ``proximity_threshold``);
    ``ahead``: whether a neighbour in front counts too (its vector is added). ``floors``:
    float64[3, 4] per floor condition (black, gray, white): low, high, closed at low, closed at
    high. ``taxis``: :data:`TAXIS_VECTOR` or :data:`TAXIS_KLINO`. ``attraction_gain``: the
    attraction's k_w. ``colour_hues_deg`` and ``hue_tolerance_deg``: the colour condition."""

    front: np.ndarray
    ahead: bool
    proximity_threshold: float
    obstacle_gain: float
    min_vector: float
    floors: np.ndarray
    taxis: int
    attraction_gain: float
    colour_hues_deg: np.ndarray
    hue_tolerance_deg: float


@njit(cache=True, error_model="numpy")
def _follow(w0, w1, max_speed, min_vector, out, i):
    # chocolate._follow for one robot
    if math.hypot(w0, w1) < min_vector:
        w0, w1 = 1.0, 0.0
    a = math.atan2(w1, w0) % (2 * np.pi)
    c = math.cos(a)
    if a > 0 and a < np.pi:
        out[i, 0] = c * max_speed
        out[i, 1] = max_speed
    else:
        out[i, 0] = max_speed
        out[i, 1] = c * max_speed


@njit(cache=True, error_model="numpy")
def _vector(values, dirs, i):
    # chocolate._vector for one robot: Σ_k values[i, k] (cos θ_k, sin θ_k)
    x = 0.0
    y = 0.0
    for k in range(values.shape[1]):
        x += values[i, k] * dirs[k, 0]
        y += values[i, k] * dirs[k, 1]
    return x, y


@njit(cache=True, error_model="numpy")
def step_kernel(behaviour, bparam, ntrans, dest, cond, cparam, q_p, q_w, q_l,
                which, state, entering, turn_steps, turn_left, previous,
                prox, prox_dirs, light, light_dirs, ground, neighbours, pull,
                hue, lux, ahead, ahead_w, u,
                front, use_ahead, prox_threshold, obstacle_gain, min_vector, floors, taxis,
                attraction_gain, colour_hues, hue_tolerance, max_speed, wheels):
    """Every robot's cycle (see ``chocolate.step``): behaviour of its state, then — unless it
    just entered that state — its transitions, one of those whose condition holds chosen by
    the draws ``u`` float64[n, 1 + 2 T]. Writes ``wheels`` float64[n, 2] and the memory."""
    n = which.shape[0]
    t_max = dest.shape[2]
    for i in range(n):
        k = which[i]
        s = state[i]
        was_entering = entering[i]
        if was_entering:
            turn_steps[i] = 0
            previous[i] = np.nan
        b = behaviour[k, s]
        param = bparam[k, s]
        if b == _EXPLORATION:
            turning = turn_steps[i] > 0
            tl = turn_left[i]
            if turning:
                wheels[i, 0] = -max_speed if tl else max_speed
                wheels[i, 1] = max_speed if tl else -max_speed
            else:
                wheels[i, 0] = max_speed
                wheels[i, 1] = max_speed
            steps = turn_steps[i] - (1 if turning else 0)
            blocked = False
            for f in range(front.shape[0]):
                if prox[i, front[f]] >= prox_threshold:
                    blocked = True
            wx, wy = _vector(prox, prox_dirs, i)
            if use_ahead:
                blocked = blocked or ahead[i]
                wx += ahead_w[i, 0]
                wy += ahead_w[i, 1]
            if blocked and not turning:
                draw = np.int64(math.floor(u[i, 0] * (math.floor(param) + 1.0)))
                steps = max(draw, 1)
                turn_left[i] = math.atan2(wy, wx) < 0
            turn_steps[i] = steps
        elif b == _STOP:
            wheels[i, 0] = 0.0
            wheels[i, 1] = 0.0
        elif b == _PHOTOTAXIS or b == _ANTI_PHOTOTAXIS:
            sign = 1.0 if b == _PHOTOTAXIS else -1.0
            px, py = _vector(prox, prox_dirs, i)
            if taxis == TAXIS_VECTOR:
                lx, ly = _vector(light, light_dirs, i)
                wx = sign * lx - obstacle_gain * px
                wy = sign * ly - obstacle_gain * py
            else:
                now = lux[i]
                worse = sign * (now - previous[i]) < 0 and now > 0   # NaN before: not worse
                previous[i] = now
                wx = (-1.0 if worse else 1.0) - obstacle_gain * px
                wy = 0.0 - obstacle_gain * py
            _follow(wx, wy, max_speed, min_vector, wheels, i)
        elif b == _ATTRACTION or b == _REPULSION:
            g = attraction_gain if b == _ATTRACTION else -1.0
            px, py = _vector(prox, prox_dirs, i)
            a = g * param
            _follow(a * pull[i, 0] - obstacle_gain * px, a * pull[i, 1] - obstacle_gain * py,
                    max_speed, min_vector, wheels, i)
        else:
            wheels[i, 0] = 0.0
            wheels[i, 1] = 0.0
        entering[i] = False
        if was_entering:
            continue
        best = -1
        best_key = 0.0
        for t in range(min(ntrans[k, s], t_max)):
            c = cond[k, s, t]
            p = cparam[k, s, t, q_p]
            prob = 0.0
            if c == _BLACK or c == _GRAY or c == _WHITE:
                lo = floors[c, 0]
                hi = floors[c, 1]
                gr = ground[i]
                above = gr >= lo if floors[c, 2] != 0 else gr > lo
                below = gr <= hi if floors[c, 3] != 0 else gr < hi
                prob = p if above and below else 0.0
            elif c == _NEIGHBOURS or c == _INVERTED:
                z = 1.0 / (1.0 + math.exp(cparam[k, s, t, q_w] * (p - neighbours[i])))
                prob = 1.0 - z if c == _INVERTED else z
            elif c == _FIXED:
                prob = p
            elif c == _COLOUR:
                li = min(max(np.int64(cparam[k, s, t, q_l]), 0), colour_hues.shape[0] - 1)
                d = abs((hue[i] - colour_hues[li] + 180.0) % 360.0 - 180.0)
                prob = p if d < hue_tolerance else 0.0
            if u[i, 1 + t] < prob:
                key = 1.0 + u[i, 1 + t_max + t]
                if key > best_key:
                    best_key = key
                    best = t
        if best >= 0:
            state[i] = dest[k, s, best]
            entering[i] = True
