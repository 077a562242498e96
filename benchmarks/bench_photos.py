"""Still photos as a phone takes them, read with and without the tiles and the quarter turn,
side by side in one run (ONNX Runtime, the installed model).

Rows (each: generated test-style scenes, held-out decks, 4-8 cards or a spread):

- ``12 MP, small cards``: 4032x3024 with cards 3.5-6% of the frame high (a phone held far
  above the table): read as the recognizer reads it (small cards read again in 2 x 2 tiles,
  ``sueca.vision.tiles``) and with ``tiles`` off;
- ``12 MP, usual cards``: the same size, cards 6-20% of the frame high;
- ``upright``: 1280x960 scenes turned a quarter (a phone held upright), read turned back to
  lie wide (``Recognizer.turn_portrait``) and as they stand.

Prints per row the median and 90th percentile ms a photo, the cards read right (of the readable
ones) and the wrong readings, both ways, and the time ratio. Timings alternate the two ways
photo by photo, so the machine's drift falls on both.

    .venv/bin/python benchmarks/bench_photos.py [--photos 12] [--repeats 2]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

#: row -> (size, card_frac, first seed, upright, the recognizer's switch compared)
ROWS = {
    "12 MP, small cards": ((4032, 3024), (0.035, 0.06), 1000000, False, "tiles"),
    "12 MP, usual cards": ((4032, 3024), (0.06, 0.2), 1000000, False, "tiles"),
    "upright": ((1280, 960), (0.06, 0.2), 900000, True, "turn_portrait"),
}


def scenes(size, frac, seed0, n):
    from sueca.vision.train_data import render

    return [render(seed0 + k, size, "test", card_frac=frac) for k in range(n)]


def score(dets, cards, wide: tuple[int, int] | None):
    """(read right, wrong) of ``dets`` against the scene's ``cards``; ``wide``: the scene's
    (w, h) where ``dets`` were read on it turned a quarter clockwise."""
    from sueca.vision.detections import UNREADABLE
    from sueca.vision.train_eval import match

    if wide is not None and len(dets):  # the upright photo's outlines, turned back to the scene's
        from dataclasses import replace

        from sueca.vision.detections import outline_boxes

        q = dets.corners
        back = np.stack([q[..., 1], wide[1] - 1 - q[..., 0]], axis=-1).astype(np.float32)
        dets = replace(dets, corners=back, xyxy=outline_boxes(back, wide))
    pairs = dict(match(dets, cards))
    right = wrong = 0
    for i, code in enumerate(dets.codes):
        if code == UNREADABLE:
            continue
        j = pairs.get(i)
        if j is not None and cards[j].face_up and cards[j].code == code:
            right += 1
        else:
            wrong += 1
    return right, wrong


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--photos", type=int, default=12, help="scenes per row (default 12)")
    ap.add_argument("--repeats", type=int, default=2, help="timed reads of each photo each way")
    ap.add_argument("--rows", nargs="+", default=list(ROWS), choices=list(ROWS))
    args = ap.parse_args(argv)
    from bench_recognition import cpu_name

    from sueca.vision.recognizer import load_recognizer

    rec = load_recognizer()
    print(f"CPU: {cpu_name()}; {args.photos} photos a row, {args.repeats} timed reads each way")
    print(f"{'row':20s} {'way':17s} {'ms median':>10s} {'p90':>8s} {'read right':>12s} {'wrong':>6s}")
    for name in args.rows:
        size, frac, seed0, upright, switch = ROWS[name]
        shots = scenes(size, frac, seed0, args.photos)
        readable = sum(c.readable for s in shots for c in s.cards if c.face_up)
        times = {True: [], False: []}
        found = {True: [0, 0], False: [0, 0]}
        rec(shots[0].image)  # warm
        for s in shots:
            image = np.ascontiguousarray(np.rot90(s.image, -1)) if upright else s.image
            for on in (True, False):
                setattr(rec, switch, on)
                for _ in range(args.repeats):
                    t0 = time.perf_counter()
                    dets = rec(image)
                    times[on].append(1000 * (time.perf_counter() - t0))
                r, w = score(dets, s.cards, size if upright else None)
                found[on][0] += r
                found[on][1] += w
        setattr(rec, switch, True)
        for on in (True, False):
            way = switch if on else f"no {switch}"
            t = np.asarray(times[on])
            print(f"{name:20s} {way:17s} {np.median(t):10.0f} {np.percentile(t, 90):8.0f} "
                  f"{found[on][0]:>5d} of {readable:<4d} {found[on][1]:6d}")
        print(f"{'':20s} time ratio {np.median(times[True]) / np.median(times[False]):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
