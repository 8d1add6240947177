import pytest

from swarmstack.media.rab import Inbox, Medium


@pytest.fixture
def medium_one_tick_late(monkeypatch):
    """The simulated range-and-bearing medium delivers every frame one tick late."""
    original = Medium.deliver

    def deliver(self, world, tick=None):
        fresh = original(self, world, tick)
        held = getattr(self, "_held", None)
        self._held = fresh
        self.inbox = held if held is not None else Inbox.empty(self.n, self.max_cap)
        return self.inbox

    monkeypatch.setattr(Medium, "deliver", deliver)
