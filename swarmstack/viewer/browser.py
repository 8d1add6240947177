"""Headless Chromium driving the viewer page, through Playwright's Python package and the
system's Chromium (Debian's ``chromium``; no browser is ever downloaded). Used for pictures
(``swarmstack view DIR --screenshot OUT.png --tick N``), videos (``--video OUT.gif|OUT.mp4``,
frame by frame: GIF through Pillow, MP4 (H.264) through the ffmpeg that the ``imageio-ffmpeg``
package ships), the browser tests and the replay benchmark."""

from __future__ import annotations

import io
import os
import shutil
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, Optional

from swarmstack.viewer.server import Source, serve

# software WebGL (SwiftShader) without a GPU; no background traffic to a closed network
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--use-angle=swiftshader",
                 "--enable-unsafe-swiftshader", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-quic", "--disable-dev-shm-usage"]
CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser")


class BrowserMissing(RuntimeError):
    """No usable Chromium or no Playwright package: the message says how to install them."""


class PictureError(RuntimeError):
    """The page could not show what was asked (the message says why)."""


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


# ------------------------------------------------------------------ pictures and videos
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


def frame_plan(header: dict, frames: int, fps: float, speed: float, start_tick: int = 0,
               end_tick: Optional[int] = None) -> list[int]:
    """Recording frames to render so that the video plays at ``speed`` × real time."""
    per_frame_s = float(header["dt_s"]) * int(header["record_every"])
    stride = max(1, round(speed / (fps * per_frame_s)))
    first = max(0, start_tick // int(header["record_every"]))
    last = frames - 1 if end_tick is None else min(frames - 1,
                                                   end_tick // int(header["record_every"]))
    return list(range(first, last + 1, stride))


def video(source: Source, out: Path, fps: float = 10.0, speed: float = 1.0, mode: str = "3d",
          width: int = 640, height: int = 480, start_tick: int = 0,
          end_tick: Optional[int] = None,
          progress: Optional[Callable[[int, int], None]] = None) -> int:
    """Write ``out`` (.gif or .mp4); returns the number of video frames."""
    from PIL import Image

    out = Path(out)
    kind = out.suffix.lower()
    if kind not in (".gif", ".mp4"):
        raise PictureError(f"{out}: a video is .gif or .mp4")
    width, height = width // 2 * 2, height // 2 * 2  # H.264 wants even sizes
    writer = None
    if kind == ".mp4":
        try:
            import imageio_ffmpeg
        except ImportError:
            raise BrowserMissing("MP4 needs the Python package imageio-ffmpeg (pip install "
                                 "'swarmstack[viewer]'); a .gif needs nothing more") from None
    served = serve(source, 0)
    images = []
    try:
        with page_at(page_url(served.url, mode), width, height) as page:
            st = state(page)
            if st.get("noRun") or not st.get("frames"):
                raise PictureError(st.get("message") or "the recording has no frame")
            plan = frame_plan(source.header, st["frames"], fps, speed, start_tick, end_tick)
            if kind == ".mp4":
                writer = imageio_ffmpeg.write_frames(str(out), (width, height), fps=fps,
                                                     codec="libx264", macro_block_size=2,
                                                     pix_fmt_out="yuv420p", quality=7)
                writer.send(None)
            canvas = page.locator("#view")
            for i, f in enumerate(plan):
                seek(page, f)
                img = Image.open(io.BytesIO(canvas.screenshot())).convert("RGB")
                if img.size != (width, height):
                    img = img.resize((width, height))
                if writer is not None:
                    writer.send(img.tobytes())
                else:
                    images.append(img.quantize(colors=255, method=Image.Quantize.MEDIANCUT))
                if progress is not None:
                    progress(i + 1, len(plan))
    finally:
        served.stop()
        if writer is not None:
            writer.close()
    if kind == ".gif":
        out.parent.mkdir(parents=True, exist_ok=True)
        images[0].save(out, save_all=True, append_images=images[1:],
                       duration=round(1000 / fps), loop=0, optimize=False)
        return len(images)
    return len(plan)
