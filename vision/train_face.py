"""Teach the face-suit check (``sueca.vision.face_suit``) and add it to a model folder
(training venv: torch). By default the model then also weighs the readers' probabilities by
each card's face (``fuse``); ``--no-fuse`` keeps it to withdrawing readings.

Data: whole cards rectified to 72x48 from their true outlines, each corner moved at random
by 2.5% of the card's diagonal (a run-time outline is about that far off), both upright
views; a face-up card at least 3/4 in view is labelled with its suit, a face-down card or
one under 30% in view "says nothing", cards between are left out. Scenes of three groups,
as many of each: the training styles, the ``glyph`` decks (29 typefaces' suit signs) and
the printed training decks where fetched (``real_train_all``); the held-out decks never.
The network is the reader's (``reader_net``, 5 classes), its temperature fitted on
validation scenes of the training styles.

    .venv-train/bin/python -m sueca.vision.train_face MODEL_DIR --scenes 400
"""

from __future__ import annotations

import argparse
import json
import time
from multiprocessing import Pool
from pathlib import Path

import numpy as np

from sueca.vision.face_suit import FACE_SPEC, SAYS_NOTHING, SUITS

#: First scene seeds of the face data: group k starts at FACE_SEED0 + 50_000 k (no other set uses these).
FACE_SEED0 = 8_000_000
GROUPS = ("train", "glyph", "real_train_all")
WHOLE, GONE = 0.75, 0.3


def _scene_crops(task) -> tuple[list, list]:
    from sueca.datasets.scene import render_scene
    from sueca.vision.rectify import crop_top_left, portrait_orderings

    seed, styles = task
    rng = np.random.default_rng(seed)
    scene = render_scene(seed, (1280, 960), styles)
    xs, ys = [], []
    for c in scene.cards:
        if c.face_up and c.visible_fraction >= WHOLE:
            y = SUITS.index(c.code[-1])
        elif not c.face_up or c.visible_fraction < GONE:
            y = SAYS_NOTHING
        else:
            continue
        q = np.asarray(c.corners, np.float32)
        q = q + rng.normal(0, 0.025 * float(np.linalg.norm(q[0] - q[2])), q.shape).astype(np.float32)
        for o in portrait_orderings(q)[:2]:
            xs.append(crop_top_left(scene.image, o, FACE_SPEC))
            ys.append(y)
    return xs, ys


def face_data(seeds, styles, workers: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """(crops (N, 72, 48, 3) uint8, labels (N,)) of the scenes ``seeds`` in ``styles``."""
    names = [s.name for s in _resolve(styles)]
    with Pool(workers) as p:
        res = p.map(_scene_crops, [(s, names) for s in seeds], chunksize=8)
    xs = [a for r in res for a in r[0]]
    ys = [a for r in res for a in r[1]]
    if not xs:
        return np.zeros((0, *FACE_SPEC.size, 3), np.uint8), np.zeros(0, np.int64)
    return np.stack(xs), np.asarray(ys, np.int64)


def _resolve(styles):
    from sueca.datasets.styles import resolve_styles

    return resolve_styles(styles)


def export_face(model, onnx_path: str | Path, pt_path: str | Path) -> None:
    """``face_suit.onnx`` (dynamic batch) and ``face_suit.pt`` (the reader's checkpoint format)."""
    import torch

    model = model.eval().cpu()
    torch.save({"arch": {"num_classes": SAYS_NOTHING + 1, "width": model.width, "in_channels": 3},
                "state_dict": model.state_dict()}, str(pt_path))  # first: a failed export loses no training
    dummy = torch.zeros(4, 3, *FACE_SPEC.size)
    torch.onnx.export(model, (dummy,), str(onnx_path), input_names=["crops"], output_names=["logits"],
                      dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}}, opset_version=17, dynamo=False)


def train_face_suit(model_dir: str | Path, scenes: int = 400, epochs: int = 6, seed: int = 0,
                    val_scenes: int = 100, sure: float = 0.5, doubt: float = 0.05, fuse: bool = True,
                    log=print) -> dict:
    """Learn the check from ``scenes`` scenes of each group (a group not fetched is skipped),
    write ``face_suit.onnx``/``.pt`` into ``model_dir`` and its entry into ``recognizer.json``;
    returns that entry."""
    from sueca.vision.recognizer import softmax
    from sueca.vision.reader_net import build_reader
    from sueca.vision.train_reader import fit_temperature, predict, train_reader
    from sueca.vision.train_run import VAL_SEED0

    model_dir = Path(model_dir)
    t0 = time.time()
    export_face(build_reader(SAYS_NOTHING + 1, 16), model_dir / "face_suit.onnx", model_dir / "face_suit.pt")
    xs, ys, used = [], [], []
    for k, group in enumerate(GROUPS):
        try:
            _resolve(group)
        except ValueError as e:
            log(f"face suit: {group} skipped: {e}")
            continue
        s0 = FACE_SEED0 + 50_000 * k + seed
        x, y = face_data(range(s0, s0 + scenes), group)
        xs.append(x)
        ys.append(y)
        used.append(group)
    x, y = np.concatenate(xs), np.concatenate(ys)
    vx, vy = face_data(range(VAL_SEED0, VAL_SEED0 + val_scenes), "train")
    log(f"face suit: {len(y)} crops of {used} (per class {np.bincount(y, minlength=5).tolist()}), "
        f"{len(vy)} validation crops ({time.time() - t0:.0f}s)")
    model = train_reader(x, y, epochs, lr=3e-3, seed=seed + 3, init=build_reader(SAYS_NOTHING + 1, 16), log=log)
    logits = predict(model, vx)
    temp = fit_temperature(logits, vy)
    p = softmax(logits, temp)
    acc = float(np.mean(p.argmax(1) == vy))
    export_face(model, model_dir / "face_suit.onnx", model_dir / "face_suit.pt")
    entry = {"onnx": "face_suit.onnx", "pt": "face_suit.pt", "temperature": temp, "sure": sure, "doubt": doubt, "fuse": fuse,
             "learnt": {"scenes": scenes, "groups": used, "epochs": epochs, "seed": seed, "crops": int(len(y)),
                        "val_accuracy": round(acc, 4), "s": round(time.time() - t0)}}
    path = model_dir / "recognizer.json"
    cfg = json.loads(path.read_text())
    cfg["face_suit"] = entry
    path.write_text(json.dumps(cfg, indent=1))
    log(f"face suit: validation accuracy {acc:.4f}, T={temp:.3f} ({time.time() - t0:.0f}s)")
    return entry


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", type=Path, help="model folder to add the check to (changed in place)")
    ap.add_argument("--scenes", type=int, default=400, help="scenes of each group")
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sure", type=float, default=0.5, help="another suit at least this ...")
    ap.add_argument("--doubt", type=float, default=0.05, help="... and the suit read under this: withdrawn")
    ap.add_argument("--no-fuse", action="store_true",
                    help="only withdraw readings; do not weigh the readers' probabilities by the face")
    args = ap.parse_args(argv)
    if not (args.model / "recognizer.json").is_file():
        ap.error(f"{args.model}: no recognizer.json there")
    print(json.dumps(train_face_suit(args.model, args.scenes, args.epochs, args.seed, sure=args.sure,
                                                doubt=args.doubt, fuse=not args.no_fuse)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
