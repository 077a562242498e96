#!/usr/bin/env python3
"""Both readers from a GPU lease: many more crops, learnt from scratch and fine-tuned.

One prepared run for a lent GPU machine (16 cores, one GPU, minutes of time): the cores
render scenes and cut reader crops for ``--data-seconds`` (run-time crops through the
committed locator and outliner, and crops around the true outlines, of the training
styles, the glyph decks and the fetched real training decks, in the proportions below),
then the GPU trains, in this order, until ``--train-seconds`` are spent:

- ``F16``/``F24``: the committed readers fine-tuned on all of it (``--tune-epochs``);
- ``S16``/``S24``: readers of the same sizes learnt from scratch (``--epochs``).

Each reader's ``.pt`` (``export_reader``'s format) lands in ``--out`` as soon as it is done,
with ``summary.json`` (crops, times, validation crop accuracy on run-time crops of the
validation scenes). Nothing here chooses thresholds: ``scripts/tune_real_decks.py
--readers FIRST.pt SECOND.pt`` does that on this machine, as the recipe does.

    python3 scripts/gpu_readers.py --out $OUT              # on the GPU machine
    python3 scripts/gpu_readers.py --out /tmp/g --tiny     # a minute on the CPU: the plumbing

The GPU machine needs no install beyond its own numpy, OpenCV, ONNX Runtime, Pillow and
torch: the package is this checkout seen through a folder of links (``sueca/*`` plus
``engine``, ``vision``, ... as ``sueca.<part>``, on ``PYTHONPATH``), the four KDE themes come
as ``out/decks/kde_*`` and the typefaces the decks name (``datasets/styles.py``,
``datasets/pips.py``: 58 files, 8 MB as ``tar.xz``) are unpacked under
``/usr/local/share/fonts``, where ``styles._font_index`` looks. Without the typefaces the glyph
decks draw fewer suit signs; without the decks the run stops (``real_train`` names no cached deck).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path

import numpy as np

#: (kind, style group, first seed, scenes): seeds far from every other set of the recipe.
PLAN = (
    ("runtime", "train", 5_000_000, 1500),
    ("runtime", "glyph", 5_100_000, 1000),
    ("runtime", "real_train", 5_200_000, 1000),
    ("true", "train", 5_300_000, 2500),
    ("true", "glyph", 5_400_000, 1200),
    ("true", "real_train", 5_500_000, 1200),
)


def _chunk(args) -> tuple[str, np.ndarray, np.ndarray]:
    kind, group, seeds, model_dir = args
    import cv2

    cv2.setNumThreads(1)
    from sueca.datasets.styles import resolve_styles
    from sueca.vision.train_data import _recognizer_chunk, render, scene_crops

    names = [s.name for s in resolve_styles(group)]
    if kind == "runtime":
        x, y = _recognizer_chunk((seeds, names, model_dir))
        return group, x, y
    from sueca.vision.rectify import CropSpec

    rng = np.random.default_rng(seeds[0])
    out = [scene_crops(render(s, (1280, 960), names), CropSpec(), rng, jitters=2)[:2] for s in seeds]
    return group, np.concatenate([c for c, _ in out]), np.concatenate([y for _, y in out])


def build(plan, model_dir: str, seconds: float, workers: int, chunk: int, log) -> tuple[np.ndarray, np.ndarray, dict]:
    """Round-robin over the plan's jobs so that a deadline keeps their proportions."""
    queues = []
    for kind, group, seed0, n in plan:
        seeds = list(range(seed0, seed0 + n))
        queues.append([(kind, group, seeds[i:i + chunk], model_dir) for i in range(0, n, chunk)])
    order = [q[i] for i in range(max(map(len, queues))) for q in queues if i < len(q)]
    xs, ys, counts, t0 = [], [], {}, time.time()
    # spawned, not forked: a fork taken while the parent holds a library's lock (seen from a
    # test's imports) hangs its workers
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"))
    pending = {pool.submit(_chunk, a): a for a in order[:2 * workers]}
    nxt = len(pending)
    while pending:
        done, _ = wait(pending, return_when=FIRST_COMPLETED)
        for f in done:
            kind, group, seeds, _ = pending.pop(f)
            _, x, y = f.result()
            xs.append(x)
            ys.append(y)
            key = f"{kind}/{group}"
            counts[key] = [counts.get(key, [0, 0])[0] + len(seeds), counts.get(key, [0, 0])[1] + len(y)]
            if time.time() - t0 < seconds and nxt < len(order):
                pending[pool.submit(_chunk, order[nxt])] = order[nxt]
                nxt += 1
        if len(xs) % 20 == 0:
            log(f"data: {sum(map(len, ys))} crops, {time.time() - t0:.0f}s")
    pool.shutdown()
    log(f"data: {sum(map(len, ys))} crops in {time.time() - t0:.0f}s: {counts}")
    return np.concatenate(xs), np.concatenate(ys), counts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--model", default="models")
    ap.add_argument("--data-seconds", type=float, default=170)
    ap.add_argument("--train-seconds", type=float, default=250)
    ap.add_argument("--epochs", type=int, default=16)
    ap.add_argument("--tune-epochs", type=int, default=5)
    ap.add_argument("--shapes", type=float, default=0.25)
    ap.add_argument("--blur", type=float, default=0.0,
                    help="share of crops blurred past the generator's while learning (train_reader.blur_jitter; "
                         "0.3 for readers that hold up under blur: models/EXPERIMENTS.md, fifteenth session)")
    ap.add_argument("--batch", type=int, default=512)
    ap.add_argument("--val-scenes", type=int, default=150)
    ap.add_argument("--seed", type=int, default=0,
                    help="moves every scene seed by 10000 x SEED and seeds each reader apart (default 0: as installed)")
    ap.add_argument("--only", nargs="*", default=None, choices=["F16", "F24", "S16", "S24"],
                    help="the readers to learn (default: all four, in that order)")
    ap.add_argument("--tiny", action="store_true", help="a handful of scenes and one epoch, on whatever device")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    logf = open(args.out / "gpu_readers.log", "a")

    def log(msg: str) -> None:
        line = f"[{time.strftime('%H:%M:%S')}] {msg}"
        print(line, flush=True)
        logf.write(line + "\n")
        logf.flush()

    workers = max(1, (os.cpu_count() or 2) - 1)
    plan = [(k, g, s0 + 10_000 * args.seed, n) for k, g, s0, n in PLAN]
    plan = [(k, g, s0, 4) for k, g, s0, _ in plan] if args.tiny else plan
    chunk = 2 if args.tiny else 20
    x, y, counts = build(plan, args.model, args.data_seconds, workers, chunk, log)
    from sueca.vision.train_run import VAL_SEED0

    val_n = 4 if args.tiny else args.val_scenes
    vx, vy, _ = build([("runtime", "train", VAL_SEED0, val_n)], args.model, 1e9, workers, chunk, log)

    import torch

    from sueca.vision.train_reader import calibrate, export_reader, load_reader, train_reader

    dev = "cuda" if torch.cuda.is_available() else "cpu"
    log(f"device {dev} {torch.cuda.get_device_name(0) if dev == 'cuda' else ''}; torch {torch.__version__}")
    summary = {"seed": args.seed, "crops": int(len(y)), "counts": counts, "val_crops": int(len(vy)), "device": dev,
               "shapes": args.shapes, "blur": args.blur, "batch": args.batch, "readers": {}}
    model = Path(args.model)
    # (name, the committed reader it starts from or None, width, epochs, lr)
    jobs = [("F16", model / "reader.pt", 16, args.tune_epochs, 1e-3),
            ("F24", model / "reader2.pt", 24, args.tune_epochs, 1e-3),
            ("S16", None, 16, args.epochs, 4e-3), ("S24", None, 24, args.epochs, 4e-3)]
    jobs = [j for j in jobs if args.only is None or j[0] in args.only]
    t0, per_epoch = time.time(), {}
    for k, (name, init, width, epochs, lr) in enumerate(jobs):
        epochs = 1 if args.tiny else epochs
        guess = per_epoch.get(width, per_epoch.get(16, 0.0) * (1.2 if width == 24 else 1.0)) * epochs
        if time.time() - t0 + guess > args.train_seconds:
            log(f"{name}: skipped, about {guess:.0f}s left to do and the budget is spent")
            continue
        t1 = time.time()
        # seed 0 trains every reader from 11, as the installed pair was (same batches, same order)
        m = train_reader(x, y, epochs, batch=args.batch, lr=lr, seed=11 if args.seed == 0 else 100 * args.seed + k,
                         width=width, log=log, init=None if init is None else load_reader(init),
                         shapes=args.shapes, device=dev, blur=args.blur)
        per_epoch[width] = (time.time() - t1) / epochs
        temp, acc = calibrate(m, vx, vy)
        export_reader(m, x.shape[1:3], args.out / f"{name}.onnx", args.out / f"{name}.pt")
        (args.out / f"{name}.onnx").unlink()  # made again here, by this machine's exporter
        summary["readers"][name] = {"epochs": epochs, "lr": lr, "width": width, "s": round(time.time() - t1),
                                    "val_crop_accuracy": round(acc, 4), "temperature": round(temp, 3)}
        log(f"{name}: val crop accuracy {acc:.4f} T={temp:.3f} ({time.time() - t1:.0f}s)")
        (args.out / "summary.json").write_text(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
