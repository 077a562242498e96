#!/usr/bin/env python3
"""The installed recognizer on other artists' decks, which no model ever trained on.

Renders table scenes with the held-out real decks (``sueca dataset
fetch-heldout-decks`` first; styles ``REAL_HELDOUT_STYLES``, or any of ``REAL_STYLES``
named with ``--decks``, e.g. the decks the readers learnt from), one deck per run of
scenes, and prints per deck and in all the same figures as the model card's
test set: recall of readable cards, of cards lying whole, wrong identities,
locator recall.

    .venv/bin/sueca dataset fetch-heldout-decks
    .venv/bin/python scripts/real_decks_check.py --scenes 40

``--threshold`` reads at another card threshold (e.g. the model's video one).
``--tables KIND ...`` draws the table tops from those kinds only (e.g. the white ones,
``datasets.textures.BRIGHT_KINDS``: a card's edge is then a step of a few grey levels).
``--card-frac LO HI`` draws each scene's card height from LO to HI of the frame's
(default 0.06-0.20, the overhead camera's; a phone's close-up of a few cards is
0.3-0.7) and ``--layout`` the scene's layout (``scatter``: 3-11 cards thrown on the
table), to see how recall holds where the cards are larger than the locator learnt:

    .venv/bin/python scripts/real_decks_check.py --decks test_pt_serif real_bellot \
        --scenes 25 --max-tilt 45 --layout scatter --card-frac 0.3 0.45
"""

from __future__ import annotations

import argparse
import json
import time


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scenes", type=int, default=40, help="scenes per deck (default 40)")
    ap.add_argument("--seed", type=int, default=970000, help="first scene seed (default 970000)")
    ap.add_argument("--model", default=None, help="model folder (default: the installed models)")
    ap.add_argument("--threshold", type=float, default=None, help="card threshold (default: the model's)")
    ap.add_argument("--decks", nargs="*", default=None,
                    help="style names (default: the held-out ones, styles.REAL_HELDOUT_STYLES, where cached)")
    ap.add_argument("--max-tilt", type=float, default=None, help="camera tilt limit, degrees (default 30)")
    ap.add_argument("--card-frac", type=float, nargs=2, default=None, metavar=("LO", "HI"),
                    help="card height as a fraction of the frame's, drawn from LO to HI (default 0.06 0.20)")
    ap.add_argument("--layout", choices=("game", "scatter", "fan"), default=None,
                    help="scene layout (default: the generator's mix)")
    ap.add_argument("--tables", nargs="+", default=None, metavar="KIND",
                    help="table tops to draw from (default: the generator's; e.g. white_marble white_paint "
                         "white_laminate white_cloth, datasets.textures.BRIGHT_KINDS)")
    ap.add_argument("--json", action="store_true", help="one JSON line instead of the table")
    args = ap.parse_args(argv)
    if args.card_frac is not None and not 0 < args.card_frac[0] <= args.card_frac[1] <= 1:
        lo, hi = args.card_frac
        raise SystemExit(f"real_decks_check: --card-frac needs 0 < LO <= HI <= 1, got {lo} {hi}")

    from sueca.datasets.styles import resolve_styles
    from sueca.vision.recognizer import load_recognizer
    from sueca.vision.train_eval import evaluate

    try:
        styles = [s.name for s in resolve_styles("real_heldout")] if args.decks is None else args.decks
    except ValueError as e:
        raise SystemExit(f"real_decks_check: {e}")
    rec = load_recognizer(args.model) if args.model else load_recognizer()
    if args.threshold is not None:
        import dataclasses

        rec.config = dataclasses.replace(rec.config, threshold=args.threshold)
    options = {} if args.max_tilt is None else {"max_tilt": args.max_tilt}
    if args.card_frac is not None:
        options["card_frac"] = tuple(args.card_frac)
    if args.layout is not None:
        options["layout"] = args.layout
    if args.tables is not None:
        from sueca.datasets.textures import ALL_KINDS

        unknown = [k for k in args.tables if k not in ALL_KINDS]
        if unknown:
            raise SystemExit(f"real_decks_check: unknown table {unknown[0]!r}; known: {', '.join(ALL_KINDS)}")
        options["tables"] = tuple(args.tables)
    rows, t0 = {}, time.time()
    for k, style in enumerate(styles):
        # each deck its own seeds: no two decks share a layout
        seeds = range(args.seed + 1000 * k, args.seed + 1000 * k + args.scenes)
        m, _ = evaluate(rec, seeds, [style], log=lambda *a: None, **options)
        rows[style] = m
    total = {key: sum(m[key] for m in rows.values()) for key in
             ("readable_cards", "read_right", "whole_cards", "whole_read_right", "reported_identities",
              "wrong_identities", "locatable_cards", "located")}
    if args.json:
        print(json.dumps({"threshold": rec.config.threshold, "decks": {s: {k: v for k, v in m.items()
                          if k != "options"} for s, m in rows.items()}, "total": total,
                          "s": round(time.time() - t0)}))
        return 0
    print(f"threshold {rec.config.threshold}, {args.scenes} scenes per deck from seed {args.seed}")
    print(f"{'deck':32s} {'recall':>16s} {'whole':>14s} {'wrong':>9s} {'locator':>14s}")

    def line(name, m):
        def pct(a, b):
            return f"{100 * a / max(b, 1):5.1f}% ({a}/{b})"
        print(f"{name:32s} {pct(m['read_right'], m['readable_cards']):>16s} "
              f"{pct(m['whole_read_right'], m['whole_cards']):>14s} "
              f"{m['wrong_identities']:>3d}/{m['reported_identities']:<5d} {pct(m['located'], m['locatable_cards']):>14s}")

    for style, m in rows.items():
        line(style, m)
    line("all", total)
    for style, m in rows.items():
        for w in m["wrong_examples"]:
            print(f"  {style}: {w}")
    print(f"{time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
