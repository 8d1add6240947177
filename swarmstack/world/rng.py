"""Random streams: one seed per run, an independent stream per robot and per sensor.

Hot paths draw noise inside Numba kernels, where a stateful ``numpy.random.Generator`` per robot
would force a Python loop over robots. So each (robot, stream) pair gets a 64-bit *key* spawned
from the run's ``numpy.random.SeedSequence``, and a draw is a counter-based hash of
``(key, tick, channel)``: reproducible, independent per stream, and identical whether a run is
simulated alone or inside a batch of runs.
"""

from __future__ import annotations

import numpy as np

from numba import njit

# Named streams of each robot. Adding a stream appends here so existing keys never change.
STREAMS = (
    "proximity", "light", "ground", "tof", "encoders", "camera", "battery", "controller",
    "wheels", "radio", "positioning",
)
STREAM = {name: i for i, name in enumerate(STREAMS)}


def run_seed_sequence(seed: int, run: int) -> np.random.SeedSequence:
    """The SeedSequence of run ``run`` of a batch started at ``seed`` (run k uses seed + k)."""
    return np.random.SeedSequence(int(seed) + int(run))


def robot_stream_keys(seed: int, run: int, n_robots: int) -> np.ndarray:
    """uint64[n_robots, len(STREAMS)] keys: robot i's streams are spawned children of the run."""
    children = run_seed_sequence(seed, run).spawn(n_robots + 1)[1:]  # child 0 is the run's own
    keys = np.empty((n_robots, len(STREAMS)), dtype=np.uint64)
    for i, child in enumerate(children):  # set-up only, never per tick
        keys[i] = child.generate_state(len(STREAMS), dtype=np.uint64)
    return keys


def run_generator(seed: int, run: int) -> np.random.Generator:
    """A Generator for run-level set-up draws (placement): the run's child 0."""
    return np.random.default_rng(run_seed_sequence(seed, run).spawn(1)[0])


@njit(cache=True, inline="always")
def _mix64(z):
    # SplitMix64 finaliser: a bijective avalanche on 64 bits.
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def uniform01(key, tick, channel):
    """A uniform double in [0, 1) from stream ``key`` at ``tick``, for draw number ``channel``."""
    z = _mix64(np.uint64(key) ^ _mix64(np.uint64(tick) * np.uint64(0x9E3779B97F4A7C15)
                                       + np.uint64(channel)))
    return (z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, inline="always")
def symmetric(key, tick, channel):
    """Uniform in [-1, 1): ARGoS's noise convention."""
    return 2.0 * uniform01(key, tick, channel) - 1.0


@njit(cache=True, inline="always")
def gaussian(key, tick, channel):
    """Standard normal draw (Box–Muller on two hashed uniforms)."""
    u1 = uniform01(key, tick, 2 * channel)
    u2 = uniform01(key, tick, 2 * channel + 1)
    return np.sqrt(-2.0 * np.log(1.0 - u1)) * np.cos(2.0 * np.pi * u2)


@njit(cache=True)
def uniform_array(keys, tick, channels):
    """uniform01 for every key (1-D) and channel count: float64[len(keys), channels]."""
    out = np.empty((keys.shape[0], channels))
    for i in range(keys.shape[0]):
        for c in range(channels):
            out[i, c] = uniform01(keys[i], tick, c)
    return out
