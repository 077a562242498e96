"""Locator recall and cards read right on the held-out test scenes, by table or by how much
of each card shows.

Runs a recognizer (ONNX Runtime) on the recipe's test scenes (seeds from ``TEST_SEED0``,
held-out deck styles), matching detections to the truth as
``sueca.vision.train_eval.evaluate`` does, and groups the counts by the scene's table
(``--by table``) or by the card's visible fraction and visible corner indices
(``--by visibility``: a card lying whole in plain view is what a played card mostly is).

    python scripts/recognition_by_table.py [--scenes 200] [--model DIR] [--by table|visibility]
"""

import argparse
import collections

from sueca.vision.detections import UNREADABLE
from sueca.vision.recognizer import load_recognizer
from sueca.vision.train_data import MIN_VISIBLE, render
from sueca.vision.train_eval import match
from sueca.vision.train_run import TEST_SEED0

VISIBLE_BINS = (0.99, 0.9, 0.7, 0.5, 0.35, 0.0)


def visibility(card) -> str:
    """``'>= 99% shows, 2 indices'``: the bin of the card's visible fraction, and how many of
    its corner indices show whole enough to read (``READABLE_INDEX_FRACTION``)."""
    from sueca.datasets.scene import READABLE_INDEX_FRACTION

    low = next(b for b in VISIBLE_BINS if card.visible_fraction >= b)
    n = int((card.index_visible >= READABLE_INDEX_FRACTION).sum())
    return f">= {low:.0%} shows, {n} index{'es' if n != 1 else ''}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=200)
    ap.add_argument("--model", default=None, help="recognizer folder (default: the committed models)")
    ap.add_argument("--by", choices=("table", "visibility"), default="table")
    args = ap.parse_args()
    rec = load_recognizer(args.model) if args.model else load_recognizer()
    by = collections.defaultdict(lambda: [0, 0, 0, 0, 0])  # locatable, located, readable, read right, wrong
    for seed in range(TEST_SEED0, TEST_SEED0 + args.scenes):
        scene = render(seed, (1280, 960), "test")
        dets = rec(scene.image)
        by_card = {j: i for i, j in dict(match(dets, scene.cards)).items()}
        for j, card in enumerate(scene.cards):
            if not card.face_up:
                continue
            row = by[scene.meta["table"] if args.by == "table" else visibility(card)]
            i = by_card.get(j)
            if card.visible_fraction >= MIN_VISIBLE:
                row[0] += 1
                row[1] += int(i is not None)
            code = dets.codes[i] if i is not None else None
            if card.readable:
                row[2] += 1
                row[3] += int(code == card.code)
            row[4] += int(code not in (None, UNREADABLE, card.code))
    print(f"| {args.by} | locatable cards | locator recall | readable cards | read right | read wrong |")
    print("|---|---|---|---|---|---|")
    key = (lambda kv: kv[1][1] / max(kv[1][0], 1)) if args.by == "table" else (lambda kv: kv[0])
    for name, (a, b, c, d, e) in sorted(by.items(), key=key, reverse=args.by == "visibility"):
        print(f"| {name} | {a} | {b / max(a, 1):.1%} | {c} | {d / max(c, 1):.1%} | {e} |")


if __name__ == "__main__":
    main()
