"""Sharpen a located card's outline at full resolution (classical, no model).

The locator works at 320 px and its rotated boxes can be off by several
degrees; the reader needs the corner within a few percent of the card. Around
each located card this finds the bright, low-saturation card stock connected
to the box centre and fits a quadrilateral to it (a true quad, so perspective
is followed too). The result is used only when it looks like one card: right
size, card-like aspect, solid; otherwise (piles, white tables) the locator's
box is kept.

>>> import numpy as np, cv2
>>> frame = np.full((300, 300, 3), (40, 100, 40), np.uint8)
>>> card = cv2.boxPoints(((150, 150), (70, 100), 20)).astype(np.float32)
>>> _ = cv2.fillPoly(frame, [card.astype(np.int32)], (240, 240, 240))
>>> rough = cv2.boxPoints(((155, 146), (80, 90), 35)).astype(np.float32)
>>> q = refine_quad(frame, rough)
>>> float(np.abs(np.sort(q[:, 0]) - np.sort(card[:, 0])).max()) < 4
True
"""

from __future__ import annotations

import cv2
import numpy as np

#: Largest refined outline, as a multiple of the located box's area.
MAX_AREA_RATIO = 1.3
#: Short/long side ratio a card outline may have (tilted cameras shorten one side).
ASPECT_RANGE = (0.45, 0.95)


def _quad_from_contour(cnt: np.ndarray) -> np.ndarray:
    hull = cv2.convexHull(cnt)
    peri = cv2.arcLength(hull, True)
    for eps in (0.02, 0.03, 0.045, 0.06, 0.08):
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4:
            return approx.reshape(4, 2).astype(np.float32)
    return cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float32)


def _aspect(q: np.ndarray) -> float:
    s = np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)
    a, b = s[0] + s[2], s[1] + s[3]
    return min(a, b) / max(a, b, 1e-6)


def refine_quad(frame: np.ndarray, quad: np.ndarray, grow: float = 1.6, work_px: int = 160) -> np.ndarray | None:
    """The card outline near ``quad`` (4, 2) in frame pixels, or ``None`` when unsure."""
    quad = np.asarray(quad, np.float32).reshape(4, 2)
    h, w = frame.shape[:2]
    ctr = quad.mean(axis=0)
    size = float(np.sqrt(max(cv2.contourArea(quad), 1.0)))
    half = grow * np.abs(quad - ctr).max()
    x0, y0 = int(max(0, ctr[0] - half)), int(max(0, ctr[1] - half))
    x1, y1 = int(min(w, ctr[0] + half + 1)), int(min(h, ctr[1] + half + 1))
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    roi = frame[y0:y1, x0:x1]
    k = min(1.0, work_px / max(roi.shape[:2]))
    small = cv2.resize(roi, None, fx=k, fy=k, interpolation=cv2.INTER_AREA) if k < 1 else roi
    for mask in _masks(small):
        q = _fit(mask, quad, ctr, size, k, x0, y0)
        if q is not None:
            return q
    return None


def _masks(small: np.ndarray):
    """Candidate card masks of a region: unlike the table around it, then bright card stock."""
    # 1. differs from the table (the region's rim is mostly table): keeps printed borders
    rim = np.concatenate([small[0], small[-1], small[:, 0], small[:, -1]]).astype(np.float32)
    table = np.median(rim, axis=0)
    spread = float(np.median(np.linalg.norm(rim - table, axis=1)))
    dist = np.linalg.norm(small.astype(np.float32) - table, axis=2)
    dist = cv2.GaussianBlur(dist, (3, 3), 0)
    yield ((dist > max(45.0, 3.0 * spread)).astype(np.uint8) * 255)
    # 2. card stock: bright and grey-ish; "whiteness" high on stock, low on coloured or dark tables
    hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)
    white = cv2.subtract(small.min(axis=2), (hsv[:, :, 1] // 3).astype(np.uint8))
    white = cv2.GaussianBlur(white, (3, 3), 0)
    _, mask = cv2.threshold(white, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    yield mask


def _fit(mask: np.ndarray, quad: np.ndarray, ctr: np.ndarray, size: float, k: float, x0: int, y0: int):
    """The card quad in ``mask`` around the located box, or ``None`` when it does not look like one card."""
    # pips and indices are holes in the stock: close them, then fill every outer contour
    kern = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, kern)
    # indices and pips near the edge bite notches into the outline: close them (about 6% of the card)
    c = max(3, int(0.06 * size * k) | 1)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (c, c)))
    n, labels, stats, cents = cv2.connectedComponentsWithStats(mask)
    if n <= 1:
        return None
    cy, cx = (ctr[1] - y0) * k, (ctr[0] - x0) * k
    lab = labels[int(np.clip(cy, 0, labels.shape[0] - 1)), int(np.clip(cx, 0, labels.shape[1] - 1))]
    if lab == 0:  # centre on a pip: take the component whose centroid is nearest
        d = np.linalg.norm(cents[1:] - [cx, cy], axis=1)
        lab = 1 + int(np.argmin(d))
    comp = (labels == lab).astype(np.uint8) * 255
    cnts, _ = cv2.findContours(comp, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not cnts:
        return None
    cnt = max(cnts, key=cv2.contourArea)
    q = _quad_from_contour(cnt) / k + [x0, y0]
    q = q.astype(np.float32)
    area = cv2.contourArea(q)
    # sanity: one card, about the located size, card-shaped, filled
    # a true card's area is 0.77-1.16x the located box's (5th-95th percentile, validation
    # scenes); much more is an outline that took in a second card of a pile
    if not (0.5 * size**2 <= area <= MAX_AREA_RATIO * size**2):
        return None
    if not (ASPECT_RANGE[0] <= _aspect(q) <= ASPECT_RANGE[1]):
        return None
    if np.linalg.norm(q.mean(axis=0) - ctr) > 0.3 * size:
        return None
    solidity = cv2.contourArea(cnt) / max(cv2.contourArea(cv2.convexHull(cnt)), 1.0)
    if solidity < 0.85:
        return None
    return q


#: Width / height of a card (poker 63x88 mm; bridge decks are narrower).
CARD_ASPECT = 0.7


def card_shaped(rbox: np.ndarray, squarish: float = 0.88) -> np.ndarray:
    """Card-proportioned rectangles (k, 4, 2) of the same centre, angle and area as ``rbox``.

    The locator's boxes tend to be squarer than cards; the reader needs the
    corner in the right place. Along the box's longer side, and also along the
    other when the box is nearly square (which side is long is then unknown).

    >>> card_shaped(np.array([50, 50, 80, 80, 0.0])).shape
    (2, 4, 2)
    """
    from sueca.vision.onnx_backend import rbox_corners

    cx, cy, w, h, a = (float(v) for v in np.asarray(rbox).reshape(5))
    area = max(w * h, 1.0)
    long_, short = np.sqrt(area / CARD_ASPECT), np.sqrt(area * CARD_ASPECT)
    out = [rbox_corners(np.array([[cx, cy, long_, short, a] if w >= h else [cx, cy, short, long_, a]]))[0]]
    if min(w, h) / max(w, h, 1e-6) > squarish:
        out.append(rbox_corners(np.array([[cx, cy, short, long_, a] if w >= h else [cx, cy, long_, short, a]]))[0])
    return np.stack(out).astype(np.float32)


def grown(quads: np.ndarray, factor: float) -> np.ndarray:
    """(k, 4, 2) quads scaled by ``factor`` about their centres.

    >>> grown(np.array([[[0, 0], [2, 0], [2, 2], [0, 2]]], np.float32), 2.0)[0, 0].tolist()
    [-1.0, -1.0]
    """
    q = np.asarray(quads, np.float32)
    c = q.mean(axis=1, keepdims=True)
    return (c + (q - c) * factor).astype(np.float32)


def edge_angle(frame: np.ndarray, rbox: np.ndarray, search_deg: float = 30.0, work_px: int = 128) -> float:
    """The box angle (radians) corrected to the card's own straight edges.

    Card outlines are the strongest straight edges around a located card; their
    orientation (modulo 90 degrees) is the peak of the gradient-angle histogram
    in a band around the box. Only peaks within ``search_deg`` of the locator's
    angle count, so a striped tablecloth cannot pull the box far.
    """
    from sueca.vision.onnx_backend import rbox_corners

    rb = np.asarray(rbox, np.float32).reshape(5)
    quad = rbox_corners(rb[None])[0]
    h, w = frame.shape[:2]
    ctr = quad.mean(axis=0)
    half = 1.4 * np.abs(quad - ctr).max()
    x0, y0 = int(max(0, ctr[0] - half)), int(max(0, ctr[1] - half))
    x1, y1 = int(min(w, ctr[0] + half + 1)), int(min(h, ctr[1] + half + 1))
    if x1 - x0 < 8 or y1 - y0 < 8:
        return float(rb[4])
    roi = frame[y0:y1, x0:x1]
    k = min(1.0, work_px / max(roi.shape[:2]))
    grey = cv2.cvtColor(roi, cv2.COLOR_BGR2GRAY)
    if k < 1:
        grey = cv2.resize(grey, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
    grey = grey.astype(np.float32)
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    mag = np.hypot(gx, gy)
    # a band around the box outline, where the card's edges must be
    q = (quad - [x0, y0]) * k
    band = np.zeros(grey.shape, np.uint8)
    c = q.mean(axis=0)
    cv2.fillPoly(band, [(c + (q - c) * 1.35).astype(np.int32)], 1)
    cv2.fillPoly(band, [(c + (q - c) * 0.7).astype(np.int32)], 0)
    wgt = mag * band
    ang = np.degrees(np.arctan2(gy, gx)) % 90.0
    hist = np.bincount(np.minimum((ang * 2).astype(np.int64), 179).ravel(), weights=wgt.ravel(), minlength=180)
    hist = np.convolve(np.concatenate([hist[-3:], hist, hist[:3]]), np.ones(5) / 5, mode="same")[3:-3]
    a0 = np.degrees(rb[4]) % 90.0
    bins = (np.arange(180) + 0.5) / 2
    diff = (bins - a0 + 45) % 90 - 45
    hist = np.where(np.abs(diff) <= search_deg, hist, 0)
    if hist.max() <= 0:
        return float(rb[4])
    return float(rb[4] + np.radians(diff[int(np.argmax(hist))]))
