#!/usr/bin/env python3
"""Fine-tune a model folder's locator on scenes of the printed training decks (runs in ``.venv-train``).

The locator learnt from the generator's decks only, and misses some printed cards
(a Bellot jack in plain view, frame after frame: ``models/EXPERIMENTS.md``,
2026-12-05). This renders ``--scenes`` scenes of the 21 printed training decks
(``real_train_all``, fetched first: ``sueca dataset fetch-heldout-decks``) and as many
of the training styles, 640x480 as the recipe's locator data, every 10th for
validation; continues training ``--model``'s ``locator.pt`` on them
(:func:`sueca.vision.train_locator.finetune_locator`); and writes a copy of
``--model`` with the new ``locator.pt`` / ``locator.onnx`` (everything else as it was:
thresholds are not chosen again) to ``--out``. The held-out printed decks are never drawn.

    .venv-train/bin/python scripts/tune_locator_real.py --model models --out /tmp/locft --scenes 500 --epochs 4
    .venv/bin/python scripts/real_decks_check.py --scenes 40 --model /tmp/locft/model
"""

from __future__ import annotations

import argparse
import shutil
import time
from pathlib import Path

#: First scene seeds: printed decks, then the training styles (no other step uses these).
SEED_REAL, SEED_SYNTH = 7_000_000, 7_100_000


def render_data(data: Path, scenes: int) -> Path:
    """The mixed YOLO-OBB dataset (printed decks + training styles); returns its data.yaml."""
    from sueca.datasets.build import build_dataset

    for name, seed, styles in (("real", SEED_REAL, "real_train_all"), ("synth", SEED_SYNTH, None)):
        build_dataset(data / name, scenes, seed=seed, size=(640, 480), progress=False, overwrite=True,
                      styles=styles)
    yaml = data / "data.yaml"
    yaml.write_text(f"path: {data.resolve()}\ntrain: [real/images/train, synth/images/train]\n"
                    "val: [real/images/val, synth/images/val]\nnames:\n  0: card\n")
    return yaml


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", type=Path, default=Path("models"))
    ap.add_argument("--out", type=Path, required=True, help="work folder; the new model goes to OUT/model")
    ap.add_argument("--scenes", type=int, default=500, help="scenes of the printed decks (and as many synthetic)")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--lr0", type=float, default=0.002)
    args = ap.parse_args(argv)
    if args.scenes < 10 or args.epochs < 1:
        ap.error("--scenes >= 10 (every 10th is validation) and --epochs >= 1 please")

    from sueca.vision.train_locator import export_locator, finetune_locator, setup_ultralytics, strip_checkpoint

    t0 = time.time()
    data = args.out / "data"
    yaml = data / "data.yaml"
    if not yaml.exists():
        render_data(data, args.scenes)
    print(f"data: {time.time() - t0:.0f} s", flush=True)
    setup_ultralytics(args.out / "yolo_config")
    t1 = time.time()
    best = finetune_locator(args.model / "locator.pt", yaml, args.out / "ft", args.epochs, 320, 16, seed=1,
                            lr0=args.lr0, close_mosaic=args.epochs)
    print(f"fine-tuning: {time.time() - t1:.0f} s -> {best}", flush=True)
    model = args.out / "model"
    if model.exists():
        shutil.rmtree(model)
    shutil.copytree(args.model, model, ignore=shutil.ignore_patterns("*.png", "*.md"))
    strip_checkpoint(best, model / "locator.pt")
    export_locator(model / "locator.pt", (256, 320), model / "locator.onnx", args.out / "yolo_config")
    print(f"{model} ({time.time() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
