#!/usr/bin/env python3
"""What the close looks on video cost (``outliner.close_look``, ``sueca.vision.close_look``).

Reads a game video's frames through the live call twice over, the model as installed and the
same with ``close_look`` off, frame by frame in turn in one process (each with its own memory,
the close looks kept to the game's play area as the pipeline keeps them), so the machine's
drift falls on both alike. Prints per-frame milliseconds (median, mean, p95, slowest) of each,
the ratio of the means, and how many close looks were made and how many read a card.

    python benchmarks/bench_close_look.py --game /tmp/gv/real_bellot_g8722
    python benchmarks/bench_close_look.py --game /tmp/g1 --frames 600
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np


def _stats(seconds: list[float]) -> dict:
    ms = np.sort(np.asarray(seconds) * 1000)
    return {"median": round(float(np.median(ms)), 1), "mean": round(float(ms.mean()), 1),
            "p95": round(float(ms[int(len(ms) * 0.95)]), 1), "max": round(float(ms[-1]), 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", type=Path, required=True, help="a 'sueca dataset game' folder (video.mp4, calibration.json)")
    ap.add_argument("--frames", type=int, default=0, help="stop after this many frames (0: whole video)")
    ap.add_argument("--model", default=None, help="recognizer model folder (default: packaged)")
    args = ap.parse_args(argv)

    from sueca.hardware.sources import open_source
    from sueca.vision.geometry import Calibration
    from sueca.vision.recognizer import load_recognizer
    from sueca.vision.still import OutlineMemory

    with_looks = load_recognizer(args.model)
    after = (with_looks.config.outliner or {}).get("close_look")
    if not after:
        print("bench_close_look: the model's recognizer.json has no outliner.close_look", file=sys.stderr)
        return 2
    without = load_recognizer(args.model)
    without.config = replace(without.config, outliner={**without.config.outliner, "close_look": False})
    cal = Calibration.load(args.game / "calibration.json")
    runs = {"without": (without, OutlineMemory(), []), "with": (with_looks, OutlineMemory(), [])}
    runs["with"][1].close.where = lambda x, y, size: cal.is_in_play_area((x, y), size)
    with open_source(str(args.game / "video.mp4")) as src:
        for k, frame in enumerate(src):
            if args.frames and k >= args.frames:
                break
            order = ("with", "without") if k % 2 else ("without", "with")
            for name in order:
                rec, memory, times = runs[name]
                t0 = time.perf_counter()
                rec(frame.image, memory=memory, threshold=rec.config.video_threshold)
                times.append(time.perf_counter() - t0)
    looks = runs["with"][1].close
    out = {"video": str(args.game / "video.mp4"), "frames": len(runs["with"][2]), "close_look": after,
           "without_ms": _stats(runs["without"][2]), "with_ms": _stats(runs["with"][2]),
           "mean_ratio": round(float(np.mean(runs["with"][2]) / np.mean(runs["without"][2])), 3),
           "looks": looks.looks, "read": looks.read}
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
