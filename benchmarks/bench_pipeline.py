#!/usr/bin/env python3
"""End-to-end throughput of the referee pipeline on a 1280x960 game video.

Decodes the video (``sueca.hardware.sources``), recognizes each frame, tracks,
emits play events and keeps the record, as ``sueca run --no-server`` does.
Prints frames/s, the ratio to real time (video seconds per wall second) and
the peak resident memory.

    python benchmarks/bench_pipeline.py                       # renders a 1-hand game first
    python benchmarks/bench_pipeline.py --game /tmp/g1        # a 'sueca dataset game' folder
    python benchmarks/bench_pipeline.py --game /tmp/g1 --oracle --seed 5 --hands 1

``--oracle`` replaces the recognizer by the game plan's truth (what
``scripts/eval_games.py --plan`` uses): it measures decoding + tracking + play
events + engine only, for when no trained model is installed; the summary
says which was measured.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path


def _rss_mb() -> float:
    # ru_maxrss is in KiB on Linux
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", type=Path, default=None, help="folder with video.mp4 + calibration.json")
    ap.add_argument("--seed", type=int, default=5, help="seed of the game (to render, or for --oracle)")
    ap.add_argument("--hands", type=int, default=1)
    ap.add_argument("--frames", type=int, default=0, help="stop after this many frames (0: whole video)")
    ap.add_argument("--model", default=None, help="recognizer model folder (default: packaged)")
    ap.add_argument("--threads", type=int, default=None, help="ONNX Runtime threads")
    ap.add_argument("--oracle", action="store_true", help="plan truth instead of the recognizer")
    ap.add_argument("--prefetch", type=int, default=2, help="frames decoded ahead on a thread (0: none)")
    args = ap.parse_args(argv)

    from sueca.hardware.sources import open_source
    from sueca.vision.geometry import Calibration
    from sueca.vision.pipeline import Pipeline

    game = args.game
    if game is None:
        from sueca.datasets.game import render_game

        game = Path(f"/tmp/sueca-bench-{args.seed}-{args.hands}")
        if not (game / "video.mp4").exists():
            print(f"rendering a {args.hands}-hand game to {game} ...", file=sys.stderr)
            render_game(game, seed=args.seed, hands=args.hands, progress=False)
    cal = Calibration.load(game / "calibration.json")
    meta = json.loads((game / "events.json").read_text()) if (game / "events.json").exists() else {}

    if args.oracle:
        from sueca.vision.planoracle import PlanTable
        from sueca.vision.simtable import OracleDetector

        table = PlanTable(args.seed, args.hands)
        truth_frames = [f.image for f in table.frames(meta.get("fps", 10.0))]
        oracle = OracleDetector(seed=args.seed)
        counter = iter(range(len(truth_frames)))

        def recognizer(image):
            return oracle(truth_frames[next(counter)])
        what = "decode + oracle detections + tracking + play events + engine (no recognizer)"
    else:
        from sueca.vision.recognizer import load_recognizer

        try:
            recognizer = load_recognizer(args.model, threads=args.threads)
        except Exception as e:
            print(f"bench_pipeline: no recognizer ({e}); use --oracle to time the rest", file=sys.stderr)
            return 2
        what = "decode + recognizer + tracking + play events + engine"

    rss0 = _rss_mb()
    with open_source(str(game / "video.mp4")) as src:
        frames = iter(src)
        if args.frames:
            import itertools

            frames = itertools.islice(frames, args.frames)
        pipe = Pipeline(frames, recognizer, cal, prefetch=args.prefetch)
        t0 = time.perf_counter()
        for _ in pipe:
            pass
        wall = time.perf_counter() - t0
    fps_video = float(meta.get("fps", 10.0))
    video_s = pipe.frames / fps_video
    out = {
        "measured": what,
        "video": str(game / "video.mp4"), "size": meta.get("size"), "frames": pipe.frames,
        "wall_s": round(wall, 2), "fps": round(pipe.frames / wall, 1),
        "realtime_ratio": round(video_s / wall, 2),
        "plays": pipe.plays, "prefetch": args.prefetch, "peak_rss_mb": round(_rss_mb(), 1), "rss_before_mb": round(rss0, 1),
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
