"""The committed models (``models/*.onnx``) on generated images: reading, refusing, CLI, parity."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import cv2
import numpy as np
import pytest

from sueca.vision.detections import UNREADABLE, CardDetections
from sueca.vision.recognizer import default_model_dir, load_recognizer

MODELS = default_model_dir()
pytestmark = pytest.mark.skipif(not (MODELS / "recognizer.json").is_file(), reason="no committed model")

TABLE = (45, 105, 50)


def _paste(frame, face, cx, cy, angle, scale=1.0):
    """Alpha-paste a BGRA card face centred at (cx, cy), turned by ``angle`` degrees; returns its corners."""
    h, w = face.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, scale)
    m[:, 2] += [cx - w / 2, cy - h / 2]
    H, W = frame.shape[:2]
    warped = cv2.warpAffine(face, m, (W, H), flags=cv2.INTER_AREA)
    a = warped[:, :, 3:4].astype(np.float32) / 255
    frame[:] = (warped[:, :, :3] * a + frame * (1 - a)).astype(np.uint8)
    return cv2.transform(np.array([[[0, 0], [w, 0], [w, h], [0, h]]], np.float32), m)[0]


def make_table(codes_at, style="test_pt_serif", size=(1280, 960), card_h=120, seed=0):
    """A plain table with the given cards: [(code, cx, cy, angle)]; returns frame and corners."""
    from sueca.datasets.cards import render_card_face

    rng = np.random.default_rng(seed)
    frame = np.empty((size[1], size[0], 3), np.uint8)
    frame[:] = TABLE
    frame = np.clip(frame + rng.normal(0, 4, frame.shape), 0, 255).astype(np.uint8)
    corners = []
    for code, cx, cy, angle in codes_at:
        face, _ = render_card_face(code, style, card_h)
        corners.append(_paste(frame, face, cx, cy, angle))
    return frame, corners


@pytest.fixture(scope="module")
def rec():
    return load_recognizer()


def _read(dets: CardDetections, corners) -> list[str]:
    """For each pasted card, the code of the detection whose box centre falls in it ('-' if none)."""
    out = []
    for quad in corners:
        found = "-"
        for i, c in enumerate(dets.centers):
            if cv2.pointPolygonTest(quad.reshape(-1, 1, 2), (float(c[0]), float(c[1])), False) >= 0:
                found = dets.codes[i]
        out.append(found)
    return out


def right_on_test_scenes(recognizers: dict, seeds) -> dict:
    """Per named recognizer, how many readings were right on the held-out test scenes of
    ``seeds``, each frame read whole (a stage's own gain: the tiles, tested on their own in
    ``test_recognition_tiles.py``, find some of the same cards); every reading must be right
    (a wrong one fails the test at once)."""
    from sueca.vision.train_data import render
    from sueca.vision.train_eval import match

    right = {name: 0 for name in recognizers}
    for seed in seeds:
        scene = render(seed, (1280, 960), "test")
        for name, recognizer in recognizers.items():
            dets = recognizer(scene.image, tiles=False)
            pairs = dict(match(dets, scene.cards))
            for i, code in enumerate(dets.codes):
                if code:
                    truth = scene.cards[pairs[i]] if i in pairs else None
                    assert truth is not None and truth.face_up and truth.code == code, (seed, name, code)
                    right[name] += 1
    return right


def test_reads_readable_cards_including_8_9_10(rec):
    layout = [("8H", 250, 250, 10), ("9S", 520, 260, -35), ("10D", 800, 240, 95), ("AS", 1050, 300, 180),
              ("7C", 300, 650, 200), ("QH", 620, 640, 60), ("KD", 930, 680, -120)]
    frame, corners = make_table(layout)
    dets = rec(frame)
    assert isinstance(dets, CardDetections) and dets.corners is not None
    got = _read(dets, corners)
    want = [c for c, *_ in layout]
    right = sum(g == w for g, w in zip(got, want))
    wrong = [(w, g) for g, w in zip(got, want) if g not in (w, UNREADABLE, "-")]
    assert wrong == []
    assert right >= 6, f"read {got}, expected {want}"
    read = [i for i, c in enumerate(dets.codes) if c != UNREADABLE]
    assert np.all((dets.confidence[read] > 0) & (dets.confidence[read] <= 1))


@pytest.mark.parametrize("style", ["test_pt_serif", "test_light_sans"])
def test_eights_nines_and_tens_are_reported_as_such(rec, style):
    """Sueca's deck has no 8, 9 or 10, but a camera over a café table will see them:
    the recognizer reads them as what they are (so the game can reject them), never as a
    Sueca card."""
    codes = [r + s for r in ("8", "9", "10") for s in "SHDC"]
    layout = [(c, 180 + (k % 4) * 300, 170 + (k // 4) * 300, (k * 47) % 360 - 180) for k, c in enumerate(codes)]
    frame, corners = make_table(layout, style=style)
    got = _read(rec(frame), corners)
    assert [(w, g) for g, w in zip(got, codes) if g not in (w, UNREADABLE, "-")] == []
    assert sum(g == w for g, w in zip(got, codes)) >= 8, f"read {got}"
    assert {g[:-1] for g, w in zip(got, codes) if g == w} == {"8", "9", "10"}, f"read {got}"


def test_a_steep_camera_reads_or_refuses_but_never_misreads(rec):
    layout = [("9H", 300, 300, 20), ("10S", 640, 280, -70), ("JD", 980, 320, 140), ("6C", 450, 650, 0),
              ("AH", 850, 660, 250)]
    frame, corners = make_table(layout, card_h=150)
    # a camera tilted by about 45 degrees: the far side of the table shrinks to 60%
    src = np.float32([[0, 0], [1280, 0], [1280, 960], [0, 960]])
    dst = np.float32([[256, 120], [1024, 120], [1280, 960], [0, 960]])
    hom = cv2.getPerspectiveTransform(src, dst)
    tilted = cv2.warpPerspective(frame, hom, (1280, 960), borderValue=TABLE)
    quads = [cv2.perspectiveTransform(q[None], hom)[0] for q in corners]
    got = _read(rec(tilted), quads)
    want = [c for c, *_ in layout]
    assert [(w, g) for g, w in zip(got, want) if g not in (w, UNREADABLE, "-")] == []
    assert sum(g == w for g, w in zip(got, want)) >= 3, got


def test_a_card_with_both_indices_covered_is_not_guessed(rec):
    frame, corners = make_table([("5H", 640, 480, 20), ("JC", 300, 300, 0)])
    q = corners[0]
    for k in (0, 2):  # cover both index corners with a coaster-like disc
        p = q[k] + 0.30 * (q[(k + 2) % 4] - q[k])
        cv2.circle(frame, (int(p[0]), int(p[1])), 38, (60, 70, 140), -1)
    dets = rec(frame)
    got = _read(dets, corners)
    assert got[0] in ("-", UNREADABLE), f"covered card read as {got[0]}"
    assert "5H" not in dets.codes
    assert all(c in ("JC", UNREADABLE) for c in dets.codes)


def test_empty_table_and_face_down_cards_give_no_identity(rec):
    from sueca.datasets.cards import render_card_back

    frame, _ = make_table([])
    assert [c for c in rec(frame).codes if c != UNREADABLE] == []
    back = render_card_back("classic", 120)
    _paste(frame, back, 500, 400, 30)
    _paste(frame, back, 800, 500, -10)
    assert [c for c in rec(frame).codes if c != UNREADABLE] == []


def test_any_image_size(rec):
    frame, corners = make_table([("4C", 320, 240, 15)], size=(640, 480), card_h=110)
    assert "4C" in rec(frame).codes
    small = cv2.resize(frame, (333, 250))
    rec(small)  # odd size: runs, boxes inside the image
    d = rec(small)
    assert np.all(d.xyxy[:, [0, 2]] <= 333) and np.all(d.xyxy[:, [1, 3]] <= 250)


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "sueca", "detect", *args], capture_output=True, text=True,
                          timeout=120)


def test_cli_contract_errors_and_exif(tmp_path):
    from PIL import Image

    frame, corners = make_table([("10H", 400, 300, 0), ("3S", 800, 600, 40)])
    good = tmp_path / "table.jpg"
    cv2.imwrite(str(good), frame, [cv2.IMWRITE_JPEG_QUALITY, 95])
    # the same photo stored sideways with EXIF "rotate 90 CW to view" (orientation 6)
    rgb = Image.fromarray(frame[:, :, ::-1]).transpose(Image.Transpose.ROTATE_90)
    exif = Image.Exif()
    exif[0x0112] = 6
    rotated = tmp_path / "sideways.jpg"
    rgb.save(rotated, exif=exif.tobytes(), quality=95)
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(b"not a jpeg at all")
    r = _cli(str(good), str(bad), str(tmp_path / "missing.png"), str(rotated))
    assert r.returncode != 0
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    assert [d["image"] for d in lines] == [str(good), str(bad), str(tmp_path / "missing.png"), str(rotated)]
    assert "error" in lines[1] and "error" in lines[2]
    assert "broken.jpg" in r.stderr and "missing.png" in r.stderr
    for entry in (lines[0], lines[3]):
        assert {c["card"] for c in entry["cards"]} == {"10H", "3S"}
        for c in entry["cards"]:
            assert set(c) == {"card", "confidence", "box"} and 0 < c["confidence"] <= 1
            x1, y1, x2, y2 = c["box"]
            assert 0 <= x1 < x2 <= 1280 and 0 <= y1 < y2 <= 960  # EXIF applied: landscape boxes
    box = {c["card"]: c["box"] for c in lines[3]["cards"]}["10H"]
    assert abs((box[0] + box[2]) / 2 - 400) < 25 and abs((box[1] + box[3]) / 2 - 300) < 25


def test_cli_ok_exit_and_model_option(tmp_path):
    frame, _ = make_table([("2D", 640, 480, 0)])
    p = tmp_path / "one.png"
    cv2.imwrite(str(p), frame)
    r = _cli(str(p), "--model", str(MODELS / "locator.onnx"))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["cards"][0]["card"] == "2D"
    r = _cli(str(p), "--model", str(tmp_path / "nothing.onnx"))
    assert r.returncode != 0 and "nothing.onnx" in r.stderr


def test_cli_threshold_is_the_confidence_a_reading_needs(tmp_path):
    frame, _ = make_table([("2D", 300, 250, 0), ("KS", 700, 300, 30), ("10C", 500, 650, -20)])
    p = tmp_path / "three.png"
    cv2.imwrite(str(p), frame)
    default, strict, loose = (_cli(str(p), "--all", *extra) for extra in ((), ("--threshold", "0.99999"),
                                                                           ("--threshold", "0.5")))
    for r in (default, strict, loose):
        assert r.returncode == 0, r.stderr
    read = {t: {c["card"]: c["confidence"] for c in json.loads(r.stdout)["cards"] if c["card"]}
            for t, r in (("default", default), ("strict", strict), ("loose", loose))}
    assert set(read["default"]) == {"2D", "KS", "10C"}
    assert set(read["strict"]) < set(read["default"]) <= set(read["loose"])  # one held back at least
    assert all(v >= 0.99999 for v in read["strict"].values())
    # what the strict run does not read, it reports located but unreadable (card null), not dropped
    assert len(json.loads(strict.stdout)["cards"]) == len(json.loads(default.stdout)["cards"])
    for bad in ("1.5", "0", "abc"):
        r = _cli(str(p), "--threshold", bad)
        assert r.returncode == 2 and "--threshold" in r.stderr and bad in r.stderr and not r.stdout


needs_torch = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None or importlib.util.find_spec("ultralytics") is None,
    reason="backend parity needs torch + ultralytics (training venv)")


@needs_torch
def test_backend_parity_onnx_vs_pytorch():
    # the same float weights on both runtimes (the 8-bit networks are ONNX Runtime's alone)
    rec = load_recognizer(precision="fp32")
    torch_rec = load_recognizer(backend="ultralytics")
    layout = [("8H", 250, 250, 10), ("10D", 800, 240, 95), ("7C", 300, 650, 200), ("QH", 620, 640, 60)]
    frame, _ = make_table(layout)
    raw_onnx, _ = rec.locator.raw(frame)
    raw_torch, _ = torch_rec.locator.raw(frame)
    assert np.abs(raw_onnx - raw_torch).max() < 1e-2 * max(1.0, np.abs(raw_onnx).max())
    # the zoomed-out look's small-input copy: the same weights at 96x128 on both
    assert rec.small_locator is not None and torch_rec.small_locator.imgsz == rec.small_locator.imgsz
    raw_onnx, _ = rec.small_locator.raw(frame)
    raw_torch, _ = torch_rec.small_locator.raw(frame)
    assert np.abs(raw_onnx - raw_torch).max() < 1e-2 * max(1.0, np.abs(raw_onnx).max())
    a, b = rec(frame), torch_rec(frame)
    assert a.codes == b.codes
    assert np.allclose(a.xyxy, b.xyxy, atol=1.0)
    assert np.allclose(a.confidence, b.confidence, atol=1e-3)
