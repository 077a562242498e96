#!/usr/bin/env python3
"""Apply the recipe's real-deck step to an existing model folder (runs in ``.venv-train``).

``sueca train`` runs this step itself (``vision/train_real.py``, after the second
reader). This script applies it to models already trained: copies ``--model`` to
``--out``, fine-tunes both readers there, fits their temperatures, chooses the card
and video thresholds again on the validation scenes (as the recipe does) and
writes ``recognizer.json``.

    .venv/bin/sueca dataset fetch-heldout-decks
    .venv-train/bin/python scripts/tune_real_decks.py --model models --out /tmp/real-tuned
    .venv/bin/python scripts/real_decks_check.py --model /tmp/real-tuned

``--readers FIRST.pt SECOND.pt`` skips the learning: those readers (trained elsewhere, e.g.
by ``scripts/gpu_readers.py`` on a lent GPU) replace both, and the rest is the same.
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", type=Path, default=Path("models"))
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--scenes", type=int, default=300, help="scenes of each deck group (and as many synthetic per group)")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--decks", default="real_train",
                    choices=["real_train", "glyph", "glyph+real_train", "real_train_all", "glyph+real_train_all",
                             "artmix", "real_train_all+artmix", "glyph+real_train_all+artmix"],
                    help="the new crops' decks: other artists' (fetched; real_train_all: with the KDE and GNOME "
                         "themes added 2026-12-04), the glyph decks, the printed decks with each other's "
                         "court and ace art (artmix, added 2026-12-05), or several")
    ap.add_argument("--shapes", type=float, default=0.0,
                    help="probability of jittering a crop's stroke weight and index size while learning (default 0)")
    ap.add_argument("--blur", type=float, default=0.0,
                    help="probability of blurring a crop past the generator's (out of focus or streaked) while learning (default 0)")
    ap.add_argument("--seed", type=int, default=0, help="moves the scenes' seeds and the training seed (default 0; "
                    "the synthetic half spans 2 x --scenes seeds: another run's own scenes need a step at least that)")
    ap.add_argument("--only", choices=["first", "second"], default=None,
                    help="tune that reader alone; the other stays as in --model (default: both)")
    ap.add_argument("--val-frames", type=int, default=400,
                    help="validation scenes for the thresholds (0: no thresholds, the readers only)")
    ap.add_argument("--readers", nargs=2, type=Path, default=None, metavar=("FIRST", "SECOND"),
                    help="readers' .pt files to install instead of learning (export_reader's format)")
    args = ap.parse_args(argv)

    from sueca.vision.train_eval import rechoose_thresholds
    from sueca.vision.train_real import install_readers, tune_on_real_decks

    if args.out.exists():
        raise SystemExit(f"tune_real_decks: {args.out} exists; choose a new folder")
    shutil.copytree(args.model, args.out, ignore=shutil.ignore_patterns("__init__.py", "__pycache__"))
    t0 = time.time()
    if args.readers:
        done = install_readers(args.out, *args.readers)
    else:
        done = tune_on_real_decks(args.out, args.scenes, args.epochs, seed=args.seed, decks=args.decks,
                                  shapes=args.shapes, only=args.only, blur=args.blur)
    if done is None:
        raise SystemExit("tune_real_decks: no real training deck cached (sueca dataset fetch-heldout-decks)")
    path = args.out / "recognizer.json"
    cfg = json.loads(path.read_text())
    info = done["real_tuned"]
    if "temperature" in info:
        cfg["reader"]["temperature"] = info["temperature"]
    if "second_temperature" in info:
        cfg["reader"]["second"]["temperature"] = info["second_temperature"]
    path.write_text(json.dumps(cfg, indent=1))
    if args.val_frames == 0:  # a reader to pair with another (--readers): its thresholds come then
        print(json.dumps({"real_tuned": info, "s": round(time.time() - t0)}))
        return 0
    chosen = rechoose_thresholds(args.out, args.val_frames, {"real_tuned": {**info, "s": round(time.time() - t0)}})
    print(json.dumps({"threshold": chosen["threshold"], "video_threshold": chosen["video_threshold"],
                      "real_tuned": info,
                      "val": [(r["threshold"], round(r["recall"], 4), r["wrong"]) for r in chosen["table"]],
                      "s": round(time.time() - t0)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
