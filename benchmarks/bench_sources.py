"""How fast frames come out of the file sources, and what the geometry costs.

Writes a 1280x960 test video (noise + moving rectangles, mp4v) under /tmp,
then reads it through ``open_source`` and times ``Calibration.seats_of``.

    python benchmarks/bench_sources.py [--frames 150]
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

from sueca.hardware import open_source
from sueca.vision.geometry import Calibration


def write_video(path: Path, frames: int, size=(1280, 960), fps=10) -> None:
    rng = np.random.default_rng(0)
    base = rng.integers(30, 90, (size[1], size[0], 3), dtype=np.uint8)
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, size)
    for k in range(frames):
        image = base.copy()
        cv2.rectangle(image, (100 + 5 * k, 300), (170 + 5 * k, 400), (240, 240, 240), -1)
        writer.write(image)
    writer.release()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--frames", type=int, default=150)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        video = Path(tmp) / "bench.mp4"
        write_video(video, args.frames)
        start = time.perf_counter()
        with open_source(str(video)) as source:
            count = sum(1 for _ in source)
        elapsed = time.perf_counter() - start
    print(f"video 1280x960 mp4v: {count} frames in {elapsed:.2f} s = {count / elapsed:.0f} "
          f"frames/s ({count / elapsed / 10:.1f}x real time at 10 fps)")
    cal = Calibration.propose(1280, 960)
    points = np.random.default_rng(1).uniform([0, 0], [1280, 960], (8, 2))
    rounds = 2000
    start = time.perf_counter()
    for _ in range(rounds):
        cal.seats_of(points)
    per_call = (time.perf_counter() - start) / rounds
    print(f"Calibration.seats_of, 8 points: {per_call * 1e6:.0f} us per call")
    start = time.perf_counter()
    for _ in range(rounds):
        for p in points:
            cal.region_of(tuple(p))
    per_point = (time.perf_counter() - start) / rounds / len(points)
    print(f"Calibration.region_of: {per_point * 1e6:.0f} us per point")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory: {peak:.0f} MB")


if __name__ == "__main__":
    main()
