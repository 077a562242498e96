#!/usr/bin/env python3
"""Measure recognizer options (the locator's second opinions, the outliner's second look) on stills.

For each model folder: the held-out test metrics (200 scenes from 900000, deck
styles never trained on) at the folder's own threshold, and the card threshold
the recipe's rule (:func:`sueca.vision.train_eval.choose_card_threshold`) picks
on 400 validation scenes (from 500000). Cards a second opinion adds are read only
at the single-image threshold, as at run time.

    python scripts/second_opinions.py models /tmp/with_stock
"""

from __future__ import annotations

import argparse
import json
import time


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", nargs="+", help="model folders (recognizer.json + weights)")
    ap.add_argument("--test", type=int, default=200)
    ap.add_argument("--val", type=int, default=400)
    args = ap.parse_args(argv)

    from sueca.vision.recognizer import load_recognizer
    from sueca.vision.train_eval import choose_card_threshold, choose_video_threshold, evaluate, readings

    for folder in args.models:
        rec = load_recognizer(folder)
        t0 = time.time()
        m, _ = evaluate(rec, range(900000, 900000 + args.test), "test", log=lambda *a: None)
        keys = ("recall_readable", "read_right", "readable_cards", "wrong_identities", "reported_identities",
                "locator_recall", "recall_whole", "ms_per_frame_median", "wrong_examples")
        print(json.dumps({"model": folder, "flip": rec.config.flip_pass, "stock": rec.config.stock_pass,
                          "threshold": rec.config.threshold, "test": {k: m[k] for k in keys},
                          "s": round(time.time() - t0)}), flush=True)
        if args.val:
            rows, n = readings(rec, range(500000, 500000 + args.val), "train")
            t, table = choose_card_threshold(rows, n)
            print(json.dumps({"model": folder, "val_threshold": t, "video_threshold": choose_video_threshold(table),
                              "val": [(r["threshold"], round(r["recall"], 4), r["wrong"]) for r in table]}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
