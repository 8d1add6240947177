"""The viewer page in a real headless Chromium: what it reports, playback, pixels where the
recording puts robots and LEDs, a truncated recording, no run at all, and the picture and
video commands."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from swarmstack.viewer.recording import open_recording
from swarmstack.viewer.server import Source, replay_source, serve
from tests.viewer.conftest import POSES

W, H = 600, 600
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def page_of(browser):
    """``open(source, query)`` → a page showing ``source``, ready."""
    opened = []

    def open_(source, query=""):
        served = serve(source, 0)
        page = browser.new_page(viewport={"width": W, "height": H})
        opened.append((served, page))
        page.goto(served.url + query)
        page.wait_for_function("window.viewerState && window.viewerState.ready")
        return page

    yield open_
    for served, page in opened:
        page.close()
        served.stop()


def state(page):
    return page.evaluate("() => ({...window.viewerState})")


def test_page_reports_robots_and_tick_and_plays(recorded, page_of):
    page = page_of(replay_source(recorded))
    st = state(page)
    assert st["robots"] == 3 and st["tick"] == 0 and st["frames"] == 21 and not st["noRun"]
    page.click("#step")
    page.wait_for_function("window.viewerState.tick === 2")   # one frame = record_every ticks
    page.click("#step")
    page.wait_for_function("window.viewerState.tick === 4")
    page.click("#back")
    page.wait_for_function("window.viewerState.tick === 2")
    page.select_option("#speed", "10")
    page.click("#play")
    page.wait_for_function("window.viewerState.tick >= 10", timeout=30_000)
    page.click("#play")
    assert state(page)["playing"] is False
    assert "3 robots" in page.inner_text("#info")


def _pixel(img, x, y):
    """The colour drawn at world point (x, y) in the page's top-down view, computed here from
    the arena bounds: the orthographic view fits the 0.6 m arena (+3 %) in the canvas."""
    scale = 0.6 * 1.03 / min(W, H)   # metres per pixel
    px, py = W / 2 + x / scale, H / 2 - y / scale
    return np.asarray(img)[int(round(py)), int(round(px)), :3].astype(int)


def test_pixels_show_robots_and_leds_where_the_recording_says(recorded, page_of, tmp_path):
    page = page_of(replay_source(recorded), "?mode=top&hud=0&trails=0&tick=40")
    assert state(page)["tick"] == 40
    page.evaluate("() => window.viewer.drawn()")
    shot = tmp_path / "top.png"
    page.locator("#view").screenshot(path=str(shot))
    img = Image.open(shot).convert("RGB")
    assert img.size == (W, H)
    # the page's own projection agrees with ours
    sx, sy = page.evaluate("() => window.viewer.worldToScreen(-0.15, 0.1, 0)")
    assert abs(sx - (W / 2 - 0.15 / (0.6 * 1.03 / W))) < 1 and \
        abs(sy - (H / 2 - 0.1 / (0.6 * 1.03 / H))) < 1
    r = 0.037  # E-Puck2 ring LEDs: 3.7 cm from the centre, LED 0 straight ahead
    (x0, y0, _), (x1, y1, yaw1) = POSES[0], POSES[1]
    red = _pixel(img, x0 + r, y0)
    assert red[0] > 200 and red[1] < 60 and red[2] < 60, red
    # robot 1 faces +y; its ring LED 1 (45° clockwise of the front) shows green
    a = yaw1 - np.pi / 4
    green = _pixel(img, x1 + r * np.cos(a), y1 + r * np.sin(a))
    assert green[1] > 200 and green[0] < 60 and green[2] < 60, green
    # robot 0's body LED is green-only, told red: dark, so at 90° (where no ring LED is red
    # … ring LEDs sit at every 45°, all red) the ring's red shows, never green
    side = _pixel(img, x0, y0 + r)
    assert side[0] > 200 and side[1] < 60, side
    # bodies: behind each robot's centre the body colour (blue), not the white floor
    for x, y, yaw in POSES[:2]:
        body = _pixel(img, x - 0.015 * np.cos(yaw), y - 0.015 * np.sin(yaw))
        assert body[2] > body[0] + 40, body
    floor = _pixel(img, 0.0, -0.25)
    assert floor.min() > 230, floor
    # the robot that drove away is no longer where it started
    start = _pixel(img, POSES[2][0] - 0.015, POSES[2][1])
    assert start.min() > 230, start


def test_radio_links_overlay(recorded, page_of, tmp_path):
    page = page_of(replay_source(recorded), "?mode=top&hud=0&trails=0&links=1&tick=40")
    page.evaluate("() => window.viewer.drawn()")
    shot = tmp_path / "links.png"
    page.locator("#view").screenshot(path=str(shot))
    img = np.asarray(Image.open(shot).convert("RGB")).astype(int)
    (x0, y0, _), (x1, y1, _) = POSES[0], POSES[1]
    scale = 0.6 * 1.03 / W
    px, py = round(W / 2 + (x0 + x1) / 2 / scale), round(H / 2 - (y0 + y1) / 2 / scale)
    block = img[py - 2:py + 3, px - 2:px + 3]
    # the link between robots 0 and 1 crosses the white floor half way between them
    assert (block[..., 0] - block[..., 1]).max() > 60, block
    page.evaluate("() => window.viewer.setLinks(false)")
    page.evaluate("() => window.viewer.drawn()")
    page.locator("#view").screenshot(path=str(shot))
    block = np.asarray(Image.open(shot).convert("RGB")).astype(int)[py - 2:py + 3, px - 2:px + 3]
    assert block.min() > 230


def test_sensor_rays_overlay(recorded, page_of, tmp_path):
    page = page_of(replay_source(recorded), "?mode=top&hud=0&trails=0&tick=40")
    page.evaluate("() => window.viewer.drawn()")
    before = np.asarray(Image.open(_shot(page, tmp_path / "a.png")).convert("RGB")).astype(int)
    page.evaluate("() => window.viewer.setRays(true)")
    page.evaluate("() => window.viewer.drawn()")
    after = np.asarray(Image.open(_shot(page, tmp_path / "b.png")).convert("RGB")).astype(int)
    changed = (np.abs(after - before).max(axis=2) > 30)
    scale = 0.6 * 1.03 / W
    yy, xx = np.mgrid[0:H, 0:W]
    wx, wy = (xx - W / 2) * scale, (H / 2 - yy) * scale

    def ring(x, y, r0, r1):
        d = np.hypot(wx - x, wy - y)
        return (d > r0) & (d < r1)

    # rays leave robot 0 and robot 1 (standing still), reaching at most their 10 cm range
    for x, y, _ in POSES[:2]:
        assert changed[ring(x, y, 0.04, 0.13)].sum() > 30
    # nothing drawn far from every robot
    assert not changed[ring(0.22, -0.24, 0.0, 0.03)].any()


def _shot(page, path):
    page.locator("#view").screenshot(path=str(path))
    return path


def test_truncated_recording_replays_and_says_where_it_stops(recorded, page_of, tmp_path):
    copy = tmp_path / "run"
    shutil.copytree(recorded, copy)
    folder = copy / "recording"
    fb = open_recording(copy).frame_bytes
    os.remove(folder / "end.json")
    with open(folder / "chunk-000000.bin", "r+b") as fh:
        fh.truncate(fb * 7 + 5)
    page = page_of(replay_source(copy), "?tick=1000")
    st = state(page)
    assert st["frames"] == 7 and st["tick"] == 12
    assert "stops at tick 12" in st["message"] and page.is_visible("#message")


def test_page_with_no_run_says_so(page_of):
    page = page_of(Source(why="no recording was given"))
    st = state(page)
    assert st["noRun"] and st["robots"] == 0
    assert "No run to show: no recording was given" in page.inner_text("#message")


def _cli(*args):
    """The command in its own process (Playwright's sync API allows one per thread)."""
    return subprocess.run([sys.executable, "-c", "from swarmstack.cli import main; main()",
                           *map(str, args)], capture_output=True, text=True, timeout=120,
                          cwd=ROOT)


def test_screenshot_and_video_commands(recorded, tmp_path, browser):
    png = tmp_path / "shot.png"
    r = _cli("view", recorded, "--screenshot", png, "--tick", "20", "--width", "320",
             "--height", "240")
    assert r.returncode == 0, r.stderr
    assert "tick 20" in r.stdout and Image.open(png).size == (320, 240)
    gif = tmp_path / "run.gif"
    r = _cli("view", recorded, "--video", gif, "--fps", "5", "--speed", "4", "--width", "160",
             "--height", "120", "--mode", "top")
    assert r.returncode == 0, r.stderr
    with Image.open(gif) as im:
        assert im.n_frames == 6   # at 4× and 5 frames/s every 4th of 21 frames (0.2 s each)
        assert im.size == (160, 120)


def test_live_page_follows_the_run(page_of, tmp_path):
    from swarmstack.experiments.config import parse_experiment
    from swarmstack.sim.simulation import Simulation
    from swarmstack.viewer.recording import Recorder
    from tests.viewer.conftest import HERE, experiment

    sim = Simulation(parse_experiment(experiment(), "viewer-test"), base_dir=HERE)
    sim.start()
    rec = Recorder(sim, tmp_path, every=1, chunk_frames=4)
    rec.frame()
    page = page_of(Source(recorder=rec))
    st = state(page)
    assert st["live"] and st["tick"] == 0 and st["robots"] == 3
    for _ in range(6):  # into the second chunk, which is still being filled
        sim.step()
        rec.frame()
    page.wait_for_function("window.viewerState.tick === 6", timeout=30_000)
    assert "live" in page.inner_text("#info")
    rec.log("e", 0, 2, 6, "state = searching")   # a script's log line: robot 2's debug text
    sim.step()
    rec.frame()
    page.wait_for_function("window.viewerState.tick === 7 && window.viewerState.labels === 1",
                           timeout=30_000)
    assert page.inner_text("#labels") == "state = searching"
    rec.close("completed")
    page.wait_for_function("window.viewerState.live === false", timeout=30_000)


def test_mp4_video(recorded, tmp_path, browser):
    imageio_ffmpeg = pytest.importorskip("imageio_ffmpeg")
    mp4 = tmp_path / "run.mp4"
    r = _cli("view", recorded, "--video", mp4, "--fps", "5", "--speed", "10", "--width", "160",
             "--height", "120")
    assert r.returncode == 0, r.stderr
    reader = imageio_ffmpeg.read_frames(str(mp4))
    meta = next(reader)
    assert tuple(meta["size"]) == (160, 120)
    assert sum(1 for _ in reader) == 3   # every 10th of 21 frames (0.2 s each) at 10× and 5/s


def test_a_box_shaped_type_is_drawn_from_its_body(page_of, tmp_path):
    """A type the viewer has never heard of (the test suite's 20 × 10 cm hover box) is drawn
    as an oriented box of its size: no code per type. The painted floor is drawn too."""
    from swarmstack.experiments.config import parse_experiment
    from swarmstack.experiments.runner import run_experiment
    import tests.core.robot_types.hoverbox  # noqa: F401  (registers the type)

    yaw = 0.5
    cfg = parse_experiment({
        "simulation": {"ticks": 2},
        "arena": {"size": [0.6, 0.6]},
        "floor": {"regions": [{"color": "red", "rect": [-0.3, -0.3, -0.2, 0.3]}],
                  "resolution": 0.01},
        "robots": [{"name": "b", "type": "hoverbox",
                    "placement": {"kind": "explicit", "poses": [[0.0, 0.0, yaw]]}}],
        "output": {"record": True}}, "box-test")
    run_experiment(cfg, tmp_path / "run", source="box-test")
    header = open_recording(tmp_path / "run").header
    assert header["arena"]["floor"] == {"image": "floor.png", "size_px": [60, 60]}
    body = header["groups"][0]["body"]
    assert body == {"shape": "box", "half_x": 0.1, "half_y": 0.05, "height_m": 0.08}
    page = page_of(replay_source(tmp_path / "run"), "?mode=top&hud=0&trails=0")
    page.evaluate("() => window.viewer.drawn()")
    shot = tmp_path / "box.png"
    page.locator("#view").screenshot(path=str(shot))
    img = Image.open(shot).convert("RGB")
    c, s = np.cos(yaw), np.sin(yaw)
    along = _pixel(img, -0.08 * c, -0.08 * s)      # inside: 8 cm behind the centre
    across = _pixel(img, 0.08 * s, -0.08 * c)      # outside: 8 cm to the side (half width 5)
    corner_out = _pixel(img, 0.095 * c + 0.065 * s, 0.095 * s - 0.065 * c)
    assert along[2] > along[0] + 40, along        # the group's blue
    assert across.min() > 230 and corner_out.min() > 230, (across, corner_out)
    painted, plain = _pixel(img, -0.25, 0.2), _pixel(img, 0.25, 0.2)
    assert painted[0] > 200 and painted[1] < 60 and plain.min() > 230, (painted, plain)
