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


def test_a_new_locator_never_runs_on_the_old_ones_8bit_copy(tmp_path):
    """model_with_locator's copy: the installed 8-bit locators hold the old weights, so they go;
    where nothing else was 8-bit, the model becomes a float one (and still loads)."""
    import shutil
    from pathlib import Path

    from sueca.vision.recognizer import load_recognizer
    from sueca.vision.train_locator import _forget_8bit_locators

    models = Path(__file__).resolve().parents[1] / "models"
    for keep_readers in (True, False):
        model = tmp_path / f"m{keep_readers}"
        shutil.copytree(models, model, ignore=shutil.ignore_patterns("*.pt", "*.png", "*.md"))
        cfg = json.loads((model / "recognizer.json").read_text())
        if not keep_readers:
            # only the locator's own 8-bit copies (the white tops' locator is a network of its own)
            cfg["int8"]["files"] = {k: v for k, v in cfg["int8"]["files"].items() if k in ("locator", "locator_zoom")}
            (model / "recognizer.json").write_text(json.dumps(cfg))
        _forget_8bit_locators(model)
        after = json.loads((model / "recognizer.json").read_text())
        assert not (model / "locator.int8.onnx").exists() and not (model / "locator_zoom.int8.onnx").exists()
        rec = load_recognizer(model)
        assert rec.locator.path == model / "locator.onnx" and rec.small_locator.path == model / "locator_zoom.onnx"
        if keep_readers:
            assert after["int8"]["files"]["reader"] == "reader.int8.onnx" and rec.reader.path.name == "reader.int8.onnx"
            assert "locator" not in after["int8"]["files"] and "locator_zoom" not in after["int8"]["files"]
        else:
            assert "int8" not in after and rec.reader.path.name == "reader.onnx"
