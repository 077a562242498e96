"""``sueca dataset build`` / ``preview``: the ultralytics layout, labels and determinism."""

from __future__ import annotations

import json

import cv2
import numpy as np
import yaml

from sueca.cli import main
from sueca.datasets.build import obb_rows
from sueca.datasets.scene import CardLabel
from sueca.vision.classes import LOCATOR_CLASSES


def _build(tmp_path, name, *extra):
    out = tmp_path / name
    rc = main(["dataset", "build", "--out", str(out), "--images", "12", "--seed", "3", "--size", "160",
               "--quiet", *extra])
    assert rc == 0
    return out


def test_build_layout_and_labels(tmp_path, capsys):
    out = _build(tmp_path, "a", "--workers", "1", "--test-images", "2")
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["images"] == {"train": 11, "val": 1, "test": 2}
    data = yaml.safe_load((out / "data.yaml").read_text())
    assert data["train"] == "images/train" and data["val"] == "images/val" and data["test"] == "images/test"
    assert data["names"] == {i: n for i, n in enumerate(LOCATOR_CLASSES)}
    anns = [json.loads(l) for l in (out / "annotations.jsonl").read_text().splitlines()]
    assert len(anns) == 14
    n_rows = 0
    for ann in anns:
        img = cv2.imread(str(out / ann["image"]))
        assert img is not None and img.shape == (160, 160, 3)
        label = out / ann["image"].replace("images/", "labels/").replace(".jpg", ".txt")
        rows = [r for r in label.read_text().splitlines() if r.strip()]
        for r in rows:
            v = r.split()
            assert len(v) == 9 and v[0] == "0"
            xy = np.array(v[1:], float)
            assert ((xy >= 0) & (xy <= 1)).all()
        cards = [CardLabel.from_json(c) for c in ann["cards"]]
        # Each row is a face-up card; readable face-up cards are all labelled.
        readable = sum(c.readable for c in cards)
        assert readable <= len(rows) <= sum(c.face_up for c in cards)
        n_rows += len(rows)
    assert n_rows > 12


def test_build_is_deterministic_whatever_the_workers(tmp_path):
    a = _build(tmp_path, "a", "--workers", "1")
    b = _build(tmp_path, "b", "--workers", "2")
    fa = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file() and p.name != "data.yaml")
    fb = sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file() and p.name != "data.yaml")
    assert fa == fb
    for rel in fa:
        assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel


def test_obb_rows_clip_cards_at_the_border():
    inside = CardLabel("AS", np.array([[10, 10], [40, 10], [40, 50], [10, 50]], np.float32), True,
                       np.zeros((2, 4, 2), np.float32), np.ones(2, np.float32), True, 1.0)
    half_out = CardLabel("KD", np.array([[-20, 60], [20, 60], [20, 100], [-20, 100]], np.float32), True,
                         np.zeros((2, 4, 2), np.float32), np.ones(2, np.float32), True, 0.5)
    face_down = CardLabel("2C", inside.corners, False, inside.index_quads, np.zeros(2, np.float32), False, 1.0)
    rows = obb_rows([inside, half_out, face_down], (100, 100))
    assert len(rows) == 2
    xy = np.array(rows[1].split()[1:], float).reshape(4, 2) * 100
    assert xy[:, 0].min() >= 0 and abs(xy[:, 0].max() - 20) < 0.5


def test_preview_and_cli_errors(tmp_path, capsys):
    out = _build(tmp_path, "a", "--workers", "1")
    png = tmp_path / "sheet.png"
    assert main(["dataset", "preview", str(out), "--out", str(png), "-n", "4"]) == 0
    sheet = cv2.imread(str(png))
    assert sheet is not None and sheet.shape[0] >= 480 and sheet.shape[1] >= 4 * 480
    assert main(["dataset", "preview", str(tmp_path / "missing")]) == 2
    assert "annotations.jsonl" in capsys.readouterr().err


def test_module_examples_hold():
    import doctest
    import importlib

    for name in ("styles", "pips", "cards", "camera", "textures", "distractors", "scene", "build", "game_plan",
                 "crops"):
        res = doctest.testmod(importlib.import_module(f"sueca.datasets.{name}"))
        assert res.failed == 0, name


def test_label_tasks_by_card_code(tmp_path):
    from sueca.vision.classes import CARD_CLASS, CARD_CODES

    out = _build(tmp_path, "idx", "--workers", "1", "--labels", "index")
    data = yaml.safe_load((out / "data.yaml").read_text())
    assert data["names"] == dict(enumerate(CARD_CODES))
    for line in (out / "annotations.jsonl").read_text().splitlines():
        ann = json.loads(line)
        cards = [CardLabel.from_json(c) for c in ann["cards"]]
        label = out / ann["image"].replace("images/", "labels/").replace(".jpg", ".txt")
        got = sorted(int(r.split()[0]) for r in label.read_text().splitlines() if r.strip())
        want = sorted(CARD_CLASS[c.code] for c in cards if c.readable for v in c.index_visible if v >= 0.8)
        assert got == want
    rows = obb_rows([CardLabel("QS", np.array([[10, 10], [40, 10], [40, 50], [10, 50]], np.float32), True,
                               np.zeros((2, 4, 2), np.float32), np.ones(2, np.float32), True, 1.0)], (100, 100),
                    "card52")
    assert rows[0].split()[0] == str(CARD_CLASS["QS"])


def test_existing_dataset_needs_overwrite(tmp_path, capsys):
    out = _build(tmp_path, "a", "--workers", "1")
    (out / "labels" / "train.cache").write_text("stale")
    assert main(["dataset", "build", "--out", str(out), "--images", "3", "--quiet", "--workers", "1"]) == 2
    assert "--overwrite" in capsys.readouterr().err
    assert main(["dataset", "build", "--out", str(out), "--images", "3", "--quiet", "--workers", "1",
                 "--overwrite"]) == 0
    assert len(list((out / "images").rglob("*.jpg"))) == 3 and not (out / "labels" / "train.cache").exists()


def test_build_draws_the_styles_asked_for(tmp_path):
    from sueca.datasets.build import build_dataset

    build_dataset(tmp_path / "t", 4, seed=3, size=160, workers=1, progress=False, styles="test")
    decks = {json.loads(line)["meta"]["style"] for line in (tmp_path / "t" / "annotations.jsonl").open()}
    assert decks and decks <= {"test_pt_serif", "test_light_sans"}


def test_scene_options_reach_every_scene(tmp_path):
    """``scene_options`` (e.g. a phone's close-up: cards half the frame high) go to each scene."""
    from sueca.datasets.build import build_dataset

    def card_heights(out):
        hs = []
        for line in (out / "annotations.jsonl").open():
            a = json.loads(line)
            for c in a["cards"]:
                q = np.asarray(c["corners"], np.float32)
                hs.append(max(np.linalg.norm(q[3] - q[0]), np.linalg.norm(q[1] - q[0])) / a["size"][1])
        return np.asarray(hs)

    build_dataset(tmp_path / "near", 4, seed=3, size=(160, 120), workers=1, progress=False,
                  scene_options={"card_frac": (0.45, 0.5), "distortion": False})
    build_dataset(tmp_path / "far", 4, seed=3, size=(160, 120), workers=1, progress=False,
                  scene_options={"card_frac": (0.08, 0.09), "distortion": False})
    near, far = card_heights(tmp_path / "near"), card_heights(tmp_path / "far")
    assert np.median(near) > 3 * np.median(far)
    assert 0.3 < np.median(near) < 0.7
