"""``sueca run --no-server`` on a folder of frames, end to end through the CLI."""

import json
import random

import cv2
import numpy as np

from sueca.cli import main
from sueca.engine import MatchRecord, Rules, random_hand
from sueca.vision.detections import CardDetections
from sueca.vision.gamecheck import compare
from sueca.vision.simtable import OracleDetector, simulate, truth_json

SCALE = 20  # the simulated 1280x960 table shown as 64x48 frames


class FrameIndexOracle:
    """Reads the frame number written into the pixels and returns that frame's detections."""

    def __init__(self, frames, seed):
        self.frames, self.oracle = frames, OracleDetector(seed=seed)

    def __call__(self, image):
        i = int(image[0, 0, 0]) - 1 + 250 * (int(image[0, 0, 1]) - 1)
        d = self.oracle(self.frames[i])
        if not len(d):
            return d
        return CardDetections(d.xyxy / SCALE, d.codes, d.confidence, d.locate_confidence, d.corners / SCALE)


def simulated_frames(tmp_path, seed: int, dealer: int):
    """One simulated hand written as a folder of frames; each frame's first pixel
    encodes its index, which FrameIndexOracle reads back."""
    rng = random.Random(seed)
    rules = Rules()
    sim = simulate(MatchRecord(rules, (random_hand(rng, rules, dealer),)), rng)
    frames = []
    src = tmp_path / "frames"
    src.mkdir()
    for i, t, cards in sim.frames():
        frames.append(cards)
        img = np.full((48, 64, 3), 90, np.uint8)
        img[0, 0] = (i % 250 + 1, i // 250 + 1, 7)
        cv2.imwrite(str(src / f"f{i:05d}.png"), img)
    return sim, frames, src


def test_run_no_server_writes_the_record(tmp_path, monkeypatch, capsys):
    sim, frames, src = simulated_frames(tmp_path, seed=42, dealer=2)
    monkeypatch.setattr("sueca.commands.run._recognizer", lambda model, precision=None: FrameIndexOracle(frames, 42))
    cal = tmp_path / "cal.json"
    sim.calibration.save(cal)
    out = tmp_path / "record.json"
    code = main(["run", "--source", str(src), "--calibration", str(cal), "--record", str(out), "--no-server"])
    assert code == 0
    record = json.loads(out.read_text())
    report = compare(truth_json(sim), record)
    assert report["hands_right"] == 1, report["hands"]
    assert all(isinstance(p, dict) and {"card", "seat", "t"} <= set(p) for p in record["hands"][0]["plays"])
    err = capsys.readouterr().err
    assert "frames" in err and "plays 40" in err


def test_run_rejects_half_of_dealer_and_trump(capsys):
    assert main(["run", "--source", "x", "--dealer", "1", "--no-server"]) == 2
    assert "--dealer and --trump" in capsys.readouterr().err


def test_run_with_server_feeds_the_dashboard(tmp_path, monkeypatch):
    import threading

    from sueca.server.feed import LiveFeed
    from sueca.server.service import Referee
    from sueca.server.store import Store

    sim, frames, src = simulated_frames(tmp_path, seed=7, dealer=1)
    monkeypatch.setattr("sueca.commands.run._recognizer", lambda model, precision=None: FrameIndexOracle(frames, 7))
    feeds = []

    def fake_serve(data_dir, host, port, source=None, **kw):
        feed = LiveFeed(Referee(Store(":memory:")))
        feeds.append(feed)
        source(feed, threading.Event())   # what the server's worker thread does
        return 0

    monkeypatch.setattr("sueca.server.runner.serve", fake_serve)
    cal = tmp_path / "cal.json"
    sim.calibration.save(cal)
    assert main(["run", "--source", str(src), "--calibration", str(cal), "--quiet"]) == 0
    served = feeds[0].referee.view().match.record.to_json()["hands"][0]["plays"]
    assert [p["card"] for p in served] == [p.card for p in sim.truth[0].plays]
    assert feeds[0].frame() is not None       # the dashboard's camera view got pictures


def test_run_rules_go_to_the_dashboards_match(tmp_path, monkeypatch):
    import threading
    from types import SimpleNamespace

    from sueca.server.feed import LiveFeed
    from sueca.server.service import Referee
    from sueca.server.store import Store

    sim, frames, src = simulated_frames(tmp_path, seed=7, dealer=1)
    monkeypatch.setattr("sueca.commands.run._recognizer", lambda model, precision=None: FrameIndexOracle(frames, 7))
    referees = []

    def fake_serve(data_dir, host, port, source=None, setup=None, **kw):
        ref = Referee(Store(":memory:"))
        referees.append(ref)
        setup(SimpleNamespace(state=SimpleNamespace(referee=ref)))
        source(LiveFeed(ref), threading.Event())
        return 0

    monkeypatch.setattr("sueca.server.runner.serve", fake_serve)
    cal = tmp_path / "cal.json"
    sim.calibration.save(cal)
    assert main(["run", "--source", str(src), "--calibration", str(cal), "--quiet",
                 "--rules", '{"target": 7, "rolha": true}']) == 0
    rec = referees[0].view().record
    assert (rec.rules.target, rec.rules.rolha) == (7, True)
    assert [p.card.code for p in rec.hands[0].plays] == [p.card for p in sim.truth[0].plays]


def test_table_rules_keep_a_match_under_way_and_start_another():
    from sueca.commands.run import table_rules
    from sueca.engine import Card
    from sueca.server.service import Referee
    from sueca.server.store import Store

    ref = Referee(Store(":memory:"))
    first = ref.live_id
    assert table_rules(ref, Rules(target=4)) == first          # same rules: nothing happens
    ref.submit("new_hand", {"dealer": 0, "trump_card": "5H"}, "test")
    ref.submit("play", {"card": "AS"}, "test")
    second = table_rules(ref, Rules(target=7))
    assert second != first and ref.view().record.rules.target == 7
    old = ref.view(first).record
    assert old.rules.target == 4 and old.hands[0].plays[0].card == Card.parse("AS")


def test_run_passes_the_precision_on_and_refuses_a_bad_one(tmp_path, monkeypatch, capsys):
    sim, frames, src = simulated_frames(tmp_path, seed=5, dealer=0)
    asked = []

    def recognizer(model, precision=None):
        asked.append(precision)
        return FrameIndexOracle(frames, 5)

    monkeypatch.setattr("sueca.commands.run._recognizer", recognizer)
    cal = tmp_path / "cal.json"
    sim.calibration.save(cal)
    assert main(["run", "--source", str(src), "--calibration", str(cal), "--no-server", "--quiet",
                 "--precision", "fp32"]) == 0
    assert asked == ["fp32"]
    monkeypatch.undo()
    # the real loader: a model folder without 8-bit networks cannot be asked for them
    import shutil

    from sueca.vision.recognizer import default_model_dir

    m = tmp_path / "model"
    m.mkdir()
    for name in ("locator.onnx", "outliner.onnx", "reader.onnx", "reader2.onnx", "face_suit.onnx"):
        shutil.copyfile(default_model_dir() / name, m / name)
    cfg = json.loads((default_model_dir() / "recognizer.json").read_text())
    cfg.pop("int8")
    (m / "recognizer.json").write_text(json.dumps(cfg))
    capsys.readouterr()
    assert main(["run", "--source", str(src), "--calibration", str(cal), "--no-server", "--quiet",
                 "--model", str(m), "--precision", "int8"]) == 2
    assert "8-bit" in capsys.readouterr().err
