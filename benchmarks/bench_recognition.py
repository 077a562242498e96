"""Per-frame card recognition speed: ONNX Runtime vs PyTorch, side by side, one run.

Frames: generated 1280x960 table scenes with 4 to 8 face-up cards. Each
backend runs in its own process (clean peak memory): ONNX Runtime in this
interpreter's venv, PyTorch in ``.venv-train`` when it exists.

    .venv/bin/python benchmarks/bench_recognition.py [--frames 30] [--threads N]

ONNX Runtime runs the model's default networks (8-bit where it has them: ``sueca.vision.quantize``),
then its float networks (``precision="fp32"``), then without the face-suit check and with the
first reader alone (what each costs); the first column also times each still frame without the
anchored look, right after the whole call (its cost, paired frame by frame).
Prints, per backend: locator ms (one pass), outline ms, reader ms (crops + CNNs +
combining), then the whole call two ways: a still image as ``sueca detect`` reads it
(all second opinions, cards under spreads), and the live camera's call (outline
memory, the video threshold, no spread search) once with every card new and once
more on the same frame with every card lying still; peak RSS, model files' size;
then the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
COLUMNS = ("onnx", "onnx32", "onnx0", "onnx1", "ultralytics")


def cpu_name() -> str:
    """The CPU's model and its 8-bit dot product instructions: timings are per machine, and an x86
    CPU without VNNI runs the 8-bit networks on a slower exact kernel (``onnx_backend.make_session``)."""
    import platform

    name, flags = platform.machine(), set()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name" and name == platform.machine():
                name = value.strip()
            elif key.strip() in ("flags", "Features") and not flags:
                flags = set(value.split())
    except OSError:
        return name
    dot = sorted(flags & {"avx512_vnni", "avx_vnni", "amx_int8", "asimddp"})
    return f"{name} ({', '.join(dot) if dot else 'no VNNI / dot product'})"


def make_frames(n: int, seed0: int = 700_000) -> np.ndarray:
    from sueca.datasets.scene import render_scene
    from sueca.vision.train_data import is_target

    frames, seed = [], seed0
    while len(frames) < n:
        scene = render_scene(seed, (1280, 960), "test")
        seed += 1
        if 4 <= sum(is_target(c) for c in scene.cards) <= 8:
            frames.append(scene.image)
    return np.stack(frames)


def worker(frames_path: str, backend: str, threads: int | None, repeats: int, model: str | None = None) -> dict:
    """Time one backend on the saved frames (runs in a child process)."""
    from sueca.vision.recognizer import load_recognizer

    frames = np.load(frames_path)["frames"]
    onnx = backend.startswith("onnx")
    rec = load_recognizer(model, backend="onnx" if onnx else backend, threads=threads,
                          precision="fp32" if backend == "onnx32" else None)
    if backend == "onnx1":  # the first reader alone: what the second reader costs
        rec.second = None
    if backend == "onnx0":  # no face-suit check: what it costs
        rec.face = None
    for f in frames[:3]:  # warm-up: allocations, kernels
        rec(f)
    from sueca.vision.still import OutlineMemory

    video_t = rec.config.video_threshold
    loc_ms, out_ms, read_ms, tot_ms, ncards = [], [], [], [], []
    # what the anchored look costs, timed on the same frames in turn with the whole call (a
    # column of its own ran minutes apart, and this machine's speed drifts by more than it costs)
    with_anchor = rec.config
    anchored = backend == "onnx" and bool((with_anchor.outliner or {}).get("anchored"))
    if anchored:
        from dataclasses import replace

        without_anchor = replace(with_anchor, outliner={**with_anchor.outliner, "anchored": False})
    paired_ms = []
    live_new_ms, live_still_ms = [], []
    for _ in range(repeats):
        for f in frames:
            t0 = time.perf_counter()
            located = rec.locator(f)
            t1 = time.perf_counter()
            _, cands = rec.outlines(f, located)
            t2 = time.perf_counter()
            rec.read_quads(f, cands, exact=not rec.config.refine)
            t3 = time.perf_counter()
            loc_ms.append((t1 - t0) * 1e3)
            out_ms.append((t2 - t1) * 1e3)
            read_ms.append((t3 - t2) * 1e3)
            t3 = time.perf_counter()
            dets = rec(f)  # the whole call, as `sueca detect` makes it
            tot_ms.append((time.perf_counter() - t3) * 1e3)
            ncards.append(len(dets))
            if anchored:
                rec.config = without_anchor
                t3 = time.perf_counter()
                rec(f)
                paired_ms.append((tot_ms[-1], (time.perf_counter() - t3) * 1e3))
                rec.config = with_anchor
            # the live camera's call: a fresh outline memory (every card just put down), then the
            # same frame again (every card lying still, as most frames of a game find them)
            memory = OutlineMemory()
            t4 = time.perf_counter()
            rec(f, memory=memory, threshold=video_t)
            t5 = time.perf_counter()
            rec(f, memory=memory, threshold=video_t)
            live_new_ms.append((t5 - t4) * 1e3)
            live_still_ms.append((time.perf_counter() - t5) * 1e3)
    cfg = rec.config
    from sueca.vision.recognizer import default_model_dir

    d = Path(model) if model else default_model_dir()
    if onnx:  # the files the sessions were made from (8-bit or float)
        nets = [rec.locator, rec.small_locator, rec.reader, rec.outliner.net if rec.outliner else None,
                rec.second, rec.face.net if rec.face else None]
        if rec.white is not None:  # the white tops' pair, loaded beside the others
            nets += [rec.white.locator, rec.white.outliner.net]
        files = [n.path.name for n in nets if n is not None]
    else:
        files = [cfg.locator_pt, cfg.reader_pt]
        files += [cfg.outliner["pt"]] if cfg.outliner else []
        files += [cfg.second_reader["pt"]] if cfg.second_reader and rec.second is not None else []
        files += [cfg.face_suit["pt"]] if cfg.face_suit and rec.face is not None else []
        files += [cfg.white["locator"]["pt"], cfg.white["outliner"]["pt"]] if rec.white is not None else []
    size = sum((d / f).stat().st_size for f in files)
    return {
        "backend": backend, "frames": len(tot_ms), "cards_per_frame": float(np.mean(ncards)),
        "locator_ms": float(np.median(loc_ms)), "outline_ms": float(np.median(out_ms)),
        "reader_ms": float(np.median(read_ms)),
        "total_ms": float(np.median(tot_ms)), "total_p90_ms": float(np.percentile(tot_ms, 90)),
        "live_new_ms": float(np.median(live_new_ms)), "live_new_p90_ms": float(np.percentile(live_new_ms, 90)),
        "live_still_ms": float(np.median(live_still_ms)),
        "live_still_p90_ms": float(np.percentile(live_still_ms, 90)),
        "no_anchor_ms": float(np.median([b for _, b in paired_ms])) if paired_ms else None,
        "anchor_cost_ms": float(np.median([a - b for a, b in paired_ms])) if paired_ms else None,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "model_mb": size / 2**20, "files": files,
    }


def run_columns(args, frames_file: Path) -> list[dict]:
    """Each column's worker run on the frames saved in ``frames_file``, one process each."""
    runs = [(sys.executable, b) for b in ("onnx", "onnx32", "onnx0", "onnx1") if b in args.columns]
    train_py = ROOT / ".venv-train" / "bin" / "python"
    if "ultralytics" in args.columns:
        if train_py.is_file():
            runs.append((str(train_py), "ultralytics"))
        else:
            print("(no .venv-train: PyTorch column skipped)")
    results = []
    for py, backend in runs:
        cmd = [py, str(Path(__file__).resolve()), "--worker", str(frames_file), backend, "--repeats", str(args.repeats)]
        if args.threads:
            cmd += ["--threads", str(args.threads)]
        if args.model:
            cmd += ["--model", str(Path(args.model).resolve())]
        env = dict(os.environ, YOLO_OFFLINE="1")
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
        if out.returncode != 0:
            print(f"{backend}: failed\n{out.stderr[-2000:]}")
            continue
        results.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return results


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--threads", type=int, default=None, help="inference threads (default: runtime's own)")
    ap.add_argument("--model", default=None, help="model folder (default: the installed models)")
    ap.add_argument("--columns", nargs="+", default=list(COLUMNS), choices=COLUMNS,
                    help="onnx (the model's default networks), onnx32 (float), onnx0 (no face), onnx1 "
                         "(one reader), ultralytics (PyTorch); default all")
    ap.add_argument("--worker", nargs=2, metavar=("FRAMES_NPZ", "BACKEND"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker[0], args.worker[1], args.threads, args.repeats, args.model)))
        return 0

    frames = make_frames(args.frames)
    with tempfile.TemporaryDirectory(prefix="bench_rec_") as folder:  # the frames: about 100 MB
        tmp = Path(folder) / "frames.npz"
        np.savez(tmp, frames=frames)
        results = run_columns(args, tmp)
    print(f"{len(frames)} frames 1280x960, 4-8 face-up cards each, {args.repeats} passes, "
          f"threads={args.threads or 'default'}, {os.cpu_count()} CPUs: {cpu_name()}")
    rows = [("cards found / frame", "cards_per_frame", "{:.1f}"), ("locator ms (median)", "locator_ms", "{:.1f}"),
            ("outline refine ms (median)", "outline_ms", "{:.1f}"),
            ("reader ms (median)", "reader_ms", "{:.1f}"), ("full frame ms (median)", "total_ms", "{:.1f}"),
            ("full frame ms (p90)", "total_p90_ms", "{:.1f}"),
            ("live, cards new ms (median)", "live_new_ms", "{:.1f}"),
            ("live, cards new ms (p90)", "live_new_p90_ms", "{:.1f}"),
            ("live, cards still ms (median)", "live_still_ms", "{:.1f}"),
            ("live, cards still ms (p90)", "live_still_p90_ms", "{:.1f}"), ("peak RSS MB", "peak_rss_mb", "{:.0f}"),
            ("model files MB", "model_mb", "{:.1f}")]
    names = {"onnx": "ONNX Runtime", "onnx32": "ONNX float", "onnx0": "ONNX, no face", "onnx1": "ONNX, 1 reader",
             "ultralytics": "PyTorch"}
    print(f"{'':28}" + "".join(f"{names[r['backend']]:>16}" for r in results))
    for label, key, fmt in rows:
        print(f"{label:28}" + "".join(f"{fmt.format(r[key]):>16}" for r in results))
    by = {r["backend"]: r for r in results}
    if "onnx" in by and "ultralytics" in by:
        print(f"{'PyTorch / ONNX (frame)':28}{by['ultralytics']['total_ms'] / by['onnx']['total_ms']:>16.2f}")
        print(f"{'PyTorch / ONNX (live, new)':28}"
              f"{by['ultralytics']['live_new_ms'] / by['onnx']['live_new_ms']:>16.2f}")
    if "onnx" in by and "onnx32" in by:
        print(f"{'float / 8-bit (frame)':28}{by['onnx32']['total_ms'] / by['onnx']['total_ms']:>16.2f}")
        if "ultralytics" in by:
            print(f"{'PyTorch / ONNX float':28}{by['ultralytics']['total_ms'] / by['onnx32']['total_ms']:>16.2f}")
    if "onnx" in by and "onnx1" in by:
        print(f"{'two readers / one (frame)':28}{by['onnx']['total_ms'] / by['onnx1']['total_ms']:>16.2f}")
    if "onnx" in by and by["onnx"].get("no_anchor_ms"):
        o = by["onnx"]
        print(f"{'ONNX, no anchored look':28}{o['no_anchor_ms']:>16.1f}  ms a still frame, timed in turn "
              f"with the whole call (median cost {o['anchor_cost_ms']:.1f} ms, ratio "
              f"{o['total_ms'] / o['no_anchor_ms']:.2f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
