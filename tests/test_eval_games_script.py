"""``scripts/eval_games.py`` names each game's uncertain plays, and its summary counts them."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_each_game_names_its_uncertain_plays_and_the_summary_adds_them_up():
    # simulated tables with harsh faults (seed 4004 leaves one play for the referee to confirm)
    res = subprocess.run([sys.executable, str(ROOT / "scripts" / "eval_games.py"), "--sim", "--seeds", "4003-4004",
                          "--hands", "1", "--faults", "harsh"], capture_output=True, text=True, timeout=300)
    lines = [json.loads(line) for line in res.stdout.splitlines() if line.startswith("{")]
    games = [d for d in lines if "game" in d]
    summary = [d["summary"] for d in lines if "summary" in d][0]
    assert len(games) == 2
    for game in games:
        assert isinstance(game["rejected"], int)
        # each uncertain play as CARD@SECONDS (no card where it was never read)
        assert all(re.fullmatch(r"(?:[2-9AJQK]|10)?[SHDC]?@\d+\.\d", u) for u in game["uncertain"])
    assert summary["uncertain"] == sum(len(g["uncertain"]) for g in games) >= 1
    assert summary["rejected"] == sum(g["rejected"] for g in games)


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "eval_games.py"), *args],
                          capture_output=True, text=True, timeout=300)


def test_fps_sets_how_many_frames_the_pipeline_sees_of_the_same_game():
    # the same simulated hand seen at 10 and at 4 frames a second (a slow Pi's live call)
    games = {}
    for fps in ("10", "4"):
        res = _run("--sim", "--seeds", "1001", "--hands", "1", "--fps", fps)
        games[fps] = [json.loads(line) for line in res.stdout.splitlines() if line.startswith('{"game"')][0]
    assert games["10"]["hands"] == games["4"]["hands"] == 1
    ratio = games["4"]["frames"] / games["10"]["frames"]
    assert 0.38 < ratio < 0.42


def test_fps_must_be_positive():
    res = _run("--sim", "--seeds", "1001", "--hands", "1", "--fps", "0")
    assert res.returncode == 2 and "--fps must be a positive number" in res.stderr
