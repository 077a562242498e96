"""Synthetic overhead photos of a café table with cards, and their labels.

>>> scene = render_scene(3, size=(320, 320))
>>> scene.image.shape, scene.image.dtype
((320, 320, 3), dtype('uint8'))
>>> all(c.corners.shape == (4, 2) for c in scene.cards)
True

Labels follow what a reader can see: ``index_visible`` is the fraction of
each corner index not hidden by something on top (or outside the frame);
``readable`` needs a face-up card with one index at least
``READABLE_INDEX_FRACTION`` visible and not smeared by motion blur.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from ..vision.classes import CARD_CODES
from .camera import Camera, darken, photometric, random_camera, warp_roi, warp_sprite
from .cards import back_mip, face_mip, pick_level
from .layout import Placement, plan_layout
from .styles import get_style, resolve_styles
from .textures import VARIANTS, floor_kinds, table_kinds, table_texture

READABLE_INDEX_FRACTION = 0.8


@dataclass(frozen=True, eq=False)
class CardLabel:
    """One physical card in an image.

    ``corners``: (4, 2) image points TL, TR, BR, BL of the face held upright.
    ``index_quads``: (2, 4, 2) the two corner indices, each TL, TR, BR, BL as the index reads.
    """

    code: str
    corners: np.ndarray
    face_up: bool
    index_quads: np.ndarray
    index_visible: np.ndarray
    readable: bool
    visible_fraction: float
    style: str = ""
    motion_blur_px: float = 0.0

    @property
    def index_height_px(self) -> float:
        """Height of a corner index in image pixels (0 for face-down cards): below ~8 px
        no camera reads it, whatever ``readable`` says about occlusion."""
        q = np.asarray(self.index_quads, np.float64)
        return float(np.linalg.norm(q[:, 3] - q[:, 0], axis=1).mean()) if self.face_up else 0.0

    def box(self) -> tuple[float, float, float, float]:
        """Axis-aligned (x1, y1, x2, y2) of the outline (may exceed the image)."""
        return (float(self.corners[:, 0].min()), float(self.corners[:, 1].min()),
                float(self.corners[:, 0].max()), float(self.corners[:, 1].max()))

    def to_json(self) -> dict:
        return {"code": self.code, "corners": np.round(self.corners, 2).tolist(), "face_up": self.face_up,
                "index_quads": np.round(self.index_quads, 2).tolist(),
                # unrounded: a card 98.96% in view rounded to 0.99 would read back as lying whole
                # (train_eval.lies_whole), and a cached scene would count otherwise than a fresh one
                "index_visible": [float(v) for v in np.asarray(self.index_visible, np.float32)],
                "readable": self.readable, "visible_fraction": float(self.visible_fraction), "style": self.style,
                "motion_blur_px": round(float(self.motion_blur_px), 2),
                "index_height_px": round(self.index_height_px, 1)}

    @staticmethod
    def from_json(d: dict) -> "CardLabel":
        return CardLabel(d["code"], np.asarray(d["corners"], np.float32), bool(d["face_up"]),
                         np.asarray(d["index_quads"], np.float32), np.asarray(d["index_visible"], np.float32),
                         bool(d["readable"]), float(d["visible_fraction"]), d.get("style", ""),
                         float(d.get("motion_blur_px", 0.0)))


@dataclass(frozen=True, eq=False)
class Scene:
    image: np.ndarray                       # (H, W, 3) uint8 BGR
    cards: list[CardLabel]
    seed: int = 0
    meta: dict = field(default_factory=dict)


def _similarity(cx, cy, angle_deg, scale) -> np.ndarray:
    a = np.radians(angle_deg)
    c, s = np.cos(a) * scale, np.sin(a) * scale
    return np.array([[c, -s, cx], [s, c, cy], [0, 0, 1.0]])


def _table(rng, cam: Camera, unit: float, floor: bool = False, kinds=None) -> np.ndarray:
    w, h = cam.size
    kinds = tuple(kinds) if kinds else floor_kinds() if floor else table_kinds()
    kind = kinds[rng.integers(len(kinds))]
    tex = table_texture(kind, int(rng.integers(VARIANTS)))
    # Texture pixel -> plane: a random rotation and a scale tied to the card size (textures tile
    # seamlessly, so a small scale just repeats them).
    corners = cam.unproject(np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64))
    scale = unit / rng.uniform(60, 200)
    mid = corners.mean(0)
    A = _similarity(mid[0], mid[1], rng.uniform(0, 360), scale)
    A = A @ np.array([[1, 0, -tex.shape[1] / 2], [0, 1, -tex.shape[0] / 2], [0, 0, 1.0]])
    img = cv2.warpPerspective(tex, cam.H @ A, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_WRAP)
    tint = rng.uniform(0.85, 1.15, 3)
    return cv2.multiply(img, (float(tint[0]), float(tint[1]), float(tint[2]), 0.0)), kind


def _card_sprite(p: Placement, rng, proj_h: float):
    level = pick_level(proj_h)
    if p.face_up:
        img, quads = face_mip(p.code, p.style, level)
    else:
        img, quads = back_mip(p.style, level), None
    bend = rng.random() < 0.4
    if p.glare > 0 or p.blur_px > 0 or bend:
        img = img.copy()
    sh, sw = img.shape[:2]
    if bend:  # a card is rarely flat: its curl shades one side a little
        a = rng.uniform(0, 2 * np.pi)
        ramp = (np.cos(a) * np.linspace(-1, 1, sw, dtype=np.float32)[None, :]
                + np.sin(a) * np.linspace(-1, 1, sh, dtype=np.float32)[:, None])
        shade = 1.0 + rng.uniform(0.04, 0.14) * ramp
        img[..., :3] = np.clip(img[..., :3] * shade[..., None], 0, 255).astype(np.uint8)
    if p.glare > 0:  # a soft specular spot on glossy stock
        yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
        gx, gy = rng.uniform(0, sw), rng.uniform(0, sh)
        r = rng.uniform(0.15, 0.5) * sh
        g = p.glare * np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * r * r))
        img[..., :3] = (img[..., :3] * (1 - g[..., None]) + 255 * g[..., None]).astype(np.uint8)
    blur_sprite = 0.0
    if p.blur_px > 0:
        blur_sprite = p.blur_px * sh / max(proj_h, 1.0)   # image px -> sprite px
        k = max(3, int(blur_sprite) | 1)
        ker = np.zeros((k, k), np.float32)
        ang = np.radians(p.blur_angle)
        c = k // 2
        cv2.line(ker, (int(c - np.cos(ang) * c), int(c - np.sin(ang) * c)),
                 (int(c + np.cos(ang) * c), int(c + np.sin(ang) * c)), 1.0, 1)
        ker /= ker.sum()
        img = cv2.filter2D(img, -1, ker, borderType=cv2.BORDER_CONSTANT)
    return img, quads


def _poly_visible(idmap: np.ndarray, poly: np.ndarray, obj_id: int) -> float:
    """Fraction of polygon ``poly`` (image px) whose pixels still show object ``obj_id``."""
    area = abs(cv2.contourArea(poly.astype(np.float32)))
    if area < 1:
        return 0.0
    H, W = idmap.shape
    x0, y0 = max(int(np.floor(poly[:, 0].min())), 0), max(int(np.floor(poly[:, 1].min())), 0)
    x1, y1 = min(int(np.ceil(poly[:, 0].max())) + 1, W), min(int(np.ceil(poly[:, 1].max())) + 1, H)
    if x1 <= x0 or y1 <= y0:
        return 0.0
    m = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(m, [np.round((poly - [x0, y0]) * 16).astype(np.int32)], 1, cv2.LINE_8, 4)
    inside = m.sum()
    if inside == 0:
        return 0.0
    vis = np.count_nonzero((idmap[y0:y1, x0:x1] == obj_id) & (m > 0))
    # Pixels showing the object over its analytic area (parts outside the frame count as hidden).
    return float(min(1.0, vis / area))


def render_scene(seed: int, size: tuple[int, int] = (640, 640), styles=None, **options) -> Scene:
    """Render one synthetic table photo and its card labels; a pure function of its arguments.

    ``size`` is (width, height). ``styles``: None (training styles), "test" (held-out
    styles), "all", or a list of style names. Options: ``max_tilt`` (deg, 30),
    ``distortion`` (True), ``photometric`` (True), ``card_frac`` ((0.06, 0.20)
    card height / image height), ``distractors`` (True), ``layout`` ("game",
    "scatter", "fan" or None for a random mix). For controlled tests:
    ``camera`` (a Camera), ``table_colour`` (BGR, a flat table), ``placements``
    (the objects to draw, as ``layout.plan_layout`` returns them, in plane px;
    the card height is then ``unit`` (option, default 0.15 * height)), ``tables``
    (table textures to draw from, e.g. ``("cloth_stripes",)``; default all).
    """
    if not (isinstance(size, (tuple, list)) and len(size) == 2 and all(int(s) >= 32 for s in size)):
        raise ValueError(f"render_scene: size must be (width, height) >= 32, got {size!r}")
    w, h = int(size[0]), int(size[1])
    rng = np.random.default_rng(int(seed))
    deck_styles = resolve_styles(styles)
    cam = options.get("camera") or random_camera(rng, (w, h), options.get("max_tilt", 30.0),
                                                 options.get("distortion", True))
    lo, hi = options.get("card_frac", (0.06, 0.20))
    # Card height in plane px (divided by the barrel zoom, so cards keep their image size).
    unit = float(np.exp(rng.uniform(np.log(lo), np.log(hi)))) * h * cam.zoom
    unit = float(options.get("unit", unit if "placements" not in options else 0.15 * h))
    style = deck_styles[rng.integers(len(deck_styles))].name
    if "placements" in options:
        plan = list(options["placements"])
    else:
        plan = plan_layout(rng, cam, unit, style, deck_styles, options.get("layout"),
                           distractors=options.get("distractors", True))
    if options.get("table_colour") is not None:
        image, table_kind = np.empty((h, w, 3), np.uint8), "flat"
        image[:] = options["table_colour"]
    else:
        image, table_kind = _table(rng, cam, unit, kinds=options.get("tables"))
        # Small cards mean a camera high above: the table's edge and the floor come into view.
        if options.get("table_edge", True) and rng.random() < (0.4 if unit < 0.1 * h else 0.08) and any(
                isinstance(p, Placement) for p in plan):
            pts = np.array([(p.x, p.y) for p in plan if isinstance(p, Placement)])
            image = _table_edge(rng, cam, unit, image, pts)
    idmap = np.zeros((h, w), np.uint16)   # which object shows at each pixel (0 = table)

    shadow_dir = rng.uniform(0, 2 * np.pi)
    shadow_off = np.array([np.cos(shadow_dir), np.sin(shadow_dir)]) * unit * rng.uniform(0.005, 0.03)

    records = []
    for oid, item in enumerate(plan, start=1):
        if isinstance(item, Placement):
            st = get_style(item.style)
            ch = unit
            A = _similarity(item.x, item.y, item.angle, 1.0)
            centre = np.array([item.x, item.y])
            proj = cam.project_linear(np.array([centre, centre + [0, ch]]))
            proj_h = float(np.linalg.norm(proj[1] - proj[0]))
            sprite, quads = _card_sprite(item, rng, proj_h)
            sh, sw = sprite.shape[:2]
            s = ch / sh
            # Sprite px -> plane (centred, scaled to the card height, rotated) -> image.
            S = A @ np.array([[s, 0, -sw * s / 2], [0, s, -sh * s / 2], [0, 0, 1.0]])
            # Contact shadow: the card's silhouette, offset and darkened.
            sh_px = (shadow_off[0] * proj_h / ch, shadow_off[1] * proj_h / ch, rng.uniform(0.15, 0.35))
            warp_sprite(image, sprite, cam.H @ S, idmap, oid,
                        shadow=sh_px if options.get("shadows", True) else None)
            corners_sprite = np.array([[0, 0], [sw, 0], [sw, sh], [0, sh]], np.float64)
            M = cam.H @ S
            fill = float(np.count_nonzero(sprite[..., 3] >= 128)) / (sh * sw)   # rounded corners
            records.append((oid, item, st, M, corners_sprite, quads, proj_h, fill))
        else:
            kind, sprite, x, y, angle, shade = item[:6]
            scale = item[6] if len(item) > 6 else 1.0
            if kind == "hand" and rng.random() < 0.3:   # hands move: smear along a random direction
                k = int(rng.integers(2, 8)) * 2 + 1
                ker = np.zeros((k, k), np.float32)
                a = rng.uniform(0, np.pi)
                c = k // 2
                cv2.line(ker, (int(c - np.cos(a) * c), int(c - np.sin(a) * c)),
                         (int(c + np.cos(a) * c), int(c + np.sin(a) * c)), 1.0, 1)
                sprite = cv2.filter2D(sprite, -1, ker / ker.sum(), borderType=cv2.BORDER_CONSTANT)
            shadow = (shadow_off[0] * 8, shadow_off[1] * 8, rng.uniform(0.2, 0.4)) if shade else None
            warp_sprite(image, sprite, cam.H @ _similarity(x, y, angle, scale) @ _centre(sprite), idmap, oid,
                        shadow=shadow if options.get("shadows", True) else None)

    if rng.random() < 0.5 and options.get("shadows", True):
        _people_shadows(image, rng)
    maps = cam.remap_maps()
    image = cam.apply_distortion(image, maps)
    # Visibility is judged in the final frame: the lens may push parts of the canvas out of view.
    idmap = cam.apply_distortion(idmap, maps, nearest=True)
    if options.get("photometric", True):
        image = photometric(image, rng)

    # All label points through the lens in one go.
    lin = [np.vstack([_apply(M, corners_sprite)] + ([_apply(M, q) for q in quads] if quads is not None else []))
           for _, _, _, M, corners_sprite, quads, _, _ in records]
    dist = np.split(cam.distort(np.vstack(lin)), np.cumsum([len(x) for x in lin])[:-1]) if lin else []
    cards = []
    for (oid, item, st, M, corners_sprite, quads, proj_h, fill), pts in zip(records, dist):
        corners = pts[:4].astype(np.float32)
        vis = min(1.0, _poly_visible(idmap, corners, oid) / max(fill, 0.5))
        if item.face_up and quads is not None:
            iq = pts[4:].reshape(2, 4, 2).astype(np.float32)
            iv = np.array([_poly_visible(idmap, q, oid) for q in iq], np.float32)
            index_h = proj_h * float(np.linalg.norm(quads[0][3] - quads[0][0])) / M_h(corners_sprite)
            sharp = item.blur_px < 0.5 * index_h
            readable = bool(iv.max() >= READABLE_INDEX_FRACTION and sharp)
        else:
            iq = np.zeros((2, 4, 2), np.float32)
            iv = np.zeros(2, np.float32)
            readable = False
        cards.append(CardLabel(item.code, corners, item.face_up, iq, iv, readable, vis, st.name, item.blur_px))
    meta = {"table": table_kind, "style": style, "unit_px": unit, "k1": cam.k1, "k2": cam.k2}
    return Scene(np.ascontiguousarray(image), cards, int(seed), meta)


def M_h(corners_sprite: np.ndarray) -> float:
    return float(corners_sprite[2, 1] - corners_sprite[0, 1])


def _apply(M: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.column_stack([np.asarray(pts, np.float64), np.ones(len(pts))]) @ M.T
    return p[:, :2] / p[:, 2:3]


def _centre(sprite: np.ndarray) -> np.ndarray:
    sh, sw = sprite.shape[:2]
    return np.array([[1, 0, -sw / 2], [0, 1, -sh / 2], [0, 0, 1.0]])


def _shadow(image: np.ndarray, sprite: np.ndarray, M: np.ndarray, strength: float) -> None:
    """Darken ``image`` under a blurred silhouette of ``sprite`` placed by ``M``."""
    res = warp_roi(np.ascontiguousarray(sprite[..., 3]), M, (image.shape[1], image.shape[0]))
    if res is None:
        return
    x0, y0, a = res
    darken(image, x0, y0, a.astype(np.float32) / 255.0, strength, int(max(a.shape) * 0.04))


def _table_edge(rng, cam: Camera, unit: float, image: np.ndarray, cards: np.ndarray) -> np.ndarray:
    """Cut the table to a round or rectangular top holding ``cards`` (plane points);
    outside it a darker, defocused floor."""
    w, h = cam.size
    floor, _ = _table(rng, cam, unit * 2, floor=True)
    floor = cv2.GaussianBlur(floor, (0, 0), 2.5)
    floor = cv2.multiply(floor, (float(rng.uniform(0.3, 0.65)),) * 3 + (0.0,))
    centre = cards.mean(0) + rng.normal(0, unit * 0.5, 2)
    R = max(unit * rng.uniform(3.8, 5.0), float(np.linalg.norm(cards - centre, axis=1).max()) + unit * 0.9)
    t = np.linspace(0, 2 * np.pi, 96, endpoint=False)
    if rng.random() < 0.45:
        pts = np.stack([np.cos(t), np.sin(t)], 1) * R
    else:  # rounded square
        p = 8.0
        c, s_ = np.cos(t), np.sin(t)
        pts = np.stack([np.sign(c) * np.abs(c) ** (2 / p), np.sign(s_) * np.abs(s_) ** (2 / p)], 1) * R
        a = np.radians(rng.uniform(0, 90))
        pts = pts @ np.array([[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]])
    poly = cam.project_linear(pts + centre)
    mask = np.zeros((h, w), np.uint8)
    cv2.fillPoly(mask, [np.round(poly * 4).astype(np.int32)], 255, cv2.LINE_AA, 2)
    m = mask.astype(np.float32)[..., None] / 255.0
    out = (image * m + floor * (1 - m)).astype(np.uint8)
    rim = tuple(float(v) for v in rng.uniform(20, 200, 3))
    cv2.polylines(out, [np.round(poly * 4).astype(np.int32)], True, rim, max(1, int(unit * 0.04)), cv2.LINE_AA, 2)
    return out


def _people_shadows(image: np.ndarray, rng) -> None:
    """Soft dark blobs from the edges: people leaning over the table."""
    h, w = image.shape[:2]
    small = np.ones((h // 8, w // 8), np.float32)
    for _ in range(int(rng.integers(1, 3))):
        side = rng.integers(4)
        cx = rng.uniform(0, w // 8) if side < 2 else (0 if side == 2 else w // 8)
        cy = rng.uniform(0, h // 8) if side >= 2 else (0 if side == 0 else h // 8)
        ax = int(rng.uniform(0.2, 0.5) * w // 8)
        ay = int(rng.uniform(0.15, 0.35) * h // 8)
        cv2.ellipse(small, (int(cx), int(cy)), (ax, ay), rng.uniform(0, 180), 0, 360,
                    float(rng.uniform(0.45, 0.8)), -1)
    small = cv2.GaussianBlur(small, (0, 0), max(1.0, w / 8 * 0.05))
    image[:] = (image * cv2.resize(small, (w, h))[..., None]).astype(np.uint8)


__all__ = ["CardLabel", "Scene", "render_scene", "READABLE_INDEX_FRACTION", "CARD_CODES"]
