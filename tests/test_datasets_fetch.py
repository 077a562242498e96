"""The recipe's fetch step: every piece of art tried, a failure said and survived, the cache reported."""

from __future__ import annotations

import subprocess

import pytest

from sueca.datasets import fetch, phototex, realdecks, svgdeck


@pytest.mark.parametrize("error", [RuntimeError("npm pack @letele/playing-cards failed: offline"),
                                   subprocess.TimeoutExpired("npm", 300), ValueError("svgdeck: offline")])
def test_fetch_all_goes_on_past_a_failure_and_says_why(tmp_path, monkeypatch, error):
    monkeypatch.setenv("SUECA_DECKS_DIR", str(tmp_path / "decks"))
    monkeypatch.setenv("SUECA_DECK_CACHE", str(tmp_path / "letele"))
    monkeypatch.setenv("SUECA_TEXTURE_CACHE", str(tmp_path / "tex"))
    asked = []

    def no_network(force=False):
        raise error

    def textures(force=False):
        asked.append("textures")
        (tmp_path / "tex").mkdir()
        (tmp_path / "tex" / "manifest.json").write_text("{}")
        return tmp_path / "tex"

    def printed(names=None, force=False, log=print):
        asked.append("printed")
        (tmp_path / "decks" / "bellot").mkdir(parents=True)
        (tmp_path / "decks" / "bellot" / "manifest.json").write_text("{}")
        return {"bellot": str(tmp_path / "decks" / "bellot"), "aguilar": "not made: npm pack cardsJS failed"}

    monkeypatch.setattr(svgdeck, "fetch_deck", no_network)
    monkeypatch.setattr(phototex, "fetch_textures", textures)
    monkeypatch.setattr(realdecks, "fetch_heldout_decks", printed)
    lines = []
    out = fetch.fetch_all(lines.append)
    assert asked == ["textures", "printed"]  # the failed deck did not stop the others
    assert out["letele"] == f"not made: {error}"
    assert out["textures"] == str(tmp_path / "tex") and out["bellot"].endswith("bellot")
    log = "\n".join(lines)
    assert "fetch letele: not made" in log and "1 of 2 there" in log and "aguilar not made" in log
    now = fetch.fetched()
    assert now == {"letele": False, "textures": True, "printed_decks": ["bellot"]}


def test_fetched_names_only_known_decks_that_are_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("SUECA_DECKS_DIR", str(tmp_path))
    monkeypatch.setenv("SUECA_DECK_CACHE", str(tmp_path / "letele"))
    monkeypatch.setenv("SUECA_TEXTURE_CACHE", str(tmp_path / "tex"))
    (tmp_path / "not_a_deck").mkdir()
    (tmp_path / "not_a_deck" / "manifest.json").write_text("{}")
    assert fetch.fetched() == {"letele": False, "textures": False, "printed_decks": []}


def test_model_card_says_which_art_the_run_had():
    from sueca.vision.train_card import _fetched

    assert _fetched(None) == ""  # models trained before the fetch step: nothing claimed
    text = _fetched({"letele": False, "textures": True, "printed_decks": ["bellot", "aguilar"]})
    assert "deck art **missing**" in text and "textures there" in text and "2 printed decks" in text
