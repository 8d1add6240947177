"""Learning: any experiment as a Gymnasium vector environment (``vector_env``, one run per
sub-environment, one group with a shared policy) or a PettingZoo parallel environment
(``parallel_env``, one agent per robot), with rewards from the design missions and policies
that run as controllers (``controller = { policy = "file.npz" }``). See docs/learning.md.

The environments need the ``learn`` extra (gymnasium, pettingzoo); a policy controller does not.
"""

_WHERE = {
    "vector_env": "swarmstack.learn.vector", "env": "swarmstack.learn.vector",
    "VectorEnv": "swarmstack.learn.vector", "Env": "swarmstack.learn.vector",
    "parallel_env": "swarmstack.learn.parallel", "ParallelEnv": "swarmstack.learn.parallel",
    "BatchedParallelEnv": "swarmstack.learn.parallel",
    "Mission": "swarmstack.learn.rewards", "MLP": "swarmstack.learn.policy",
    "GroupSpaces": "swarmstack.learn.spaces",
}

__all__ = sorted(_WHERE)


def __getattr__(name):
    # gymnasium and pettingzoo are imported only when an environment is asked for
    if name not in _WHERE:
        raise AttributeError(name)
    import importlib

    return getattr(importlib.import_module(_WHERE[name]), name)
