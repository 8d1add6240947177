"""``swarmstack view DIR --video OUT.gif|OUT.mp4``: a run as an animation, frame by frame from
the viewer page in headless Chromium. GIF through Pillow; MP4 (H.264) through the ffmpeg that
the ``imageio-ffmpeg`` package ships."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Callable, Optional

from swarmstack.viewer.browser import BrowserMissing, page_at, seek, state
from swarmstack.viewer.screenshot import PictureError, page_url
from swarmstack.viewer.server import Source, serve


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
