"""Crazyflie AI-deck camera, paper §3.1.1 / §4.1 / Fig. 4: aperture and pixel mapping.

The paper calibrates the onboard camera with four lights 2 m in front of the drone, the largest
distance between two of them 1.8652 m, and reports where they land in the 320 × 320 image
([0, 319] range): (0, 159) red, (160, 0) green, (319, 159) blue, (160, 318) white — "the maximum
detection angle is indeed 50 degrees" — and that moving any light out of the detection area
removes it from the detections (§4.1).

Here: the same four lights (red left, green above, blue right, white below the optical axis,
each 0.9326 m from it at 2 m depth) seen by the AI-deck camera of a drone hovering at 1 m must
land on the paper's pixels ± 1 px; the detection border is then measured — the largest offset
still seen at 2 m, horizontally and vertically — and turned into an aperture the way the paper
does (2·atan(separation / 2 / depth)); each light moved 1 cm further out must vanish.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from swarmstack.validations import Reproduction, Row, pyplot, save_plot, validation
from swarmstack.sensors.camera import blobs

# --- the paper's numbers (reference side, §4.1) -------------------------------------------------
DEPTH_M = 2.0                 # "placed 2 metres away from the Crazyflie's camera"
MAX_SEPARATION_M = 1.8652     # "the maximum distance between light sources was 1.8652 metres"
APERTURE_DEG = 50.0           # "the maximum detection angle is indeed 50 degrees"
IMAGE_PX = 320                # "mapped in a 320x320 plane ([0 – 319] range)"
PAPER_PIXELS = {              # (column, row) reported per light
    "red": (0, 159), "green": (160, 0), "blue": (319, 159), "white": (160, 318)}
# where each light sits, as (lateral y, vertical z) offsets from the optical axis in units of
# half the separation: red left (+y, column 0), green up (row 0), blue right, white down
OFFSETS = {"red": (1, 0), "green": (0, 1), "blue": (-1, 0), "white": (0, -1)}
DIRECTION = {"red": "left", "green": "up", "blue": "right", "white": "down"}
COLOURS = {"red": (255, 0, 0), "green": (0, 255, 0), "blue": (0, 0, 255),
           "white": (255, 255, 255)}

# --- not in the paper -----------------------------------------------------------------------------
HOVER_M = 1.0                 # height of the drone (its camera) above the floor
PX_TOL = 1.0
# the border search resolves ~0.01°; a light up to half a pixel past the last column still lights
# it, which widens the measured aperture by 2·atan(0.5 px / f) ≈ 0.14°
APERTURE_TOL_DEG = 0.25
OUTSIDE_M = 0.01              # how far further out the lights are moved to vanish


def camera_world(lights=(), robots=(), bounds=(-4.0, -4.0, 4.0, 4.0)):
    """A one-run world for camera studies: ``lights`` [(x, y, z, (r, g, b)), …] and ``robots``
    [(x, y, z, yaw, radius, height, EmitterLayout | None), …], each robot its own group
    ``robot<k>`` (so a device reads one robot). Emitters are placed, LEDs off."""
    from swarmstack.actuators.leds import update_emitters
    from swarmstack.world.arena import Arena
    from swarmstack.world.rng import Streams, robot_seeds
    from swarmstack.world.scene import GroupSlice, Scene
    from swarmstack.world.state import Bodies, Emitters, World

    arena = Arena(bounds, lights=np.array([[x, y, z, 1.0] for x, y, z, _ in lights]).reshape(-1, 4),
                  light_rgb=np.array([rgb for *_, rgb in lights], dtype=np.uint8).reshape(-1, 3))
    n = len(robots)
    col = list(zip(*robots)) if robots else [()] * 7
    bodies = Bodies(np.zeros(n, dtype=np.int64), np.arange(n), np.array(col[0], float),
                    np.array(col[1], float), np.array(col[2], float), np.array(col[3], float),
                    np.array(col[4], float), np.array(col[5], float))
    layouts = col[6]
    e_max = max([lay.positions_m.shape[0] for lay in layouts if lay is not None], default=1)
    local = np.zeros((n, e_max, 3))
    count = np.zeros(n, dtype=np.int64)
    intensity = np.zeros((n, e_max))
    for i, lay in enumerate(layouts):
        if lay is not None:
            e = lay.positions_m.shape[0]
            local[i, :e] = lay.positions_m
            count[i] = e
            intensity[i, :e] = lay.light_intensity
    em = Emitters(local, np.zeros_like(local), np.zeros((n, e_max, 3), dtype=np.uint8),
                  intensity, count)
    groups = [GroupSlice(f"robot{i}", "hand-built", i, i + 1, 1, i, i) for i in range(n)]
    scene = Scene.create(arena, groups, 1, 0.1, max(col[4], default=0.05))
    world = World(scene, bodies, em, drive=[{} for _ in groups])
    update_emitters(bodies.x, bodies.y, bodies.z, bodies.yaw, em.local, em.world)
    keys = Streams(robot_seeds(0, 0, n))
    return world, keys


def read_camera(device, world, keys, robot: int = 0) -> np.ndarray:
    """One refresh of ``device`` on robot ``robot`` of a :func:`camera_world`; its reading."""
    g = world.group(f"robot{robot}")
    out = device.allocate(g.n)
    device.plan(world, g, keys.keys(device.stream)[g.start:g.stop], out,
                device.make_state(g.n))()
    return out[0]


def _blobs(lights: list, max_blobs: int) -> list:
    """The blobs the AI-deck camera of a drone hovering at ``HOVER_M`` sees of ``lights``."""
    from swarmstack.robots import crazyflie_decks as decks

    # radius and height of the Crazyflie body (robot-models §2.1); the camera sees past its own
    drone = (0.0, 0.0, HOVER_M - decks.CAMERA_POSITION_M[2], 0.0, 0.046, 0.029,
             decks.led_ring_layout())
    world, keys = camera_world(lights, [drone])
    return blobs(read_camera(decks.aideck_device(max_blobs=max_blobs), world, keys))


def _seen(half: float, max_blobs: int = 64) -> dict:
    """name → (column, row) of each of the four lights seen, ``half`` m from the axis, 2 m in
    front of the camera."""
    from swarmstack.robots import crazyflie_decks as decks

    cx = decks.CAMERA_POSITION_M[0] + DEPTH_M
    by_rgb = {rgb: name for name, rgb in COLOURS.items()}
    return {by_rgb[rgb]: (c, r) for c, r, rgb in _blobs(
        [(cx, dy * half, HOVER_M + dz * half, COLOURS[name])
         for name, (dy, dz) in OFFSETS.items()], max_blobs) if rgb in by_rgb}


def _border(axis: str, lo: float, hi: float, n: int) -> float:
    """Largest offset (m) from the axis in [lo, hi] at which a light 2 m ahead is still seen,
    left (``"y"``) or up (``"z"``): n lights at once, each its own colour."""
    from swarmstack.robots import crazyflie_decks as decks

    offs = np.linspace(lo, hi, n)
    cx = decks.CAMERA_POSITION_M[0] + DEPTH_M
    lights = [(cx, o if axis == "y" else 0.0, HOVER_M + (o if axis == "z" else 0.0),
               (1 + k // 250, 1 + k % 250, 7)) for k, o in enumerate(offs)]
    seen = {rgb for _, _, rgb in _blobs(lights, n)}
    idx = [k for k, (*_, rgb) in enumerate(lights) if rgb in seen]
    return float(offs[max(idx)]) if idx else float("nan")


@validation("crazyflie-camera")
def reproduce(out_dir: Path, quick: bool = False) -> Reproduction:
    half = MAX_SEPARATION_M / 2
    found = _seen(half)
    rows = []
    for name, (pc, pr) in PAPER_PIXELS.items():
        got = found.get(name)
        rows.append(Row(f"{name} light ({DIRECTION[name]} {100 * half:.2f} cm, 2 m ahead): "
                        "(column, row)",
                        f"({pc}, {pr}) (§4.1) ± {PX_TOL:g} px",
                        f"({got[0]:.2f}, {got[1]:.2f})" if got else "not seen",
                        got is not None and abs(got[0] - pc) <= PX_TOL
                        and abs(got[1] - pr) <= PX_TOL))
    every = list(found.values())
    rows.append(Row("blob coordinates", f"in the {IMAGE_PX} × {IMAGE_PX} plane, [0, "
                    f"{IMAGE_PX - 1}] (§4.1)",
                    ", ".join(f"({c:.1f}, {r:.1f})" for c, r in every) or "none",
                    len(every) == 4 and all(0 <= v <= IMAGE_PX - 1 for p in every for v in p)))
    # the detection border, measured as the paper measures its aperture
    n = 201 if quick else 1001
    measured = {}
    for axis, label in (("y", "horizontal"), ("z", "vertical")):
        edge = _border(axis, 0.85 * half, 1.15 * half, n)
        a = 2 * math.degrees(math.atan(edge / DEPTH_M))
        measured[axis] = a
        rows.append(Row(f"measured {label} border at 2 m: separation, aperture",
                        f"{100 * MAX_SEPARATION_M:.2f} cm, {APERTURE_DEG:g}° (§4.1) ± "
                        f"{APERTURE_TOL_DEG:g}°", f"{200 * edge:.2f} cm, {a:.3f}°",
                        abs(a - APERTURE_DEG) <= APERTURE_TOL_DEG))
    # moved out of the detection area: the four lights 1 cm further from the axis
    outside = _seen(half + OUTSIDE_M)
    rows.append(Row(f"the four lights moved {100 * OUTSIDE_M:g} cm further out",
                    "removed from the detections (§4.1)",
                    ", ".join(sorted(outside)) + " still seen" if outside else "none seen",
                    not outside))

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5.2, 5.2))
    ax.add_patch(plt.Rectangle((-0.5, -0.5), IMAGE_PX, IMAGE_PX, fill=False, color="grey"))
    for name, (pc, pr) in PAPER_PIXELS.items():
        rgb = np.array(COLOURS[name]) / 255
        ax.plot(pc, pr, "x", ms=12, mew=2, color="k")
        if name in found:
            c, r = found[name]
            ax.plot(c, r, "o", ms=9, color=rgb, mec="k")
            ax.annotate(f"{name}: ours ({c:.1f}, {r:.1f})\npaper ({pc}, {pr})", (c, r),
                        textcoords="offset points", fontsize=7,
                        xytext=(-115 if c > 0.75 * IMAGE_PX else 8,
                                -30 if r < 0.25 * IMAGE_PX else 10))
    ax.set_xlim(-15, IMAGE_PX + 14)
    ax.set_ylim(IMAGE_PX + 14, -15)
    ax.set_aspect("equal")
    ax.set_xlabel("column (px)")
    ax.set_ylabel("row (px)")
    ax.set_title("AI-deck camera: four lights 2 m ahead, 1.8652 m apart\n"
                 "(circles: ours; crosses: paper §4.1)", fontsize=9)
    png = save_plot(fig, out_dir / "crazyflie_camera.png")
    notes = ("Reference side: the four pixel positions, the 2 m depth, the 1.8652 m maximum "
             "separation, the 50° aperture and the 320 × 320 [0, 319] plane of §4.1, written as "
             "literals here; the aperture is measured from where lights stop being detected, "
             "not read from the model. The lights sit 0.9326 m left, above, right and below "
             "the optical axis (the largest separation is between opposite lights; "
             "2·atan(0.9326 / 2) = 50.0°), so they fall on the image borders; the image centre "
             "is 159.5, which the paper rounds to 159 or 160 — and it reports 318 for the "
             "bottom border where 319 is the last row: both within the ± 1 px tolerance. The "
             "drone hovers at 1 m; its camera is at its body origin, as in the plug-in."
             + (" Quick run: coarser border search." if quick else ""))
    return Reproduction("crazyflie-camera", "AI-deck camera aperture and pixel mapping "
                        "(§3.1.1, §4.1, Fig. 4)", rows, [png], notes)
