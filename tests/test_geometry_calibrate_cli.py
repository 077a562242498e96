"""``sueca calibrate``: one frame in, a calibration and a preview out."""

from __future__ import annotations

import json
import sys

import cv2
import numpy as np

from sueca.cli import main
from sueca.vision.geometry import Calibration


def table_video(path, size=(320, 240), count=3):
    writer = cv2.VideoWriter(str(path), cv2.CAP_FFMPEG, cv2.VideoWriter_fourcc(*"MJPG"), 10,
                             size)
    for k in range(count):
        writer.write(np.full((size[1], size[0], 3), 60 + 40 * k, np.uint8))
    writer.release()
    return path


def test_calibrate_writes_the_proposal_and_a_preview(tmp_path, capsys):
    video = table_video(tmp_path / "table.avi")
    out = tmp_path / "cal.json"
    rc = main(["calibrate", "--source", str(video), "--out", str(out), "--lang", "en"])
    assert rc == 0
    cal = Calibration.load(out)
    assert cal == Calibration.propose(320, 240)
    assert json.loads(out.read_text())["seats"][0] == [160.0, 240.0]
    preview = cv2.imread(str(tmp_path / "cal-preview.jpg"))
    assert preview.shape == (240, 320, 3)
    assert np.abs(preview.astype(int) - 60).max() > 60  # the sectors are drawn on it
    stdout = capsys.readouterr().out
    assert "cal.json" in stdout and "counter-clockwise" in stdout


def test_calibrate_seat0_clockwise_skip_and_preview_path(tmp_path, capsys):
    video = table_video(tmp_path / "table.avi")
    out, preview = tmp_path / "c.json", tmp_path / "p.jpg"
    rc = main(["calibrate", "--source", str(video), "--out", str(out), "--seat0", "top",
               "--clockwise", "--preview", str(preview), "--skip", "2", "--play-area", "0.4"])
    assert rc == 0
    cal = Calibration.load(out)
    assert cal.seats[0] == (160.0, 0.0) and cal.seats[1] == (320.0, 120.0)
    assert cal.direction == "cw" and cal.play_area == 0.4
    # The third frame (skip 2) is the one under the drawings.
    image = cv2.imread(str(preview))
    assert abs(int(np.median(image)) - 140) <= 3
    assert "horário" in capsys.readouterr().out


def test_calibrate_clear_errors(tmp_path, capsys, monkeypatch):
    rc = main(["calibrate", "--source", str(tmp_path / "nothing.mp4"), "--out",
               str(tmp_path / "c.json")])
    err = capsys.readouterr().err
    assert rc == 2 and "nothing.mp4" in err and "no such file" in err
    assert not (tmp_path / "c.json").exists()

    monkeypatch.setitem(sys.modules, "picamera2", None)
    rc = main(["calibrate", "--source", "picamera", "--out", str(tmp_path / "c.json")])
    err = capsys.readouterr().err
    assert rc == 2 and "python3-picamera2" in err and "--system-site-packages" in err

    video = table_video(tmp_path / "table.avi", count=2)
    rc = main(["calibrate", "--source", str(video), "--skip", "5",
               "--out", str(tmp_path / "c.json")])
    assert rc == 2 and "no frame" in capsys.readouterr().err

    rc = main(["calibrate", "--source", str(video), "--play-area", "1.5",
               "--out", str(tmp_path / "c.json")])
    assert rc == 2 and "play_area" in capsys.readouterr().err
