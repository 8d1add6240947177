import pytest


@pytest.fixture(params=["lua5.3", "luajit"])
def runtime(request):
    """Both Lua runtimes a controller can ask for (``runtime = …``)."""
    return request.param
