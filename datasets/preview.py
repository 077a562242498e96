"""Contact sheet of a built dataset with its labels drawn, for checking by eye.

Colours: green outline = readable face-up card, orange = face up but not
readable, blue = face down; magenta index box = visible index, red = hidden;
the dot marks the card's TL corner; yellow = the YOLO OBB label as written.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

GREEN, ORANGE, BLUE, MAGENTA, RED, YELLOW = (0, 220, 0), (0, 160, 255), (255, 120, 0), (255, 0, 255), (0, 0, 255), (0, 255, 255)


def draw_labels(image: np.ndarray, cards: list[dict], obb_rows: list[str] | None = None) -> np.ndarray:
    """Draw annotation dicts (CardLabel.to_json) and optional OBB rows onto a copy of ``image``."""
    im = image.copy()
    h, w = im.shape[:2]
    for row in obb_rows or []:
        v = np.array(row.split()[1:], np.float32).reshape(4, 2) * [w, h]
        cv2.polylines(im, [np.round(v).astype(np.int32)], True, YELLOW, 1, cv2.LINE_AA)
    for c in cards:
        corners = np.asarray(c["corners"], np.float32)
        col = GREEN if c["readable"] else (ORANGE if c["face_up"] else BLUE)
        cv2.polylines(im, [np.round(corners).astype(np.int32)], True, col, 1, cv2.LINE_AA)
        cv2.circle(im, tuple(int(v) for v in corners[0]), 3, col, -1)
        if c["face_up"]:
            for q, vis in zip(c["index_quads"], c["index_visible"]):
                q = np.round(np.asarray(q)).astype(np.int32)
                cv2.polylines(im, [q], True, MAGENTA if vis >= 0.8 else RED, 1, cv2.LINE_AA)
            p = tuple(int(v) for v in corners.mean(0))
            cv2.putText(im, c["code"], p, cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 3, cv2.LINE_AA)
            cv2.putText(im, c["code"], p, cv2.FONT_HERSHEY_SIMPLEX, 0.45, col, 1, cv2.LINE_AA)
    return im


def contact_sheet(dataset_dir: str | Path, out: str | Path | None = None, n: int = 16, cols: int = 4,
                  tile: int = 480) -> Path:
    """Write a PNG grid of the first ``n`` images of a dataset, labels drawn. Returns its path."""
    d = Path(dataset_dir)
    ann_path = d / "annotations.jsonl"
    if not ann_path.is_file():
        raise FileNotFoundError(f"{ann_path}: not a dataset built by 'sueca dataset build' (no annotations.jsonl)")
    tiles = []
    with open(ann_path) as f:
        for line in f:
            if len(tiles) >= n:
                break
            ann = json.loads(line)
            img = cv2.imread(str(d / ann["image"]))
            if img is None:
                raise FileNotFoundError(f"{d / ann['image']}: image listed in annotations.jsonl is missing")
            lbl = d / ann["image"].replace("images/", "labels/", 1).rsplit(".", 1)[0]
            rows = Path(str(lbl) + ".txt").read_text().split("\n") if Path(str(lbl) + ".txt").exists() else []
            im = draw_labels(img, ann["cards"], [r for r in rows if r.strip()])
            s = tile / max(im.shape[:2])
            im = cv2.resize(im, (int(im.shape[1] * s), int(im.shape[0] * s)), interpolation=cv2.INTER_AREA)
            canvas = np.full((tile, tile, 3), 30, np.uint8)
            canvas[:im.shape[0], :im.shape[1]] = im
            cv2.putText(canvas, Path(ann["image"]).name, (4, tile - 6), cv2.FONT_HERSHEY_SIMPLEX, 0.45,
                        (255, 255, 255), 1, cv2.LINE_AA)
            tiles.append(canvas)
    if not tiles:
        raise ValueError(f"{ann_path}: no images")
    while len(tiles) % cols:
        tiles.append(np.zeros_like(tiles[0]))
    sheet = np.vstack([np.hstack(tiles[i:i + cols]) for i in range(0, len(tiles), cols)])
    out = Path(out) if out else d / "preview.png"
    out.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(out), sheet)
    return out
