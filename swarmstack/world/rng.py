"""Random streams: one seed per run, an independent stream per robot and per named stream.

Hot paths draw noise inside Numba kernels, where a stateful ``numpy.random.Generator`` per robot
would force a Python loop over robots. So each (robot, stream) pair gets a 64-bit *key* derived
from the run's ``numpy.random.SeedSequence``, and a draw is a counter-based hash of
``(key, tick, channel)``: reproducible, independent per stream, and identical whether a run is
simulated alone or inside a batch of runs.

A stream is named: a device's ``stream`` (its own name unless it says otherwise), an actuator's
name, ``"controller"``, ``"radio"``. Robot ``i`` of a run is the run's spawned child ``i + 1``;
the key of stream ``name`` is word ``FIXED_WORDS[name]`` of that child's state for the names in
that frozen table, and otherwise the SplitMix64 finaliser of word ``NAMED_WORD`` xor a stable
64-bit hash of the name (BLAKE2b): distinct names give a robot distinct keys. A new stream
therefore needs no table entry, and adding one changes no other stream's key.
"""

from __future__ import annotations

import hashlib
from typing import Sequence, Union

import numpy as np

from numba import njit

# Frozen: the state word of each of these stream names (recorded runs depend on every entry).
# Names sharing a word draw the same numbers: the Crazyflie's camera and down_camera, the RVR's
# ground_color and fixed_color, and each of them with the RVR's reference device (which draws
# on "proximity", "light", "ground_color" and "lidar").
FIXED_WORDS = {
    "proximity": 0, "light": 1, "ground": 2, "tof": 3, "encoders": 4, "camera": 5, "battery": 6,
    "controller": 7, "wheels": 8, "radio": 9, "positioning": 10,
    "tof_mm": 3, "pose": 10, "lidar": 3, "down_camera": 5, "ground_color": 2, "fixed_color": 2,
}
NAMED_WORD = max(FIXED_WORDS.values()) + 1  # the base of every other name's key
_WORDS = NAMED_WORD + 1  # generate_state is prefix-stable: word k never moves

Stream = Union[str, tuple]  # one stream name, or a tuple of names (keys then uint64[n, k])


def run_seed_sequence(seed: int, run: int) -> np.random.SeedSequence:
    """The SeedSequence of run ``run`` of a batch started at ``seed`` (run k uses seed + k)."""
    return np.random.SeedSequence(int(seed) + int(run))


def robot_seeds(seed: int, run: int, n_robots: int) -> list:
    """The SeedSequences of robots 0 … n_robots − 1 of run ``run``: the run's spawned children
    1 … n_robots (child 0 is the run's own, :func:`run_generator`)."""
    return run_seed_sequence(seed, run).spawn(n_robots + 1)[1:]


def name_hash(name: str) -> int:
    """A stable 64-bit hash of a stream name (the same in every process and Python version)."""
    return int.from_bytes(hashlib.blake2b(name.encode(), digest_size=8).digest(), "little")


class Streams:
    """The stream keys of some robots (``robots``: their SeedSequences, in row order).

    ``keys(name)`` is uint64[n]: each robot's key of stream ``name`` (for a tuple of names,
    uint64[n, len(names)], one column per name). Columns are computed once and kept."""

    def __init__(self, robots: Sequence[np.random.SeedSequence]):
        self.robots = list(robots)
        self._words = np.array([r.generate_state(_WORDS, np.uint64) for r in self.robots],
                               dtype=np.uint64).reshape(len(self.robots), _WORDS)
        self._columns: dict = {}

    def __len__(self) -> int:
        return len(self.robots)

    def keys(self, stream: Stream) -> np.ndarray:
        if not isinstance(stream, str):
            return np.ascontiguousarray(np.stack([self.keys(s) for s in stream], axis=1)
                                        .reshape(len(self), len(stream)))
        column = self._columns.get(stream)
        if column is None:
            word = FIXED_WORDS.get(stream)
            if word is not None:
                column = self._words[:, word].copy()
            else:  # SplitMix64's finaliser, in NumPy's wrapping uint64 arithmetic
                column = _mix64.py_func(self._words[:, NAMED_WORD] ^ np.uint64(name_hash(stream)))
            self._columns[stream] = column
        return column


def stream_keys(seed: int, run: int, n_robots: int, stream: Stream) -> np.ndarray:
    """Robots 0 … n_robots − 1 of run ``run``: their keys of ``stream`` (:meth:`Streams.keys`)."""
    return Streams(robot_seeds(seed, run, n_robots)).keys(stream)


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
