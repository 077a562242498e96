"""Still photos as a phone takes them, read with and without the tiles and the quarter turn,
side by side in one run (ONNX Runtime, the installed model).

Rows (each: generated test-style scenes, held-out decks, 4-8 cards or a spread):

- ``1280x960``: the usual scenes, read again in 2 x 2 tiles (``tiles`` "always", the installed
  model's, ``sueca.vision.tiles``) and whole only;
- ``12 MP, small cards``: 4032x3024 with cards 3.5-6% of the frame high (a phone held far
  above the table), tiles "always", "small" (only such photos) and none;
- ``12 MP, usual cards``: the same size, cards 6-20% of the frame high, the same three ways;
- ``upright``: 1280x960 scenes turned a quarter (a phone held upright), read turned back to
  lie wide (``Recognizer.turn_portrait``) and as they stand, tiles "always".

Prints per row the median and 90th percentile ms a photo, the cards read right (of the readable
ones) and the wrong readings, each way, and the time ratio to the last way. Timings alternate
the ways photo by photo, so the machine's drift falls on all.

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

TILES = ("always", "small", None)
#: row -> (size, card_frac, first seed, upright, the recognizer's setting compared, its values)
ROWS = {
    "1280x960": ((1280, 960), (0.06, 0.2), 900000, False, "tiles", ("always", None)),
    "12 MP, small cards": ((4032, 3024), (0.035, 0.06), 1000000, False, "tiles", TILES),
    "12 MP, usual cards": ((4032, 3024), (0.06, 0.2), 1000000, False, "tiles", TILES),
    "upright": ((1280, 960), (0.06, 0.2), 900000, True, "turn_portrait", (True, False)),
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
    print(f"{'row':20s} {'way':20s} {'ms median':>10s} {'p90':>8s} {'read right':>12s} {'wrong':>6s}   time")
    for name in args.rows:
        size, frac, seed0, upright, setting, values = ROWS[name]
        shots = scenes(size, frac, seed0, args.photos)
        readable = sum(c.readable for s in shots for c in s.cards if c.face_up)
        times = {v: [] for v in values}
        found = {v: [0, 0] for v in values}
        rec(shots[0].image)  # warm
        for s in shots:
            image = np.ascontiguousarray(np.rot90(s.image, -1)) if upright else s.image
            for value in values:
                setattr(rec, setting, value)
                for _ in range(args.repeats):
                    t0 = time.perf_counter()
                    dets = rec(image)
                    times[value].append(1000 * (time.perf_counter() - t0))
                r, w = score(dets, s.cards, size if upright else None)
                found[value][0] += r
                found[value][1] += w
            setattr(rec, setting, values[0])
        for value in values:
            way = f"{setting} {value}" if value not in (True, False) else (setting if value else f"no {setting}")
            t = np.asarray(times[value])
            print(f"{name:20s} {way:20s} {np.median(t):10.0f} {np.percentile(t, 90):8.0f} "
                  f"{found[value][0]:>5d} of {readable:<4d} {found[value][1]:6d}   "
                  f"x{np.median(t) / np.median(times[values[-1]]):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
