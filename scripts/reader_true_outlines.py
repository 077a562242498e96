#!/usr/bin/env python3
"""How well the reader reads when it is given the true card outlines.

Separates the reader's own errors from the locator's and the outline stage's:
generated scenes (held-out deck styles by default), each readable face-up card
read from its true outline with the model's single-image threshold.

    python scripts/reader_true_outlines.py --seeds 900000-900039
"""

from __future__ import annotations

import argparse


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", default="900000-900039", help="scene seeds A-B")
    ap.add_argument("--styles", default="test", help="deck styles: test (held out) or train")
    ap.add_argument("--model", default=None, help="model folder (default: packaged)")
    args = ap.parse_args(argv)

    from sueca.vision.recognizer import load_recognizer
    from sueca.vision.train_eval import true_outline_reading

    a, _, b = args.seeds.partition("-")
    rec = load_recognizer(args.model)
    r = true_outline_reading(rec, range(int(a), int(b or a) + 1), args.styles)
    print(f"true outlines, {args.styles} styles, seeds {args.seeds}: read {r['read_right']}/{r['cards']} "
          f"({100 * r['recall']:.1f}%), wrong {r['wrong']}, threshold {rec.config.threshold}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
