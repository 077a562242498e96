"""The whole recipe behind ``models/``: data -> locator -> reader -> export -> evaluation -> model card.

Runs in the training venv (torch + ultralytics). Each step writes under
``work`` and is skipped when its output exists, so an interrupted run resumes.

>>> PRESETS["quick"].train_scenes < PRESETS["default"].train_scenes
True
"""

from __future__ import annotations

import json
import platform
import shutil
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from sueca.datasets.styles import TEST_STYLES, TRAIN_STYLES
from sueca.vision.rectify import CropSpec
from sueca.vision.recognizer import READER_CLASSES, RecognizerConfig, load_recognizer

VAL_SEED0 = 500_000
TEST_SEED0 = 900_000
TILT_SEED0 = 950_000


@dataclass(frozen=True)
class Preset:
    name: str
    train_scenes: int
    val_scenes: int
    test_scenes: int
    locator_epochs: int
    reader_epochs: int
    jitters: int = 2
    reader_extra_scenes: int = 0  # scenes used only for reader crops (cheap: no locator images)
    # then continue from the last weights at a lower learning rate, one round per entry:
    # (epochs, lr0, epochs without mosaic at the end)
    locator_finetune: tuple[tuple[int, float, int], ...] = ()
    imgsz: int = 320
    batch: int = 16
    seed: int = 0
    val_frames: int = 400  # validation scenes read whole to choose the card threshold


PRESETS = {
    # a few minutes: checks the recipe end to end (weights not useful)
    "smoke": Preset("smoke", 12, 4, 4, 1, 1, jitters=1, reader_extra_scenes=4, batch=4, val_frames=4),
    # what fits beside other jobs on 2 shared cores in well under an hour
    "quick": Preset("quick", 800, 120, 200, 16, 12, reader_extra_scenes=700,
                    locator_finetune=((10, 0.004, 3), (12, 0.004, 3), (12, 0.004, 3), (1, 0.003, 6), (14, 0.002, 4))),
    # <= 75 min on the 2-core machine alone
    "default": Preset("default", 1200, 150, 300, 14, 10, reader_extra_scenes=600, val_frames=300),
    # for a GPU or a long night
    "long": Preset("long", 6000, 400, 600, 80, 20, jitters=3, reader_extra_scenes=4000, batch=32),
}


def _log_to(path: Path):
    def log(msg: str) -> None:
        line = f"[{time.strftime('%H:%M:%S')}] {msg}"
        print(line, flush=True)
        with open(path, "a") as f:
            f.write(line + "\n")
    return log


def run(preset: Preset, work: str | Path, install: str | Path | None = None, threads: int | None = None,
        log=None, until: str | None = None) -> dict | None:
    """Train both models from nothing into ``work/model``; copy to ``install`` (e.g. ``models/``)."""
    import torch

    work = Path(work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    log = log or _log_to(work / "train.log")
    if threads:
        torch.set_num_threads(threads)
    model_dir = work / "model"
    model_dir.mkdir(exist_ok=True)
    tfile = work / "timings.json"
    # steps skipped on a resumed run keep the time they took when they ran
    timings: dict[str, float] = json.loads(tfile.read_text()) if tfile.is_file() else {}
    spec = CropSpec()
    log(f"preset {preset}")

    # 1. data
    t0 = time.time()
    data = work / "data"
    reader_npz = data / "reader.npz"
    if not reader_npz.is_file():
        from sueca.vision.train_data import build, write_yaml

        n = preset.train_scenes
        tr = build(data, range(preset.seed, preset.seed + n), "train", split="train",
                   spec=spec, jitters=preset.jitters, log=log)
        if preset.reader_extra_scenes:
            ex = build(data, range(preset.seed + n, preset.seed + n + preset.reader_extra_scenes), "train",
                       split="train", spec=spec, jitters=preset.jitters, log=log, write_locator=False)
            tr = {"crops": np.concatenate([tr["crops"], ex["crops"]]),
                  "labels": np.concatenate([tr["labels"], ex["labels"]])}
        va = build(data, range(VAL_SEED0, VAL_SEED0 + preset.val_scenes), "train", split="val", spec=spec,
                   jitters=1, log=log)
        write_yaml(data)
        g = va["groups"]
        np.savez_compressed(reader_npz, crops=tr["crops"], labels=tr["labels"], val_crops=va["crops"],
                            val_labels=va["labels"], val_group_idx=np.array([i[:2] for i, _, _ in g], np.int64).reshape(-1, 2),
                            val_group_y=np.array([y for _, y, _ in g], np.int64),
                            val_group_truth=np.array([t for _, _, t in g], np.int64))
        timings["data_s"] = time.time() - t0
        tfile.write_text(json.dumps(timings))
    log(f"data ready ({timings.get('data_s', 0):.0f}s)")

    # 2. reader (fast) first, so a usable reader exists early
    t0 = time.time()
    cfg_extra = work / "reader_calibration.json"
    if not (model_dir / "reader.onnx").is_file() or not cfg_extra.is_file():
        from sueca.vision.train_reader import (choose_threshold, export_reader, fit_temperature, predict,
                                               train_reader)
        from sueca.vision.recognizer import softmax

        d = np.load(reader_npz)
        log(f"reader: {len(d['labels'])} train crops ({int(np.sum(d['labels'] == 52))} unreadable), "
            f"{len(d['val_labels'])} val crops")
        model = train_reader(d["crops"], d["labels"], preset.reader_epochs, seed=preset.seed, log=log)
        logits = predict(model, d["val_crops"])
        temp = fit_temperature(logits, d["val_labels"])
        probs = softmax(logits, temp)
        acc = float(np.mean(probs.argmax(1) == d["val_labels"]))
        groups = [probs[i] for i in d["val_group_idx"]]
        thr, at = choose_threshold(groups, d["val_group_y"], d["val_group_truth"])
        export_reader(model, spec.size, model_dir / "reader.onnx", model_dir / "reader.pt", channels=spec.channels)
        cfg_extra.write_text(json.dumps({"temperature": temp, "threshold": thr, "val_crop_accuracy": acc,
                                         "val_cards": at}, indent=2))
        log(f"reader: val crop accuracy {acc:.4f}, T={temp:.3f}, threshold {thr:.3f} -> {at}")
        timings["reader_s"] = time.time() - t0
        tfile.write_text(json.dumps(timings))

    if until == "reader":
        return None

    # 3. locator
    t0 = time.time()
    if not (model_dir / "locator.onnx").is_file():
        from sueca.vision.train_locator import export_locator, strip_checkpoint, train_locator

        best = train_locator(data / "data.yaml", work, preset.locator_epochs, preset.imgsz, preset.batch,
                             workers=2, seed=preset.seed)
        for k, (epochs, lr0, close_mosaic) in enumerate(preset.locator_finetune):
            from sueca.vision.train_locator import finetune_locator

            best = finetune_locator(best.parent / "last.pt", data / "data.yaml", work / f"ft{k + 1}",
                                    epochs, preset.imgsz, preset.batch, seed=k + 1, lr0=lr0,
                                    close_mosaic=close_mosaic)
        strip_checkpoint(best, model_dir / "locator.pt")
        export_locator(model_dir / "locator.pt", (256, 320), model_dir / "locator.onnx", work / "yolo_config")
        timings["locator_s"] = time.time() - t0
        tfile.write_text(json.dumps(timings))
    log(f"locator ready ({timings.get('locator_s', 0):.0f}s)")

    # 4. config; the card threshold is chosen on whole frames of validation scenes
    cal = json.loads(cfg_extra.read_text())
    cfg = RecognizerConfig(crop=spec, reader_classes=READER_CLASSES, temperature=cal["temperature"],
                           threshold=cal["threshold"], imgsz=(256, 320))
    if "pipeline_threshold" not in cal:
        from sueca.vision.train_eval import choose_card_threshold, readings

        (model_dir / "recognizer.json").write_text(json.dumps(cfg.to_dict(), indent=1))
        rows, readable = readings(load_recognizer(model_dir, "onnx"),
                                  range(VAL_SEED0, VAL_SEED0 + preset.val_frames), "train")
        thr, table = choose_card_threshold(rows, readable)
        cal.update(pipeline_threshold=thr, pipeline_val={"scenes": preset.val_frames, "table": table})
        cfg_extra.write_text(json.dumps(cal, indent=2))
        log(f"threshold {thr} from {preset.val_frames} validation scenes: {table}")
    if "video_threshold" not in cal:
        from sueca.vision.train_eval import choose_video_threshold

        cal["video_threshold"] = choose_video_threshold(cal["pipeline_val"]["table"])
        cfg_extra.write_text(json.dumps(cal, indent=2))
    cfg = replace(cfg, threshold=cal["pipeline_threshold"], video_threshold=cal["video_threshold"])
    info = {"preset": asdict(preset), "train_styles": list(TRAIN_STYLES), "test_styles": list(TEST_STYLES),
            "reader_val": cal, "hardware": f"{platform.processor() or platform.machine()}, "
                                          f"{torch.get_num_threads()} torch threads"}
    cfg = replace(cfg, info=info)
    (model_dir / "recognizer.json").write_text(json.dumps(cfg.to_dict(), indent=1))

    # 5. evaluation on held-out styles and seeds, with the ONNX runtime
    t0 = time.time()
    from sueca.vision.train_eval import evaluate, plot_confusion

    rec = load_recognizer(model_dir, "onnx")
    seeds = range(TEST_SEED0, TEST_SEED0 + preset.test_scenes)
    metrics, conf = evaluate(rec, seeds, "test", log=log)
    val_metrics, _ = evaluate(rec, range(VAL_SEED0, VAL_SEED0 + min(preset.val_scenes, 100)), "train", log=log)
    # steeper cameras than the training scenes (up to 30 degrees): the 45-degree views of the brief
    tilt_metrics, _ = evaluate(rec, range(TILT_SEED0, TILT_SEED0 + max(preset.test_scenes // 2, 2)), "test",
                               log=log, max_tilt=45.0)
    metrics["tilt45"] = {k: v for k, v in tilt_metrics.items() if k != "wrong_examples"}
    timings["eval_s"] = time.time() - t0
    metrics["train_styles_val"] = {k: v for k, v in val_metrics.items() if k != "wrong_examples"}
    plot_confusion(conf, model_dir / "confusion.png",
                   f"held-out styles {', '.join(TEST_STYLES)}, seeds {seeds[0]}..{seeds[-1]}")
    np.save(work / "confusion.npy", conf)
    timings["total_s"] = sum(v for k, v in timings.items() if k.endswith("_s"))
    metrics["timings"] = timings
    (model_dir / "metrics.json").write_text(json.dumps(metrics, indent=1))
    log(f"test metrics: {json.dumps({k: v for k, v in metrics.items() if k != 'wrong_examples'})}")

    from sueca.vision.train_card import write_model_card

    write_model_card(model_dir, preset, metrics, cfg)
    if install:
        install = Path(install)
        install.mkdir(parents=True, exist_ok=True)
        for name in ("locator.onnx", "locator.pt", "reader.onnx", "reader.pt", "recognizer.json", "metrics.json",
                     "confusion.png", "README.md"):
            shutil.copyfile(model_dir / name, install / name)
        log(f"installed into {install}")
    return metrics
