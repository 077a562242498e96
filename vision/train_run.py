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
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np

from sueca.datasets.styles import TEST_STYLES, TRAIN_STYLES
from sueca.vision.rectify import CropSpec
from sueca.vision.recognizer import RecognizerConfig, load_recognizer
# the presets, seeds and run-time settings are also asked of this module by scripts and tests
from sueca.vision.train_presets import (BALANCE, CLOSEUP, OUTLINER, PRESETS, REAL_SEED0, TEST_SEED0,  # noqa: F401
                                        TILE_LEAN, TILT_SEED0, VAL_SEED0, ZOOM_NET, Preset, runtime_config)

__all__ = ["BALANCE", "CLOSEUP", "OUTLINER", "PRESETS", "REAL_SEED0", "TEST_SEED0", "TILE_LEAN", "TILT_SEED0",
           "VAL_SEED0", "ZOOM_NET", "Preset", "run"]

def _log_to(path: Path):
    def log(msg: str) -> None:
        line = f"[{time.strftime('%H:%M:%S')}] {msg}"
        print(line, flush=True)
        with open(path, "a") as f:
            f.write(line + "\n")
    return log


def run(preset: Preset, work: str | Path, install: str | Path | None = None, threads: int | None = None,
        log=None, until: str | None = None, fetch: bool = True) -> dict | None:
    """Train the models from nothing into ``work/model``; copy to ``install`` (e.g. ``models/``).

    ``until``: ``"reader"`` stops after the first reader, ``"reader_tuned"`` after its tuning
    on run-time crops (how the second reader's own run ends). ``fetch``: first fetch the
    third-party art the generator may draw (``sueca.datasets.fetch``); False uses what is cached."""
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

    # 0. the art fetched at build time: a style whose art is missing is not drawn at all
    from sueca.datasets.fetch import fetch_all, fetched

    if fetch and "fetch_s" not in timings:
        t0 = time.time()
        fetch_all(log)
        timings["fetch_s"] = time.time() - t0
        tfile.write_text(json.dumps(timings))
    had = work / "fetched.json"  # what the data was made with (a resumed run keeps the first)
    if not had.is_file():
        had.write_text(json.dumps(fetched()))

    # 1. data
    t0 = time.time()
    data = work / "data"
    reader_npz = data / "reader.npz"
    cfg_extra = work / "reader_calibration.json"
    # the data feeds the reader, the locator and the reader's tuning: not needed once all are done
    done = cfg_extra.is_file() and "reader_tuned" in json.loads(cfg_extra.read_text()) and \
        (model_dir / "locator.onnx").is_file()
    if not reader_npz.is_file() and not done:
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
    if not (model_dir / "reader.onnx").is_file() or not cfg_extra.is_file():
        from sueca.vision.train_reader import (choose_threshold, export_reader, fit_temperature, predict,
                                               train_reader)
        from sueca.vision.recognizer import softmax

        d = np.load(reader_npz)
        log(f"reader: {len(d['labels'])} train crops ({int(np.sum(d['labels'] == 52))} unreadable), "
            f"{len(d['val_labels'])} val crops")
        model = train_reader(d["crops"], d["labels"], preset.reader_epochs, seed=preset.seed, log=log,
                             width=preset.reader_width)
        logits = predict(model, d["val_crops"])
        temp = fit_temperature(logits, d["val_labels"])
        probs = softmax(logits, temp)
        acc = float(np.mean(probs.argmax(1) == d["val_labels"]))
        groups = [probs[i] for i in d["val_group_idx"]]
        thr, at = choose_threshold(groups, d["val_group_y"], d["val_group_truth"])
        export_reader(model, spec.size, model_dir / "reader.onnx", model_dir / "reader.pt")
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
        if preset.locator_real:
            from sueca.vision.train_locator import printed_deck_round

            best = printed_deck_round(work, best, *preset.locator_real, preset.imgsz, preset.batch, log)
        strip_checkpoint(best, model_dir / "locator.pt")
        export_locator(model_dir / "locator.pt", (256, 320), model_dir / "locator.onnx", work / "yolo_config")
        timings["locator_s"] = time.time() - t0
        tfile.write_text(json.dumps(timings))
    if not (model_dir / ZOOM_NET["onnx"]).is_file():  # the same weights at a small input
        from sueca.vision.train_locator import export_locator

        export_locator(model_dir / "locator.pt", ZOOM_NET["imgsz"], model_dir / ZOOM_NET["onnx"], work / "yolo_config")
    log(f"locator ready ({timings.get('locator_s', 0):.0f}s)")

    # 4. outliner: rough boxes (the new locator's own, and simulated) -> card outlines
    t0 = time.time()
    outliner_cfg = None
    if preset.outliner_scenes:
        outliner_cfg = dict(OUTLINER)
        if not (model_dir / "outliner.onnx").is_file():
            _train_outliner(preset, work, model_dir, log)
            timings["outliner_s"] = time.time() - t0
            tfile.write_text(json.dumps(timings))
        log(f"outliner ready ({timings.get('outliner_s', 0):.0f}s)")

    # 5. the reader on crops cut as at run time
    cal = json.loads(cfg_extra.read_text())
    cfg = runtime_config(spec, cal, outliner_cfg, preset)
    stages = {"outliner": outliner_cfg, "conf": preset.locate_conf, "iou": preset.locate_iou,
              "reader_tune": [preset.reader_tune_scenes, preset.reader_tune_epochs]}
    if (work / "locator_real.json").is_file():  # what the locator's printed-deck round did
        stages["locator_real"] = json.loads((work / "locator_real.json").read_text())
    if outliner_cfg and preset.reader_tune_scenes and "reader_tuned" not in cal:
        t0 = time.time()
        (model_dir / "recognizer.json").write_text(json.dumps(cfg.to_dict(), indent=1))
        cal.update(_tune_reader(preset, work, model_dir, reader_npz, log))
        cfg = replace(cfg, temperature=cal["temperature"])
        cfg_extra.write_text(json.dumps(cal, indent=2))
        timings["reader_tune_s"] = time.time() - t0
        tfile.write_text(json.dumps(timings))
    if until == "reader_tuned":
        return None

    # 5b. the second reader, trained apart, must read the same card (recognizer.combine_readers)
    if preset.second_reader:
        cfg = replace(cfg, second_reader=_second_reader(preset, work, model_dir, threads, log))
        stages["second_reader"] = cfg.second_reader
        sub_t = json.loads((work / "second" / "timings.json").read_text())
        timings["second_reader_s"] = sum(sub_t.get(k, 0.0) for k in ("data_s", "reader_s", "reader_tune_s"))
        tfile.write_text(json.dumps(timings))

    # 5c. both readers on other artists' decks, where fetched (two real decks stay held out)
    if preset.real_tune_scenes and "real_tuned" not in cal:
        from sueca.vision.train_real import tune_on_real_decks

        t0 = time.time()
        (model_dir / "recognizer.json").write_text(json.dumps(cfg.to_dict(), indent=1))
        done = tune_on_real_decks(model_dir, preset.real_tune_scenes, preset.reader_tune_epochs, preset.seed,
                                  min(preset.val_scenes, 100), log, decks=preset.real_tune_decks,
                                  shapes=preset.real_tune_shapes)
        cal.update(done or {"real_tuned": None})
        cfg_extra.write_text(json.dumps(cal, indent=2))
        timings["real_tune_s"] = time.time() - t0
        tfile.write_text(json.dumps(timings))
    if cal.get("real_tuned"):
        rt = cal["real_tuned"]
        cfg = replace(cfg, temperature=rt["temperature"])
        if cfg.second_reader and "second_temperature" in rt:
            cfg = replace(cfg, second_reader={**cfg.second_reader, "temperature": rt["second_temperature"]})
        stages["real_tune"] = [rt["scenes"], rt["epochs"], rt["decks"]] + (
            [rt["shape_jitter"]] if rt.get("shape_jitter") else [])

    # 5d. the card's face: its suit and rank group weigh the readers; a reading it contradicts is withdrawn
    if preset.face_suit and "face_suit" not in cal:
        from sueca.vision.train_face import train_face_suit

        t0 = time.time()
        (model_dir / "recognizer.json").write_text(json.dumps(cfg.to_dict(), indent=1))
        scenes, epochs = preset.face_suit
        cal["face_suit"] = train_face_suit(model_dir, scenes, epochs, preset.seed, min(preset.val_scenes, 100),
                                           log=log)
        cfg_extra.write_text(json.dumps(cal, indent=2))
        timings["face_suit_s"] = time.time() - t0
        tfile.write_text(json.dumps(timings))
    if cal.get("face_suit"):
        cfg = replace(cfg, face_suit=cal["face_suit"])
        stages["face_suit"] = list(preset.face_suit)

    # 5e. 8-bit copies of the networks, for speed (the readings barely move: models/EXPERIMENTS.md)
    if preset.int8_scenes and "int8" not in cal:
        from sueca.vision.quantize import quantize_models

        t0 = time.time()
        (model_dir / "recognizer.json").write_text(json.dumps(cfg.to_dict(), indent=1))
        cal["int8"] = quantize_models(model_dir, preset.int8_scenes, log)
        cfg_extra.write_text(json.dumps(cal, indent=2))
        timings["int8_s"] = time.time() - t0
        tfile.write_text(json.dumps(timings))
    if cal.get("int8"):
        cfg = replace(cfg, int8=cal["int8"])
        stages["int8"] = preset.int8_scenes

    # 6. config; the card threshold is chosen on whole frames of validation scenes
    if cal.get("stages") != stages:  # thresholds chosen with other stages do not hold
        for key in ("pipeline_threshold", "pipeline_val", "video_threshold"):
            cal.pop(key, None)
        cal["stages"] = stages
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
            "fetched": json.loads(had.read_text()),
            "reader_val": cal, "hardware": f"{platform.processor() or platform.machine()}, "
                                          f"{torch.get_num_threads()} torch threads"}
    cfg = replace(cfg, info=info)
    (model_dir / "recognizer.json").write_text(json.dumps(cfg.to_dict(), indent=1))

    # 7. evaluation on held-out styles and seeds, with the ONNX runtime
    t0 = time.time()
    from sueca.vision.train_eval import model_metrics

    metrics = model_metrics(model_dir, preset.test_scenes, min(preset.val_scenes, 100), work, log)
    timings["eval_s"] = time.time() - t0
    timings["total_s"] = sum(v for k, v in timings.items() if k.endswith("_s"))
    metrics["timings"] = timings
    (model_dir / "metrics.json").write_text(json.dumps(metrics, indent=1))
    log(f"test metrics: {json.dumps({k: v for k, v in metrics.items() if k != 'wrong_examples'})}")

    from sueca.vision.train_card import write_model_card

    write_model_card(model_dir, preset, metrics, cfg)
    if install:
        _install(model_dir, Path(install), cfg, log)
    return metrics


#: First scene seed of the outliner's data: scenes neither model has trained on,
#: so the locator's boxes there are as wrong as on new tables.
OUTLINER_SEED0 = 2_000_000


def _second_reader(preset: Preset, work: Path, model_dir: Path, threads, log) -> dict:
    """Train the second reader in ``work/second`` (its own data, width and run-time tuning,
    this run's locator and outliner) and copy it into ``model_dir`` as ``reader2.*``."""
    width, extra = preset.second_reader
    sub = work / "second"
    if not (model_dir / "reader2.onnx").is_file():
        (sub / "model").mkdir(parents=True, exist_ok=True)
        for name in ("locator.onnx", "locator.pt", "outliner.onnx", "outliner.pt"):
            if (model_dir / name).is_file():
                shutil.copyfile(model_dir / name, sub / "model" / name)
        log(f"second reader: width {width}, {extra} extra scenes, in {sub}")
        run(replace(preset, reader_width=width, reader_extra_scenes=extra, second_reader=None), sub,
            threads=threads, log=log, until="reader_tuned", fetch=False)
        shutil.copyfile(sub / "model" / "reader.onnx", model_dir / "reader2.onnx")
        shutil.copyfile(sub / "model" / "reader.pt", model_dir / "reader2.pt")
    cal = json.loads((sub / "reader_calibration.json").read_text())
    return {"onnx": "reader2.onnx", "pt": "reader2.pt", "temperature": cal["temperature"], "width": width,
            "extra_scenes": extra, "val_crop_accuracy": cal["val_crop_accuracy"],
            "runtime_val_crop_accuracy": cal.get("reader_tuned", {}).get("runtime_val_crop_accuracy")}


def _train_outliner(preset: Preset, work: Path, model_dir: Path, log) -> None:
    from sueca.vision.train_outliner import (build, corner_error, export_outliner, predict,
                                             train_outliner)

    npz = work / "data" / "outline.npz"
    if not npz.is_file():
        # the locator's boxes come from the ONNX model just exported (its config is written below)
        tmp_cfg = RecognizerConfig(imgsz=(256, 320))
        (model_dir / "recognizer.json").write_text(json.dumps(tmp_cfg.to_dict(), indent=1))
        seed0 = OUTLINER_SEED0 + preset.seed
        tr = build(range(seed0, seed0 + preset.outliner_scenes), "train", model_dir, log=log)
        va = build(range(VAL_SEED0, VAL_SEED0 + min(preset.val_scenes, 100)), "train", model_dir, log=log)
        np.savez(npz, views=tr["views"], targets=tr["targets"], val_views=va["views"], val_targets=va["targets"])
    d = np.load(npz)
    log(f"outliner: {len(d['targets'])} train views, {len(d['val_targets'])} val views")
    model = train_outliner(d["views"], d["targets"], preset.outliner_epochs, seed=preset.seed, log=log)
    err = corner_error(predict(model, d["val_views"]), d["val_targets"])
    log(f"outliner: val corner error (view units) median {np.median(err):.4f}, p90 {np.percentile(err, 90):.4f}")
    export_outliner(model, model_dir / "outliner.onnx", model_dir / "outliner.pt")


#: First scene seed of the reader's run-time crops (new scenes again).
READER_TUNE_SEED0 = 3_000_000


def _tune_reader(preset: Preset, work: Path, model_dir: Path, reader_npz: Path, log) -> dict:
    """Go on training the reader on crops cut by the locator and the outliner, half and half
    with its first crops (so it does not forget the rare cases); recalibrate its temperature."""
    from sueca.vision.train_data import build_recognizer_crops
    from sueca.vision.train_reader import calibrate, export_reader, load_reader, train_reader

    npz = work / "data" / "reader_runtime.npz"
    if not npz.is_file():
        seed0 = READER_TUNE_SEED0 + preset.seed
        x, y = build_recognizer_crops(range(seed0, seed0 + preset.reader_tune_scenes), "train", model_dir, log=log)
        vx, vy = build_recognizer_crops(range(VAL_SEED0, VAL_SEED0 + min(preset.val_scenes, 100)), "train",
                                        model_dir, log=log)
        np.savez(npz, crops=x, labels=y, val_crops=vx, val_labels=vy)
    d = np.load(npz)
    if len(d["labels"]) == 0 or len(d["val_labels"]) == 0:  # a locator that finds nothing (smoke runs)
        log("reader tuning: no card located, the reader stays as it is")
        return {"reader_tuned": {"scenes": preset.reader_tune_scenes, "epochs": 0, "crops": 0}}
    old = np.load(reader_npz)
    rng = np.random.default_rng(preset.seed)
    keep = rng.choice(len(old["labels"]), size=min(len(old["labels"]), len(d["labels"])), replace=False)
    crops = np.concatenate([d["crops"], old["crops"][keep]])
    labels = np.concatenate([d["labels"], old["labels"][keep]])
    log(f"reader tuning: {len(d['labels'])} run-time crops ({int(np.sum(d['labels'] == 52))} unreadable) "
        f"+ {len(keep)} first crops")
    model = train_reader(crops, labels, preset.reader_tune_epochs, lr=1e-3, seed=preset.seed + 1, log=log,
                         init=load_reader(model_dir / "reader.pt"))
    temp, acc = calibrate(model, d["val_crops"], d["val_labels"])
    export_reader(model, CropSpec().size, model_dir / "reader.onnx", model_dir / "reader.pt")
    log(f"reader tuning: run-time val crop accuracy {acc:.4f}, T={temp:.3f}")
    return {"temperature": temp, "reader_tuned": {"scenes": preset.reader_tune_scenes,
                                                  "epochs": preset.reader_tune_epochs,
                                                  "runtime_val_crop_accuracy": acc}}


def _install(model_dir: Path, install: Path, cfg: RecognizerConfig, log) -> None:
    """Copy the run's model files named by ``cfg`` into ``install`` (e.g. ``models/``)."""
    install.mkdir(parents=True, exist_ok=True)
    names = ["locator.onnx", "locator.pt", "reader.onnx", "reader.pt", "recognizer.json", "metrics.json",
             "confusion.png", "README.md"]
    for part in (cfg.second_reader, cfg.outliner, cfg.face_suit):
        if part:
            names += [part["onnx"], part["pt"]]
    if cfg.int8:
        names += list(cfg.int8["files"].values())
    for name in names:
        shutil.copyfile(model_dir / name, install / name)
    log(f"installed into {install}")
