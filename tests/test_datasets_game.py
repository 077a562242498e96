"""``sueca dataset game``: the truth record scores with the engine and matches the video."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from sueca.cli import main
from sueca.datasets.game import render_game
from sueca.datasets.game_plan import plan_game
from sueca.engine import Match, MatchRecord


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    out = tmp_path_factory.mktemp("game")
    rc = main(["dataset", "game", "--out", str(out), "--seed", "4", "--hands", "1", "--fps", "4",
               "--size", "320x240", "--renuncias", "1", "--quiet"])
    assert rc == 0
    return out


def test_truth_scores_with_the_engine(game):
    truth = json.loads((game / "truth.json").read_text())
    report = Match(MatchRecord.from_json(truth)).report()
    hand = report["hands"][0]
    assert len(truth["hands"][0]["plays"]) == 40 and hand["complete"]
    assert sum(hand["points"]) == 120 or hand["renuncias"]
    # The injected renúncia is proven and decides the hand.
    assert len(hand["renuncias"]) == 1 and 4 in hand["riscos"]
    plays = truth["hands"][0]["plays"]
    times = [p["t"] for p in plays]
    assert times == sorted(times) and len(set(times)) == 40
    # Each recorded seat is the seat whose turn it was: the engine sees no mismatch.
    assert Match(MatchRecord.from_json(truth)).hands[0].seat_mismatches == []
    assert {p["seat"] for p in plays} == {0, 1, 2, 3}


def test_video_and_calibration(game):
    calib = json.loads((game / "calibration.json").read_text())
    assert calib["image_size"] == [320, 240] and len(calib["seats"]) == 4
    cx, cy = calib["center"]
    # Counter-clockwise from above: seat 0 bottom, 1 right, 2 top, 3 left.
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = calib["seats"]
    assert y0 > cy and x1 > cx and y2 < cy and x3 < cx
    events = json.loads((game / "events.json").read_text())
    cap = cv2.VideoCapture(str(game / "video.mp4"))
    n = int(cap.get(cv2.CAP_PROP_FRAME_COUNT))
    assert abs(n - events["frames"]) <= 1 and events["fps"] == 4
    # At a card's rest frame, its label outline holds card-like (bright) pixels.
    ev = events["plays"][0]
    cap.set(cv2.CAP_PROP_POS_FRAMES, ev["rest_frame"] + 1)
    ok, frame = cap.read()
    assert ok and frame.shape == (240, 320, 3)
    m = np.zeros(frame.shape[:2], np.uint8)
    cv2.fillPoly(m, [np.round(ev["corners"]).astype(np.int32)], 1)
    assert frame[m.astype(bool)].mean() > frame.mean()


def test_plan_is_deterministic_and_clockwise_option():
    a, b = plan_game(9, 1, (320, 240)), plan_game(9, 1, (320, 240))
    assert a.record == b.record and a.events == b.events
    cw = plan_game(9, 1, (320, 240), clockwise=True)
    assert cw.seat_dirs[1][0] < 0  # seat 1 on the left


def test_bad_arguments(tmp_path):
    with pytest.raises(ValueError):
        render_game(tmp_path, hands=0)
    assert main(["dataset", "game", "--out", str(tmp_path), "--hands", "0"]) == 2


def test_demo_game_is_cached(tmp_path, monkeypatch):
    import sueca.datasets.game as game

    calls = []
    real = game.render_game

    def spy(*a, **k):
        calls.append(1)
        k["size"] = (160, 120)
        return real(*a, **k)

    monkeypatch.setattr(game, "render_game", spy)
    assert not game.demo_ready(tmp_path, hands=1, seed=3)
    p1 = game.demo_game(tmp_path, hands=1, seed=3)
    assert game.demo_ready(tmp_path, hands=1, seed=3)
    p2 = game.demo_game(tmp_path, hands=1, seed=3)
    assert len(calls) == 1 and p1 == p2 and p1["video"].stat().st_size > 0
    assert p1["video"].parent == tmp_path and not (tmp_path / ".rendering").exists()  # rendered aside, moved in
    # a cached demo of another size (an older release's) is rendered again, not played
    assert not game.demo_ready(tmp_path, hands=1, seed=3, size=(960, 720))
    game.demo_game(tmp_path, hands=1, seed=3, size=(960, 720))
    assert len(calls) == 2 and not game.demo_ready(tmp_path, hands=1, seed=3)
    truth = json.loads(p1["truth"].read_text())
    assert Match(MatchRecord.from_json(truth)).report()["hands"][0]["complete"]


def test_renuncias_over_several_hands_with_a_higher_target():
    plan = plan_game(11, hands=2, size=(160, 120), renuncias=3, target=12)
    report = Match(MatchRecord.from_json(plan.record)).report()
    assert plan.record["rules"]["target"] == 12 and len(report["hands"]) == 2
    assert plan.events["renuncias_injected"] == sum(len(h["renuncias"]) for h in report["hands"]) == 3


def test_styles_option(tmp_path, monkeypatch, capsys):
    rc = main(["dataset", "game", "--out", str(tmp_path / "g"), "--seed", "5", "--hands", "1", "--fps", "2",
               "--size", "320x240", "--styles", "test_light_sans", "--quiet"])
    assert rc == 0
    assert json.loads((tmp_path / "g" / "events.json").read_text())["style"] == "test_light_sans"
    assert main(["dataset", "game", "--out", str(tmp_path / "h"), "--styles", "no_such_deck"]) == 2
    assert "unknown deck style 'no_such_deck'" in capsys.readouterr().err
    monkeypatch.setenv("SUECA_DECKS_DIR", str(tmp_path / "empty"))  # a printed deck never fetched here
    assert main(["dataset", "game", "--out", str(tmp_path / "h"), "--styles", "real_bellot"]) == 2
    assert "real_bellot not fetched" in capsys.readouterr().err
    assert not (tmp_path / "h" / "video.mp4").exists()


def test_tables_option(tmp_path, capsys):
    from sueca.datasets.textures import BRIGHT_KINDS

    rc = main(["dataset", "game", "--out", str(tmp_path / "g"), "--seed", "5", "--hands", "1", "--fps", "2",
               "--size", "320x240", "--tables", "white_marble", "--quiet"])
    assert rc == 0
    assert json.loads((tmp_path / "g" / "events.json").read_text())["table"] == "white_marble"
    frame = cv2.VideoCapture(str(tmp_path / "g" / "video.mp4")).read()[1]
    assert float(np.median(frame)) > 150  # a white top fills most of the picture
    assert main(["dataset", "game", "--out", str(tmp_path / "h"), "--tables", "white_felt"]) == 2
    err = capsys.readouterr().err
    assert "unknown table 'white_felt'" in err and all(k in err for k in BRIGHT_KINDS)
    assert not (tmp_path / "h" / "video.mp4").exists()
