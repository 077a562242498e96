#!/usr/bin/env python3
"""The model card's headline recall rows in one run, on scenes cached on disk.

Four sets, each matched as ``sueca.vision.train_eval.evaluate`` matches:

- ``test``: the held-out synthetic test, 200 scenes from seed 900000, deck styles never
  trained on (``test_pt_serif``, ``test_light_sans``), as the recipe's evaluation;
- ``printed``, ``tilted``, ``layouts``: the three held-out printed decks (Bellot, KDE
  Tigullio, Aguilar: ``styles.REAL_HELDOUT_STYLES``, ``sueca dataset fetch-heldout-decks``
  first), 40 scenes a deck, as ``scripts/real_decks_check.py`` makes them: seeds from 970000,
  the same with the camera tilted up to 45 degrees, and seeds from 980000.

The first run renders every scene into ``--cache`` (PNG + JSON, ``versions_check.cached_render``;
about 4 minutes here); each later run reads them, so two model folders or two settings are
compared on identical pixels.
The generator's table tops depend on whether the CC0 photo textures are fetched (``sueca
dataset fetch-textures`` adds terrazzo tops and floors): the scenes of each case are cached
apart, and ``--plain-tables`` renders without them where they are fetched.
``--set outliner.last_look=false`` (any ``recognizer.json`` key, dotted, a JSON value) reads
with a setting changed, for what a stage buys:

    .venv/bin/python scripts/recall_check.py --cache /tmp/recall
    .venv/bin/python scripts/recall_check.py --cache /tmp/recall --set outliner.split_box=false
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import time
from pathlib import Path

TEST_SEED0, PRINTED_SEED0, LAYOUTS_SEED0 = 900000, 970000, 980000
#: name -> (first seed, styles: None for the held-out printed decks, render options)
SETS = {
    "test": (TEST_SEED0, "test", {}),
    "printed": (PRINTED_SEED0, None, {}),
    "tilted": (PRINTED_SEED0, None, {"max_tilt": 45.0}),
    "layouts": (LAYOUTS_SEED0, None, {}),
}
KEYS = ("readable_cards", "read_right", "whole_cards", "whole_read_right", "reported_identities",
        "wrong_identities")


def with_settings(config, settings: list[str]):
    """``config`` with each ``a.b=JSON`` of ``settings`` set (a dotted key into its dicts)."""
    for item in settings:
        key, sep, raw = item.partition("=")
        if not sep:
            raise SystemExit(f"recall_check: --set {item!r}: expected KEY=VALUE")
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        top, *path = key.split(".")
        if not hasattr(config, top):
            raise SystemExit(f"recall_check: --set {item!r}: the recognizer config has no {top!r}")
        if not path:
            config = dataclasses.replace(config, **{top: value})
            continue
        inner = dict(getattr(config, top) or {})
        node = inner
        for part in path[:-1]:
            node[part] = dict(node.get(part) or {})
            node = node[part]
        node[path[-1]] = value
        config = dataclasses.replace(config, **{top: inner})
    return config


def run_set(rec, name: str, scenes: int) -> dict:
    from sueca.datasets.styles import resolve_styles
    from sueca.vision.train_eval import evaluate

    seed0, style, options = SETS[name]
    # as the recipe's evaluation ("test") and real_decks_check.py ([deck]) name them
    styles = [style] if style else [[s.name] for s in resolve_styles("real_heldout")]
    total = {k: 0 for k in KEYS}
    wrong: list[str] = []
    for k, st in enumerate(styles):
        # each printed deck its own seeds, as real_decks_check.py: no two decks share a layout
        first = seed0 + (1000 * k if style is None else 0)
        seeds = range(first, first + scenes)
        m, _ = evaluate(rec, seeds, st, log=lambda *a: None, **options)
        for key in KEYS:
            total[key] += m[key]
        wrong += [f"{st if isinstance(st, str) else st[0]} {w}" for w in m["wrong_examples"]]
    total["wrong_examples"] = wrong
    return total


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", type=Path, required=True, help="folder of rendered scenes (made on first use)")
    ap.add_argument("--model", default=None, help="model folder (default: the installed models)")
    ap.add_argument("--sets", nargs="+", default=list(SETS), choices=list(SETS))
    ap.add_argument("--test-scenes", type=int, default=200)
    ap.add_argument("--deck-scenes", type=int, default=40, help="scenes per printed deck and set (default 40)")
    ap.add_argument("--precision", choices=("int8", "fp32"), default=None,
                    help="the networks' precision (default: the model's, 8-bit where it has them)")
    ap.add_argument("--set", dest="settings", action="append", default=[], metavar="KEY=VALUE",
                    help="a recognizer.json setting changed for this run (dotted key, JSON value)")
    ap.add_argument("--json", action="store_true", help="one JSON line instead of the table")
    ap.add_argument("--plain-tables", action="store_true",
                    help="render without the fetched photo textures (as where they are not fetched)")
    args = ap.parse_args(argv)
    if args.plain_tables:  # phototex.available() looks there and finds nothing
        os.environ["SUECA_TEXTURE_CACHE"] = str(args.cache / "no-textures")
    from sueca.datasets import phototex

    textured = phototex.available()
    cache = args.cache / ("photo-textures" if textured else "plain-tables")
    cache.mkdir(parents=True, exist_ok=True)

    from sueca.vision.recognizer import load_recognizer

    rec = load_recognizer(args.model, precision=args.precision)
    rec.config = with_settings(rec.config, args.settings)
    from versions_check import cached_render  # this folder's: train_data.render kept on disk

    cached_render(cache)
    rows, t0 = {}, time.time()
    for name in args.sets:
        rows[name] = run_set(rec, name, args.test_scenes if name == "test" else args.deck_scenes)
    printed = [n for n in rows if n != "test"]
    if printed:
        rows["printed, all"] = {k: sum(rows[n][k] for n in printed) for k in KEYS}
        rows["printed, all"]["wrong_examples"] = [w for n in printed for w in rows[n]["wrong_examples"]]
    secs = round(time.time() - t0)
    if args.json:
        print(json.dumps({"threshold": rec.config.threshold, "photo_textures": textured, "settings": args.settings, "sets": rows, "s": secs}))
        return 0
    print(f"threshold {rec.config.threshold}, table tops {'with' if textured else 'without'} the photo textures"
          + (f", set {' '.join(args.settings)}" if args.settings else ""))
    print(f"{'set':14s} {'readable read':>20s} {'whole read':>20s} {'wrong':>12s}")
    for name, m in rows.items():
        def pct(a, b):
            return f"{a}/{b} ({100 * a / max(b, 1):.1f}%)"
        print(f"{name:14s} {pct(m['read_right'], m['readable_cards']):>20s} "
              f"{pct(m['whole_read_right'], m['whole_cards']):>20s} "
              f"{m['wrong_identities']:>4d} of {m['reported_identities']:<5d}")
    for name in ("test", "printed, all"):
        for w in rows.get(name, {}).get("wrong_examples", []):
            print(f"  {name}: {w}")
    print(f"{secs} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
