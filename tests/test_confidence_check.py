"""``scripts/confidence_check.py``: the installed model's readings binned by confidence."""

import json

from _scripts import load_script


def test_the_installed_model_on_two_test_scenes(tmp_path, capsys):
    rc = load_script("confidence_check").main(["--cache", str(tmp_path), "--val", "0", "--test", "2",
                                                "--printed", "0", "--json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    test = out["test"]
    assert set(out) >= {"threshold", "test"} and "val" not in out and "printed" not in out
    assert test["readings"] == sum(b["readings"] for b in test["bins"]) > 0
    assert 0.0 <= test["ece"] <= 1.0
    assert all(0.0 <= b["lo"] <= b["confidence"] <= b["hi"] and 0 <= b["wrong"] <= b["readings"] for b in test["bins"])
    assert len(list(tmp_path.glob("*.png"))) == 2  # the scenes were kept


def test_printed_decks_missing_is_said(monkeypatch, capsys):
    import sueca.datasets.styles as styles

    def none_cached(name):
        raise ValueError("no such real deck is cached")

    monkeypatch.setattr(styles, "resolve_styles", none_cached)
    rc = load_script("confidence_check").main(["--val", "0", "--test", "0"])
    assert rc == 2
    assert "fetch-heldout-decks" in capsys.readouterr().err
