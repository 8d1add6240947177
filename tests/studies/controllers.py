"""Controllers of the study tests (importable as tests.studies.controllers:Name)."""

from swarmstack import BatchedController, Controller


class Wander(Controller):
    """Forward at ``speed`` with a random turn from the robot's own stream; raises at tick
    ``fail_at`` when that parameter is 0 or more (a run whose controller fails)."""

    def init(self, robot, params):
        self.speed = float(params.get("speed", 0.05))
        self.fail_at = int(params.get("fail_at", -1))

    def step(self, robot):
        if 0 <= self.fail_at <= robot.tick:
            raise RuntimeError("deliberate failure of a study test controller")
        turn = (robot.rng.random() - 0.5) * 0.04
        robot.set_wheels(self.speed - turn, self.speed + turn)


class Collects(BatchedController):
    """Batched: runs a full garbage collection as it starts (what a long worker does sooner or
    later), then drives forward."""

    def init(self, group, params):
        import gc

        gc.collect()

    def step(self, group):
        group.wheels[:] = 0.05


class Slow(BatchedController):
    """Batched: forward at ``speed``, sleeping ``sleep_s`` a tick (for tests that need a run
    to last)."""

    def init(self, group, params):
        self.speed = float(params.get("speed", 0.05))
        self.sleep_s = float(params.get("sleep_s", 0.0))

    def step(self, group):
        if self.sleep_s:
            import time

            time.sleep(self.sleep_s)
        group.wheels[:] = self.speed


class DieOnce(BatchedController):
    """The first process to run it kills itself (SIGKILL) — a worker lost mid-run; later ones
    (``marker`` exists) drive forward."""

    def init(self, group, params):
        import os
        import signal
        from pathlib import Path

        marker = Path(params["marker"])
        try:
            fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return
        os.close(fd)
        os.kill(os.getpid(), signal.SIGKILL)

    def step(self, group):
        group.wheels[:] = 0.05
