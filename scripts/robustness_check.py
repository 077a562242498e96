#!/usr/bin/env python3
"""How the installed recognizer holds up when the picture gets worse than it trained on.

Renders held-out scenes once (the generator's test deck styles and the printed decks no
model learnt, ``sueca dataset fetch-heldout-decks`` first), then reads them again under
each degradation of :mod:`sueca.datasets.degrade` (JPEG, noise, defocus, motion blur, dim
light, colour cast, tint, low resolution, glare, a shadow, haze), one row each, all rows in one
run. What matters is the *wrong* column: a worse picture should cost readings (the
referee is asked), never give a wrong card.

    .venv/bin/python scripts/robustness_check.py --scenes 20
    .venv/bin/python scripts/robustness_check.py --rows none defocus:2 dark:0.15 --json

``--allowances N`` prints instead what the colour balance's rule (`vision/balance.py`) gives
on N validation scenes of the training styles (from seed 500000): the 90th to 99th percentile
of each cast axis; the recipe's ``train_run.BALANCE`` is the 95th of 300.
"""

from __future__ import annotations

import argparse
import json
import time

#: One row per effect, a strength at the edge of what the generator draws and one past it.
DEFAULT_ROWS = ("none", "jpeg:25", "jpeg:12", "noise:10", "noise:20", "defocus:1.5", "defocus:2.5",
                "motion:7", "motion:13", "dark:0.25", "dark:0.12", "cast:1", "cast:-1", "tint:1", "tint:-1",
                "lowres:0.6", "lowres:0.4", "glare:0.12", "glare:0.25", "shadow:0.5", "shadow:0.3", "haze:0.5",
                "haze:0.3")

GROUPS = {"synthetic": ("test_pt_serif", "test_light_sans")}
KEYS = ("readable_cards", "read_right", "whole_cards", "whole_read_right", "reported_identities",
        "wrong_identities", "locatable_cards", "located")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scenes", type=int, default=20, help="scenes per deck (default 20)")
    ap.add_argument("--seed", type=int, default=970000, help="first scene seed (default 970000)")
    ap.add_argument("--model", default=None, help="model folder (default: the installed models)")
    ap.add_argument("--rows", nargs="*", default=list(DEFAULT_ROWS),
                    help="degradations, name:level (default: two strengths of each; 'none' for the clean scenes)")
    ap.add_argument("--json", action="store_true", help="one JSON line per row instead of the table")
    ap.add_argument("--allowances", type=int, default=0, metavar="N",
                    help="print the colour balance's allowances on N training-style validation scenes, and stop")
    args = ap.parse_args(argv)
    if args.allowances:
        return _allowances(args.allowances)

    from sueca.datasets.degrade import degrade, parse
    from sueca.datasets.styles import resolve_styles
    from sueca.vision.recognizer import load_recognizer
    from sueca.vision.train_data import render
    from sueca.vision.train_eval import evaluate

    for spec in args.rows:
        if spec != "none":
            try:
                parse(spec)
            except ValueError as e:
                raise SystemExit(f"robustness_check: {e}")
    groups = dict(GROUPS)
    try:
        groups["printed"] = tuple(s.name for s in resolve_styles("real_heldout"))
    except ValueError as e:
        print(f"robustness_check: printed decks left out ({e})")
    rec = load_recognizer(args.model) if args.model else load_recognizer()

    # each deck its own seeds (as real_decks_check.py): no two decks share a layout
    decks = [(g, style, range(args.seed + 1000 * k, args.seed + 1000 * k + args.scenes))
             for k, (g, style) in enumerate((g, s) for g, styles in groups.items() for s in styles)]
    cache = {}
    t0 = time.time()
    for _, style, seeds in decks:
        for seed in seeds:
            cache[seed] = render(seed, (1280, 960), [style])
    if not args.json:
        print(f"{len(cache)} scenes rendered in {time.time() - t0:.0f} s; threshold {rec.config.threshold}")
        print(f"{'picture':14s}" + "".join(f"{g + ' read':>22s} {'wrong':>6s}" for g in groups)
              + f" {'whole, all':>12s} {'located':>8s} {'s':>4s}")

    def pct(a, b):
        return f"{100 * a / max(b, 1):5.1f}% ({a}/{b})"

    for spec in args.rows:
        t1 = time.time()
        totals = {g: dict.fromkeys(KEYS, 0) for g in groups}
        examples = []
        for g, style, seeds in decks:
            m, _ = evaluate(rec, seeds, [style], log=lambda *a: None, scenes=cache.__getitem__,
                            image_filter=lambda img, seed, spec=spec: degrade(img, spec, seed))
            for key in KEYS:
                totals[g][key] += m[key]
            examples += [f"{style}: {w}" for w in m["wrong_examples"]]
        whole = sum(t["whole_read_right"] for t in totals.values()), sum(t["whole_cards"] for t in totals.values())
        located = sum(t["located"] for t in totals.values()), sum(t["locatable_cards"] for t in totals.values())
        if args.json:
            print(json.dumps({"picture": spec, "groups": totals, "wrong_examples": examples,
                              "s": round(time.time() - t1, 1)}), flush=True)
            continue
        print(f"{spec:14s}" + "".join(f"{pct(t['read_right'], t['readable_cards']):>22s} "
                                      f"{t['wrong_identities']:>6d}" for t in totals.values())
              + f" {100 * whole[0] / max(whole[1], 1):11.1f}% {100 * located[0] / max(located[1], 1):7.1f}%"
              f" {time.time() - t1:4.0f}", flush=True)
        for w in examples:
            print(f"    wrong: {w}")
    return 0


def _allowances(n: int) -> int:
    from sueca.vision.balance import cast_allowances
    from sueca.vision.train_data import render

    frames = [render(seed, (1280, 960), "train").image for seed in range(500000, 500000 + n)]
    for q in (90, 95, 98, 99):
        wc, gm = cast_allowances(frames, q)
        print(f"percentile {q}: warm-cold {wc:.3f}, green-magenta {gm:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
