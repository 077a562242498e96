"""``scripts/real_decks_check.py``: the scene options reach the generator, bad ones are refused."""

import json
from types import SimpleNamespace

import pytest
from _scripts import load_script


def _script():
    return load_script("real_decks_check")


def _fake_run(monkeypatch, note):
    """No scene is rendered or read: ``note(seeds, styles, options)`` is told what each deck's
    evaluation was asked, which returns empty figures."""
    import sueca.vision.train_eval as train_eval

    def fake_evaluate(recognizer, seeds, styles, log=print, **options):
        note(seeds, styles, options)
        m = {k: 0 for k in ("readable_cards", "read_right", "whole_cards", "whole_read_right",
                            "reported_identities", "wrong_identities", "locatable_cards", "located")}
        return {**m, "wrong_examples": []}, None

    monkeypatch.setattr(train_eval, "evaluate", fake_evaluate)
    fake = SimpleNamespace(config=SimpleNamespace(threshold=0.98))
    monkeypatch.setattr("sueca.vision.recognizer.load_recognizer", lambda *a, **k: fake)


def test_card_frac_and_layout_reach_the_scenes(monkeypatch, capsys):
    seen = []
    _fake_run(monkeypatch, lambda seeds, styles, options: seen.append((list(seeds), styles, options)))
    rc = _script().main(["--decks", "test_pt_serif", "test_light_sans", "--scenes", "2", "--card-frac", "0.3", "0.45",
                         "--layout", "scatter", "--max-tilt", "45", "--json"])
    assert rc == 0
    assert [s[1] for s in seen] == [["test_pt_serif"], ["test_light_sans"]]
    assert seen[0][0] != seen[1][0]  # each deck its own seeds
    assert all(s[2] == {"card_frac": (0.3, 0.45), "layout": "scatter", "max_tilt": 45.0} for s in seen)
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert set(out["decks"]) == {"test_pt_serif", "test_light_sans"}


def test_white_tables_reach_the_scenes_and_an_unknown_one_is_named(monkeypatch, capsys):
    seen = []
    _fake_run(monkeypatch, lambda seeds, styles, options: seen.append(options))
    assert _script().main(["--decks", "test_pt_serif", "--scenes", "1", "--tables", "white_marble", "white_cloth",
                           "--json"]) == 0
    assert seen == [{"tables": ("white_marble", "white_cloth")}]
    with pytest.raises(SystemExit, match="white_felt"):
        _script().main(["--decks", "test_pt_serif", "--tables", "white_felt"])


@pytest.mark.parametrize("frac", [("0.5", "0.2"), ("0", "0.3"), ("0.3", "1.5")])
def test_bad_card_frac_is_refused(frac, monkeypatch):
    monkeypatch.setattr("sueca.vision.recognizer.load_recognizer", lambda *a, **k: object())
    with pytest.raises(SystemExit, match="--card-frac"):
        _script().main(["--decks", "test_pt_serif", "--card-frac", *frac])


def test_a_close_up_scene_is_read():
    """One real scene with large cards, the installed models: the figures add up."""
    mod = _script()
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert mod.main(["--decks", "test_light_sans", "--scenes", "1", "--card-frac", "0.3", "0.45", "--json"]) == 0
    total = json.loads(buf.getvalue().strip().splitlines()[-1])["total"]
    assert total["readable_cards"] > 0
    assert 0 <= total["read_right"] <= total["readable_cards"]
    assert total["wrong_identities"] <= total["reported_identities"]
