#!/usr/bin/env python3
"""The installed recognizer on the same pixels under different library versions.

The first run renders the held-out test scenes (200 from seed 900000) and the
validation scenes (400 from 500000) into ``--cache`` as PNG plus JSON labels;
every later run, in any venv, reads those files instead of rendering. So two
venvs (say the development one and one made with ``deploy/pi-constraints.txt``,
numpy 1.x and OpenCV 4.11 as on Raspberry Pi OS) are compared on identical
images, and any difference comes from the runtime libraries alone.

    .venv/bin/python scripts/versions_check.py --cache /tmp/scenes
    /tmp/venv-pi/bin/python scripts/versions_check.py --cache /tmp/scenes
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path


def cached_render(cache: Path):
    """A drop-in for ``sueca.vision.train_data.render`` that keeps each scene on disk (also
    ``recall_check.py``'s and ``confidence_check.py``'s cache)."""
    import cv2
    import numpy as np

    from sueca.datasets.scene import CardLabel, Scene
    from sueca.vision import train_data

    original = train_data.render

    def render(seed, size, styles, **options):
        # the render options (a camera's tilt limit, ...) name their scenes apart
        tag = "_".join([f"{styles if isinstance(styles, str) else '-'.join(styles)}_{seed}_{size[0]}x{size[1]}"]
                       + [f"{k}{v}" for k, v in sorted(options.items())])
        png, meta = cache / f"{tag}.png", cache / f"{tag}.json"
        if png.exists() and meta.exists():
            d = json.loads(meta.read_text())
            image = cv2.imread(str(png), cv2.IMREAD_COLOR)
            if image is None:
                raise SystemExit(f"{png}: not a readable PNG; delete it to render the scene again")
            return Scene(image, [CardLabel.from_json(c) for c in d["cards"]], d["seed"], d["meta"])
        scene = original(seed, size, styles, **options)
        cv2.imwrite(str(png), scene.image)
        meta.write_text(json.dumps({"seed": scene.seed, "meta": _plain(scene.meta),
                                    "cards": [c.to_json() for c in scene.cards]}))
        return scene

    def _plain(v):
        if isinstance(v, dict):
            return {str(k): _plain(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [_plain(x) for x in v]
        if isinstance(v, np.generic):
            return v.item()
        if isinstance(v, np.ndarray):
            return v.tolist()
        return v

    train_data.render = render


def versions() -> dict:
    import cv2
    import numpy
    import onnxruntime

    return {"numpy": numpy.__version__, "opencv": cv2.__version__, "onnxruntime": onnxruntime.__version__}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", type=Path, required=True, help="folder of rendered scenes (made on first use)")
    ap.add_argument("--model", default=None, help="model folder (default: the installed models)")
    ap.add_argument("--test", type=int, default=200)
    ap.add_argument("--val", type=int, default=400)
    args = ap.parse_args(argv)
    args.cache.mkdir(parents=True, exist_ok=True)
    cached_render(args.cache)

    from sueca.vision.recognizer import load_recognizer
    from sueca.vision.train_eval import choose_card_threshold, choose_video_threshold, evaluate, readings

    rec = load_recognizer(args.model) if args.model else load_recognizer()
    out = {"versions": versions(), "threshold": rec.config.threshold}
    t0 = time.time()
    m, _ = evaluate(rec, range(900000, 900000 + args.test), "test", log=lambda *a: None)
    keys = ("recall_readable", "read_right", "readable_cards", "wrong_identities", "reported_identities",
            "locator_recall", "recall_whole", "wrong_examples")
    out["test"] = {k: m[k] for k in keys}
    if args.val:
        rows, n = readings(rec, range(500000, 500000 + args.val), "train")
        t, table = choose_card_threshold(rows, n)
        out["val_threshold"], out["video_threshold"] = t, choose_video_threshold(table)
        out["val"] = [(r["threshold"], round(r["recall"], 4), r["wrong"]) for r in table]
    out["s"] = round(time.time() - t0)
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
