#!/usr/bin/env python3
"""Go on training a model folder's outliner on more kinds of deck (runs in ``.venv-train``).

The recipe's outliner learnt from the training styles alone (``train_run``'s step 4). On the
held-out printed decks, a partly covered card whose box is read unreadable is most often one
whose outline is off (outline IoU with the truth under 0.8 for 40 of 52 such cards whose true
outline reads: ``models/EXPERIMENTS.md``, 2026-12-05 eleventh session). This renders
``--scenes`` scenes of each of ``--groups`` (default: the training styles, the glyph decks and
the 21 printed training decks, fetched first: ``sueca dataset fetch-heldout-decks``; never the
held-out decks), cuts each face-up card's views from ``--model``'s own locator boxes and from
simulated rough boxes (:func:`sueca.vision.train_outliner.build`), goes on training
``--model``'s ``outliner.pt`` on them for ``--epochs`` at ``--lr``, and writes a copy of
``--model`` with the new ``outliner.pt`` / ``outliner.onnx`` to ``OUT/model`` (its 8-bit
outliner removed and unnamed: run ``python -m sueca.vision.quantize OUT/model --only outliner``
next). The corner error on 100 validation scenes is printed before and after.

    .venv-train/bin/python scripts/tune_outliner.py --model models --out /tmp/outft --scenes 400 --epochs 4
    .venv/bin/python -m sueca.vision.quantize /tmp/outft/model --scenes 40 --only outliner
    .venv/bin/python scripts/real_decks_check.py --scenes 40 --model /tmp/outft/model
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

#: First scene seed of this tuning's scenes (no other recipe step draws from here).
OUTLINER_TUNE_SEED0 = 6_000_000
VAL_SEED0 = 500_000


def model_with_outliner(model_dir: Path, model, width: int, out: Path) -> Path:
    """A copy of ``model_dir`` at ``out`` whose outliner is ``model``; its old 8-bit outliner
    removed and unnamed (ONNX Runtime would load it before the new float one)."""
    from sueca.vision.quantize import forget_8bit
    from sueca.vision.train_outliner import export_outliner

    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(model_dir, out, ignore=shutil.ignore_patterns("*.png", "*.md"))
    o = json.loads((out / "recognizer.json").read_text())["outliner"]
    export_outliner(model, out / o["onnx"], out / o["pt"], width=width, size=int(o.get("size", 64)))
    forget_8bit(out, ("outliner",))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", type=Path, default=Path("models"))
    ap.add_argument("--out", type=Path, required=True, help="work folder; the new model goes to OUT/model")
    ap.add_argument("--groups", nargs="+", default=["train", "glyph", "real_train_all"],
                    help="style groups to draw scenes from (default: train glyph real_train_all)")
    ap.add_argument("--scenes", type=int, default=400, help="scenes per group (default 400)")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--seed", type=int, default=OUTLINER_TUNE_SEED0, help="first scene seed")
    ap.add_argument("--white", type=int, default=0, metavar="N",
                    help="also N scenes per group on white table tops (datasets.textures.BRIGHT_KINDS), "
                         "where a card's edge is a step of a few grey levels (default 0)")
    args = ap.parse_args(argv)
    if args.scenes < 1 or args.epochs < 1:
        ap.error("--scenes and --epochs must be at least 1")
    if "real_heldout" in args.groups:
        ap.error("the held-out printed decks are what the tuning is measured on, never drawn")

    import numpy as np
    import torch

    from sueca.vision.recognizer import RecognizerConfig
    from sueca.vision.torch_backend import TorchOutliner
    from sueca.vision.train_outliner import build, corner_error, predict, train_outliner

    cfg = RecognizerConfig.load(args.model)
    if not cfg.outliner:
        raise SystemExit(f"tune_outliner: {args.model} has no outliner")
    t0 = time.time()
    args.out.mkdir(parents=True, exist_ok=True)
    npz = args.out / "outline_tune.npz"
    if not npz.is_file():
        xs, ys = [], []
        for k, group in enumerate(args.groups):
            seeds = range(args.seed + 100_000 * k, args.seed + 100_000 * k + args.scenes)
            d = build(seeds, group, args.model)
            print(f"{group}: {len(d['targets'])} views ({time.time() - t0:.0f} s)", flush=True)
            xs.append(d["views"])
            ys.append(d["targets"])
            if args.white:
                from sueca.datasets.textures import BRIGHT_KINDS

                white = range(args.seed + 100_000 * k + 50_000, args.seed + 100_000 * k + 50_000 + args.white)
                d = build(white, group, args.model, options={"tables": BRIGHT_KINDS})
                print(f"{group} on white tops: {len(d['targets'])} views ({time.time() - t0:.0f} s)", flush=True)
                xs.append(d["views"])
                ys.append(d["targets"])
        va = build(range(VAL_SEED0, VAL_SEED0 + 100), "train", args.model)
        np.savez(npz, views=np.concatenate(xs), targets=np.concatenate(ys), val_views=va["views"],
                 val_targets=va["targets"])
    d = np.load(npz)
    start = TorchOutliner(args.model / cfg.outliner["pt"]).model

    def error(model) -> str:
        e = corner_error(predict(model, d["val_views"]), d["val_targets"])
        return f"median {np.median(e):.4f}, p90 {np.percentile(e, 90):.4f}"

    print(f"{len(d['targets'])} views; validation corner error before: {error(start)}", flush=True)
    model = train_outliner(d["views"], d["targets"], args.epochs, lr=args.lr, seed=1, init=start.train(),
                           log=lambda m: print(m, flush=True))
    print(f"validation corner error after: {error(model)}", flush=True)
    width = int(torch.load(str(args.model / cfg.outliner["pt"]), map_location="cpu", weights_only=True)["arch"]["width"])
    out = model_with_outliner(args.model, model, width, args.out / "model")
    cfg_path = out / "recognizer.json"
    full = json.loads(cfg_path.read_text())
    full.setdefault("info", {})["outliner_tuned"] = {
        "groups": args.groups, "scenes": args.scenes, "white": args.white, "epochs": args.epochs, "lr": args.lr,
        "seed": args.seed,
        "views": int(len(d["targets"])), "s": round(time.time() - t0),
        "command": "scripts/tune_outliner.py " + " ".join(argv if argv is not None else sys.argv[1:])}
    cfg_path.write_text(json.dumps(full, indent=1))
    print(f"{out} ({time.time() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
