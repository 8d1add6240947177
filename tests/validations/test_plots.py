"""The validations' figures read at a glance: the ToF's ideal line is drawn on top of the
simulated one, the encoders show one line per speed, the four battery models are told apart
and the barrier's step axes are not stretched by one slow run."""

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")


@pytest.fixture
def figures(monkeypatch):
    """Every figure a validation saves, kept open for inspection."""
    from swarmstack import validations

    kept = []

    def keep(fig, path, layout=True):
        kept.append(fig)
        path.write_bytes(b"")
        return path

    monkeypatch.setattr(validations, "save_plot", keep)
    for name in ("epuck2_tof", "epuck2_encoders", "epuck2_battery", "buzz_barrier"):
        module = __import__(f"swarmstack.validations.{name}", fromlist=["_"])
        monkeypatch.setattr(module, "save_plot", keep, raising=False)
    return kept


def _lines(ax):
    return [l for l in ax.get_lines() if len(l.get_xdata()) > 2]


def test_tof_ideal_lines_are_visible_on_top(figures, tmp_path):
    from swarmstack.validations import epuck2_tof

    epuck2_tof.reproduce(tmp_path)
    ax = figures[0].axes[0]
    ideal = [l for l in _lines(ax) if l.get_linestyle() == "--"]
    measured = [l for l in _lines(ax) if l.get_linestyle() == "-"]
    assert len(ideal) == len(measured) == 6
    assert min(l.get_zorder() for l in ideal) > max(l.get_zorder() for l in measured)
    assert min(l.get_linewidth() for l in measured) > 2 * max(l.get_linewidth() for l in ideal)


def test_encoders_draw_one_distinct_line_per_speed(figures, tmp_path):
    from swarmstack.validations import epuck2_encoders

    epuck2_encoders.reproduce(tmp_path, quick=True)
    ax = figures[0].axes[0]
    solid = [l for l in _lines(ax) if l.get_linestyle() == "-"]
    assert len(solid) == 2                                   # the quick run's two speeds
    (ax_, ay), (bx, by) = ((np.asarray(l.get_xdata(), dtype=float),
                            np.asarray(l.get_ydata(), dtype=float)) for l in solid)
    # not on top of each other: one curve read at the other's abscissae differs from it
    assert np.abs(np.interp(bx, ax_, ay) - by).max() > 100
    assert len({tuple(l.get_color()) if not isinstance(l.get_color(), str) else l.get_color()
                for l in solid}) == 2


def test_the_four_battery_models_are_told_apart(figures, tmp_path):
    from swarmstack.validations import epuck2_battery

    epuck2_battery.reproduce(tmp_path)
    panel = next(ax for ax in figures[0].axes
                 if {l.get_label() for l in ax.get_lines()} >= {"simple", "linear", "cubic",
                                                                 "approximated"})
    lines = {l.get_label(): l for l in panel.get_lines()}
    styles = {(str(l.get_color()), l.get_linestyle()) for k, l in lines.items()
              if k in ("simple", "linear", "cubic", "approximated")}
    assert len(styles) == 4
    ys = [np.asarray(lines[k].get_ydata(), dtype=float) for k in ("linear", "cubic")]
    assert np.abs(ys[0] - ys[1]).max() > 0.005               # the curves differ in shape


def test_barrier_step_axes_are_logarithmic(figures, tmp_path):
    from swarmstack.validations import buzz_barrier

    buzz_barrier.reproduce(tmp_path, quick=True)
    left, right = figures[0].axes
    assert left.get_xscale() == "log" and right.get_yscale() in ("log", "symlog")
