"""`swarmstack view`: replay a run's recording in the browser, or render a picture or a video
of it through headless Chromium."""

# no `from __future__ import annotations`: see swarmstack/cli/__init__.py

import sys
import time
from pathlib import Path
from typing import Optional

import typer

from swarmstack.cli.common import fail


def hold(served, what: str, file=None) -> None:
    """Print where ``what`` is served (on ``file``, default standard output) and serve until
    Ctrl-C."""
    try:   # from before the message: a Ctrl-C right after it must still stop the server
        if served.note:
            print(served.note, file=sys.stderr)
        print(f"{what}: open {served.url} (Ctrl-C to stop)", file=file or sys.stdout,
              flush=True)
        while True:
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        served.stop()


def register(app: typer.Typer) -> None:
    @app.command("view")
    def view(
        results: Path = typer.Argument(..., help="results folder of a run recorded with --record"),
        port: int = typer.Option(8765, "--port", min=0, max=65535,
                                 help="port to serve on (taken: a free one is used and named)"),
        screenshot: Optional[Path] = typer.Option(None, "--screenshot",
                                                  help="write a PNG of --tick and exit"),
        video: Optional[Path] = typer.Option(None, "--video",
                                             help="write an animation (.gif or .mp4) and exit"),
        tick: Optional[int] = typer.Option(None, "--tick", min=0,
                                           help="tick of the picture (default: the last)"),
        mode: str = typer.Option("3d", "--mode", help="3d (perspective) or top (top-down)"),
        width: int = typer.Option(960, "--width", min=64, max=4096, help="picture width, px"),
        height: int = typer.Option(720, "--height", min=64, max=4096, help="picture height, px"),
        fps: float = typer.Option(10.0, "--fps", min=1.0, max=60.0, help="video frames per s"),
        speed: float = typer.Option(1.0, "--speed", min=0.01,
                                    help="video speed, × simulated time"),
    ) -> None:
        """Replay a recorded run in the browser (or write --screenshot / --video).

        Exit status: 0 done (or the server stopped with Ctrl-C), 1 no recording, no browser, or
        nothing to show."""
        from swarmstack.viewer.browser import BrowserMissing, PictureError
        from swarmstack.viewer.recording import RecordingError
        from swarmstack.viewer.server import replay_source, serve

        if mode not in ("3d", "top"):
            fail(f"error: --mode is 3d or top, not {mode!r}")
        try:
            source = replay_source(results)
        except RecordingError as exc:
            fail(f"error: {exc}")
        rec = source.recording
        if rec.stops:
            print(f"warning: {results}: {rec.stops}", file=sys.stderr)
        if screenshot is None and video is None:
            try:
                served = serve(source, port)
            except OSError as exc:
                fail(f"error: cannot serve on 127.0.0.1:{port}: {exc.strerror or exc}")
            hold(served, f"replaying {results} ({rec.frames} frames)")
            return
        try:
            if screenshot is not None:
                from swarmstack.viewer.browser import screenshot as shoot

                want = tick if tick is not None else (rec.last_tick() if rec.frames else 0)
                st = shoot(source, screenshot, want, mode, width, height)
                if tick is not None and st["tick"] != tick:
                    print(f"note: tick {tick} is not recorded; showing tick {st['tick']}",
                          file=sys.stderr)
                print(f"{screenshot}: tick {st['tick']} of {results} ({st['robots']} robots); "
                      f"replay it in the browser: swarmstack view {results}")
            if video is not None:
                from swarmstack.viewer.browser import video as film

                n = film(source, video, fps, speed, mode, width, height)
                print(f"{video}: {n} frames of {results}")
        except (BrowserMissing, PictureError, RecordingError) as exc:
            fail(f"error: {exc}")
