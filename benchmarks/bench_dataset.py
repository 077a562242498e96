"""Images per second of ``sueca dataset build`` at 640x640 (prints the figure).

    .venv/bin/python benchmarks/bench_dataset.py [--images 300] [--workers N] [--size 640]

Renders into a temporary folder with the same code path as the CLI (JPEG
encoding and label writing included). The cold rate includes filling the
card and texture caches in each worker; the warm rate is measured after
``prewarm()`` filled them in the parent (as ``build_dataset`` does for large runs).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the pool's workers)."""
    import resource

    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--images", type=int, default=300)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--size", type=int, default=640)
    args = ap.parse_args()
    from sueca.datasets.build import build_dataset, prewarm

    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        build_dataset(os.path.join(d, "cold"), max(args.workers * 8, 16), seed=1, size=args.size,
                      workers=args.workers, progress=False)
        cold = time.perf_counter() - t0
        prewarm()  # warm caches in this process; the pool's forked workers inherit them
        c0 = _cpu()
        t0 = time.perf_counter()
        build_dataset(os.path.join(d, "run"), args.images, seed=2, size=args.size, workers=args.workers,
                      progress=False)
        dt = time.perf_counter() - t0
        cpu = (_cpu() - c0) / args.images
    n_cold = max(args.workers * 8, 16)
    print(f"sueca dataset build: {args.images} images {args.size}x{args.size}, {args.workers} workers: "
          f"{args.images / dt:.1f} images/s ({dt:.1f} s); cold start {n_cold / cold:.1f} images/s")
    # The machine is shared: CPU time per image says what idle cores would give.
    print(f"CPU time per image: {cpu * 1000:.1f} ms -> {args.workers / cpu:.1f} images/s on {args.workers} idle cores; "
          f"load average now {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
