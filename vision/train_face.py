"""Teach the face network (``sueca.vision.face_suit``) and add it to a model folder
(training venv: torch). By default it learns the whole card (``--classes card``: the
readers' 53 classes, "says nothing" the last) and the model weighs and checks the readers
by the face's suit and rank group (``fuse``, ``rank``); ``--classes suit`` learns the suit
alone (5 classes) as the first version did; ``--no-fuse`` keeps it to withdrawing readings.

Data: whole cards rectified to 72x48 from their true outlines, each corner moved at random
by 2.5% of the card's diagonal (a run-time outline is about that far off), both upright
views; a face-up card at least 3/4 in view is labelled with its card (or suit), a face-down
card or one under 30% in view "says nothing", cards between are left out. Scenes of three
groups, as many of each: the training styles, the ``glyph`` decks (29 typefaces' suit
signs) and the printed training decks where fetched (``real_train_all``); the held-out
decks never. The network is the reader's (``reader_net``), its temperature fitted on
validation scenes of the training styles.

    .venv-train/bin/python -m sueca.vision.train_face MODEL_DIR --scenes 500 --epochs 8
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
    from sueca.vision.classes import CARD_CLASS
    from sueca.vision.readings import UNREADABLE_CLASS
    from sueca.vision.rectify import crop_top_left, portrait_orderings

    seed, styles, classes = task
    rng = np.random.default_rng(seed)
    scene = render_scene(seed, (1280, 960), styles)
    xs, ys = [], []
    for c in scene.cards:
        if c.face_up and c.visible_fraction >= WHOLE:
            y = SUITS.index(c.code[-1]) if classes == "suit" else CARD_CLASS[c.code]
        elif not c.face_up or c.visible_fraction < GONE:
            y = SAYS_NOTHING if classes == "suit" else UNREADABLE_CLASS
        else:
            continue
        q = np.asarray(c.corners, np.float32)
        q = q + rng.normal(0, 0.025 * float(np.linalg.norm(q[0] - q[2])), q.shape).astype(np.float32)
        for o in portrait_orderings(q)[:2]:
            xs.append(crop_top_left(scene.image, o, FACE_SPEC))
            ys.append(y)
    return xs, ys


def face_data(seeds, styles, workers: int = 2, classes: str = "suit") -> tuple[np.ndarray, np.ndarray]:
    """(crops (N, 72, 48, 3) uint8, labels (N,)) of the scenes ``seeds`` in ``styles``;
    ``classes``: "suit" (S H D C, says nothing) or "card" (the readers' 53 classes)."""
    names = [s.name for s in _resolve(styles)]
    with Pool(workers) as p:
        res = p.map(_scene_crops, [(s, names, classes) for s in seeds], chunksize=8)
    xs = [a for r in res for a in r[0]]
    ys = [a for r in res for a in r[1]]
    if not xs:
        return np.zeros((0, *FACE_SPEC.size, 3), np.uint8), np.zeros(0, np.int64)
    return np.stack(xs), np.asarray(ys, np.int64)


def _resolve(styles):
    from sueca.datasets.styles import resolve_styles

    return resolve_styles(styles)


def n_classes(classes: str) -> int:
    from sueca.vision.readings import UNREADABLE_CLASS

    return SAYS_NOTHING + 1 if classes == "suit" else UNREADABLE_CLASS + 1


def export_face(model, onnx_path: str | Path, pt_path: str | Path) -> None:
    """``face_suit.onnx`` (dynamic batch) and ``face_suit.pt`` (the reader's checkpoint format)."""
    import torch

    model = model.eval().cpu()
    torch.save({"arch": {"num_classes": model.head[-1].out_features, "width": model.width, "in_channels": 3},
                "state_dict": model.state_dict()}, str(pt_path))  # first: a failed export loses no training
    dummy = torch.zeros(4, 3, *FACE_SPEC.size)
    torch.onnx.export(model, (dummy,), str(onnx_path), input_names=["crops"], output_names=["logits"],
                      dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}}, opset_version=17, dynamo=False)


def train_face_suit(model_dir: str | Path, scenes: int = 500, epochs: int = 8, seed: int = 0,
                    val_scenes: int = 100, sure: float = 0.5, doubt: float = 0.05, fuse: bool = True,
                    classes: str = "card", log=print) -> dict:
    """Learn the check from ``scenes`` scenes of each group (a group not fetched is skipped),
    write ``face_suit.onnx``/``.pt`` into ``model_dir`` and its entry into ``recognizer.json``;
    returns that entry."""
    from sueca.vision.recognizer import softmax
    from sueca.vision.reader_net import build_reader
    from sueca.vision.train_reader import fit_temperature, predict, train_reader
    from sueca.vision.train_run import VAL_SEED0

    model_dir = Path(model_dir)
    t0 = time.time()
    k_out = n_classes(classes)
    export_face(build_reader(k_out, 16), model_dir / "face_suit.onnx", model_dir / "face_suit.pt")
    xs, ys, used = [], [], []
    for k, group in enumerate(GROUPS):
        try:
            _resolve(group)
        except ValueError as e:
            log(f"face suit: {group} skipped: {e}")
            continue
        s0 = FACE_SEED0 + 50_000 * k + seed
        x, y = face_data(range(s0, s0 + scenes), group, classes=classes)
        xs.append(x)
        ys.append(y)
        used.append(group)
    x, y = np.concatenate(xs), np.concatenate(ys)
    vx, vy = face_data(range(VAL_SEED0, VAL_SEED0 + val_scenes), "train", classes=classes)
    log(f"face {classes}: {len(y)} crops of {used} (per class {np.bincount(y, minlength=k_out).tolist()}), "
        f"{len(vy)} validation crops ({time.time() - t0:.0f}s)")
    model = train_reader(x, y, epochs, lr=3e-3, seed=seed + 3, init=build_reader(k_out, 16), log=log)
    logits = predict(model, vx)
    temp = fit_temperature(logits, vy)
    p = softmax(logits, temp)
    acc = float(np.mean(p.argmax(1) == vy))
    export_face(model, model_dir / "face_suit.onnx", model_dir / "face_suit.pt")
    entry = {"onnx": "face_suit.onnx", "pt": "face_suit.pt", "temperature": temp, "sure": sure, "doubt": doubt,
             "fuse": fuse, "classes": classes, "rank": fuse and classes == "card", "rank_check": False, "court_power": 0.25,
             "learnt": {"scenes": scenes, "groups": used, "epochs": epochs, "seed": seed, "crops": int(len(y)),
                        "val_accuracy": round(acc, 4), "s": round(time.time() - t0)}}
    path = model_dir / "recognizer.json"
    cfg = json.loads(path.read_text())
    cfg["face_suit"] = entry
    path.write_text(json.dumps(cfg, indent=1))
    log(f"face {classes}: validation accuracy {acc:.4f}, T={temp:.3f} ({time.time() - t0:.0f}s)")
    return entry


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", type=Path, help="model folder to add the check to (changed in place)")
    ap.add_argument("--scenes", type=int, default=500, help="scenes of each group")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sure", type=float, default=0.5, help="another suit at least this ...")
    ap.add_argument("--doubt", type=float, default=0.05, help="... and the suit read under this: withdrawn")
    ap.add_argument("--classes", choices=("suit", "card"), default="card",
                    help="what the face is taught: its suit, or the whole card (the readers' classes)")
    ap.add_argument("--no-fuse", action="store_true",
                    help="only withdraw readings; do not weigh the readers' probabilities by the face")
    args = ap.parse_args(argv)
    if not (args.model / "recognizer.json").is_file():
        ap.error(f"{args.model}: no recognizer.json there")
    print(json.dumps(train_face_suit(args.model, args.scenes, args.epochs, args.seed, sure=args.sure,
                                                doubt=args.doubt, fuse=not args.no_fuse, classes=args.classes)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
