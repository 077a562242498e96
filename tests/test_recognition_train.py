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
    r = subprocess.run([_train_python(), "-m", "sueca", "train", "--preset", "smoke", "--work", str(work),
                        "--install", str(tmp_path / "installed")], capture_output=True, text=True, env=env,
                       cwd=ROOT, timeout=170)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    inst = tmp_path / "installed"
    for name in ("locator.onnx", "outliner.onnx", "reader.onnx", "reader2.onnx", "recognizer.json", "metrics.json",
                 "confusion.png", "README.md"):
        assert (inst / name).is_file(), name
    metrics = json.loads((inst / "metrics.json").read_text())
    assert metrics["scenes"] == 4 and 0.0 <= metrics["recall_readable"] <= 1.0
    assert "smoke" in (inst / "README.md").read_text()
    from sueca.vision.recognizer import load_recognizer

    rec = load_recognizer(inst)
    assert rec.outliner is not None and rec.second is not None
    assert rec.config.second_reader["width"] == 8
    assert "reader_tuned" in json.loads((work / "reader_calibration.json").read_text())
    dets = rec(np.full((480, 640, 3), 90, np.uint8))
    assert len(dets.codes) == len(dets.xyxy)
