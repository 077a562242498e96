"""Two readers on the same corner crops: does combining them read more cards without misreading?

The committed locator and outliner find and outline the cards of each scene once; the
committed reader and a second reader (another width, other initial weights) read the same
crops. Their probabilities are kept per card (``--cache``), so combination rules are compared
on identical crops:

- ``A``, ``B``: each reader alone (the committed rule, ``combine_corners``);
- ``mean``: the two readers' probabilities averaged, then the committed rule;
- ``agree``: each reader's own reading; a card only where both read the same code, at the
  lower of their two confidences.

Each rule's threshold is chosen on validation scenes (training deck styles, seeds from
``VAL_SEED0``) by the recipe's own rule (``choose_card_threshold``), then measured once on the
test scenes (held-out deck styles, seeds from ``TEST_SEED0``): recall of readable cards,
wrong identities, and the recall of cards lying whole (>= 99% in view, both indices).

    python scripts/reader_ensemble.py --second out/train/r4/model [--val 400] [--test 200]
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import time
from pathlib import Path

import numpy as np

from sueca.vision.detections import UNREADABLE, CardDetections
from sueca.vision.onnx_backend import OnnxReader
from sueca.vision.recognizer import (_one_per_card, combine_corners, combine_readers, load_recognizer,
                                     same_card_outlines, softmax)
from sueca.vision.rectify import corner_crops_counted
from sueca.vision.train_data import render
from sueca.vision.train_eval import choose_card_threshold, lies_whole, match
from sueca.vision.train_run import TEST_SEED0, VAL_SEED0

RULES = ("A", "B", "mean", "agree")


def card_probs(rec, second, t_second: float, image: np.ndarray):
    """(corners (N, 4, 2), per card a list of (pA, pB) per candidate outline)."""
    located = rec.locator(image)
    if len(located) == 0:
        return np.zeros((0, 4, 2), np.float32), []
    corners, candidates = rec.outlines(image, located)
    keep = same_card_outlines(corners, located.scores.astype(np.float32))
    corners, candidates = corners[keep], [candidates[i] for i in keep]
    flat = [c for cands in candidates for c in np.asarray(cands, np.float32).reshape(-1, 4, 2)]
    crops, counts = corner_crops_counted(image, np.stack(flat), rec.config.crop, 0.0)
    pa = softmax(rec.reader(crops), rec.config.temperature).astype(np.float32)
    pb = softmax(second(crops), t_second).astype(np.float32)
    out, start, k = [], 0, 0
    for cands in candidates:
        n = sum(counts[k:k + len(np.asarray(cands).reshape(-1, 4, 2))])
        k += len(np.asarray(cands).reshape(-1, 4, 2))
        out.append((pa[start:start + n], pb[start:start + n]))
        start += n
    return corners, out


def read_card(rule: str, pa: np.ndarray, pb: np.ndarray) -> tuple[str, float]:
    if rule == "A":
        return combine_corners(pa, 0.0)
    if rule == "B":
        return combine_corners(pb, 0.0)
    if rule == "mean":
        return combine_corners((pa + pb) / 2, 0.0)
    return combine_readers([pa, pb], 0.0)


def rows_for(rule: str, cached) -> tuple[np.ndarray, int, int]:
    """(confidence, right, whole) per reported identity; readable and whole readable counts."""
    rows, readable, whole_readable = [], 0, 0
    for corners, probs, cards in cached:
        readable += sum(1 for c in cards if c.face_up and c.readable)
        whole_readable += sum(1 for c in cards if c.face_up and c.readable and lies_whole(c))
        if not probs:
            continue
        read = [read_card(rule, pa, pb) for pa, pb in probs]
        codes, confs = _one_per_card([r[0] for r in read], np.asarray([r[1] for r in read], np.float32))
        xyxy = np.concatenate([corners.min(axis=1), corners.max(axis=1)], axis=1).astype(np.float32)
        n = len(codes)
        dets = CardDetections(xyxy, tuple(codes), confs, np.ones(n, np.float32), corners, np.ones(n, bool))
        pairs = dict(match(dets, cards))
        for i, code in enumerate(codes):
            if code == UNREADABLE:
                continue
            truth = cards[pairs[i]] if i in pairs else None
            right = truth is not None and truth.face_up and truth.code == code
            rows.append((float(confs[i]), right, truth is not None and truth.face_up and lies_whole(truth)))
    return np.asarray(rows, np.float64).reshape(-1, 3), readable, whole_readable


def collect(rec, second, t_second, seeds, styles, log) -> list:
    out, t0 = [], time.time()
    for k, seed in enumerate(seeds):
        scene = render(seed, (1280, 960), styles)
        corners, probs = card_probs(rec, second, t_second, scene.image)
        out.append((corners, probs, scene.cards))
        if (k + 1) % 50 == 0:
            log(f"{styles} {k + 1}/{len(seeds)} scenes, {time.time() - t0:.0f} s")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--second", required=True, help="folder with the second reader.onnx and its recognizer.json")
    ap.add_argument("--val", type=int, default=400)
    ap.add_argument("--test", type=int, default=200)
    ap.add_argument("--cache", default="out/reader_ensemble.pkl")
    args = ap.parse_args()
    log = lambda m: print(m, file=sys.stderr, flush=True)  # noqa: E731
    cache = Path(args.cache)
    if cache.is_file():
        val, test = pickle.loads(cache.read_bytes())
    else:
        rec = load_recognizer()
        cfg = json.loads((Path(args.second) / "recognizer.json").read_text())["reader"]
        second = OnnxReader(Path(args.second) / cfg.get("onnx", "reader.onnx"))
        t2 = float(cfg["temperature"])
        val = collect(rec, second, t2, range(VAL_SEED0, VAL_SEED0 + args.val), "train", log)
        test = collect(rec, second, t2, range(TEST_SEED0, TEST_SEED0 + args.test), "test", log)
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_bytes(pickle.dumps((val, test)))
    print("| rule | validation: recall / wrong at 0.9, 0.98, 0.99 | threshold chosen | test recall | test wrong "
          "| test recall, whole cards |")
    print("|---|---|---|---|---|---|")
    for rule in RULES:
        vrows, vread, _ = rows_for(rule, val)
        t, table = choose_card_threshold(vrows[:, :2], vread)
        at = {row["threshold"]: row for row in table}
        vtxt = ", ".join(f"{at[x]['recall']:.1%} / {at[x]['wrong']}" for x in (0.9, 0.98, 0.99))
        trows, tread, twhole = rows_for(rule, test)
        m = trows[:, 0] >= t
        right = int(trows[m, 1].sum())
        wrong = int((trows[m, 1] == 0).sum())
        wright = int((trows[m, 1] * trows[m, 2]).sum())
        print(f"| {rule} | {vtxt} | {t} | {right / tread:.1%} ({right}/{tread}) | {wrong}/{int(m.sum())} "
              f"| {wright / max(twhole, 1):.1%} ({wright}/{twhole}) |")


if __name__ == "__main__":
    main()
