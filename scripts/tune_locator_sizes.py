#!/usr/bin/env python3
"""Fine-tune a model folder's locator on close-ups too: cards up to 0.7 of the frame high (``.venv-train``).

The locator learnt the overhead camera's cards, 6-20% of the frame high; a phone's photo of
a few cards shows them far larger, and there it finds few (``models/EXPERIMENTS.md``,
2026-12-05, seventh session: 44.9% of the cards 0.45-0.70 of the frame high). This renders,
640x480 as the locator's own data, every 10th for validation:

- ``--big-scenes`` scenes of the training styles and ``--big-real-scenes`` of the 21 printed
  training decks (``real_train_all``; ``sueca dataset fetch-heldout-decks`` first) with cards
  ``--card-frac`` of the frame high (default 0.2-0.7);
- ``--synth-scenes`` and ``--real-scenes`` of the same decks at the overhead camera's sizes,
  so that it keeps what it knew;

continues training ``--model``'s ``locator.pt`` on them at a low learning rate (AdamW,
``--lr0`` 0.0005: run C of ``models/EXPERIMENTS.md``, seventh session;
:func:`sueca.vision.train_locator.finetune_locator`, no mosaic) and writes a copy of
``--model`` with the new ``locator.pt`` / ``locator.onnx`` to ``OUT/model`` (thresholds as
they were). Its 8-bit locator: ``python -m sueca.vision.quantize OUT/model``. The held-out
decks and the test styles are never drawn; the seeds (from :data:`SEED0`) are no other set's.

    .venv-train/bin/python scripts/tune_locator_sizes.py --out /tmp/locsizes
    .venv-train/bin/python -m sueca.vision.quantize /tmp/locsizes/model --scenes 40
    .venv/bin/python scripts/real_decks_check.py --model /tmp/locsizes/model --card-frac 0.45 0.7 \\
        --layout scatter --max-tilt 45 --scenes 25 --decks test_pt_serif real_bellot
"""

from __future__ import annotations

import argparse
from pathlib import Path

#: First scene seed of each part (close-ups of the training styles, of the printed decks, then
#: the overhead sizes of both, twice); no other step or check draws seeds from 7_200_000 to 7_260_000.
SEED0 = 7_200_000


def parts(args) -> list[tuple[str, int, str | None, int, dict]]:
    """(folder, first seed, decks, scenes, scene options) of each part, in the order trained on."""
    big = {"card_frac": tuple(args.card_frac)}
    # the overhead scenes in two parts each (800 + the rest, 200 + the rest): the seeds run C of
    # models/EXPERIMENTS.md rendered, in its order, so the defaults render C's data again
    synth2 = max(0, args.synth_scenes - 800)
    real2 = max(0, args.real_scenes - 200)
    out = [("big", SEED0, None, args.big_scenes, big),
           ("bigreal", SEED0 + 10_000, "real_train_all", args.big_real_scenes, big),
           ("synth", SEED0 + 20_000, None, min(800, args.synth_scenes), {}),
           ("real", SEED0 + 30_000, "real_train_all", min(200, args.real_scenes), {}),
           ("synth2", SEED0 + 40_000, None, synth2, {}),
           ("real2", SEED0 + 50_000, "real_train_all", real2, {})]
    return [p for p in out if p[3] > 0]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", type=Path, default=Path("models"))
    ap.add_argument("--out", type=Path, required=True, help="work folder; the new model goes to OUT/model")
    ap.add_argument("--big-scenes", type=int, default=700, help="close-ups of the training styles")
    ap.add_argument("--big-real-scenes", type=int, default=300, help="close-ups of the printed training decks")
    ap.add_argument("--synth-scenes", type=int, default=1500, help="overhead scenes of the training styles")
    ap.add_argument("--real-scenes", type=int, default=300, help="overhead scenes of the printed training decks")
    ap.add_argument("--card-frac", type=float, nargs=2, default=(0.2, 0.7), metavar=("LO", "HI"))
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--lr0", type=float, default=0.0005)
    args = ap.parse_args(argv)
    if not 0 < args.card_frac[0] <= args.card_frac[1] <= 1:
        ap.error("--card-frac needs 0 < LO <= HI <= 1")
    if args.epochs < 1 or min(args.big_scenes, args.synth_scenes) < 10:
        ap.error("--epochs >= 1, --big-scenes and --synth-scenes >= 10 please")

    from sueca.datasets.styles import resolve_styles
    from sueca.vision.train_locator import tune_on_parts

    try:
        resolve_styles("real_train_all")
    except ValueError as e:
        raise SystemExit(f"tune_locator_sizes: {e}")
    tune_on_parts(args.model, args.out, parts(args), args.epochs, args.lr0, "locator_sizes",
                  log=lambda m: print(m, flush=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
