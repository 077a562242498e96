#!/usr/bin/env python3
"""End-to-end throughput of the referee pipeline on a 1280x960 game video.

Decodes the video (``sueca.hardware.sources``), recognizes each frame, tracks,
emits play events and keeps the record, as ``sueca run --no-server`` does.
Prints frames/s, the ratio to real time (video seconds per wall second) and
the peak resident memory.

    python benchmarks/bench_pipeline.py                       # renders a 1-hand game first
    python benchmarks/bench_pipeline.py --game /tmp/g1        # a 'sueca dataset game' folder
    python benchmarks/bench_pipeline.py --game /tmp/g1 --oracle --seed 5 --hands 1
    python benchmarks/bench_pipeline.py --game /tmp/g1 --compare-still   # with/without sueca.vision.still

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
    ap.add_argument("--compare-still", action="store_true",
                    help="run again without the outline memory of still cards and print the ratio")
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

    def one_run(still: bool) -> dict:
        rss0 = _rss_mb()
        with open_source(str(game / "video.mp4")) as src:
            frames = iter(src)
            if args.frames:
                import itertools

                frames = itertools.islice(frames, args.frames)
            pipe = Pipeline(frames, recognizer, cal, prefetch=args.prefetch, still_outlines=still)
            t0 = time.perf_counter()
            for _ in pipe:
                pass
            wall = time.perf_counter() - t0
        fps_video = float(meta.get("fps", 10.0))
        video_s = pipe.frames / fps_video
        mem = pipe.outline_memory
        return {
            "measured": what, "still_outlines": mem is not None,
            "video": str(game / "video.mp4"), "size": meta.get("size"), "frames": pipe.frames,
            "wall_s": round(wall, 2), "fps": round(pipe.frames / wall, 1),
            "realtime_ratio": round(video_s / wall, 2),
            "plays": pipe.plays, "prefetch": args.prefetch, "peak_rss_mb": round(_rss_mb(), 1),
            "rss_before_mb": round(rss0, 1),
            "outlines_reused": None if mem is None else round(mem.reused / max(mem.reused + mem.refined, 1), 3),
        }

    runs = [one_run(True)]
    if args.compare_still and not args.oracle:
        runs.append(one_run(False))
    for r in runs:
        print(json.dumps(r))
    if len(runs) == 2:
        print(f"fps with still outlines {runs[0]['fps']}, without {runs[1]['fps']}: "
              f"{runs[0]['fps'] / max(runs[1]['fps'], 1e-9):.2f}x; plays {runs[0]['plays']} vs {runs[1]['plays']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
