"""Is a card's reported confidence what it says? Readings by confidence, on three sets.

Every identity the recognizer reports with no threshold (``train_eval.readings``) on
scenes of three kinds, binned by its confidence: how many readings, their mean
confidence, the share that is right, the wrong ones, and the expected calibration
error (ECE: the bins' gap between confidence and share right, weighed by readings).

- ``val``: training deck styles, validation seeds (500000 on): what the threshold is chosen on;
- ``test``: the held-out synthetic styles, test seeds (900000 on);
- ``printed``: the three held-out printed decks (``sueca dataset fetch-heldout-decks``
  first), the three sets of ``real_decks_check.py`` (seed 970000, the same tilted to 45
  degrees, seed 980000).

    .venv/bin/python scripts/confidence_check.py --cache /tmp/scenes

``--cache``: scenes of ``val`` and ``test`` kept on disk as ``versions_check.py`` keeps them
(the same files). A reading counts as right when it lies on the card of its code
(``train_eval.match``).
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def printed_readings(recognizer, scenes: int):
    """``readings`` of the three printed sets, summed: (rows, readable cards)."""
    import numpy as np

    from sueca.datasets.styles import resolve_styles
    from sueca.vision import train_data
    from sueca.vision.train_eval import readings

    styles = [s.name for s in resolve_styles("real_heldout")]
    original = train_data.render
    rows, readable = [], 0
    try:
        for options, seed0 in (({}, 970000), ({"max_tilt": 45}, 970000), ({}, 980000)):
            train_data.render = functools.partial(original, **options) if options else original
            for k, style in enumerate(styles):  # each deck its own seeds, as real_decks_check.py
                r, n = readings(recognizer, range(seed0 + 1000 * k, seed0 + 1000 * k + scenes), [style])
                rows.append(r)
                readable += n
    finally:
        train_data.render = original
    return np.concatenate(rows) if rows else np.zeros((0, 2)), readable


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=None, help="model folder (default: the installed models)")
    ap.add_argument("--cache", type=Path, default=None, help="folder of rendered val/test scenes")
    ap.add_argument("--val", type=int, default=400, help="validation scenes (0: none)")
    ap.add_argument("--test", type=int, default=200, help="test scenes (0: none)")
    ap.add_argument("--printed", type=int, default=40, help="scenes per printed deck and set (0: none)")
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT / "scripts"))
    from sueca.datasets.styles import resolve_styles
    from sueca.vision import train_data
    from sueca.vision.recognizer import load_recognizer
    from sueca.vision.train_eval import readings, reliability

    if args.printed:
        try:
            resolve_styles("real_heldout")
        except ValueError:
            print("no held-out printed deck here: run `sueca dataset fetch-heldout-decks`, or --printed 0",
                  file=sys.stderr)
            return 2
    recognizer = load_recognizer(args.model)
    original = train_data.render
    if args.cache is not None:
        from versions_check import cached_render

        args.cache.mkdir(parents=True, exist_ok=True)
        cached_render(args.cache)
    sets: dict = {}
    t0 = time.time()
    try:
        if args.val:
            sets["val"] = readings(recognizer, range(500000, 500000 + args.val), "train")
        if args.test:
            sets["test"] = readings(recognizer, range(900000, 900000 + args.test), "test")
    finally:
        train_data.render = original
    if args.printed:
        sets["printed"] = printed_readings(recognizer, args.printed)
    out = {"threshold": recognizer.config.threshold, "s": round(time.time() - t0)}
    for name, (rows, readable) in sets.items():
        table, ece = reliability(rows)
        out[name] = {"readings": len(rows), "readable_cards": readable, "ece": ece, "bins": table}
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"model threshold {out['threshold']}; {out['s']} s")
    for name in sets:
        o = out[name]
        print(f"\n{name}: {o['readings']} readings with no threshold, {o['readable_cards']} readable cards, "
              f"ECE {o['ece']:.4f}")
        print("| confidence | readings | mean confidence | right | wrong |\n|---|---|---|---|---|")
        for b in o["bins"]:
            print(f"| {b['lo']:.3f}-{b['hi']:.3f} | {b['readings']} | {b['confidence']:.4f} | "
                  f"{100 * b['right']:.1f}% | {b['wrong']} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
