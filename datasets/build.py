"""Write an ultralytics-ready OBB dataset of synthetic scenes.

Layout of ``out``::

    images/{train,val[,test]}/NNNNNN.jpg
    labels/{train,val[,test]}/NNNNNN.txt   # "0 x1 y1 x2 y2 x3 y3 x4 y4", normalised
    annotations.jsonl                       # one line per image, full CardLabel data
    data.yaml

Image ``i`` is rendered from a seed derived from (seed, i), so a dataset is a
pure function of its arguments whatever the number of worker processes.

>>> scene_seed(7, 0) == scene_seed(7, 0) != scene_seed(7, 1)
True
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import cv2
import numpy as np

from ..vision.classes import CARD_CLASS, CARD_CODES, LOCATOR_CLASSES

#: A face-up card gets a locator box when at least this much of it shows.
MIN_VISIBLE_FOR_BOX = 0.3
VAL_EVERY = 10  # every 10th image goes to val


def scene_seed(seed: int, index: int, split: str = "") -> int:
    tag = {"": 0, "test": 1}.get(split, 2)
    return int(np.random.SeedSequence([int(seed), int(index), tag]).generate_state(1)[0])


#: What the label files hold: "card" = locator (class 0 = a face-up card, LOCATOR_CLASSES);
#: "card52" = whole readable cards, class = CARD_CLASS id; "index" = each readable corner index,
#: class = CARD_CLASS id (a corner-index detector must merge the two corners of one card).
LABEL_TASKS = ("card", "card52", "index")


def class_names(task: str = "card") -> tuple[str, ...]:
    if task not in LABEL_TASKS:
        raise ValueError(f"unknown label task {task!r}; expected one of {', '.join(LABEL_TASKS)}")
    return LOCATOR_CLASSES if task == "card" else CARD_CODES


def _obb_row(cls: int, pts: np.ndarray, size, keep_small: bool) -> str | None:
    w, h = size
    pts = pts.astype(np.float32)
    inside = (pts[:, 0] >= 0).all() and (pts[:, 0] <= w).all() and (pts[:, 1] >= 0).all() and (pts[:, 1] <= h).all()
    if not inside:
        rect = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
        area, inter = cv2.intersectConvexConvex(pts, rect)
        # A readable card is always boxed (its index is in view); others need a fair part in frame.
        if inter is None or (not keep_small and area < 0.2 * abs(cv2.contourArea(pts))):
            return None
        pts = cv2.boxPoints(cv2.minAreaRect(inter.reshape(-1, 2)))
    pts = np.clip(pts / [w, h], 0, 1)
    return f"{cls} " + " ".join(f"{v:.6f}" for v in pts.reshape(-1))


def obb_rows(cards, size, task: str = "card") -> list[str]:
    """YOLO OBB label lines (clipped to the image) for ``task`` (see LABEL_TASKS)."""
    from .scene import READABLE_INDEX_FRACTION

    class_names(task)
    rows = []
    for c in cards:
        if task == "card":
            if not c.face_up or not (c.readable or c.visible_fraction >= MIN_VISIBLE_FOR_BOX):
                continue
            row = _obb_row(LOCATOR_CLASSES.index("card"), c.corners, size, c.readable)
            rows += [row] if row else []
        elif task == "card52":
            if c.readable:
                row = _obb_row(CARD_CLASS[c.code], c.corners, size, True)
                rows += [row] if row else []
        else:
            if not c.readable:
                continue
            for q, v in zip(c.index_quads, c.index_visible):
                if v >= READABLE_INDEX_FRACTION:
                    row = _obb_row(CARD_CLASS[c.code], q, size, True)
                    rows += [row] if row else []
    return rows


def prewarm(styles=None) -> None:
    """Fill this process's card and texture caches (forked workers inherit them)."""
    from .cards import MIP_HEIGHTS, back_mip, face_mip
    from .styles import resolve_styles
    from .textures import VARIANTS, floor_kinds, table_kinds, table_texture
    from ..vision.classes import CARD_CODES

    for st in resolve_styles(styles):
        for level in range(len(MIP_HEIGHTS)):
            back_mip(st.name, level)
            for code in CARD_CODES:
                face_mip(code, st.name, level)
    for kind in sorted(set(table_kinds() + floor_kinds())):
        for v in range(VARIANTS):
            table_texture(kind, v)
    from .layout import HAND_VARIANTS, pooled_hand

    for v in range(HAND_VARIANTS):
        for pose in ("flat", "pinch", "fist"):
            pooled_hand(v, pose)


def _render(task):
    from .scene import render_scene

    i, split, seed, size, styles, quality, label_task, options = task
    s = scene_seed(seed, i, split if split == "test" else "")
    scene = render_scene(s, size=size, styles=styles, **options)
    ok, buf = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise RuntimeError(f"could not encode image {i}")
    ann = {"seed": s, "size": list(size), "meta": scene.meta, "cards": [c.to_json() for c in scene.cards]}
    return i, split, buf.tobytes(), obb_rows(scene.cards, size, label_task), ann


def build_dataset(out: str | os.PathLike, images: int, seed: int = 0, size: int | tuple = 640,
                  test_images: int = 0, workers: int | None = None, progress: bool = True,
                  quality: int = 92, task: str = "card", overwrite: bool = False, styles=None,
                  scene_options: dict | None = None) -> dict:
    """Render ``images`` training/val scenes (+ ``test_images`` in held-out styles) into ``out``.
    ``styles``: the training/val scenes' decks (:func:`~sueca.datasets.styles.resolve_styles`;
    None: the training styles). ``scene_options``: keyword options of
    :func:`~sueca.datasets.scene.render_scene` for every scene (e.g. ``card_frac``).

    Returns a summary dict (counts, data.yaml path).
    """
    if images < 1:
        raise ValueError(f"--images must be >= 1, got {images}")
    if isinstance(size, int):
        size = (size, size)
    size = (int(size[0]), int(size[1]))
    out = Path(out)
    if (out / "annotations.jsonl").exists() or (out / "images").exists():
        if not overwrite:
            raise FileExistsError(f"{out}: already holds a dataset; use overwrite=True (--overwrite) to replace it")
        # Stale images, labels or ultralytics' label caches would mix with the new set.
        import shutil

        for sub in ("images", "labels"):
            shutil.rmtree(out / sub, ignore_errors=True)
    splits = ["train", "val"] + (["test"] if test_images else [])
    for sp in splits:
        (out / "images" / sp).mkdir(parents=True, exist_ok=True)
        (out / "labels" / sp).mkdir(parents=True, exist_ok=True)
    names = class_names(task)
    def split(i):  # every 10th to val; a small set still gets one val image (ultralytics needs it)
        last_small = 1 < images < VAL_EVERY and i == images - 1
        return "val" if i % VAL_EVERY == VAL_EVERY - 1 or last_small else "train"

    options = dict(scene_options or {})
    tasks = [(i, split(i), seed, size, styles, quality, task, options) for i in range(images)]
    tasks += [(i, "test", seed, size, "test", quality, task, options) for i in range(test_images)]
    workers = (os.cpu_count() or 1) if workers is None else max(1, int(workers))
    if workers > 1 and len(tasks) >= 2000:
        prewarm()  # once here rather than once per worker

    from tqdm import tqdm

    counts = {sp: 0 for sp in splits}
    boxes = 0
    with open(out / "annotations.jsonl", "w") as ann_f:
        if workers > 1:
            import multiprocessing as mp

            pool = mp.get_context("fork" if hasattr(os, "fork") else "spawn").Pool(workers)
            it = pool.imap(_render, tasks, chunksize=4)
        else:
            pool, it = None, map(_render, tasks)
        try:
            for i, split, jpg, rows, ann in tqdm(it, total=len(tasks), disable=not progress, unit="img",
                                                 desc="sueca dataset"):
                name = f"{i:06d}"
                (out / "images" / split / f"{name}.jpg").write_bytes(jpg)
                (out / "labels" / split / f"{name}.txt").write_text("\n".join(rows) + ("\n" if rows else ""))
                ann["image"] = f"images/{split}/{name}.jpg"
                ann_f.write(json.dumps(ann, separators=(",", ":")) + "\n")
                counts[split] += 1
                boxes += len(rows)
        finally:
            if pool is not None:
                pool.close()
                pool.join()
    yaml_path = out / "data.yaml"
    lines = [f"path: {out.resolve()}", "train: images/train", "val: images/val"]
    if test_images:
        lines.append("test: images/test")
    lines.append("names:")
    lines += [f"  {k}: {n}" for k, n in enumerate(names)]
    yaml_path.write_text("\n".join(lines) + "\n")
    return {"out": str(out), "images": counts, "boxes": boxes, "task": task, "data_yaml": str(yaml_path)}
