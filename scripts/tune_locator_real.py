#!/usr/bin/env python3
"""Fine-tune a model folder's locator on scenes of the printed training decks (runs in ``.venv-train``).

The locator learnt from the generator's decks only, and misses some printed cards
(a Bellot jack in plain view, frame after frame: ``models/EXPERIMENTS.md``,
2026-12-05). This renders ``--scenes`` scenes of the 21 printed training decks
(``real_train_all``, fetched first: ``sueca dataset fetch-heldout-decks``) and as many
of the training styles (or ``--synth-scenes``), 640x480 as the recipe's locator data,
every 10th for validation (:func:`sueca.vision.train_locator.printed_deck_round`, the
recipe's step with the preset's ``locator_real``); continues training ``--model``'s ``locator.pt`` on them
(:func:`sueca.vision.train_locator.finetune_locator`); and writes a copy of
``--model`` with the new ``locator.pt`` / ``locator.onnx`` to ``--out``, its card and
video thresholds chosen again by the recipe's rule on ``--val-frames`` validation scenes
(everything else as it was). The held-out printed decks are never drawn.

    .venv-train/bin/python scripts/tune_locator_real.py --model models --out /tmp/locft --scenes 500 --epochs 4
    .venv/bin/python scripts/real_decks_check.py --scenes 40 --model /tmp/locft/model
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", type=Path, default=Path("models"))
    ap.add_argument("--out", type=Path, required=True, help="work folder; the new model goes to OUT/model")
    ap.add_argument("--scenes", type=int, default=500, help="scenes of the printed decks (and as many synthetic)")
    ap.add_argument("--synth-scenes", type=int, default=None,
                    help="scenes of the training styles (default: as many as --scenes)")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--lr0", type=float, default=0.002)
    ap.add_argument("--val-frames", type=int, default=400,
                    help="validation scenes to choose the thresholds again on (0: keep --model's)")
    args = ap.parse_args(argv)
    if args.scenes < 10 or args.epochs < 1:
        ap.error("--scenes >= 10 (every 10th is validation) and --epochs >= 1 please")

    from sueca.vision.train_locator import model_with_locator, printed_deck_round

    t0 = time.time()
    start = args.model / "locator.pt"
    # the recipe's round itself (seed 1: the runs of models/EXPERIMENTS.md, 2026-12-05)
    best = printed_deck_round(args.out, start, args.scenes, args.synth_scenes or args.scenes, args.epochs,
                              args.lr0, seed=1)
    if best == start:
        raise SystemExit(f"tune_locator_real: {json.loads((args.out / 'locator_real.json').read_text())['skipped']}")
    print(f"data and fine-tuning: {time.time() - t0:.0f} s -> {best}", flush=True)
    model = model_with_locator(args.model, best, args.out / "model", args.out / "yolo_config")
    if args.val_frames:
        from sueca.vision.train_eval import rechoose_thresholds

        note = {"locator_real": {"scenes": args.scenes, "synth_scenes": args.synth_scenes or args.scenes,
                                 "epochs": args.epochs, "lr0": args.lr0, "s": round(time.time() - t0)}}
        chosen = rechoose_thresholds(model, args.val_frames, note)
        print(f"thresholds {chosen['threshold']} (video {chosen['video_threshold']}): "
              + ", ".join(f"{r['threshold']}: {r['recall']:.4f} {r['wrong']}" for r in chosen["table"]))
    print(f"{model} ({time.time() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
