"""Card faces and backs rendered from a deck style.

>>> img, quads = render_card_face("7H", "classic", 300)
>>> img.shape[0], img.shape[2], quads.shape
(300, 4, (2, 4, 2))

``index_quads`` are the two corner indices (rank + suit) in card pixel
coordinates, each ordered TL, TR, BR, BL *as the index reads upright*: the
second (bottom-right) index is rotated 180 degrees, so its TL point lies
towards the card's bottom-right corner.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ..vision.classes import RANKS, SUITS
from .court import draw_court
from .pips import stamp, suit_mask
from .styles import DeckStyle, find_font, get_style

# Pip centres in the pip box (x: 0 left column, 0.5 centre, 1 right; y: 0 top, 1 bottom).
_L, _C, _R = 0.0, 0.5, 1.0
PIP_LAYOUTS: dict[str, tuple[tuple[float, float], ...]] = {
    "2": ((_C, 0), (_C, 1)),
    "3": ((_C, 0), (_C, 0.5), (_C, 1)),
    "4": ((_L, 0), (_R, 0), (_L, 1), (_R, 1)),
    "5": ((_L, 0), (_R, 0), (_C, 0.5), (_L, 1), (_R, 1)),
    "6": ((_L, 0), (_R, 0), (_L, 0.5), (_R, 0.5), (_L, 1), (_R, 1)),
    "7": ((_L, 0), (_R, 0), (_C, 0.25), (_L, 0.5), (_R, 0.5), (_L, 1), (_R, 1)),
    "8": ((_L, 0), (_R, 0), (_C, 0.25), (_L, 0.5), (_R, 0.5), (_C, 0.75), (_L, 1), (_R, 1)),
    "9": ((_L, 0), (_R, 0), (_L, 1 / 3), (_R, 1 / 3), (_C, 0.5), (_L, 2 / 3), (_R, 2 / 3), (_L, 1), (_R, 1)),
    "10": ((_L, 0), (_R, 0), (_C, 1 / 6), (_L, 1 / 3), (_R, 1 / 3), (_L, 2 / 3), (_R, 2 / 3), (_C, 5 / 6),
           (_L, 1), (_R, 1)),
}


def split_code(code: str) -> tuple[str, str]:
    """"10D" -> ("10", "D"); clear error for anything else."""
    if not isinstance(code, str) or len(code) < 2 or code[:-1] not in RANKS or code[-1] not in SUITS:
        raise ValueError(f"bad card code {code!r}: expected rank {'/'.join(RANKS)} + suit S/H/D/C, e.g. '10D'")
    return code[:-1], code[-1]


@functools.lru_cache(maxsize=256)
def _glyph(text: str, font_path: str | None, px: int) -> np.ndarray:
    """Tight uint8 coverage mask of ``text`` whose ink is ``px`` pixels tall."""
    size = px
    for _ in range(3):  # font size -> ink height is not 1:1; correct twice
        font = ImageFont.truetype(font_path, size) if font_path else ImageFont.load_default(size)
        l, t, r, b = font.getbbox(text)
        ink = max(1, b - t)
        if abs(ink - px) <= 1:
            break
        size = max(4, int(round(size * px / ink)))
    im = Image.new("L", (r - l + 4, b - t + 4), 0)
    ImageDraw.Draw(im).text((2 - l, 2 - t), text, fill=255, font=font)
    a = np.asarray(im)
    ys, xs = np.nonzero(a > 8)
    return a[ys.min():ys.max() + 1, xs.min():xs.max() + 1].copy()


def _rounded_alpha(h: int, w: int, r: float) -> np.ndarray:
    a = np.zeros((h * 4, w * 4), np.uint8)  # 4x supersampled, then area-averaged
    R = int(r * 4)
    cv2.rectangle(a, (R, 0), (w * 4 - 1 - R, h * 4 - 1), 255, -1)
    cv2.rectangle(a, (0, R), (w * 4 - 1, h * 4 - 1 - R), 255, -1)
    for cx, cy in ((R, R), (w * 4 - 1 - R, R), (R, h * 4 - 1 - R), (w * 4 - 1 - R, h * 4 - 1 - R)):
        cv2.circle(a, (cx, cy), R, 255, -1)
    return cv2.resize(a, (w, h), interpolation=cv2.INTER_AREA)


def _blank(style: DeckStyle, h: int, stock) -> np.ndarray:
    w = int(round(h * style.aspect))
    img = np.empty((h, w, 3), np.uint8)
    img[:] = stock
    # A faint grey rim: the cut edge of the card stock.
    r = int(style.corner_radius * w)
    edge = (np.asarray(stock, np.float32) * 0.82).astype(int).tolist()
    _round_rect(img, 1, 1, w - 2, h - 2, r, edge, max(1, h // 250))
    if style.border is not None:
        m = int(0.025 * w)
        _round_rect(img, m, m, w - 1 - m, h - 1 - m, max(1, r - m), style.border, max(1, h // 220))
    return img


def _round_rect(img, x0, y0, x1, y1, r, colour, t):
    c = tuple(int(v) for v in colour)
    for (a, b), ang in (((x0 + r, y0 + r), 180), ((x1 - r, y0 + r), 270), ((x1 - r, y1 - r), 0), ((x0 + r, y1 - r), 90)):
        cv2.ellipse(img, (a, b), (r, r), ang, 0, 90, c, t, cv2.LINE_AA)
    cv2.line(img, (x0 + r, y0), (x1 - r, y0), c, t, cv2.LINE_AA)
    cv2.line(img, (x0 + r, y1), (x1 - r, y1), c, t, cv2.LINE_AA)
    cv2.line(img, (x0, y0 + r), (x0, y1 - r), c, t, cv2.LINE_AA)
    cv2.line(img, (x1, y0 + r), (x1, y1 - r), c, t, cv2.LINE_AA)


def _paint_mask(img, mask, x0, y0, colour):
    h, w = mask.shape
    m = mask.astype(np.float32)[..., None] / 255.0
    roi = img[y0:y0 + h, x0:x0 + w]
    roi[:] = (roi * (1 - m) + np.asarray(colour, np.float32) * m).astype(np.uint8)


@functools.lru_cache(maxsize=1200)
def _render_face(code: str, style_name: str, h: int) -> tuple[np.ndarray, np.ndarray]:
    style = get_style(style_name)
    rank, suit = split_code(code)
    if style.external:
        from . import svgdeck

        img, quads = svgdeck.load_face(code, h, style.external)
        if style.restyle:
            img = restyle_external(img, quads, rank, suit, style)
        if style.art_from and rank in "JQKA":
            img = swap_art(img, quads, svgdeck.load_face(code, h, style.art_from)[0])
        img = _tint(img, style.stock)
        img.setflags(write=False)
        quads.setflags(write=False)
        return img, quads
    colour = style.colour(suit)
    img = _blank(style, h, style.stock)
    w = img.shape[1]

    # Corner index: rank glyph, suit below, centred on one column.
    rank_px = max(6, int(round(style.index_scale * h)))
    glyph = _glyph(style.rank_text(rank), find_font(style.fonts), rank_px)
    max_w = int(rank_px * (1.25 if len(rank) > 1 else 0.85) * style.condensed)
    gw = min(glyph.shape[1], max_w) if len(rank) > 1 else int(glyph.shape[1] * style.condensed)
    glyph = cv2.resize(glyph, (max(1, gw), glyph.shape[0]), interpolation=cv2.INTER_AREA)
    suit_px = max(5, int(round(rank_px * style.index_suit_scale)))
    col_w = max(glyph.shape[1], suit_px)
    mx = max(int(0.045 * w), int(style.corner_radius * w * 0.55)) if style.index_inset is None \
        else int(style.index_inset * w)
    cx = mx + col_w / 2
    ty = int(round(style.index_margin * h))
    _paint_mask(img, glyph, int(round(cx - glyph.shape[1] / 2)), ty, colour)
    sy = ty + glyph.shape[0] + max(1, int(0.012 * h))
    stamp(img, suit_mask(suit, suit_px, style.pip_variant), cx, sy + suit_px / 2, colour)
    pad = max(1, int(0.008 * h))
    ix0, iy0 = int(cx - col_w / 2) - pad, ty - pad
    ix1, iy1 = int(np.ceil(cx + col_w / 2)) + pad, sy + suit_px + pad
    # Second index: the same patch rotated 180 degrees in the opposite corner.
    patch = img[iy0:iy1, ix0:ix1][::-1, ::-1].copy()
    img[h - iy1:h - iy0, w - ix1:w - ix0] = patch
    tl = np.array([[ix0, iy0], [ix1, iy0], [ix1, iy1], [ix0, iy1]], np.float32)
    quads = np.stack([tl, np.array([w, h], np.float32) - tl])

    # Centre: pips, ace or court figure, clear of the index column.
    inner_x0 = ix1 + int(style.pip_gap * w)
    if rank in PIP_LAYOUTS:
        pip = int(round(min(0.2 * w, (w - 2 * inner_x0) * 0.46, 0.15 * h) * style.pip_scale))
        px0, px1 = inner_x0 + pip * 0.55, w - inner_x0 - pip * 0.55
        py0, py1 = style.pip_top * h + pip * 0.55, (1 - style.pip_top) * h - pip * 0.55
        if px1 - px0 < pip * 1.05:  # narrow styles: keep the columns apart
            px0, px1 = w / 2 - pip * 0.55, w / 2 + pip * 0.55
        m = suit_mask(suit, pip, style.pip_variant)
        for u, v in PIP_LAYOUTS[rank]:
            stamp(img, m, px0 + u * (px1 - px0), py0 + v * (py1 - py0), colour, flip=v > 0.5)
    elif rank == "A":
        big = int(round(0.5 * w if suit == "S" else 0.36 * w))
        stamp(img, suit_mask(suit, big, style.pip_variant), w / 2, h / 2, colour)
        if suit == "S":  # the ornate ace of spades
            cv2.ellipse(img, (w // 2, h // 2), (int(0.34 * w), int(0.3 * h)), 0, 0, 360, colour,
                        max(1, h // 160), cv2.LINE_AA)
    else:
        fx0, fy0 = inner_x0, int(0.085 * h)
        draw_court(img, (fx0, fy0, w - fx0, h - fy0), rank, suit, colour, style.court_palette,
                   style.court_split, style.stock)
    img = _with_alpha(img, style)
    img.setflags(write=False)
    quads.setflags(write=False)
    return img, quads


def swap_art(img: np.ndarray, quads: np.ndarray, other: np.ndarray) -> np.ndarray:
    """``img`` (BGRA) with everything but its two corner indices taken from ``other``, the same
    card of another deck stretched to its size: that deck's figure then runs right up to this
    deck's index, as some printers' do. The card's outline (alpha) and a thin rim stay its own.

    >>> a = np.full((40, 28, 4), 255, np.uint8); b = np.zeros((40, 28, 4), np.uint8)
    >>> q = np.array([[[2, 2], [7, 2], [7, 10], [2, 10]], [[21, 30], [26, 30], [26, 38], [21, 38]]], np.float32)
    >>> out = swap_art(a, q, b)
    >>> int(out[20, 14, 0]), int(out[5, 4, 0]), int(out[20, 14, 3])
    (0, 255, 255)
    """
    h, w = img.shape[:2]
    other = cv2.resize(other, (w, h), interpolation=cv2.INTER_AREA)
    take = np.zeros((h, w), bool)
    rim = max(1, int(round(0.02 * w)))
    take[rim:h - rim, rim:w - rim] = True
    pad = max(1, int(round(0.006 * h)))
    for q in quads:
        x0, y0 = np.floor(q.min(0)).astype(int) - pad
        x1, y1 = np.ceil(q.max(0)).astype(int) + pad
        take[max(y0, 0):max(y1, 0), max(x0, 0):max(x1, 0)] = False
    out = img.copy()
    out[take, :3] = other[take, :3]
    return out


def restyle_external(img: np.ndarray, quads: np.ndarray, rank: str, suit: str, style: DeckStyle) -> np.ndarray:
    """Give a fetched real deck this style's suit colours and index letters.

    Number cards are recoloured whole (all their ink is pips and index); court
    cards only in their indices, so the figure art keeps its own colours.
    """
    img = img.copy()
    target = np.asarray(style.colour(suit), np.float32)
    red_suit = suit in "HD"
    regions = [None] if rank not in "JQK" else [q for q in quads]
    for q in regions:
        if q is None:
            sl = (slice(None), slice(None))
        else:
            x0, y0 = np.floor(q.min(0)).astype(int)
            x1, y1 = np.ceil(q.max(0)).astype(int)
            sl = (slice(max(y0, 0), y1), slice(max(x0, 0), x1))
        patch = img[sl][..., :3].astype(np.float32)
        b, g, r = patch[..., 0], patch[..., 1], patch[..., 2]
        if red_suit:   # red ink: weight from the missing green, only where red dominates
            wgt = np.where(r > g + 40, (255 - g) / 255.0, 0.0)
        else:          # black ink: weight from darkness, only where grey
            wgt = np.where(np.abs(r - b) < 40, (255 - (r + g + b) / 3) / 255.0, 0.0)
        wgt = wgt[..., None]
        img[sl][..., :3] = (patch * (1 - wgt) + (255 * (1 - wgt) + target * wgt) * wgt).clip(0, 255).astype(np.uint8)
    if style.rank_text(rank) != rank:
        for k, q in enumerate(quads):
            _reletter(img, q, style.rank_text(rank), target, style, flip=k == 1)
    if style.art_hue and rank in "JQK":   # another printer's court colours: turn the figure's non-red hues
        h, w = img.shape[:2]
        x0 = int(np.ceil(quads[0][:, 0].max())) + 2
        y0, y1 = int(0.06 * h), int(0.94 * h)
        fig = np.ascontiguousarray(img[y0:y1, x0:w - x0, :3])
        hsv = cv2.cvtColor(fig, cv2.COLOR_BGR2HSV)
        # Red stays red (suit signs and robes alike): a red pip must never turn another colour.
        red = (hsv[..., 0] < 12) | (hsv[..., 0] > 168)
        sat = (hsv[..., 1] > 60) & ~red
        hsv[..., 0] = np.where(sat, (hsv[..., 0].astype(int) + style.art_hue // 2) % 180, hsv[..., 0]).astype(np.uint8)
        img[y0:y1, x0:w - x0, :3] = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)
    return img


def _reletter(img, q, text, colour, style, flip):
    """Replace the rank glyph at the top of index quad ``q`` by ``text`` (index read upright)."""
    x0, y0 = np.floor(q.min(0)).astype(int)
    x1, y1 = np.ceil(q.max(0)).astype(int)
    patch = img[y0:y1, x0:x1]
    if flip:
        patch = patch[::-1, ::-1]
    ink = (patch[..., :3].astype(int).sum(-1) < 560) & (patch[..., 3] > 128)
    rows = np.nonzero(ink.any(1))[0]
    if len(rows) < 4:
        return
    # The rank is the first run of inked rows; a blank row separates it from the suit.
    gaps = np.nonzero(np.diff(rows) > 1)[0]
    r0, r1 = rows[0], (rows[gaps[0]] if len(gaps) else rows[len(rows) // 2]) + 1
    cols = np.nonzero(ink[r0:r1].any(0))[0]
    c0, c1 = cols[0], cols[-1] + 1
    pad = 1
    patch[max(r0 - pad, 0):r1 + pad, max(c0 - pad, 0):c1 + pad, :3] = 255
    glyph = _glyph(text, find_font(style.fonts), int(r1 - r0))
    gw = min(glyph.shape[1], int((c1 - c0) * 1.3))
    glyph = cv2.resize(glyph, (max(1, gw), int(r1 - r0)), interpolation=cv2.INTER_AREA)
    cx = (c0 + c1) / 2
    gx = int(round(cx - gw / 2))
    gx = max(0, min(gx, patch.shape[1] - gw))
    m = glyph.astype(np.float32)[..., None] / 255.0
    roi = patch[r0:r1, gx:gx + gw, :3]
    roi[:] = (roi * (1 - m[:, :roi.shape[1]]) + colour * m[:, :roi.shape[1]]).astype(np.uint8)


def _tint(img: np.ndarray, stock) -> np.ndarray:
    """Multiply the colour channels by the stock colour (white stays white for (255, 255, 255))."""
    out = img.copy()
    out[..., :3] = (out[..., :3] * (np.asarray(stock, np.float32) / 255.0)).astype(np.uint8)
    return out


def _with_alpha(bgr: np.ndarray, style: DeckStyle) -> np.ndarray:
    h, w = bgr.shape[:2]
    return np.dstack([bgr, _rounded_alpha(h, w, style.corner_radius * w)])


def render_card_face(code: str, style: str | DeckStyle = "classic", height_px: int = 400):
    """(BGRA uint8 image of the card face, index_quads (2,4,2) float32 in card pixels).

    Alpha is the card's rounded outline. Results are cached and read-only.
    """
    if not isinstance(height_px, (int, np.integer)) or not 16 <= height_px <= 4000:
        raise ValueError(f"render_card_face: height_px must be an int in 16..4000, got {height_px!r}")
    name = get_style(style).name
    return _render_face(code, name, int(height_px))


def render_card_back(style: str | DeckStyle = "classic", height_px: int = 400) -> np.ndarray:
    """BGRA image of the card back of ``style`` (same outline as its faces); cached, read-only."""
    return _render_back(get_style(style).name, int(height_px))


@functools.lru_cache(maxsize=64)
def _render_back(style_name: str, height_px: int) -> np.ndarray:
    st = get_style(style_name)
    if st.external:
        from . import svgdeck

        img = _tint(svgdeck.load_back(int(height_px), which=1, deck=st.external), st.stock)
        img.setflags(write=False)
        return img
    img = _blank(st, int(height_px), st.stock)
    h, w = img.shape[:2]
    m = int(0.06 * w)
    col = np.asarray(st.back_colour, np.float32)
    inner = img[m:h - m, m:w - m]
    ih, iw = inner.shape[:2]
    yy, xx = np.mgrid[0:ih, 0:iw].astype(np.float32)
    p = max(4.0, w / 14)
    if st.back_pattern == "diamonds":
        v = (np.abs(((xx + yy) / p) % 2 - 1) < 0.18) | (np.abs(((xx - yy) / p) % 2 - 1) < 0.18)
    elif st.back_pattern == "lattice":
        v = ((xx / p) % 1 < 0.2) | ((yy / p) % 1 < 0.2) | (np.hypot((xx / p) % 1 - 0.6, (yy / p) % 1 - 0.6) < 0.22)
    elif st.back_pattern == "stripes":
        v = ((xx + 2 * yy) / p) % 1 < 0.45
    elif st.back_pattern == "rings":   # concentric rosette
        v = (np.hypot(xx - iw / 2, (yy - ih / 2) * 0.8) / (p * 0.7)) % 1 < 0.4
    elif st.back_pattern == "logo":    # solid colour, a pale oval emblem in the middle
        v = (((xx - iw / 2) / (iw * 0.3)) ** 2 + ((yy - ih / 2) / (ih * 0.2)) ** 2 - 1) ** 2 < 0.02
    else:  # dots
        v = np.hypot((xx / p) % 1 - 0.5, (yy / p) % 1 - 0.5) < 0.3
    light = col * 0.45 + 255 * 0.55
    inner[:] = np.where(v[..., None], light, col).astype(np.uint8)
    cv2.rectangle(img, (m, m), (w - 1 - m, h - 1 - m), tuple(int(c) for c in col * 0.6), max(1, w // 60),
                  cv2.LINE_AA)
    img = _with_alpha(img, st)
    img.setflags(write=False)
    return img


#: Heights of the cached mip levels the scene renderer picks from.
MIP_HEIGHTS = (64, 128, 256, 512)


@functools.lru_cache(maxsize=4096)
def face_mip(code: str, style_name: str, level: int):
    """Face at MIP_HEIGHTS[level], made by area-downsampling the largest level (sharp, no aliasing)."""
    top = len(MIP_HEIGHTS) - 1
    if level == top:
        return _render_face(code, style_name, MIP_HEIGHTS[top])
    img, quads = face_mip(code, style_name, top)
    s = MIP_HEIGHTS[level] / MIP_HEIGHTS[top]
    small = cv2.resize(img, (max(2, int(round(img.shape[1] * s))), MIP_HEIGHTS[level]), interpolation=cv2.INTER_AREA)
    small.setflags(write=False)
    scale = np.array([small.shape[1] / img.shape[1], small.shape[0] / img.shape[0]], np.float32)
    return small, (quads * scale).astype(np.float32)


def back_mip(style_name: str, level: int) -> np.ndarray:
    return render_card_back(style_name, MIP_HEIGHTS[level])


def pick_level(projected_height: float) -> int:
    """Smallest mip level at least as tall as the card will appear (max level if none)."""
    for i, hh in enumerate(MIP_HEIGHTS):
        if hh >= projected_height:
            return i
    return len(MIP_HEIGHTS) - 1
