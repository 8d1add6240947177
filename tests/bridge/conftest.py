import socket
import time

import pytest

try:   # the ros2 extra (part of the test extra)
    import rosbags  # noqa: F401
    import zenoh  # noqa: F401
except ImportError:
    collect_ignore_glob = ["test_*.py"]


def free_endpoint() -> str:
    """A loopback TCP endpoint on a port the OS just handed out (no fixed ports in tests)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"tcp/127.0.0.1:{s.getsockname()[1]}"


def wait_for(predicate, timeout: float = 10.0, what: str = "condition"):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture
def endpoint() -> str:
    return free_endpoint()
