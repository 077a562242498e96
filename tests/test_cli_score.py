import json
import random
import subprocess
import sys

import pytest

from sueca.engine import Rules, random_hand


def sueca(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "sueca", *args], input=stdin, capture_output=True,
                          text=True, timeout=60)


def write(tmp_path, obj, name="rec.json"):
    p = tmp_path / name
    p.write_text(obj if isinstance(obj, str) else json.dumps(obj))
    return str(p)


def test_help_lists_score():
    out = sueca("--help")
    assert out.returncode == 0 and "score" in out.stdout
    assert sueca("score", "--help").returncode == 0


def test_score_report_contract(tmp_path):
    hr = random_hand(random.Random(11), Rules(), 3)
    obj = {"hands": [{"dealer": 3, "trump_card": hr.trump_card.code,
                      "plays": [p.card.code for p in hr.plays]}]}
    out = sueca("score", write(tmp_path, obj))
    assert out.returncode == 0, out.stderr
    rep = json.loads(out.stdout)
    h = rep["hands"][0]
    assert {"dealer", "trump", "leader", "tricks", "points", "tricks_won", "renuncias", "riscos",
            "complete"} <= set(h)
    assert h["dealer"] == 3 and h["leader"] == 0 and h["trump"] == hr.trump_card.suit.code
    assert sum(h["points"]) == 120 and sum(h["tricks_won"]) == 10 and h["complete"] is True
    assert len(h["tricks"]) == 10 and set(h["tricks"][0]) >= {"leader", "cards", "winner", "points"}
    assert rep["riscos"] == h["riscos"] and rep["winner"] is None


@pytest.mark.parametrize("obj,needle", [
    ("{not json", "invalid JSON at line 1"),
    ({"hands": [{"dealer": 3, "trump_card": "5H", "plays": ["AS", "XX"]}]}, "hand 0, play 1: unknown card 'XX'"),
    ({"hands": [{"dealer": 3, "trump_card": "5H", "plays": ["AS", "2S", "AS"]}]}, "hand 0, play 2: AS was already played"),
    ({"hands": [{"dealer": 3, "trump_card": "5H", "plays": ["AS", "9S"]}]}, "hand 0, play 1: 9S is not in the Sueca deck"),
    ({"hands": [{"dealer": 3, "trump_card": "5H", "plays": ["AS", {"card": "2S", "seat": 3}]}]},
     "hand 0, play 1: seat 3 played 2S on seat 1's turn"),
])
def test_bad_records_exit_non_zero_with_one_line(tmp_path, obj, needle):
    out = sueca("score", write(tmp_path, obj))
    assert out.returncode != 0
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], out.stderr
    assert out.stdout == ""


def test_more_than_40_plays(tmp_path):
    hr = random_hand(random.Random(2), Rules(), 0)
    obj = {"hands": [{"dealer": 0, "trump_card": hr.trump_card.code,
                      "plays": [p.card.code for p in hr.plays] + ["QS"]}]}
    out = sueca("score", write(tmp_path, obj))
    assert out.returncode != 0 and "hand 0, play 40: more than 40 plays" in out.stderr


def test_missing_file_is_a_clear_error(tmp_path):
    out = sueca("score", str(tmp_path / "nope.json"))
    assert out.returncode != 0 and "nope.json: cannot read" in out.stderr


def test_text_sheet_in_portuguese_and_english():
    pt = sueca("score", "--example", "--text")
    assert pt.returncode == 0
    assert "Nós" in pt.stdout and "Eles" in pt.stdout and "Mão 1" in pt.stdout and "Vencedor" in pt.stdout
    en = sueca("score", "--example", "--text", "--lang", "en")
    assert "Hand 1" in en.stdout and "Winner" in en.stdout


def test_example_match_scores_and_stdin_works():
    ex = sueca("score", "--example")
    rep = json.loads(ex.stdout)
    assert rep["winner"] in (0, 1)
    assert any(r for h in rep["hands"] for r in h["renuncias"])
    from sueca.commands.score import load_example
    again = sueca("score", "-", stdin=json.dumps(load_example()))
    assert json.loads(again.stdout) == rep
