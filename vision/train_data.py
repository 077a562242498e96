"""Training data for both stages, from the project's scene generator (``sueca.datasets``).

One rendered scene (full resolution) feeds both models: a downscaled copy and
its oriented boxes go to the locator's YOLO-OBB dataset; corner crops cut with
a *simulated locator's* quad (rotated-rectangle approximation + jitter) go to
the reader, labelled with the card when that corner's index is visible and
"no readable index" otherwise (covered corners, card backs, landscape
orderings of a steep card, empty table).

>>> # .venv-train/bin/python -m sueca.vision.train_data out/data --scenes 200  # doctest: +SKIP
"""

from __future__ import annotations

import argparse
import inspect
import time
from pathlib import Path

import cv2
import numpy as np

from sueca.vision.classes import CARD_CLASS
from sueca.vision.recognizer import UNREADABLE_CLASS
from sueca.vision.rectify import CropSpec, crop_top_left, portrait_orderings

#: A face-up card is a locator target when at least this much of it shows.
MIN_VISIBLE = 0.35


def render(seed: int, size: tuple[int, int], styles, **options) -> object:
    """One scene from the dataset generator (keyword names adapted to its signature)."""
    from sueca.datasets.scene import render_scene

    params = inspect.signature(render_scene).parameters
    kw = dict(options)
    if "styles" in params:
        kw["styles"] = styles
    elif "style" in params:
        kw["style"] = styles
    return render_scene(seed, size, **kw)


def simulate_locator(corners: np.ndarray, rng: np.random.Generator, wide: bool = False) -> np.ndarray:
    """A quad as the locator would give it: usually the rotated rectangle, always a bit off.

    ``wide``: errors as large as a weak locator's on a pile or a busy table (the
    run-time outlines' IoU with the truth is often 0.7-0.8): the reader learns to
    read an index that is off-centre, and to refuse one that is cut off.
    """
    c = np.asarray(corners, np.float32)
    size = float(np.sqrt(max(cv2.contourArea(c), 1.0)))
    shift, scale, turn, jag = (0.06, 0.10, 5.0, 0.05) if wide else (0.025, 0.04, 2.0, 0.025)
    if rng.random() < 0.75:
        (cx, cy), (w, h), a = cv2.minAreaRect(c)
        cx += rng.normal(0, shift * size)
        cy += rng.normal(0, shift * size)
        w *= 1 + rng.normal(0, scale)
        h *= 1 + rng.normal(0, scale)
        a += rng.normal(0, turn)
        return cv2.boxPoints(((cx, cy), (w, h), a)).astype(np.float32)
    return (c + rng.normal(0, jag * size, c.shape)).astype(np.float32)


#: Index visibility (fraction) at or above which a corner is labelled with its card ...
SHOWN = 0.8
#: ... and at or below which it is labelled "no readable index" (in between: left out).
HIDDEN = 0.45


#: Share of the index inside the crop at or above which it can be read there ...
INSIDE = 0.9
#: ... and below which the crop shows too little of it ("no readable index").
OUTSIDE = 0.5


def _inside(ordered: np.ndarray, index_quad: np.ndarray, spec: CropSpec) -> float:
    """Share of ``index_quad`` (image points) that the crop of ``ordered`` shows."""
    u0, v0, u1, v1 = spec.box
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    hom = cv2.getPerspectiveTransform(unit, np.asarray(ordered, np.float32))
    region = cv2.perspectiveTransform(np.array([[[u0, v0], [u1, v0], [u1, v1], [u0, v1]]], np.float32), hom)[0]
    q = cv2.convexHull(np.asarray(index_quad, np.float32)).reshape(-1, 2)
    area = cv2.contourArea(q)
    if area <= 0:
        return 0.0
    inter, _ = cv2.intersectConvexConvex(q, cv2.convexHull(region).reshape(-1, 2))
    return float(inter / area)


def _label(ordered: np.ndarray, card, spec: CropSpec | None = None) -> int | None:
    """Class of the crop whose top-left is ``ordered[0]``: the card if that index shows, else 52.

    ``None`` when the label would be ambiguous (index half covered, half cut off
    by the crop, or smeared by motion).
    """
    corners = np.asarray(card.corners, np.float32)
    m = int(np.argmin(np.linalg.norm(corners - ordered[0], axis=1)))
    if not card.face_up or m not in (0, 2):
        return UNREADABLE_CLASS
    vis = float(card.index_visible[m // 2])
    if vis <= HIDDEN:
        return UNREADABLE_CLASS
    if spec is not None:
        inside = _inside(ordered, card.index_quads[m // 2], spec)
        if inside < OUTSIDE:
            return UNREADABLE_CLASS
        if inside < INSIDE:
            return None
    if vis >= SHOWN and card.readable:
        return CARD_CLASS[card.code]
    return None


def scene_crops(scene, spec: CropSpec, rng: np.random.Generator, jitters: int = 1,
                landscape_p: float = 0.15, negatives: int = 2, wide_p: float = 0.5) -> tuple[np.ndarray, np.ndarray, list]:
    """Reader crops of one scene: (K, h, w) uint8, (K,) labels, and per-card crop groups.

    ``groups`` lists, per face-up card and jitter, (crop indices, class to read:
    the card, or 52 when it is not readable, the card's own class): the
    validation set for card-level thresholds.
    """
    src = scene.image if spec.channels == 3 else cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY)
    crops, labels, groups = [], [], []
    h, w = src.shape[:2]
    for card in scene.cards:
        if not card.face_up and rng.random() > 0.4:
            continue  # backs: a fraction is enough
        if card.face_up and card.visible_fraction < 0.05:
            continue
        for _ in range(jitters if card.face_up else 1):
            q = simulate_locator(card.corners, rng, wide=bool(rng.random() < wide_p))
            orders = portrait_orderings(q, ambiguous=0.0 if rng.random() > landscape_p else 0.01)
            idx, ys = [], []
            for o in orders:
                y = _label(o, card, spec)
                ys.append(y)
                if y is None:
                    continue
                idx.append(len(crops))
                crops.append(crop_top_left(src, o, spec))
                labels.append(y)
            if card.face_up and len(idx) >= 2 and ys[0] is not None and ys[1] is not None:
                y = CARD_CLASS[card.code] if card.readable else UNREADABLE_CLASS
                groups.append((idx[:2], y, CARD_CLASS[card.code]))
    sizes = [np.sqrt(cv2.contourArea(np.asarray(c.corners, np.float32))) for c in scene.cards] or [100.0]
    for _ in range(negatives):  # empty table, distractors: quads where no index can be
        s = float(rng.choice(sizes)) * rng.uniform(0.8, 1.2)
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        q = cv2.boxPoints(((cx, cy), (s * 0.72, s * 1.1), rng.uniform(0, 180))).astype(np.float32)
        for o in portrait_orderings(q):
            near = [np.min(np.linalg.norm(np.asarray(c.corners, np.float32)[[0, 2]] - o[0], axis=1))
                    for c in scene.cards if c.face_up]
            if near and min(near) < 0.5 * s:
                continue  # might show a real index: not a clean negative
            crops.append(crop_top_left(src, o, spec))
            labels.append(UNREADABLE_CLASS)
    if not crops:
        return np.zeros((0, *spec.shape), np.uint8), np.zeros((0,), np.int64), []
    return np.stack(crops), np.asarray(labels, np.int64), groups


def recognizer_crops(scene, recognizer, spec: CropSpec) -> tuple[np.ndarray, np.ndarray]:
    """Reader crops cut exactly as at run time: the recognizer's own located and outlined
    cards (both candidates, both portrait orderings), labelled from the truth.

    A located box over no face-up card (a back, a napkin) is "no readable index".
    """
    from sueca.vision.train_eval import _poly_iou

    src = scene.image if spec.channels == 3 else cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY)
    located = recognizer.locator(scene.image)
    if len(located) == 0:
        return np.zeros((0, *spec.shape), np.uint8), np.zeros((0,), np.int64)
    _, candidates = recognizer.outlines(scene.image, located)
    crops, labels = [], []
    for cands in candidates:
        for q in np.asarray(cands, np.float32).reshape(-1, 4, 2):
            ious = [_poly_iou(q, c.corners) for c in scene.cards]
            j = int(np.argmax(ious)) if ious else -1
            card = scene.cards[j] if j >= 0 and ious[j] >= 0.3 else None
            for o in portrait_orderings(q):
                y = UNREADABLE_CLASS if card is None else _label(o, card, spec)
                if y is None:
                    continue
                crops.append(crop_top_left(src, o, spec))
                labels.append(y)
    if not crops:
        return np.zeros((0, *spec.shape), np.uint8), np.zeros((0,), np.int64)
    return np.stack(crops), np.asarray(labels, np.int64)


def _recognizer_chunk(args) -> tuple[np.ndarray, np.ndarray]:
    seeds, styles, model_dir = args
    from sueca.vision.recognizer import load_recognizer

    rec = load_recognizer(model_dir, threads=1)
    out = [recognizer_crops(render(seed, (1280, 960), styles), rec, rec.config.crop) for seed in seeds]
    return np.concatenate([c for c, _ in out]), np.concatenate([y for _, y in out])


def in_chunks(fn, seeds, args: tuple, workers: int = 2, log=print, what: str = "samples",
              chunk: int = 50) -> tuple[np.ndarray, np.ndarray]:
    """``fn((seed_chunk, *args)) -> (x, y)`` over ``seeds`` in ``workers`` processes, concatenated."""
    from concurrent.futures import ProcessPoolExecutor

    seeds = list(seeds)
    chunks = [seeds[i:i + chunk] for i in range(0, len(seeds), chunk)]
    xs, ys, t0 = [], [], time.time()
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for k, (x, y) in enumerate(pool.map(fn, [(c, *args) for c in chunks])):
            xs.append(x)
            ys.append(y)
            log(f"{what}: {min((k + 1) * chunk, len(seeds))}/{len(seeds)} scenes, "
                f"{sum(len(v) for v in xs)} ({time.time() - t0:.0f}s)")
    return np.concatenate(xs), np.concatenate(ys)


def build_recognizer_crops(seeds, styles, model_dir, workers: int = 2, log=print) -> tuple[np.ndarray, np.ndarray]:
    """:func:`recognizer_crops` of ``seeds``, rendered and read in ``workers`` processes."""
    return in_chunks(_recognizer_chunk, seeds, (styles, str(model_dir)), workers, log, "run-time crops")


def is_target(card) -> bool:
    """Whether the locator should find this card: face up and enough of it (or its index) showing."""
    return bool(card.face_up and (card.visible_fraction >= MIN_VISIBLE
                                  or (card.readable and card.visible_fraction >= 0.2)))


def obb_label_lines(scene, scale: float, size: tuple[int, int]) -> list[str]:
    """YOLO-OBB label lines (class 0 = face-up card) of a scene drawn at ``size`` = (w, h)."""
    w, h = size
    lines = []
    for card in scene.cards:
        if not is_target(card):
            continue
        pts = np.asarray(card.corners, np.float64) * scale
        pts[:, 0] = np.clip(pts[:, 0] / w, 0, 1)
        pts[:, 1] = np.clip(pts[:, 1] / h, 0, 1)
        lines.append("0 " + " ".join(f"{x:.5f} {y:.5f}" for x, y in pts))
    return lines


def build(out: str | Path, seeds: range, styles, scene_size=(1280, 960), locator_size=(640, 480),
          split: str = "train", spec: CropSpec = CropSpec(), jitters: int = 2, log=print,
          write_locator: bool = True, scene_options: dict | None = None) -> dict:
    """Render ``seeds`` once; write the locator split and return the reader arrays.
    ``scene_options``: passed to the generator (e.g. ``{"tables": ("cloth_stripes",)}``)."""
    out = Path(out)
    img_dir, lab_dir = out / "images" / split, out / "labels" / split
    if write_locator:
        img_dir.mkdir(parents=True, exist_ok=True)
        lab_dir.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seeds.start * 7919 + 17)
    all_c, all_l, groups, t0 = [], [], [], time.time()
    n = 0
    for k, seed in enumerate(seeds):
        scene = render(seed, scene_size, styles, **(scene_options or {}))
        if write_locator and not (img_dir / f"{seed:06d}.jpg").is_file():
            small = cv2.resize(scene.image, locator_size, interpolation=cv2.INTER_AREA)
            cv2.imwrite(str(img_dir / f"{seed:06d}.jpg"), small, [cv2.IMWRITE_JPEG_QUALITY, 90])
            scale = locator_size[0] / scene.image.shape[1]
            (lab_dir / f"{seed:06d}.txt").write_text("\n".join(obb_label_lines(scene, scale, locator_size)) + "\n")
        c, l, g = scene_crops(scene, spec, rng, jitters)
        groups += [([i + n for i in idx], y, t) for idx, y, t in g]
        n += len(c)
        all_c.append(c)
        all_l.append(l)
        if (k + 1) % 100 == 0:
            log(f"{split}: {k + 1}/{len(seeds)} scenes, {n} crops ({time.time() - t0:.0f}s)")
    crops = np.concatenate(all_c) if all_c else np.zeros((0, *spec.shape), np.uint8)
    labels = np.concatenate(all_l) if all_l else np.zeros((0,), np.int64)
    return {"crops": crops, "labels": labels, "groups": groups}


def write_yaml(out: str | Path, parts: list[str] | tuple[str, ...] | None = None) -> Path:
    """``out/data.yaml`` for ultralytics: the images of ``out`` itself, or of its subfolders
    ``parts`` (each a :func:`build` of its own) together, e.g. ``train: [real/images/train,
    synth/images/train]``."""
    out = Path(out).resolve()
    p = out / "data.yaml"
    if parts is None:
        train, val = "images/train", "images/val"
    else:
        train = "[" + ", ".join(f"{name}/images/train" for name in parts) + "]"
        val = "[" + ", ".join(f"{name}/images/val" for name in parts) + "]"
    p.write_text(f"path: {out}\ntrain: {train}\nval: {val}\nnames:\n  0: card\n")
    return p


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Render scenes into locator + reader training data.")
    ap.add_argument("out")
    ap.add_argument("--scenes", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    d = build(args.out, range(args.seed, args.seed + args.scenes), None)
    np.savez_compressed(Path(args.out) / "reader_train.npz", crops=d["crops"], labels=d["labels"])
    write_yaml(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
