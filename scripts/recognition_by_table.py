"""Locator recall and cards read right on the held-out test scenes, by table texture.

Runs the committed recognizer (ONNX Runtime) on the recipe's test scenes (seeds from
``TEST_SEED0``, held-out deck styles), matching detections to the truth as
``sueca.vision.train_eval.evaluate`` does, and groups the counts by the scene's table.

    python scripts/recognition_by_table.py [--scenes 200] [--model DIR]
"""

import argparse
import collections

from sueca.vision.recognizer import load_recognizer
from sueca.vision.train_data import MIN_VISIBLE, render
from sueca.vision.train_eval import match
from sueca.vision.train_run import TEST_SEED0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=200)
    ap.add_argument("--model", default=None, help="recognizer folder (default: the committed models)")
    args = ap.parse_args()
    rec = load_recognizer(args.model) if args.model else load_recognizer()
    by = collections.defaultdict(lambda: [0, 0, 0, 0])  # locatable, located, readable, read right
    for seed in range(TEST_SEED0, TEST_SEED0 + args.scenes):
        scene = render(seed, (1280, 960), "test")
        dets = rec(scene.image)
        by_card = {j: i for i, j in dict(match(dets, scene.cards)).items()}
        row = by[scene.meta["table"]]
        for j, card in enumerate(scene.cards):
            if not card.face_up:
                continue
            i = by_card.get(j)
            if card.visible_fraction >= MIN_VISIBLE:
                row[0] += 1
                row[1] += int(i is not None)
            if card.readable:
                row[2] += 1
                row[3] += int(i is not None and dets.codes[i] == card.code)
    print("| table | locatable cards | locator recall | readable cards | read right |")
    print("|---|---|---|---|---|")
    for table, (a, b, c, d) in sorted(by.items(), key=lambda kv: kv[1][1] / max(kv[1][0], 1)):
        print(f"| {table} | {a} | {b / max(a, 1):.1%} | {c} | {d / max(c, 1):.1%} |")


if __name__ == "__main__":
    main()
