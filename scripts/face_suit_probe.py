#!/usr/bin/env python3
"""Probe: can a small CNN tell the suit from the whole card face, on printed decks?

Trains the reader's network (``reader_net``, 5 classes: S H D C, "no card") on the
whole rectified card (64x48, true outline jittered by 2.5% of the card's diagonal)
from table scenes of the training styles (``--wide``: and the ``wide`` decks, with
their own suit-sign proportions; ``--glyph``: and the ``glyph`` decks, typefaces' suit signs), then prints per deck style the suit accuracy on
40 scenes and how many crops it was sure of (p >= 0.9), right and wrong. Nothing is
installed; ``models/EXPERIMENTS.md`` (2026-12-04) has the figures.

    .venv-train/bin/python scripts/face_suit_probe.py --scenes 500 --epochs 6 [--wide] [--glyph] [--real]
"""

from __future__ import annotations

import argparse
import json
import time
from multiprocessing import Pool
from pathlib import Path

import numpy as np

from sueca.datasets.scene import render_scene
from sueca.vision.rectify import CropSpec, crop_top_left, portrait_orderings

SPEC = CropSpec(box=(-0.02, -0.02, 1.02, 1.02), size=(64, 48), channels=3)
SUIT = {"S": 0, "H": 1, "D": 2, "C": 3}
NO_CARD = 4


def crops_of(args):
    seed, styles = args
    rng = np.random.default_rng(seed)
    scene = render_scene(seed, (1280, 960), styles)
    xs, ys = [], []
    for c in scene.cards:
        if c.face_up and c.visible_fraction >= 0.75:
            y = SUIT[c.code[-1]]
        elif not c.face_up or c.visible_fraction < 0.3:
            y = NO_CARD
        else:
            continue  # half covered: neither
        q = np.asarray(c.corners, np.float32)
        q = q + rng.normal(0, 0.025 * float(np.linalg.norm(q[0] - q[2])), q.shape).astype(np.float32)
        for o in portrait_orderings(q):
            xs.append(crop_top_left(scene.image, o, SPEC))
            ys.append(y)
    return xs, ys


def build(seeds, styles):
    with Pool(2) as p:
        res = p.map(crops_of, [(s, styles) for s in seeds], chunksize=8)
    return np.stack([a for r in res for a in r[0]]), np.array([a for r in res for a in r[1]])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scenes", type=int, default=500)
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--wide", action="store_true", help="train on the wide decks too")
    ap.add_argument("--glyph", action="store_true", help="train on the glyph decks too (typefaces' suit signs)")
    ap.add_argument("--real", action="store_true", help="train on the 21 printed training decks too (fetched)")
    ap.add_argument("--eval", nargs="*", default=None,
                    help="deck styles to test on (default: the generator's test decks and every printed deck)")
    ap.add_argument("--save", type=Path, default=None, help="write the trained network's state_dict here")
    args = ap.parse_args(argv)

    from sueca.datasets.styles import GLYPH_STYLES, REAL_STYLES, WIDE_STYLES, resolve_styles, usable
    from sueca.vision.reader_net import build_reader
    from sueca.vision.recognizer import softmax
    from sueca.vision.train_reader import predict, train_reader

    t0 = time.time()
    styles = [s.name for s in resolve_styles("train")] + (list(WIDE_STYLES) if args.wide else []) + (
        list(GLYPH_STYLES) if args.glyph else []) + (
        [st.name for st in resolve_styles("real_train_all")] if args.real else [])
    x, y = build(range(4_000_000, 4_000_000 + args.scenes), styles)
    print(f"train crops {len(y)} per class {np.bincount(y).tolist()}", flush=True)
    model = train_reader(x, y, args.epochs, lr=3e-3, seed=3, init=build_reader(5, 16), log=print)
    if args.save:
        import torch

        torch.save(model.state_dict(), args.save)
    evals = {"test": "test", **{s.name: [s.name] for s in REAL_STYLES if usable(s)}}
    if args.eval is not None:
        evals = {name: (name if name == "test" else [name]) for name in args.eval}
    for name, st in evals.items():
        vx, vy = build(range(970000, 970040), st)
        p = softmax(predict(model, vx), 1.0)
        pred, card = p.argmax(1), vy < NO_CARD
        sure = card & (p.max(1) >= 0.9)
        print(json.dumps({"styles": name, "card_crops": int(card.sum()),
                          "suit_accuracy": round(float(np.mean(pred[card] == vy[card])), 4),
                          "sure": int(sure.sum()), "sure_right": int(np.sum(sure & (pred == vy))),
                          "sure_wrong": int(np.sum(sure & (pred != vy) & (pred < NO_CARD)))}), flush=True)
    print(f"{time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
