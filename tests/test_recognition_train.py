"""A tiny end-to-end training run (smoke preset: a dozen scenes, one epoch each): the recipe works.

Runs in the training venv (torch + ultralytics): this interpreter when it has
them, else ``.venv-train`` when it exists; otherwise it skips. Under a minute
on 2 cores.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


def _train_python() -> str | None:
    if importlib.util.find_spec("torch") and importlib.util.find_spec("ultralytics"):
        return sys.executable
    py = ROOT / ".venv-train" / "bin" / "python"
    return str(py) if py.is_file() else None


@pytest.mark.slow
@pytest.mark.skipif(_train_python() is None, reason="needs torch + ultralytics (.venv-train)")
def test_smoke_training_produces_a_loadable_model(tmp_path):
    work = tmp_path / "work"
    env = dict(os.environ, YOLO_OFFLINE="1")
    # --no-fetch: a test downloads nothing (the art is fetched by the real runs)
    r = subprocess.run([_train_python(), "-m", "sueca", "train", "--preset", "smoke", "--work", str(work),
                        "--install", str(tmp_path / "installed"), "--no-fetch"], capture_output=True, text=True, env=env,
                       cwd=ROOT, timeout=170)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    inst = tmp_path / "installed"
    for name in ("locator.onnx", "outliner.onnx", "reader.onnx", "reader2.onnx", "face_suit.onnx", "recognizer.json",
                 "metrics.json", "confusion.png", "README.md", "locator.int8.onnx", "outliner.int8.onnx",
                 "reader.int8.onnx", "reader2.int8.onnx", "face_suit.int8.onnx"):
        assert (inst / name).is_file(), name
    metrics = json.loads((inst / "metrics.json").read_text())
    assert metrics["scenes"] == 4 and 0.0 <= metrics["recall_readable"] <= 1.0
    assert "smoke" in (inst / "README.md").read_text()
    assert "vision/anchored.py" in (inst / "README.md").read_text() and "vision/shrunk.py" in (inst / "README.md").read_text()
    from sueca.vision.recognizer import load_recognizer

    rec = load_recognizer(inst)
    assert rec.outliner is not None and rec.second is not None and rec.face is not None
    assert rec.config.face_suit["learnt"]["groups"][:2] == ["train", "glyph"]
    assert rec.face.court_power == 0.25 and rec.face.rank and not rec.face.rank_check  # as installed
    assert rec.config.outliner.get("anchored") is True and rec.config.outliner.get("spreads")  # as installed
    assert rec.config.outliner.get("shrunk") == 0.93
    assert rec.config.second_reader["width"] == 8
    assert rec.config.int8["default"] and rec.reader.path.name == "reader.int8.onnx"
    assert "reader_tuned" in json.loads((work / "reader_calibration.json").read_text())
    assert set(rec.config.info["fetched"]) == {"letele", "textures", "printed_decks"}
    assert "fetch_s" not in json.loads((work / "timings.json").read_text())
    assert json.loads((work / "fetched.json").read_text()) == rec.config.info["fetched"]
    dets = rec(np.full((480, 640, 3), 90, np.uint8))
    assert len(dets.codes) == len(dets.xyxy)


@pytest.mark.slow
@pytest.mark.skipif(_train_python() is None, reason="needs torch + ultralytics (.venv-train)")
def test_real_deck_tuning_fine_tunes_both_readers(tmp_path):
    code = f"""
import json, os, shutil, sys
from pathlib import Path
sys.path.insert(0, {str(ROOT / "tests")!r})
from test_datasets_realdecks import stand_in_deck
from sueca.vision.train_real import tune_on_real_decks
m = Path({str(tmp_path)!r}) / "m"
shutil.copytree({str(ROOT / "models")!r}, m)
quiet = lambda *a: None
assert tune_on_real_decks(m, 2, 1, val_scenes=2, log=quiet) is None  # no real deck cached: nothing changes
stand_in_deck(Path(os.environ["SUECA_DECKS_DIR"]) / "kde_standard")
before = {{n: (m / n).read_bytes() for n in ("reader.onnx", "reader2.onnx", "recognizer.json")}}
out = tune_on_real_decks(m, 3, 1, val_scenes=3, log=quiet)["real_tuned"]
changed = {{n: (m / n).read_bytes() != b for n, b in before.items()}}
both = tune_on_real_decks(m, 2, 1, val_scenes=2, log=quiet, decks="glyph+real_train")["real_tuned"]
before = {{n: (m / n).read_bytes() for n in ("reader.onnx", "reader2.onnx")}}
alone = tune_on_real_decks(m, 2, 1, seed=1000, val_scenes=2, log=quiet, only="second")["real_tuned"]
changed_alone = {{n: (m / n).read_bytes() != b for n, b in before.items()}}
try:
    tune_on_real_decks(m, 2, 1, log=quiet, only="third")
    refused = False
except ValueError as e:
    refused = "third" in str(e)
print(json.dumps({{"out": out, "changed": changed, "both": both, "alone": alone, "changed_alone": changed_alone,
                  "refused": refused}}))
"""
    env = {**os.environ, "SUECA_DECKS_DIR": str(tmp_path / "decks")}
    res = subprocess.run([_train_python(), "-c", code], env=env, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    d = json.loads(res.stdout.strip().splitlines()[-1])
    assert d["changed"] == {"reader.onnx": True, "reader2.onnx": True, "recognizer.json": False}
    out = d["out"]
    assert out["decks"] == ["real_kde_standard"] and out["crops"][0] > 0
    assert out["temperature"] > 0 and out["second_temperature"] > 0
    both = d["both"]  # the glyph decks and the real ones, half and half with the training styles
    assert both["decks"][0] == "glyph000" and both["decks"][-1] == "real_kde_standard"
    assert both["crops"][0] > 0 and both["crops"][1] > 0
    # the second reader alone, from other scenes: the first stays as it was
    assert d["changed_alone"] == {"reader.onnx": False, "reader2.onnx": True}
    assert d["alone"]["only"] == "second" and "temperature" not in d["alone"] and d["alone"]["second_temperature"] > 0
    assert d["refused"]


@pytest.mark.skipif(_train_python() is None, reason="needs torch + ultralytics (.venv-train)")
def test_shape_jitter_changes_strokes_and_size_but_keeps_the_card_corner():
    code = r"""
import torch
from sueca.vision.train_reader import shape_jitter
x = torch.ones(64, 3, 48, 36)
x[:, :, 14:30, 10:13] = 0.0          # a 3 px dark stroke of an index
x[:, :, :8, :] = 0.3                 # the cloth above the card's top edge (row 8 of 48)
y = shape_jitter(x.clone(), torch.Generator().manual_seed(0), p=1.0)
assert y.shape == x.shape and float(y.min()) >= 0 and float(y.max()) <= 1
ink = (y[:, 0, 10:34, 5:20] < 0.5).float().sum((1, 2))
assert float(ink.max()) > 3 * 16 + 8 and float(ink.min()) < 3 * 16 - 8  # heavier and lighter strokes
# zoomed about the card's corner: the card's top edge stays on its row, whatever the scale
edge = (y[:, 0, :, 30] < 0.65).float().sum(1)
assert float((edge - 8).abs().max()) <= 2
same = shape_jitter(x.clone(), torch.Generator().manual_seed(0), p=0.0)
assert torch.equal(same, x)
print("ok")
"""
    res = subprocess.run([_train_python(), "-c", code], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0 and "ok" in res.stdout, res.stderr[-2000:]


@pytest.mark.skipif(_train_python() is None, reason="needs torch + ultralytics (.venv-train)")
def test_blur_jitter_smears_a_share_of_the_crops_and_keeps_their_light():
    code = r"""
import torch
from sueca.vision.train_reader import blur_jitter
x = torch.ones(200, 3, 48, 36)
x[:, :, 14:30, 16:19] = 0.0          # a 3 px dark stroke
y = blur_jitter(x.clone(), torch.Generator().manual_seed(0), p=0.5)
assert y.shape == x.shape and float(y.min()) >= 0 and float(y.max()) <= 1 + 1e-5
changed = (y - x).abs().flatten(1).amax(1) > 1e-4
assert 0.35 < float(changed.float().mean()) < 0.65
# a blurred stroke is wider and paler; the crop's light (its mean) stays
grey = (y[changed, 0] > 0.05) & (y[changed, 0] < 0.95)
assert int(grey.sum((1, 2)).min()) > 0
assert float((y.mean((1, 2, 3)) - x.mean((1, 2, 3))).abs().max()) < 0.02
assert torch.equal(blur_jitter(x.clone(), torch.Generator().manual_seed(0), p=0.0), x)
print("ok")
"""
    res = subprocess.run([_train_python(), "-c", code], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0 and "ok" in res.stdout, res.stderr[-2000:]


@pytest.mark.slow
@pytest.mark.skipif(_train_python() is None, reason="needs torch + ultralytics (.venv-train)")
def test_gpu_readers_run_and_their_install(tmp_path):
    """The GPU lease's script end to end on the CPU (--tiny), then its readers installed the way
    ``tune_real_decks.py --readers`` does: the ONNX files read exactly as the .pt files."""
    env = {**os.environ, "SUECA_DECKS_DIR": str(tmp_path / "decks")}
    out = tmp_path / "gpu"
    code = f"""
import os, sys
from pathlib import Path
sys.path.insert(0, {str(ROOT / "tests")!r})
from test_datasets_realdecks import stand_in_deck
stand_in_deck(Path(os.environ["SUECA_DECKS_DIR"]) / "kde_standard")
sys.argv = ["gpu_readers", "--out", {str(out)!r}, "--tiny"]
sys.path.insert(0, {str(ROOT / "scripts")!r})
import gpu_readers
raise SystemExit(gpu_readers.main())
"""
    res = subprocess.run([_train_python(), "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    summary = json.loads((out / "summary.json").read_text())
    assert sorted(summary["readers"]) == ["F16", "F24", "S16", "S24"]
    assert summary["crops"] > 0 and summary["val_crops"] > 0
    assert {k.split("/")[1] for k in summary["counts"]} == {"train", "glyph", "real_train"}
    check = f"""
import json, shutil
from pathlib import Path
import numpy as np, onnxruntime as ort
from sueca.vision.train_real import install_readers
from sueca.vision.train_reader import load_reader, predict
m = Path({str(tmp_path)!r}) / "m"
shutil.copytree({str(ROOT / "models")!r}, m)
cfg = (m / "recognizer.json").read_bytes()
info = install_readers(m, {str(out / "S16.pt")!r}, {str(out / "S24.pt")!r}, val_scenes=2, log=lambda *a: None)["real_tuned"]
x = np.random.default_rng(0).integers(0, 255, (5, 48, 36, 3), dtype=np.uint8)
for stem, src in (("reader", "S16"), ("reader2", "S24")):
    want = predict(load_reader({str(out)!r} + "/" + src + ".pt"), x)
    sess = ort.InferenceSession(str(m / (stem + ".onnx")))
    got = sess.run(None, {{"crops": x.transpose(0, 3, 1, 2).astype(np.float32) / 255}})[0]
    assert np.allclose(got, want, atol=1e-4), stem
assert (m / "recognizer.json").read_bytes() == cfg  # thresholds are the caller's to choose
print(json.dumps(info))
"""
    res = subprocess.run([_train_python(), "-c", check], env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    info = json.loads(res.stdout.strip().splitlines()[-1])
    assert info["temperature"] > 0 and info["second_temperature"] > 0
    assert info["installed_from"][0].endswith("S16.pt")


@pytest.mark.slow
@pytest.mark.skipif(_train_python() is None, reason="needs torch + ultralytics (.venv-train)")
def test_locator_round_on_printed_decks(tmp_path):
    code = f"""
import json, os, sys
from pathlib import Path
sys.path.insert(0, {str(ROOT / "tests")!r})
from test_datasets_realdecks import stand_in_deck
from sueca.vision.train_locator import printed_deck_round
work = Path({str(tmp_path)!r}) / "work"
start = Path({str(ROOT / "models" / "locator.pt")!r})
lines = []
skipped = printed_deck_round(work, start, 4, 4, 1, 0.002, log=lines.append)  # no printed deck cached
skip_record = json.loads((work / "locator_real.json").read_text())
stand_in_deck(Path(os.environ["SUECA_DECKS_DIR"]) / "kde_standard")
best = printed_deck_round(work, start, 4, 4, 1, 0.002, log=lines.append)
record = json.loads((work / "locator_real.json").read_text())
from sueca.vision.train_locator import model_with_locator
model = model_with_locator(start.parent, best, work / "model", work / "yolo_config")
print(json.dumps({{"skipped": str(skipped), "best": str(best), "lines": lines, "record": record,
                  "skip_record": skip_record, "model": str(model)}}))
"""
    env = {**os.environ, "SUECA_DECKS_DIR": str(tmp_path / "decks"), "YOLO_OFFLINE": "1"}
    res = subprocess.run([_train_python(), "-c", code], env=env, capture_output=True, text=True, timeout=600,
                         cwd=ROOT)
    assert res.returncode == 0, res.stderr[-3000:]
    d = json.loads(res.stdout.strip().splitlines()[-1])
    assert d["skipped"] == str(ROOT / "models" / "locator.pt")
    assert "skipped" in d["lines"][0] and "fetch-heldout-decks" in d["lines"][0]
    best = Path(d["best"])
    assert best.is_file() and best.suffix == ".pt" and str(tmp_path) in str(best)
    assert "4 scenes of 1 decks + 4 of the training styles" in d["lines"][1]
    assert "fetch-heldout-decks" in d["skip_record"]["skipped"]
    assert d["record"] == {"scenes": 4, "synth_scenes": 4, "epochs": 1, "lr0": 0.002, "decks": 1}
    # the new locator in a copy of the model folder, exported for ONNX Runtime; the rest as it was
    model = Path(d["model"])
    assert (model / "locator.onnx").stat().st_size > 1_000_000 and (model / "locator.pt").is_file()
    assert (model / "reader.onnx").read_bytes() == (ROOT / "models" / "reader.onnx").read_bytes()
    # the old locator's 8-bit files are gone and unnamed (ONNX Runtime would load them before
    # the new float ones); the other networks' 8-bit files and the rest of the config stay
    cfg, installed = (json.loads((p / "recognizer.json").read_text()) for p in (model, ROOT / "models"))
    assert not (model / "locator.int8.onnx").exists() and not (model / "locator_zoom.int8.onnx").exists()
    assert cfg["int8"]["files"] == {k: v for k, v in installed["int8"]["files"].items()
                                   if k not in ("locator", "locator_zoom")}
    assert (model / "reader.int8.onnx").read_bytes() == (ROOT / "models" / "reader.int8.onnx").read_bytes()
    assert {k: v for k, v in cfg.items() if k != "int8"} == {k: v for k, v in installed.items() if k != "int8"}
    from sueca.vision.recognizer import load_recognizer

    rec = load_recognizer(model)
    assert rec.locator.path == model / "locator.onnx" and rec.small_locator.path == model / "locator_zoom.onnx"
    # the zoomed-out look's small copy is made again from the new weights, at its own size
    import onnxruntime as ort

    zoom = model / "locator_zoom.onnx"
    assert zoom.read_bytes() != (ROOT / "models" / "locator_zoom.onnx").read_bytes()
    assert ort.InferenceSession(str(zoom)).get_inputs()[0].shape == [1, 3, 96, 128]
    assert ort.InferenceSession(str(model / "locator.onnx")).get_inputs()[0].shape == [1, 3, 256, 320]
    # the optimizer is named, so the lr0 asked is the one that runs ("auto" ignores lr0)
    import yaml

    run_args = yaml.safe_load((best.parent.parent / "args.yaml").read_text())
    assert run_args["optimizer"] == "AdamW" and run_args["lr0"] == 0.002 and run_args["warmup_epochs"] == 0


@pytest.mark.slow
@pytest.mark.skipif(_train_python() is None, reason="needs torch + ultralytics (.venv-train)")
def test_outliner_tuning_writes_a_copy_with_the_new_outliner(tmp_path):
    out = tmp_path / "outft"
    script = str(ROOT / "scripts" / "tune_outliner.py")
    refused = subprocess.run([_train_python(), script, "--out", str(out), "--groups", "real_heldout"],
                             capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert refused.returncode == 2 and "held-out" in refused.stderr
    res = subprocess.run([_train_python(), script, "--model", str(ROOT / "models"), "--out", str(out),
                          "--scenes", "2", "--epochs", "1", "--groups", "train", "--white", "1"],
                         capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-3000:]
    assert "validation corner error before" in res.stdout and "validation corner error after" in res.stdout
    model = out / "model"
    assert (model / "outliner.onnx").read_bytes() != (ROOT / "models" / "outliner.onnx").read_bytes()
    assert (model / "reader.onnx").read_bytes() == (ROOT / "models" / "reader.onnx").read_bytes()
    # the old 8-bit outliner is gone and unnamed; the other 8-bit networks stay
    cfg, installed = (json.loads((p / "recognizer.json").read_text()) for p in (model, ROOT / "models"))
    assert not (model / "outliner.int8.onnx").exists()
    assert cfg["int8"]["files"] == {k: v for k, v in installed["int8"]["files"].items() if k != "outliner"}
    tuned = cfg["info"].pop("outliner_tuned")
    assert tuned["groups"] == ["train"] and tuned["scenes"] == 2 and tuned["epochs"] == 1 and tuned["white"] == 1
    assert "train on white tops:" in res.stdout
    installed["info"].pop("outliner_tuned", None)
    assert {k: v for k, v in cfg.items() if k != "int8"} == {k: v for k, v in installed.items() if k != "int8"}
    from sueca.vision.recognizer import load_recognizer

    rec = load_recognizer(model)
    assert rec.outliner.net.path == model / "outliner.onnx"
    dets = rec(np.full((480, 640, 3), 90, np.uint8))
    assert len(dets.codes) == len(dets.xyxy)
