"""Procedural court figures (J, Q, K): a double-headed half figure mirrored by 180 degrees.

The figure is drawn once in the top half of the frame, masked by a split line
through the frame centre (diagonal or horizontal, as real decks print it) and
the rotated copy fills the other half, so the card reads the same both ways.
"""

from __future__ import annotations

import zlib

import cv2
import numpy as np

from .pips import stamp, suit_mask

# BGR palettes: (robe A, robe B, gold, dark, skin, hair)
PALETTES = (
    ((40, 40, 200), (150, 80, 30), (40, 180, 230), (30, 30, 30), (170, 200, 240), (30, 60, 110)),
    ((40, 30, 150), (60, 120, 40), (50, 150, 200), (25, 25, 25), (160, 190, 235), (20, 40, 80)),
    ((160, 70, 20), (40, 40, 190), (60, 200, 240), (40, 30, 20), (175, 205, 245), (40, 80, 140)),
    ((120, 40, 110), (20, 120, 220), (80, 200, 220), (40, 40, 40), (150, 185, 225), (50, 50, 60)),
)

_AA = cv2.LINE_AA


def _pt(x, y):
    return (int(round(x)), int(round(y)))


def _poly(img, pts, colour):
    cv2.fillPoly(img, [np.round(np.asarray(pts)).astype(np.int32)], colour, _AA)


def _outline(img, pts, colour, t):
    cv2.polylines(img, [np.round(np.asarray(pts)).astype(np.int32)], True, colour, t, _AA)


def _half_figure(img: np.ndarray, rank: str, suit: str, palette: int, key: int, colour) -> None:
    """Draw the upper figure over the whole frame image (the caller masks it)."""
    h, w = img.shape[:2]
    robe_a, robe_b, gold, dark, skin, hair = PALETTES[palette % len(PALETTES)]
    if key & 1:
        robe_a, robe_b = robe_b, robe_a
    t = max(1, int(round(w / 90)))
    side = 1 if key & 2 else -1          # which hand holds the attribute
    hx, hy, hr = w * (0.5 + 0.04 * side), h * 0.2, w * 0.13

    # Robe: shoulders down to the split, with a patterned band and collar.
    body = [(w * 0.08, h * 0.55), (w * 0.12, h * 0.36), (hx - hr * 1.1, h * 0.3), (hx + hr * 1.1, h * 0.3),
            (w * 0.88, h * 0.36), (w * 0.92, h * 0.55)]
    _poly(img, body, robe_a)
    _poly(img, [(hx - hr * 0.3, h * 0.31), (hx + hr * 0.3, h * 0.31), (hx + hr * 0.9, h * 0.55),
                (hx - hr * 0.9, h * 0.55)], robe_b)
    # Robe motifs: a lattice of small suit signs on the side panels, diamonds on the front panel.
    motif = suit_mask(suit, max(3, int(w * 0.06)), 0)
    for row in range(3):
        for col in range(7):
            x, y = w * (0.14 + 0.12 * col + 0.06 * (row % 2)), h * (0.37 + 0.05 * row)
            if abs(x - hx) > hr * 0.75 and w * 0.12 < x < w * 0.88:
                stamp(img, motif, x, y, gold)
    for y in np.arange(h * 0.34, h * 0.55, h * 0.035):
        d = hr * 0.12
        _poly(img, [(hx, y - d), (hx + d * 0.8, y), (hx, y + d), (hx - d * 0.8, y)], gold)
    for i in range(6):  # vertical pleats
        x = w * (0.16 + 0.13 * i)
        cv2.line(img, _pt(x, h * 0.38), _pt(x + w * 0.02, h * 0.55), dark, t, _AA)
    # Zigzag trim along the shoulders.
    zz = [(w * 0.12 + k * w * 0.0475, h * (0.36 - 0.012 * (k % 2)) - (0.04 * h if 5 <= k <= 11 else 0))
          for k in range(17)]
    cv2.polylines(img, [np.round(np.array(zz)).astype(np.int32)], False, gold, max(1, t), _AA)
    band_y = h * 0.43
    cv2.rectangle(img, _pt(w * 0.1, band_y), _pt(w * 0.9, band_y + h * 0.035), gold, -1, _AA)
    for i in range(9):
        cv2.circle(img, _pt(w * (0.14 + 0.09 * i), band_y + h * 0.0175), max(1, int(h * 0.01)), robe_a, -1, _AA)
    collar = [(hx - hr * 1.25, h * 0.3), (hx + hr * 1.25, h * 0.3), (hx + hr * 0.7, h * 0.36), (hx - hr * 0.7, h * 0.36)]
    _poly(img, collar, gold)
    _outline(img, collar, dark, t)
    _outline(img, body, dark, t)

    # Head and face.
    if rank == "Q":  # veil behind the head
        _poly(img, [(hx - hr * 1.5, h * 0.33), (hx - hr * 1.1, h * 0.12), (hx + hr * 1.1, h * 0.12),
                    (hx + hr * 1.5, h * 0.33)], robe_b)
    cv2.ellipse(img, _pt(hx, hy), _pt(hr, hr * 1.15), 0, 0, 360, skin, -1, _AA)
    cv2.ellipse(img, _pt(hx, hy), _pt(hr, hr * 1.15), 0, 0, 360, dark, t, _AA)
    if rank == "K":  # beard
        _poly(img, [(hx - hr, hy + hr * 0.2), (hx + hr, hy + hr * 0.2), (hx + hr * 0.5, hy + hr * 1.6),
                    (hx, hy + hr * 1.9), (hx - hr * 0.5, hy + hr * 1.6)], hair)
    ex = hr * 0.38
    for s in (-1, 1):
        cv2.circle(img, _pt(hx + s * ex, hy - hr * 0.1), max(1, int(hr * 0.09)), dark, -1, _AA)
        cv2.line(img, _pt(hx + s * ex - hr * 0.2, hy - hr * 0.32), _pt(hx + s * ex + hr * 0.2, hy - hr * 0.3),
                 hair, t, _AA)
    cv2.line(img, _pt(hx, hy - hr * 0.05), _pt(hx + side * hr * 0.12, hy + hr * 0.3), dark, t, _AA)
    cv2.line(img, _pt(hx - hr * 0.25, hy + hr * 0.55), _pt(hx + hr * 0.25, hy + hr * 0.55), (40, 40, 160), t, _AA)

    # Headgear.
    top = hy - hr * 1.05
    if rank == "K":
        crown = [(hx - hr * 1.1, top + hr * 0.25), (hx - hr * 1.2, top - hr * 0.8), (hx - hr * 0.6, top - hr * 0.3),
                 (hx, top - hr * 1.0), (hx + hr * 0.6, top - hr * 0.3), (hx + hr * 1.2, top - hr * 0.8),
                 (hx + hr * 1.1, top + hr * 0.25)]
        _poly(img, crown, gold)
        _outline(img, crown, dark, t)
        for cx in (-0.6, 0, 0.6):
            cv2.circle(img, _pt(hx + cx * hr, top), max(1, int(hr * 0.14)), robe_a, -1, _AA)
    elif rank == "Q":
        cv2.ellipse(img, _pt(hx, top), _pt(hr * 1.1, hr * 0.45), 0, 180, 360, gold, -1, _AA)
        for cx in (-0.8, -0.27, 0.27, 0.8):
            cv2.circle(img, _pt(hx + cx * hr, top - hr * 0.45), max(1, int(hr * 0.17)), gold, -1, _AA)
            cv2.circle(img, _pt(hx + cx * hr, top - hr * 0.45), max(1, int(hr * 0.17)), dark, t, _AA)
    else:
        cap = [(hx - hr * 1.3, top + hr * 0.3), (hx - hr * 0.9, top - hr * 0.5), (hx + hr * 0.9, top - hr * 0.5),
               (hx + hr * 1.3, top + hr * 0.3)]
        _poly(img, cap, robe_b)
        _outline(img, cap, dark, t)
        feather = [(hx + side * hr * 0.6, top - hr * 0.4), (hx + side * hr * 1.8, top - hr * 1.2),
                   (hx + side * hr * 1.0, top - hr * 0.2)]
        _poly(img, feather, robe_a)
        _outline(img, feather, dark, t)

    # Attribute in one hand: sword (K), flower (Q), halberd (J).
    ax = w * (0.5 + side * 0.32)
    hand = (ax, h * 0.42)
    if rank == "K":
        cv2.line(img, _pt(ax, h * 0.06), _pt(ax, h * 0.5), (190, 190, 200), max(2, 2 * t), _AA)
        cv2.line(img, _pt(ax - w * 0.06, h * 0.4), _pt(ax + w * 0.06, h * 0.4), gold, max(2, 2 * t), _AA)
    elif rank == "Q":
        cv2.line(img, _pt(ax, h * 0.18), _pt(ax, h * 0.45), (40, 120, 40), t, _AA)
        for a in range(0, 360, 60):
            c = (ax + np.cos(np.radians(a)) * w * 0.035, h * 0.16 + np.sin(np.radians(a)) * w * 0.035)
            cv2.circle(img, _pt(*c), max(1, int(w * 0.03)), robe_a, -1, _AA)
        cv2.circle(img, _pt(ax, h * 0.16), max(1, int(w * 0.025)), gold, -1, _AA)
    else:
        cv2.line(img, _pt(ax, h * 0.02), _pt(ax, h * 0.5), hair, max(2, t), _AA)
        _poly(img, [(ax, h * 0.02), (ax + side * w * 0.08, h * 0.07), (ax, h * 0.12)], (170, 170, 180))
    cv2.circle(img, _pt(*hand), max(2, int(w * 0.045)), skin, -1, _AA)
    cv2.circle(img, _pt(*hand), max(2, int(w * 0.045)), dark, t, _AA)

    # Suit sign in the upper corner of the frame, opposite the attribute.
    ps = max(4, int(w * 0.16))
    stamp(img, suit_mask(suit, ps, 0), w * (0.5 - side * 0.36), h * 0.09, colour)


def draw_court(face: np.ndarray, rect: tuple[int, int, int, int], rank: str, suit: str,
               colour, palette: int, split: str, stock) -> None:
    """Draw a court figure into ``face[y0:y1, x0:x1]`` (BGR, in place)."""
    x0, y0, x1, y1 = rect
    w, h = x1 - x0, y1 - y0
    key = zlib.crc32(f"{rank}{suit}".encode())
    art = np.empty((h, w, 3), np.uint8)
    art[:] = stock
    _half_figure(art, rank, suit, palette, key, colour)
    # Keep the part above the split line, fill the rest with the rotated copy.
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if split == "diagonal":
        line = h * 0.5 + (xx - w / 2) * (-0.25 * h / w)
        upper = yy < line
    else:
        upper = yy < h / 2
    out = np.where(upper[..., None], art, art[::-1, ::-1])
    if split == "diagonal":
        cv2.line(out, _pt(0, h * 0.5 + h * 0.125), _pt(w, h * 0.5 - h * 0.125), PALETTES[palette % 4][3],
                 max(1, w // 120), _AA)
    else:
        cv2.line(out, _pt(0, h / 2), _pt(w, h / 2), PALETTES[palette % 4][3], max(1, w // 120), _AA)
    face[y0:y1, x0:x1, :3] = out
    cv2.rectangle(face, (x0, y0), (x1 - 1, y1 - 1), colour, max(1, w // 100), _AA)
