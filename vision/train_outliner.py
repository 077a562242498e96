"""Train and export the outliner (training venv: torch).

Samples come from generated scenes: each face-up card the locator should find
is seen through rough boxes like the run-time ones (the locator's own boxes on
that scene, when a locator is given, and simulated errors around the true
outline), and the target is the card's true outline in view units, even where
a hand or another card covers part of it (the reader needs the corner where
the index is, not where the visible part ends).

>>> # .venv-train/bin/python -m sueca.vision.train_outliner out/outline --scenes 800  # doctest: +SKIP
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import cv2
import numpy as np

from sueca.vision.outliner import View
from sueca.vision.rectify import clockwise

SIZE, REACH = 64, 1.7


def rough_boxes(corners: np.ndarray, rng: np.random.Generator, n: int) -> list[np.ndarray]:
    """``n`` rough boxes around a true outline, with errors like a weak locator's
    (centre off by a tenth of the card, sides by 12%, 10-degree turns, sometimes square)."""
    c = np.asarray(corners, np.float32)
    (cx, cy), (w, h), a = cv2.minAreaRect(c)
    long_side = max(w, h, 1.0)
    out = []
    for _ in range(n):
        ww, hh = w * np.exp(rng.normal(0, 0.12)), h * np.exp(rng.normal(0, 0.12))
        if rng.random() < 0.2:
            ww = hh = float(np.sqrt(ww * hh))
        box = ((cx + rng.normal(0, 0.1 * long_side), cy + rng.normal(0, 0.1 * long_side)), (ww, hh),
               a + rng.normal(0, 10.0))
        q = cv2.boxPoints(box).astype(np.float32)
        if rng.random() < 0.2:  # a later pass: already near, but not square
            q = c + rng.normal(0, 0.04 * long_side, c.shape).astype(np.float32)
        out.append(q)
    return out


def scene_samples(scene, rng: np.random.Generator, locator=None, jitters: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Views (K, SIZE, SIZE, 3) uint8 and target corners (K, 8) in view units of one scene."""
    from sueca.vision.train_data import is_target
    from sueca.vision.train_eval import _poly_iou

    cards = [c for c in scene.cards if is_target(c)]
    roughs: list[tuple[np.ndarray, np.ndarray]] = []
    for card in cards:
        for q in rough_boxes(card.corners, rng, jitters):
            roughs.append((q, card.corners))
    if locator is not None and cards:
        located = locator(scene.image)
        for q in located.corners:
            ious = [_poly_iou(q, c.corners) for c in cards]
            j = int(np.argmax(ious))
            if ious[j] >= 0.3:
                roughs.append((q.astype(np.float32), cards[j].corners))
    views, targets = [], []
    for q, truth in roughs:
        v = View.around(q, SIZE, REACH)
        t = v.to_view(clockwise(np.asarray(truth, np.float32)))
        if np.abs(t).max() > 1.5:
            continue  # the card is mostly outside the view: nothing to learn
        views.append(v.cut(scene.image))
        targets.append(t.reshape(8))
    if not views:
        return np.zeros((0, SIZE, SIZE, 3), np.uint8), np.zeros((0, 8), np.float32)
    return np.stack(views), np.asarray(targets, np.float32)


def _build_chunk(args) -> tuple[np.ndarray, np.ndarray]:
    seeds, styles, model_dir, jitters, options = args
    from sueca.vision.train_data import render

    locator = None
    if model_dir is not None:
        from sueca.vision.onnx_backend import OnnxLocator
        from sueca.vision.recognizer import RecognizerConfig

        cfg = RecognizerConfig.load(model_dir)
        locator = OnnxLocator(Path(model_dir) / cfg.locator_onnx, cfg.imgsz, cfg.locate_conf, cfg.locate_iou, 1)
    rng = np.random.default_rng(seeds[0] * 104729 + 3)
    xs, ys = [], []
    for seed in seeds:
        x, y = scene_samples(render(seed, (1280, 960), styles, **options), rng, locator, jitters)
        xs.append(x)
        ys.append(y)
    return np.concatenate(xs), np.concatenate(ys)


def build(seeds: range, styles, model_dir=None, jitters: int = 3, workers: int = 2, log=print,
          options: dict | None = None) -> dict:
    """Samples of ``seeds`` rendered in ``workers`` processes (``model_dir``: whose locator gives
    real boxes; ``options``: the scenes' render options, e.g. ``tables``)."""
    from sueca.vision.train_data import in_chunks

    views, targets = in_chunks(_build_chunk, seeds, (styles, model_dir, jitters, dict(options or {})), workers, log,
                               "outliner views")
    return {"views": views, "targets": targets}


def cyclic_l1(pred, target):
    """Smooth-L1 between predicted and true corners, under the best of the 4 cyclic orders
    (a card's outline has no first corner)."""
    import torch
    import torch.nn.functional as F

    p = pred.view(-1, 4, 2)
    t = target.view(-1, 4, 2)
    losses = torch.stack([F.smooth_l1_loss(p, torch.roll(t, k, dims=1), reduction="none", beta=0.02).mean(dim=(1, 2))
                          for k in range(4)], dim=1)
    return losses.min(dim=1).values.mean()


def corner_error(pred: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Per sample: mean corner distance (view units) under the best cyclic order."""
    p = pred.reshape(-1, 4, 2)
    t = target.reshape(-1, 4, 2)
    return np.min([np.linalg.norm(p - np.roll(t, k, axis=1), axis=2).mean(axis=1) for k in range(4)], axis=0)


def train_outliner(views: np.ndarray, targets: np.ndarray, epochs: int = 10, batch: int = 128, lr: float = 3e-3,
                   seed: int = 0, width: int = 12, log=print, init=None):
    """Train from scratch, or go on training ``init`` (an outliner network), (AdamW, one-cycle,
    photometric jitter); returns the model in eval mode."""
    import torch

    from sueca.vision.outline_net import build_outliner
    from sueca.vision.train_reader import augment, to_tensor

    torch.manual_seed(seed)
    g = torch.Generator().manual_seed(seed)
    model = build_outliner(width, views.shape[1]) if init is None else init
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    steps = epochs * ((len(views) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=max(steps, 1), pct_start=0.15)
    y_all = torch.from_numpy(targets.astype(np.float32))
    t0 = time.time()
    for ep in range(epochs):
        model.train()
        perm = torch.randperm(len(views), generator=g)
        tot, n = 0.0, 0
        for i in range(0, len(perm), batch):
            idx = perm[i:i + batch]
            x = augment(to_tensor(views[idx.numpy()]), g)
            loss = cyclic_l1(model(x), y_all[idx])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            tot += float(loss.detach()) * len(idx)
            n += len(idx)
        log(f"outliner epoch {ep + 1}/{epochs} loss {tot / n:.5f} ({time.time() - t0:.0f}s)")
    return model.eval()


def predict(model, views: np.ndarray, batch: int = 512) -> np.ndarray:
    import torch

    from sueca.vision.train_reader import to_tensor

    out = []
    with torch.inference_mode():
        for i in range(0, len(views), batch):
            out.append(model(to_tensor(views[i:i + batch])).numpy())
    return np.concatenate(out) if out else np.zeros((0, 8), np.float32)


def export_outliner(model, onnx_path: str | Path, pt_path: str | Path, width: int = 12, size: int = SIZE) -> None:
    """Write ``outliner.onnx`` (dynamic batch) and ``outliner.pt`` (state dict + architecture)."""
    import torch

    model = model.eval()
    torch.onnx.export(model, (torch.zeros(2, 3, size, size),), str(onnx_path), input_names=["views"],
                      output_names=["corners"], dynamic_axes={"views": {0: "n"}, "corners": {0: "n"}},
                      opset_version=17, dynamo=False)
    torch.save({"arch": {"width": width, "size": size}, "state_dict": model.state_dict()}, str(pt_path))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Train the outliner on generated scenes.")
    ap.add_argument("out")
    ap.add_argument("--scenes", type=int, default=800)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--model", default=None, help="model folder whose locator gives real boxes")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    npz = out / "outline.npz"
    if not npz.is_file():
        tr = build(range(args.seed, args.seed + args.scenes), "train", args.model)
        va = build(range(500_000, 500_100), "train", args.model)
        np.savez(npz, views=tr["views"], targets=tr["targets"], val_views=va["views"], val_targets=va["targets"])
    d = np.load(npz)
    model = train_outliner(d["views"], d["targets"], args.epochs)
    err = corner_error(predict(model, d["val_views"]), d["val_targets"])
    print(f"val corner error (view units): median {np.median(err):.4f}, p90 {np.percentile(err, 90):.4f}")
    export_outliner(model, out / "outliner.onnx", out / "outliner.pt")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
