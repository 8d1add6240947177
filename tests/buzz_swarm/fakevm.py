"""A stand-in VM whose "script" is Python: lets the swarm layer be tested without the compiler.

Closures are :class:`Closure` objects whose ``code`` is a Python callable ``f(vm, *args)``.
"""

from __future__ import annotations

from swarmstack.buzz.swarm._vmapi import SwarmRuntimeError
from swarmstack.buzz.values import Closure, HostClosure


def fn(f, name=""):
    """Wrap a Python ``f(vm, *args)`` as a Buzz closure."""
    return Closure(code=f, name=name)


class FakeVM:
    def __init__(self, script=None, robot_id=0, log=None, profile="buzz"):
        self.robot_id = robot_id
        self.profile = profile
        self.script = script
        self._globals = {"id": robot_id}
        self.failed = False
        self.error = None
        self.self = None
        self.log = log or (lambda s: None)

    def globals(self):
        return self._globals

    def set_global(self, name, value):
        self._globals[name] = value

    def get_global(self, name):
        return self._globals.get(name)

    def call(self, f, *args):
        if isinstance(f, HostClosure):
            saved, self.self = self.self, f.self_table  # as the VM does while a host closure runs
            try:
                return f.fn(self, *args)
            finally:
                self.self = saved
        if isinstance(f, Closure):
            return f.code(self, *args)
        raise SwarmRuntimeError("type mismatch: expected closure")

    def call_value(self, f, *args):
        return self.call(f, *args)

    def g(self, path):
        """Fetch ``a.b`` from the globals."""
        parts = path.split(".")
        v = self._globals[parts[0]]
        for p in parts[1:]:
            v = v[p]
        return v

    def invoke(self, path, *args):
        return self.call(self.g(path), *args)

    def _run(self, name):
        if self.failed:
            return
        f = getattr(self.script, name, None) if self.script is not None else None
        if f is None:
            return
        try:
            f(self)
        except SwarmRuntimeError as e:
            self.failed = True
            self.error = f"script.bzz:1:1 : {e}"

    def run_top_level(self):
        self._run("top")

    def init(self):
        self._run("init")

    def step(self):
        self._run("step")


def factory(script_cls):
    """A harness ``vm_factory`` building FakeVMs running ``script_cls()``."""

    def make(source, filename, robot_id, profile, include_path, seed, log):
        return FakeVM(script_cls(), robot_id, log, profile)

    return make
