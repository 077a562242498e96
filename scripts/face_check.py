#!/usr/bin/env python3
"""What a model folder's face network says of cards from their true outlines, per deck.

For each deck style, 40 table scenes (seeds 970000 + 1000 k, as ``real_decks_check.py``);
every face-up card at least 3/4 in view is looked at through
:meth:`FaceSuit.probabilities` on its true outline, each corner moved at random by 2% of
the card's diagonal (a run-time outline is about that far off). Prints per deck: the
suit's accuracy, and for a whole-card face (53 classes) the rank group's
(:data:`~sueca.vision.face_suit.RANK_GROUP`: the pips' count, or "a court"), with how many
cards it was sure of (p >= 0.9) and of those how many wrongly; and how many cards the
check (``sure``/``doubt`` of the model) would rule out, rightly and wrongly.

    .venv/bin/python scripts/face_check.py --model /tmp/facecard
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=None, help="model folder (default: the installed models)")
    ap.add_argument("--scenes", type=int, default=40)
    ap.add_argument("--decks", nargs="*", default=None,
                    help="styles (default: the generator's test decks and the held-out printed ones)")
    args = ap.parse_args(argv)

    from sueca.datasets.styles import resolve_styles
    from sueca.vision.classes import CARD_CODES
    from sueca.vision.face_suit import RANK_GROUP, SUITS, disagrees, rank_of_face, suit_of_face
    from sueca.vision.recognizer import load_recognizer
    from sueca.vision.train_data import render

    rec = load_recognizer(args.model) if args.model else load_recognizer()
    face = rec.face
    if face is None:
        raise SystemExit("face_check: the model has no face network")
    decks = args.decks if args.decks is not None else ["test"] + [s.name for s in resolve_styles("real_heldout")]
    t0 = time.time()
    for k, deck in enumerate(decks):
        rng = np.random.default_rng(k)
        codes, probs = [], []
        for seed in range(970000 + 1000 * k, 970000 + 1000 * k + args.scenes):
            scene = render(seed, (1280, 960), deck if deck == "test" else [deck])
            cards = [c for c in scene.cards if c.face_up and c.visible_fraction >= 0.75]
            if not cards:
                continue
            quads = []
            for c in cards:
                q = np.asarray(c.corners, np.float32)
                quads.append(q + rng.normal(0, 0.02 * float(np.linalg.norm(q[0] - q[2])), q.shape).astype(np.float32))
            probs.append(face.probabilities(scene.image, np.stack(quads)))
            codes += [c.code for c in cards]
        p = np.concatenate(probs)
        suits = suit_of_face(p)
        truth_s = np.array([SUITS.index(c[-1]) for c in codes])
        row = {"deck": deck, "cards": len(codes),
               "suit_accuracy": round(float(np.mean(suits[:, :4].argmax(1) == truth_s)), 4)}
        if p.shape[1] == len(CARD_CODES) + 1:
            ranks = rank_of_face(p)
            truth_r = np.array([RANK_GROUP[c[:-1]] for c in codes])
            pred, conf = ranks[:, :-1].argmax(1), ranks[:, :-1].max(1)
            pips = truth_r < 10
            sure = conf >= 0.9
            row.update({
                "rank_group_accuracy": round(float(np.mean(pred == truth_r)), 4),
                "pips_accuracy": round(float(np.mean(pred[pips] == truth_r[pips])), 4),
                "courts_accuracy": round(float(np.mean(pred[~pips] == truth_r[~pips])), 4),
                "rank_sure": int(sure.sum()), "rank_sure_wrong": int(np.sum(sure & (pred != truth_r))),
                "card_accuracy": round(float(np.mean(p[:, :-1].argmax(1) == np.array([CARD_CODES.index(c) for c in codes]))), 4),
            })
            # the check on the true code: every "ruled out" is a right reading withdrawn
            row["check_rules_out_right"] = int(disagrees(codes, p, face.sure, face.doubt, rank=True).sum())
            # and on the same cards read as the next rank group (an 8 as a 9, a 10 or a court as an A)
            pips = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J")
            slipped = [pips[(RANK_GROUP[c[:-1]] + 1) % 11].replace("J", "A") + c[-1] for c in codes]
            row["check_catches_rank_slip"] = int(disagrees(slipped, p, face.sure, face.doubt, rank=True).sum())
        print(json.dumps(row), flush=True)
    print(f"{time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
