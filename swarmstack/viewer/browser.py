"""Headless Chromium driving the viewer page, through Playwright's Python package and the
system's Chromium (Debian's ``chromium``; no browser is ever downloaded). Used for pictures,
videos, the browser tests and the replay benchmark."""

from __future__ import annotations

import os
import shutil
from contextlib import contextmanager
from typing import Iterator, Optional

# software WebGL (SwiftShader) without a GPU; no background traffic to a closed network
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--use-angle=swiftshader",
                 "--enable-unsafe-swiftshader", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-quic", "--disable-dev-shm-usage"]
CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser")


class BrowserMissing(RuntimeError):
    """No usable Chromium or no Playwright package: the message says how to install them."""


def chromium_path() -> Optional[str]:
    """``SWARMSTACK_CHROMIUM``, else the system's Chromium, else None."""
    env = os.environ.get("SWARMSTACK_CHROMIUM")
    if env:
        return env
    for path in CANDIDATES:
        if os.access(path, os.X_OK):
            return path
    return shutil.which("chromium")


@contextmanager
def page_at(url: str, width: int = 960, height: int = 720) -> Iterator:
    """A Playwright page showing ``url`` once the viewer says it is ready."""
    exe = chromium_path()
    if exe is None:
        raise BrowserMissing("no Chromium found: install Debian's package (apt-get install -y "
                             "chromium, as `make demo` does) or set SWARMSTACK_CHROMIUM")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise BrowserMissing("the Python package playwright is missing: pip install "
                             "'swarmstack[viewer]'") from None
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(url)
            page.wait_for_function("window.viewerState && window.viewerState.ready",
                                   timeout=60_000)
            yield page
        finally:
            browser.close()


def state(page) -> dict:
    return page.evaluate("() => Object.fromEntries(Object.entries(window.viewerState)"
                         ".filter(([k, v]) => typeof v !== 'function'))")


def seek(page, frame: int) -> dict:
    """Show recording frame ``frame`` and wait until it has been drawn; the page's state."""
    page.evaluate("f => window.viewer.seek(f).then(() => window.viewer.drawn())", int(frame))
    return state(page)
