"""``swarmstack view DIR --screenshot OUT.png --tick N``: one picture of a run, rendered by the
viewer page in headless Chromium."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from swarmstack.viewer.browser import page_at, state
from swarmstack.viewer.server import Source, serve


class PictureError(RuntimeError):
    """The page could not show what was asked (the message says why)."""


def page_url(base: str, mode: str, tick: Optional[int] = None) -> str:
    url = f"{base}?hud=0&mode={mode}"
    return url + (f"&tick={int(tick)}" if tick is not None else "")


def screenshot(source: Source, out: Path, tick: int = 0, mode: str = "3d", width: int = 960,
               height: int = 720) -> dict:
    """Write a PNG of ``tick`` (the nearest recorded frame; past the end: the last one) to
    ``out``; returns the page's state (``tick`` is the tick shown)."""
    served = serve(source, 0)
    try:
        with page_at(page_url(served.url, mode, tick), width, height) as page:
            st = state(page)
            if st.get("noRun") or st.get("tick") is None:
                raise PictureError(st.get("message") or "the page shows no frame")
            page.evaluate("() => window.viewer.drawn()")
            Path(out).parent.mkdir(parents=True, exist_ok=True)
            page.locator("#view").screenshot(path=str(out))
            return state(page)
    finally:
        served.stop()
