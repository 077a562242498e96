#!/usr/bin/env python3
"""A few cards on a bright coloured cloth: does the colour balance take the cloth for the light?

The still image's balance (`vision/balance.py`) takes the frame's brightest pixels for card
stock; under a few small cards on a bright cloth those pixels are the cloth. This check renders
scenes of the generator's held-out test styles with one to three cards to find, paints every
pixel outside the cards' outlines a flat cloth (the scene's shading kept as its brightness),
and reads each picture with the installed balance and without one, side by side.

    .venv/bin/python scripts/cloth_check.py --scenes 40
    .venv/bin/python scripts/cloth_check.py --scenes 5 --cloths yellow --json

Prints per cloth: cards read right and wrong with the balance and without, and how many
pictures the frame's own estimate would have changed.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

#: BGR colours of the cloths, bright enough to fill a frame's brightest 2% beside small cards
CLOTHS = {"yellow": (60, 220, 250), "orange": (40, 150, 250), "pale_yellow": (150, 235, 250),
          "sky": (250, 200, 120)}


def on_cloth(scene, colour) -> np.ndarray:
    """The scene's picture with everything but its cards painted ``colour`` (its shading kept)."""
    import cv2

    mask = np.zeros(scene.image.shape[:2], np.uint8)
    for card in scene.cards:
        cv2.fillPoly(mask, [np.round(np.asarray(card.corners)).astype(np.int32)], 1)
    grey = cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    shade = np.clip(grey / max(float(np.median(grey[mask == 0])) if (mask == 0).any() else 1.0, 1.0), 0.6, 1.15)
    cloth = np.clip(np.float32(colour)[None, None] * shade[..., None], 0, 255).astype(np.uint8)
    out = scene.image.copy()
    out[mask == 0] = cloth[mask == 0]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scenes", type=int, default=40, help="scenes with 1-3 cards to find (default 40)")
    ap.add_argument("--seed", type=int, default=976000, help="first scene seed tried (default 976000)")
    ap.add_argument("--cloths", nargs="*", default=list(CLOTHS), help=f"of {', '.join(CLOTHS)}")
    ap.add_argument("--model", default=None, help="model folder (default: the installed models)")
    ap.add_argument("--json", action="store_true", help="one JSON line instead of the table")
    args = ap.parse_args(argv)
    unknown = [c for c in args.cloths if c not in CLOTHS]
    if unknown or args.scenes < 1:
        raise SystemExit(f"cloth_check: unknown cloth {unknown} (known: {', '.join(CLOTHS)})" if unknown
                         else "cloth_check: --scenes must be at least 1")

    from dataclasses import replace

    from sueca.datasets.scene import render_scene
    from sueca.vision.balance import applied_gains
    from sueca.vision.recognizer import load_recognizer
    from sueca.vision.train_data import is_target

    rec = load_recognizer(args.model) if args.model else load_recognizer()
    if rec.config.balance is None:
        raise SystemExit("cloth_check: the model has no colour balance (recognizer.json: balance)")
    bare = load_recognizer(args.model) if args.model else load_recognizer()
    bare.config = replace(bare.config, balance=None)
    rows = {c: {"balanced": [0, 0], "bare": [0, 0], "frame_estimate_changes": 0} for c in args.cloths}
    t0, seed, done, cards = time.time(), args.seed, 0, 0
    while done < args.scenes:
        scene = render_scene(seed, (1280, 960), "test")
        seed += 1
        truth = {c.code for c in scene.cards if is_target(c)}
        if not 1 <= len(truth) <= 3:
            continue
        done += 1
        cards += len(truth)
        face_up = {c.code for c in scene.cards if c.face_up}
        for name in args.cloths:
            image = on_cloth(scene, CLOTHS[name])
            rows[name]["frame_estimate_changes"] += int(not np.all(applied_gains(image, rec.config.balance) == 1.0))
            for key, r in (("balanced", rec), ("bare", bare)):
                read = [c for c in r(image).codes if c not in ("", "?")]
                rows[name][key][0] += sum(c in truth for c in read)
                rows[name][key][1] += sum(c not in face_up for c in read)
    out = {"scenes": done, "cards": cards, "seeds": [args.seed, seed - 1], "cloths": rows, "s": round(time.time() - t0)}
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"{done} scenes (seeds {args.seed}-{seed - 1}), {cards} cards to find; read right (wrong)")
    print(f"{'cloth':12s} {'balanced':>12s} {'no balance':>12s} {'frame estimate changes':>24s}")
    for name, r in rows.items():
        print(f"{name:12s} {r['balanced'][0]:>7d} ({r['balanced'][1]}) {r['bare'][0]:>7d} ({r['bare'][1]}) "
              f"{r['frame_estimate_changes']:>16d}/{done}")
    print(f"{out['s']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
