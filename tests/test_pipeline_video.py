"""A rendered game video refereed end to end: ``sueca dataset game`` then ``sueca run``.

The committed recognizer reads every frame of a 1280x960 video of one hand
(hands over the cards, a renúncia injected); the written record must be the
truth play by play, with the renúncia proven. ``scripts/eval_games.py --video``
is the long run of the same check.
"""

from __future__ import annotations

import json

import pytest

from sueca.cli import main
from sueca.engine import Match, MatchRecord
from sueca.vision.gamecheck import compare


@pytest.mark.parametrize("seed", [8601])
def test_a_rendered_hand_is_recorded_play_by_play(tmp_path, seed, capsys):
    game = tmp_path / "game"
    assert main(["dataset", "game", "--out", str(game), "--seed", str(seed), "--hands", "1",
                 "--renuncias", "1", "--quiet"]) == 0
    out = tmp_path / "record.json"
    assert main(["run", "--source", str(game / "video.mp4"), "--calibration", str(game / "calibration.json"),
                 "--record", str(out), "--no-server"]) == 0
    truth = json.loads((game / "truth.json").read_text())
    record = json.loads(out.read_text())
    report = compare(truth["hands"], record)
    assert report["wrong_cards"] == 0, report["hands"]
    assert report["hands_right"] == 1, report["hands"]
    hand = Match(MatchRecord.from_json(record)).report()["hands"][0]
    assert len(hand["renuncias"]) == 1        # the injected renúncia, proven from the record
    assert "plays 40" in capsys.readouterr().err
