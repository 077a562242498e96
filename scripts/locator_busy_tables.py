#!/usr/bin/env python3
"""Experiment: go on training the committed locator with more busy-tablecloth scenes.

The committed locator misses more cards on striped and checked cloths and on
marble than on wood or felt (``scripts/recognition_by_table.py``). This script
renders the recipe's locator training scenes again (seeds 0..N-1, all tables)
plus extra scenes on the weak tables only, continues training from
``models/locator.pt`` at a low learning rate, exports the result to ONNX and
puts it in a copy of the committed model folder, ``WORK/model``, so
that the by-table script and the recipe's evaluation can compare the two:

    .venv-train/bin/python scripts/locator_busy_tables.py --work out/loc_busy
    .venv/bin/python scripts/recognition_by_table.py --model out/loc_busy/model

Training venv only (ultralytics + torch). Nothing is installed in ``models/``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

BUSY = ("cloth_stripes", "cloth_check", "marble", "plain")
MODELS = Path(__file__).resolve().parent.parent / "models"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", default="out/loc_busy")
    ap.add_argument("--scenes", type=int, default=800, help="recipe training scenes, all tables (seeds 0..)")
    ap.add_argument("--busy", type=int, default=500, help="extra scenes on the weak tables only")
    ap.add_argument("--val", type=int, default=120)
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--lr0", type=float, default=0.002)
    ap.add_argument("--close-mosaic", type=int, default=4)
    args = ap.parse_args(argv)

    from sueca.vision.train_data import build, write_yaml
    from sueca.vision.train_locator import finetune_locator, model_with_locator
    from sueca.vision.train_run import VAL_SEED0

    work = Path(args.work).resolve()
    data = work / "data"
    times = {}
    t0 = time.time()
    if not (data / "data.yaml").is_file():
        build(data, range(0, args.scenes), "train", split="train", jitters=0)
        build(data, range(4_000_000, 4_000_000 + args.busy), "train", split="train", jitters=0,
              scene_options={"tables": BUSY})
        build(data, range(VAL_SEED0, VAL_SEED0 + args.val), "train", split="val", jitters=0)
        write_yaml(data)
    times["data_s"] = round(time.time() - t0, 1)
    t0 = time.time()
    best = finetune_locator(MODELS / "locator.pt", data / "data.yaml", work / "ft", args.epochs,
                            lr0=args.lr0, close_mosaic=args.close_mosaic)
    times["train_s"] = round(time.time() - t0, 1)
    model_with_locator(MODELS, best, work / "model", work / "yolo_config")
    (work / "experiment.json").write_text(json.dumps({**vars(args), "busy_tables": BUSY, **times}, indent=1))
    print(json.dumps(times))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
