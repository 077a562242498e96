#!/usr/bin/env python3
"""Measure a model folder again as the recipe's last step does: ``metrics.json`` and ``confusion.png``.

Models installed by a step after the recipe (readers from a GPU run, readers tuned on more
printed decks: ``scripts/tune_real_decks.py``) change the figures the recipe wrote. This runs
the recipe's own evaluation (``sueca.vision.train_eval.model_metrics``: the held-out test set,
45-degree views, the held-out printed decks where fetched, the readers on true outlines,
outline quality, validation scenes) on the folder and rewrites both files there. The recipe's
training timings in ``metrics.json`` are kept.

    .venv-train/bin/python scripts/model_metrics.py --model models   # matplotlib draws the matrix
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", type=Path, default=Path("models"), help="model folder (default: models)")
    ap.add_argument("--test", type=int, default=200, help="held-out test scenes (default 200, as the recipe)")
    ap.add_argument("--val", type=int, default=100, help="validation scenes (default 100, as the recipe)")
    args = ap.parse_args(argv)

    from sueca.vision.train_eval import model_metrics

    path = args.model / "metrics.json"
    if not (args.model / "recognizer.json").is_file():
        raise SystemExit(f"model_metrics: {args.model} holds no recognizer.json")
    old = json.loads(path.read_text()) if path.is_file() else {}
    t0 = time.time()
    metrics = model_metrics(args.model, args.test, args.val, log=lambda *a: None)
    if "timings" in old:
        metrics["timings"] = old["timings"]
    metrics["measured"] = {"by": "scripts/model_metrics.py", "date": time.strftime("%Y-%m-%d"),
                           "eval_s": round(time.time() - t0)}
    path.write_text(json.dumps(metrics, indent=1))
    keys = ("recall_readable", "read_right", "readable_cards", "wrong_identities", "reported_identities",
            "recall_whole", "locator_recall")
    print(json.dumps({k: metrics[k] for k in keys}))
    for extra in ("tilt45", "real_heldout", "train_styles_val"):
        if extra in metrics:
            print(extra, json.dumps({k: metrics[extra][k] for k in keys}))
    print("reader_true_outlines", json.dumps(metrics["reader_true_outlines"]))
    print(f"{time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
