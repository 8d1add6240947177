import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import pytest  # noqa: E402


@pytest.fixture(params=["lua5.3", "luajit"])
def runtime(request):
    """Both Lua runtimes a controller can ask for (``runtime = …``)."""
    return request.param
