"""White table tops: the committed model's locator and outliner tuned on them (``config.white``),
used where the cards found show the table as white as they are (``sueca.vision.tabletop``)."""

from __future__ import annotations

import json
import types

import pytest

from sueca.datasets.scene import render_scene
from sueca.vision.recognizer import load_recognizer
from sueca.vision.recognizer_config import RecognizerConfig, default_model_dir
from sueca.vision.still import OutlineMemory


@pytest.fixture(scope="module")
def rec():
    return load_recognizer()


def _spy(recognizer) -> list:
    """The frames ``recognizer._detect`` was given (its own instance only), each with whether
    it was read there (not handed on before reading)."""
    calls: list = []
    inner = recognizer._detect

    def detect(self, frame, memory, threshold, white=None, view=None):
        out = inner(frame, memory, threshold, white=white, view=view)
        calls.append((frame.shape, out is not None))
        return out

    recognizer._detect = types.MethodType(detect, recognizer)
    return calls


def test_the_committed_model_has_white_networks_beside_the_same_readers(rec):
    white = rec.white
    assert white is not None and white.white is None
    assert white.reader is rec.reader and white.second is rec.second and white.face is rec.face
    assert white.locator.path.name == "locator_white.int8.onnx" and white.locator.path != rec.locator.path
    assert white.outliner.net.path.name == "outliner_white.int8.onnx"
    fp32 = load_recognizer(precision="fp32")
    assert fp32.white.locator.path.name == "locator_white.onnx"
    # a locator file named by the user is used alone, on every table
    assert load_recognizer(model=default_model_dir() / "locator.onnx").white is None


def test_a_still_image_of_a_white_top_is_read_by_the_white_networks(monkeypatch):
    rec = load_recognizer()
    own, white = _spy(rec), _spy(rec.white)
    dark = render_scene(962_001, (1280, 960), "test", tables=("felt",)).image
    rec(dark, tiles=False)  # the whole frame's table (each tile tells its own)
    assert len(own) >= 1 and all(read for _, read in own) and white == []
    bright = render_scene(962_001, (1280, 960), "test", tables=("white_paint",))
    own.clear()
    reads = []
    usual_read = rec.read_quads
    monkeypatch.setattr(rec, "read_quads", lambda *a, **k: reads.append(1) or usual_read(*a, **k))
    dets = rec(bright.image, tiles=False)
    assert len(white) >= 1 and all(read for _, read in white)
    # the table is told from the usual pair's outlines, before anything is read: read once, not twice
    assert own and not any(read for _, read in own) and reads == []
    truth = {c.code for c in bright.cards if c.face_up}
    read = [c for c in dets.codes if c]
    assert len(read) >= 2 and set(read) <= truth


def test_a_video_switches_once_its_frames_show_a_white_top(tmp_path):
    rec = load_recognizer()
    own, white = _spy(rec), _spy(rec.white)
    frame = render_scene(962_002, (1280, 960), "test", tables=("white_laminate",)).image
    memory = OutlineMemory()
    every = memory.table.every
    for k in range(2 * every + 3):
        rec(frame, memory=memory, threshold=rec.config.video_threshold)
    # the first frames by the usual networks, until three frames measured the table (a close
    # look's window, sueca.vision.close_look, is read by whichever pair reads the frame: not counted)
    own, white = ([c for c in calls if c[0] == frame.shape] for calls in (own, white))
    assert len(own) == 2 * every + 1 and len(white) == 2 and memory.table.white(rec.config.white["ratio"])
    # a plain model folder without "white" reads every table with its one locator
    plain = load_recognizer(_plain_copy(tmp_path))
    assert plain.white is None


def _plain_copy(folder):
    """``folder`` made the committed model without its white pair (the other files linked)."""
    src = default_model_dir()
    for f in src.iterdir():
        if f.is_file() and "white" not in f.name and f.name != "recognizer.json":
            (folder / f.name).symlink_to(f)
    cfg = json.loads((src / "recognizer.json").read_text())
    cfg.pop("white")
    for name in ("locator_white", "outliner_white"):
        cfg["int8"]["files"].pop(name)
    (folder / "recognizer.json").write_text(json.dumps(cfg))
    return folder


def test_the_white_entry_round_trips_and_a_bad_one_is_named(tmp_path):
    cfg = RecognizerConfig.load(default_model_dir())
    assert cfg.white["ratio"] == 0.9 and cfg.white["least"] == 2
    (tmp_path / "recognizer.json").write_text(json.dumps(cfg.to_dict()))
    assert RecognizerConfig.load(tmp_path).white == cfg.white
    for bad in ({"locator": {"onnx": "a.onnx"}, "ratio": 0.9, "least": 2},
                {**cfg.white, "ratio": 3.0}, {**cfg.white, "least": 0}, {**cfg.white, "ratio": "high"}):
        d = cfg.to_dict()
        d["white"] = bad
        (tmp_path / "recognizer.json").write_text(json.dumps(d))
        with pytest.raises(ValueError, match="white"):
            RecognizerConfig.load(tmp_path)


def test_the_white_networks_files_must_be_there(tmp_path):
    src = default_model_dir()
    for f in src.iterdir():
        if f.is_file() and not f.name.startswith("outliner_white") and f.name != "recognizer.json":
            (tmp_path / f.name).symlink_to(f)
    (tmp_path / "recognizer.json").write_text((src / "recognizer.json").read_text())
    with pytest.raises(FileNotFoundError, match="outliner_white"):
        load_recognizer(tmp_path)


def test_on_video_the_white_locators_faint_unread_boxes_are_dropped():
    import numpy as np

    from sueca.vision.detections import CardDetections, outline_boxes

    rec = load_recognizer()
    q = np.array([[100, 100], [170, 100], [170, 200], [100, 200]], np.float32)
    corners = np.stack([q, q + 300, q + [600, 0]])
    codes = ("7H", "", "")
    fixed = CardDetections(outline_boxes(corners, (1280, 960)), codes, np.array([0.99, 0.25, 0.6], np.float32),
                           np.array([0.9, 0.25, 0.6], np.float32), corners, np.ones(3, bool))
    rec.white._detect = lambda frame, memory, threshold, **kw: fixed
    frame = render_scene(962_002, (1280, 960), "test", tables=("white_laminate",)).image
    memory = OutlineMemory()
    memory.table._seen = [1.0, 1.0, 1.0]  # a white table, by its last frames
    video_conf = rec.config.white["video_conf"]
    assert 0.25 < video_conf <= 0.6
    use, dets = rec._on_table(frame, memory, rec.config.video_threshold)
    assert use is rec.white and dets.codes == ("7H", "")  # the faint unread box is gone
    assert dets.locate_confidence[1] == np.float32(0.6)
    # a still image keeps it (unread boxes are not plays there); its cards show the table white
    use, dets = rec._on_table(frame, None, None)
    assert use is rec.white and len(dets) == 3


def test_what_is_changed_on_the_recognizer_holds_for_its_white_pair():
    from dataclasses import replace

    rec = load_recognizer()
    rec.config = replace(rec.config, threshold=0.99999, faint_conf=None, faint_max=0)
    rec.second = None
    frame = render_scene(962_001, (1280, 960), "test", tables=("white_paint",)).image
    calls = _spy(rec.white)
    rec(frame)
    assert calls and rec.white.config is rec.config and rec.white.second is None
