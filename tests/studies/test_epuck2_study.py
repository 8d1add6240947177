"""`swarmstack reproduce epuck2-study` in its quick form, and mutations: it must fail when the
sweep does not ask for the paper's speeds or when the robots do not turn on the spot."""

from swarmstack.validations import epuck2_study


def failing(result):
    return [r.quantity for r in result.rows if not r.ok]


def test_quick_study_is_inside_tolerance(tmp_path):
    result = epuck2_study.reproduce(tmp_path, quick=True, workers=1)
    assert result.ok, [(r.quantity, r.paper, r.ours) for r in result.rows if not r.ok]
    assert all(f.exists() for f in result.files)
    assert (tmp_path / "epuck2_study.csv").read_text().count("\n") == 12
    # run again: the study is resumed, nothing is run twice
    again = epuck2_study.reproduce(tmp_path, quick=True, workers=1)
    assert again.ok and again.rows[0].ours == result.rows[0].ours


def test_fails_with_other_speeds(tmp_path, monkeypatch):
    monkeypatch.setattr(epuck2_study, "SPEED_RANGE", "0:0.15:10")   # 1.67 cm/s steps
    assert failing(epuck2_study.reproduce(tmp_path, quick=True, workers=1)) == [
        "runs done (11 speeds × 30 seeds; quick: × 2)", "wheel speeds swept (cm/s)"]


def test_fails_when_robots_drive_instead_of_turning(tmp_path, monkeypatch):
    def forward(self, group):
        group.wheels[:, 0] = self.v
        group.wheels[:, 1] = self.v

    monkeypatch.setattr(epuck2_study.Spin, "step", forward)
    assert failing(epuck2_study.reproduce(tmp_path, quick=True, workers=1)) == [
        "robots rotate on the spot: max distance from start (m)"]
