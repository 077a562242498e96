#!/usr/bin/env python3
"""Fine-tune a model folder's locator on white table tops too (runs in ``.venv-train``).

A white marble or painted café table is as bright as the cards' stock: a card's edge is a
step of a few grey levels, and the locator, which rarely saw such a table, boxes few cards
there (``models/EXPERIMENTS.md``, seventeenth session: on a white cloth 37 of 130 whole cards
of the test styles got no box). This renders, 640x480 as the locator's own data, every 10th
for validation:

- ``--bright-scenes`` scenes of the training styles and ``--bright-real-scenes`` of the 21
  printed training decks (``real_train_all``; ``sueca dataset fetch-heldout-decks`` first)
  on the white tops of :data:`sueca.datasets.textures.BRIGHT_KINDS`;
- ``--synth-scenes`` and ``--real-scenes`` of the same decks on the generator's own tables,
  so that it keeps what it knew;

continues training ``--model``'s ``locator.pt`` on them at a low learning rate (AdamW,
:func:`sueca.vision.train_locator.finetune_locator`, no mosaic) and writes a copy of
``--model`` with the new ``locator.pt`` / ``locator.onnx`` to ``OUT/model`` (thresholds as
they were). Its 8-bit locators: ``python -m sueca.vision.quantize OUT/model --only locator
locator_zoom``. The held-out decks and the test styles are never drawn; the seeds (from
:data:`SEED0`) are no other set's.

    .venv-train/bin/python scripts/tune_locator_tables.py --out /tmp/loctables
    .venv-train/bin/python -m sueca.vision.quantize /tmp/loctables/model --scenes 40 --only locator locator_zoom
    .venv/bin/python scripts/real_decks_check.py --model /tmp/loctables/model --scenes 40 \\
        --tables white_marble white_paint white_laminate white_cloth
"""

from __future__ import annotations

import argparse
from pathlib import Path

#: First scene seed of each part; no other step or check draws seeds from 7_300_000 to 7_340_000.
SEED0 = 7_300_000


def parts(args) -> list[tuple[str, int, str | None, int, dict]]:
    """(folder, first seed, decks, scenes, scene options) of each part."""
    from sueca.datasets.textures import BRIGHT_KINDS

    white = {"tables": BRIGHT_KINDS}
    out = [("white", SEED0, None, args.bright_scenes, white),
           ("whitereal", SEED0 + 10_000, "real_train_all", args.bright_real_scenes, white),
           ("synth", SEED0 + 20_000, None, args.synth_scenes, {}),
           ("real", SEED0 + 30_000, "real_train_all", args.real_scenes, {})]
    return [p for p in out if p[3] > 0]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", type=Path, default=Path("models"))
    ap.add_argument("--out", type=Path, required=True, help="work folder; the new model goes to OUT/model")
    ap.add_argument("--bright-scenes", type=int, default=500, help="training styles on white tops")
    ap.add_argument("--bright-real-scenes", type=int, default=250, help="printed training decks on white tops")
    ap.add_argument("--synth-scenes", type=int, default=700, help="training styles on the generator's tables")
    ap.add_argument("--real-scenes", type=int, default=250, help="printed training decks on the generator's tables")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--lr0", type=float, default=0.0005)
    args = ap.parse_args(argv)
    if args.epochs < 1 or min(args.bright_scenes, args.synth_scenes) < 10:
        ap.error("--epochs >= 1, --bright-scenes and --synth-scenes >= 10 please")

    from sueca.datasets.styles import resolve_styles
    from sueca.vision.train_locator import tune_on_parts

    try:
        resolve_styles("real_train_all")
    except ValueError as e:
        raise SystemExit(f"tune_locator_tables: {e}")
    tune_on_parts(args.model, args.out, parts(args), args.epochs, args.lr0, "locator_tables",
                  log=lambda m: print(m, flush=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
