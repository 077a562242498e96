"""Suit symbols as anti-aliased masks, with a few shape variants per suit.

Variants 0-3 are hand-drawn, 4 and up drawn with random proportions, and from
``GLYPH_VARIANT0`` on the suit signs of a typeface (``SUIT_GLYPH_FONTS``): type
designers drew spades and clubs the way printers do (thin stems, flared feet),
which the drawn ones do not teach.

>>> m = suit_mask("H", 40)
>>> m.shape, m.dtype, bool(0.3 < m.mean() / 255 < 0.8)
((40, 40), dtype('uint8'), True)
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

_SHIFT = 4  # sub-pixel bits for cv2 polygon drawing
_ONE = 1 << _SHIFT


def _poly(mask: np.ndarray, pts: np.ndarray) -> None:
    cv2.fillPoly(mask, [np.round(pts * _ONE).astype(np.int32)], 255, cv2.LINE_AA, _SHIFT)


def _circle(mask: np.ndarray, c, r: float) -> None:
    cv2.circle(mask, (int(round(c[0] * _ONE)), int(round(c[1] * _ONE))), int(round(r * _ONE)),
               255, -1, cv2.LINE_AA, _SHIFT)


def _heart_pts(n: int, s: float, variant: int, flip: bool) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    lobe = (1.0, 1.25, 0.8, 1.1)[variant % 4]
    x = 16 * np.sin(t) ** 3
    y = -(13 * np.cos(t) - 5 * lobe * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t))
    x = x / 34.0
    y = (y - y.min()) / (y.max() - y.min()) - 0.5
    widen = (1.0, 1.05, 0.92, 1.08)[variant % 4]
    if flip:
        y = -y
    return np.stack([0.5 + x * widen, 0.5 + y * 0.95], 1) * s


def _diamond(mask: np.ndarray, s: float, bow: float, half_w: float) -> None:
    """A diamond whose sides curve in by ``bow`` (quadratic Bezier towards the centre)."""
    corners = np.array([[0.5, 0.02], [0.5 + half_w, 0.5], [0.5, 0.98], [0.5 - half_w, 0.5]])
    pts = []
    for i in range(4):
        a, b = corners[i], corners[(i + 1) % 4]
        mid = (a + b) / 2
        mid = mid + (np.array([0.5, 0.5]) - mid) * bow
        for t in np.linspace(0, 1, 10, endpoint=False):
            pts.append((1 - t) ** 2 * a + 2 * (1 - t) * t * mid + t ** 2 * b)
    _poly(mask, np.array(pts) * s)


def _stem(mask: np.ndarray, s: float, top: float, width: float, neck: float, flare: float) -> None:
    """A stem from ``top`` to the foot: ``neck`` wide at the top, ``width`` at the foot, its
    sides curving out with the power ``flare`` (1 straight, 3 a thin stem on a wide foot)."""
    bot = 0.98 * s
    k = np.linspace(0, 1, 16)
    half = neck / 2 + (width - neck) / 2 * k ** flare
    left = np.stack([s / 2 - half, top + (bot - top) * k], 1)
    right = np.stack([s / 2 + half[::-1], top + (bot - top) * k[::-1]], 1)
    _poly(mask, np.concatenate([left, right]))


def _draw_drawn(mask: np.ndarray, suit: str, variant: int) -> None:
    """Variants 4 and up: proportions drawn from ``variant``, as printers' suit signs differ
    (narrow or fat spades, thin or thick stems, small or big club leaves)."""
    s = mask.shape[0]
    r = np.random.default_rng(10_000 + variant)
    if suit in "HS":
        t = np.linspace(0, 2 * np.pi, 120, endpoint=False)
        lobe, widen, point = r.uniform(0.7, 1.35), r.uniform(0.78, 1.12), r.uniform(0.8, 1.2)
        x = 16 * np.sin(t) ** 3 / 34.0
        y = -(13 * point * np.cos(t) - 5 * lobe * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t))
        y = (y - y.min()) / (y.max() - y.min()) - 0.5
        if suit == "H":
            _poly(mask, np.stack([0.5 + x * widen, 0.5 + y * 0.95], 1) * s)
            return
        body = r.uniform(0.72, 0.9)
        pts = np.stack([0.5 + x * widen * body, (0.5 - y) * body + 0.01], 1) * s
        _poly(mask, pts)
        _stem(mask, s, body * 0.6 * s, r.uniform(0.12, 0.34) * s, r.uniform(0.03, 0.1) * s, r.uniform(1.0, 3.5))
    elif suit == "D":
        bow = r.uniform(-0.02, 0.2)
        _diamond(mask, s, bow, r.uniform(0.28, 0.42))
    else:
        rad, spread, cy = r.uniform(0.16, 0.25) * s, r.uniform(0.17, 0.26) * s, r.uniform(0.36, 0.46) * s
        drop = r.uniform(0.3, 0.6)
        _circle(mask, (s / 2, cy - spread * 0.95), rad)
        _circle(mask, (s / 2 - spread, cy + spread * drop), rad)
        _circle(mask, (s / 2 + spread, cy + spread * drop), rad)
        _circle(mask, (s / 2, cy + spread * 0.1), rad * 0.6)
        _stem(mask, s, cy, r.uniform(0.12, 0.34) * s, r.uniform(0.03, 0.1) * s, r.uniform(1.0, 3.5))


#: First variant drawn from a typeface's suit signs (``GLYPH_VARIANT0 + k``).
GLYPH_VARIANT0 = 1000
#: Upright typefaces whose U+2660-2666 signs are whole and right (FreeSerif Bold swaps spade
#: and club; STIX Math has none), from Debian's fonts-dejavu, -liberation, -urw-base35,
#: -freefont-ttf, -stix, -symbola, -noto-core and -texgyre-math.
SUIT_GLYPH_FONTS: tuple[str, ...] = (
    "STIX-Regular.otf", "C059-Bold.otf", "NimbusMonoPS-Bold.otf", "NimbusRoman-Bold.otf", "NimbusSans-Bold.otf",
    "NimbusSansNarrow-Bold.otf", "P052-Bold.otf", "URWGothic-Book.otf", "Symbola_hint.ttf", "DejaVuMathTeXGyre.ttf",
    "DejaVuSans-Bold.ttf", "DejaVuSansCondensed-Bold.ttf", "DejaVuSansMono-Bold.ttf", "DejaVuSerif-Bold.ttf",
    "FreeMono.ttf", "FreeMonoBold.ttf", "FreeSans.ttf", "FreeSansBold.ttf", "FreeSerif.ttf", "LiberationMono-Bold.ttf",
    "LiberationSans-Bold.ttf", "LiberationSansNarrow-Bold.ttf", "LiberationSerif-Bold.ttf",
    "NotoSansSymbols2-Regular.ttf", "texgyrebonum-math.otf", "texgyredejavu-math.otf", "texgyrepagella-math.otf",
    "texgyreschola-math.otf", "texgyretermes-math.otf",
)
_GLYPH_CHAR = {"S": "\u2660", "C": "\u2663", "H": "\u2665", "D": "\u2666"}


def _glyph_font_path(name: str) -> str | None:
    from .styles import _font_index

    return _font_index().get(name)


def glyph_fonts() -> tuple[str, ...]:
    """The ``SUIT_GLYPH_FONTS`` present on this machine (glyph variants use these only)."""
    return tuple(f for f in SUIT_GLYPH_FONTS if _glyph_font_path(f))


def _draw_glyph(mask: np.ndarray, suit: str, variant: int) -> bool:
    """Variant ``GLYPH_VARIANT0 + k``: the suit sign of typeface ``k`` (modulo those present),
    widened or narrowed, bolder or lighter, as drawn from ``k``. False when no typeface is found."""
    fonts = glyph_fonts()
    if not fonts:
        return False
    from PIL import Image, ImageDraw, ImageFont

    k = variant - GLYPH_VARIANT0
    r = np.random.default_rng(20_000 + k)
    widen, weight = r.uniform(0.85, 1.15), r.uniform(-0.02, 0.05)
    big = 160
    font = ImageFont.truetype(_glyph_font_path(fonts[k % len(fonts)]), big)
    im = Image.new("L", (2 * big, 2 * big), 0)
    ImageDraw.Draw(im).text((big, big), _GLYPH_CHAR[suit], font=font, fill=255, anchor="mm")
    a = np.asarray(im)
    ys, xs = np.nonzero(a > 127)
    if len(xs) == 0:
        return False
    a = a[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    rad = int(round(abs(weight) * a.shape[0]))
    if rad:  # bolder or lighter strokes, as another weight of the face
        ker = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * rad + 1, 2 * rad + 1))
        a = cv2.copyMakeBorder(a, rad, rad, rad, rad, cv2.BORDER_CONSTANT, value=0)
        a = cv2.dilate(a, ker) if weight > 0 else cv2.erode(a, ker)
    h, w = a.shape
    s = mask.shape[0]
    # fit the sign into the mask as the drawn ones are: its height (or width) about 0.96 of it
    scale = 0.96 * s / max(h, w * widen)
    nh, nw = max(1, int(round(h * scale))), max(1, int(round(w * widen * scale)))
    g = cv2.resize(a, (nw, nh), interpolation=cv2.INTER_AREA)
    y0, x0 = (s - nh) // 2, (s - nw) // 2
    mask[y0:y0 + nh, x0:x0 + nw] = np.maximum(mask[y0:y0 + nh, x0:x0 + nw], g)
    return True


def _draw(mask: np.ndarray, suit: str, variant: int) -> None:
    s = mask.shape[0]
    if variant >= GLYPH_VARIANT0 and suit in "SHDC" and _draw_glyph(mask, suit, variant):
        return
    if variant >= GLYPH_VARIANT0:  # no typeface on this machine: drawn proportions instead
        variant = 4 + variant - GLYPH_VARIANT0
    if variant >= 4 and suit in "SHDC":
        _draw_drawn(mask, suit, variant)
        return
    if suit == "H":
        _poly(mask, _heart_pts(120, s, variant, flip=False))
    elif suit == "S":
        # Spade: an upside-down heart body plus a flared stem.
        body = _heart_pts(120, s * 0.86, variant, flip=True) + [s * 0.07, 0]
        _poly(mask, body)
        stem_w = (0.22, 0.3, 0.18, 0.26)[variant % 4] * s
        top, bot = 0.55 * s, 0.98 * s
        k = np.linspace(0, 1, 12)
        left = np.stack([s / 2 - 0.03 * s - (stem_w / 2) * k ** 2, top + (bot - top) * k], 1)
        right = np.stack([s / 2 + 0.03 * s + (stem_w / 2) * k[::-1] ** 2, top + (bot - top) * k[::-1]], 1)
        _poly(mask, np.concatenate([left, right]))
    elif suit == "D":
        # bow: inward curve of the sides
        _diamond(mask, s, (0.10, 0.0, 0.16, 0.06)[variant % 4], (0.36, 0.40, 0.33, 0.38)[variant % 4])
    elif suit == "C":
        r = (0.2, 0.22, 0.185, 0.21)[variant % 4] * s
        spread = (0.22, 0.24, 0.2, 0.235)[variant % 4] * s
        cx, cy = s / 2, s * 0.42
        _circle(mask, (cx, cy - spread * 0.95), r)
        _circle(mask, (cx - spread, cy + spread * 0.45), r)
        _circle(mask, (cx + spread, cy + spread * 0.45), r)
        _circle(mask, (cx, cy + spread * 0.1), r * 0.6)
        top, bot = cy, 0.98 * s
        k = np.linspace(0, 1, 12)
        stem_w = (0.24, 0.3, 0.2, 0.27)[variant % 4] * s
        left = np.stack([s / 2 - 0.035 * s - (stem_w / 2) * k ** 2, top + (bot - top) * k], 1)
        right = np.stack([s / 2 + 0.035 * s + (stem_w / 2) * k[::-1] ** 2, top + (bot - top) * k[::-1]], 1)
        _poly(mask, np.concatenate([left, right]))
    else:
        raise ValueError(f"unknown suit {suit!r}; expected one of S H D C")


@functools.lru_cache(maxsize=512)
def suit_mask(suit: str, size: int, variant: int = 0) -> np.ndarray:
    """(size, size) uint8 coverage mask of a suit symbol, point down for S/C stems."""
    if size < 2:
        raise ValueError(f"suit_mask: size must be >= 2, got {size}")
    mask = np.zeros((size, size), np.uint8)
    _draw(mask, suit, variant)
    mask.setflags(write=False)
    return mask


def stamp(img: np.ndarray, mask: np.ndarray, x: float, y: float, colour, flip: bool = False) -> None:
    """Paint ``colour`` through ``mask`` centred at (x, y) on a BGR image (in place, clipped)."""
    if flip:
        mask = mask[::-1, ::-1]
    h, w = mask.shape
    x0, y0 = int(round(x - w / 2)), int(round(y - h / 2))
    x1, y1 = x0 + w, y0 + h
    cx0, cy0 = max(x0, 0), max(y0, 0)
    cx1, cy1 = min(x1, img.shape[1]), min(y1, img.shape[0])
    if cx0 >= cx1 or cy0 >= cy1:
        return
    m = mask[cy0 - y0:cy1 - y0, cx0 - x0:cx1 - x0].astype(np.float32)[..., None] / 255.0
    roi = img[cy0:cy1, cx0:cx1, :3]
    roi[:] = (roi * (1 - m) + np.asarray(colour, np.float32) * m).astype(np.uint8)
