"""The locator's printed-deck data (the recipe's ``locator_real`` step): what it renders, and
a clear refusal where no printed deck is fetched. Rendering only (no torch)."""

from __future__ import annotations

import json

import pytest

from sueca.datasets import svgdeck
from sueca.vision.train_locator import printed_deck_data
from test_datasets_realdecks import stand_in_deck


def test_no_printed_deck_fetched_is_refused_before_rendering(tmp_path, monkeypatch):
    monkeypatch.setenv("SUECA_DECKS_DIR", str(tmp_path / "decks"))
    svgdeck._manifest.cache_clear()
    with pytest.raises(ValueError, match="real_train_all.*fetch-heldout-decks"):
        printed_deck_data(tmp_path / "data", 10)
    assert not (tmp_path / "data").exists()


def test_printed_and_training_style_scenes_side_by_side(tmp_path, monkeypatch):
    monkeypatch.setenv("SUECA_DECKS_DIR", str(tmp_path / "decks"))
    stand_in_deck(tmp_path / "decks" / "kde_standard")
    stand_in_deck(tmp_path / "decks" / "bellot")  # held out: must never be drawn
    svgdeck._manifest.cache_clear()
    yaml = printed_deck_data(tmp_path / "data", 10, synth_scenes=20)
    text = yaml.read_text()
    assert "train: [real/images/train, synth/images/train]" in text and "0: card" in text
    for name, n in (("real", 10), ("synth", 20)):
        root = tmp_path / "data" / name
        train = sorted((root / "images" / "train").iterdir())
        val = sorted((root / "images" / "val").iterdir())
        assert len(train) + len(val) == n and len(val) == n // 10
        assert len(list((root / "labels" / "train").iterdir())) == len(train)
    decks = set()
    for line in (tmp_path / "data" / "real" / "annotations.jsonl").read_text().splitlines():
        decks.update(c.get("style") for c in json.loads(line).get("cards", []))
    assert decks == {"real_kde_standard"}
    synth_decks = set()
    for line in (tmp_path / "data" / "synth" / "annotations.jsonl").read_text().splitlines():
        synth_decks.update(c.get("style") for c in json.loads(line).get("cards", []))
    assert synth_decks and not any(str(d).startswith("real_") for d in synth_decks)
