"""A still image read again in tiles.

The locator sees a frame letterboxed into 320x256, so its cards are as large to it as the
frame is small. Read again as 2 x 2 overlapping tiles, each 0.6 of each side and read as a
photo of its own, the same cards are 1.7 times as large to the locator, and it finds cards it
missed in the whole frame (under spreads, at the edge of a busy cloth). Installed for every
still image (``"tiles": "always"`` in ``recognizer.json``; held-out synthetic test 1035 of 1132
read against 997, 0 wrong; ``models/EXPERIMENTS.md``, twenty-second session); video never,
where each frame must be fast. With ``"small"`` only a large photo of small cards is tiled (a
phone held far above the table: cards 3.5-6% of the frame high, whose index a photo shrunk to
the recognizer's ``max_side`` leaves a few pixels): each tile is read at up to ``max_side`` of
its own, with 1.7 times the pixels.

A card cut by a tile's inner edge lies whole in the next tile (they overlap by a fifth of the
frame), so a tile's card touching an inner edge is dropped, and the locator's boxes that touch
one are not read in the tile at all (:class:`TileView`; ``models/EXPERIMENTS.md``, twenty-third
session). How a tile is read is ``tile_reading`` in ``recognizer.json`` (:data:`TILE_READING`),
installed lean since the twenty-fourth session: a tile's outline on a card the whole image read
(outline IoU at least :data:`SAME_OUTLINE`, one to one) takes that reading, unread and unchecked,
yet stays in the tile's looks (cards under a spread, the split box); and a tile asks none of
the locator's second opinions the whole image asked already (the mirrored frame; the small
input and the close-up pass, for cards larger than it learnt, which a tile makes larger
still). Against a tile read as a photo of its own:
about four fifths of a still image's time (0.81, photo by photo), 4 wrong cards of the printed
1924 against 7, 4 fewer read, 2 more of the synthetic test's. The four tiles are read two at a
time (:data:`TILES_AT_ONCE`), the same cards in 0.84 of the time.
The tiles' cards are then matched
to the whole photo's, one to one by outline: a card the photo left unread takes the tile's
reading, a card read two ways is read neither way (a wrong card costs more than a missing
one), and a card only a tile found and read is added.

>>> tile_windows(4000, 3000)
[(0, 0, 2400, 1800), (1600, 0, 4000, 1800), (0, 1200, 2400, 3000), (1600, 1200, 4000, 3000)]
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

from sueca.vision.detections import UNREADABLE, CardDetections, outline_boxes
from sueca.vision.readings import one_per_card, outline_iou

#: Each tile's side, as a fraction of the frame's (2 x 2 tiles overlapping by 0.2; 0.55 and 0.65
#: read fewer cards and more wrong: ``models/EXPERIMENTS.md``, twenty-fifth session).
TILE_SIDE = 0.6
#: Tiles only where the cards' median long side is under this fraction of the frame's short
#: side (the locator learnt cards 6-20% of the frame high: their long side 0.06-0.2).
SMALL = 0.1
#: ... and where a tile has this many times the pixels a card had in the shrunk photo.
MIN_GAIN = 1.25
#: Outline IoU from which a tile's card is the photo's card at that place.
SAME_PLACE = 0.5
#: What ``tile_reading`` in ``recognizer.json`` may say of a tile's read, and what each means
#: where unsaid (:meth:`sueca.vision.recognizer.Recognizer.read_tiles`).
TILE_READING = {"hand_read": False, "flip": True, "zoom": True, "closeup": True}
#: Outline IoU from which a tile's outline is the same as the whole image's read card (both
#: outlines of one card lying clear agree closely; a looser match is often a card under it).
SAME_OUTLINE = 0.8
#: A tile's card within this fraction of the tile's side of an inner edge is cut by it.
EDGE = 0.004


def tile_windows(w: int, h: int, side: float = TILE_SIDE) -> list[tuple[int, int, int, int]]:
    """The 2 x 2 tiles (x0, y0, x1, y1) of a ``w`` x ``h`` frame, each ``side`` of it."""
    tw, th = round(side * w), round(side * h)
    return [(x0, y0, x0 + tw, y0 + th) for y0 in (0, h - th) for x0 in (0, w - tw)]


#: When a still image is read in tiles (``Recognizer.tiles``): every one, or only a large photo
#: of small cards (:func:`wants_tiles`).
POLICIES = ("always", "small")


def wants_tiles(dets: CardDetections, size: tuple[int, int], max_side: int | None,
                policy: str = "small", small: float = SMALL, gain: float = MIN_GAIN) -> bool:
    """Whether a photo of ``size`` (w, h), read as ``dets``, is read again in tiles: with
    ``policy`` "always", any photo; with "small", one large enough that a tile has ``gain``
    times the pixels and whose cards (if any) are small."""
    if policy not in POLICIES:
        raise ValueError(f"tiles: expected one of {POLICIES}, got {policy!r}")
    w, h = size
    if policy == "always":
        return min(w, h) >= 64
    if not max_side:
        return False
    whole = min(1.0, max_side / max(w, h))  # the scale each is read at
    tile = min(1.0, max_side / (TILE_SIDE * max(w, h)))
    if tile < gain * whole:
        return False
    if len(dets) == 0 or dets.corners is None:
        return True
    q = dets.corners
    sides = np.linalg.norm(q - np.roll(q, -1, axis=1), axis=2)  # (N, 4)
    return float(np.median(sides.max(axis=1))) < small * min(w, h)


def _inner_edges(window, size) -> tuple[bool, bool, bool, bool]:
    """Which edges (left, top, right, bottom) of the tile ``window`` cut a frame of ``size``."""
    x0, y0, x1, y1 = window
    w, h = size
    return x0 > 0, y0 > 0, x1 < w, y1 < h


def _touching(lo: np.ndarray, hi: np.ndarray, inner, size, edge: float = EDGE) -> np.ndarray:
    """Which boxes (their least and greatest x, y: ``lo``, ``hi``, (N, 2), in the pixels of a
    tile of ``size``) come within ``edge`` of the tile's side of one of its ``inner`` edges."""
    w, h = size
    left, top, right, bottom = inner
    cut = np.zeros(len(lo), bool)
    if left:
        cut |= lo[:, 0] <= edge * w
    if top:
        cut |= lo[:, 1] <= edge * h
    if right:
        cut |= hi[:, 0] >= w - edge * w
    if bottom:
        cut |= hi[:, 1] >= h - edge * h
    return cut


def _cut(dets: CardDetections, window, size, edge: float = EDGE) -> np.ndarray:
    """Which of a tile's cards (in the tile's pixels) touch one of its inner edges."""
    x0, y0, x1, y1 = window
    b = dets.xyxy
    return _touching(b[:, :2], b[:, 2:], _inner_edges(window, size), (x1 - x0, y1 - y0), edge)


@dataclass(frozen=True)
class TileView:
    """What a tile's read need not do again, in the tile's pixels: ``known``, the outlines
    (N, 4, 2) of cards the whole image read, ``codes`` and ``confidence`` their readings (none:
    the tile reads every card itself), and ``inner``, the tile's edges that cut the frame (left,
    top, right, bottom) within ``size`` (w, h).

    >>> q = np.array([[[10, 10], [40, 10], [40, 50], [10, 50]]], np.float32)
    >>> view = TileView(q, (False, False, True, False), (100, 100), ("7H",), np.float32([0.99]))
    >>> boxes = np.concatenate([q + 1, q + 30, q + [59.9, 0]])  # on the 7H, new, cut
    >>> view.cut(boxes).tolist(), view.match(boxes).tolist()
    ([False, False, True], [0, -1, -1])
    >>> view.scaled(0.5, 0.5).size, view.scaled(0.5, 0.5).known[0, 2].tolist()
    ((50, 50), [20.0, 25.0])
    """

    known: np.ndarray
    inner: tuple[bool, bool, bool, bool]
    size: tuple[int, int]
    codes: tuple[str, ...] = ()
    confidence: np.ndarray | None = None

    def scaled(self, kx: float, ky: float) -> "TileView":
        """The same view of the tile resized by ``kx``, ``ky``."""
        w, h = self.size
        known = (self.known * np.float32([kx, ky])).astype(np.float32)
        return replace(self, known=known, size=(max(1, round(w * kx)), max(1, round(h * ky))))

    def cut(self, boxes: np.ndarray, edge: float = EDGE) -> np.ndarray:
        """Which of the locator's ``boxes`` (N, 4, 2) come within ``edge`` of an inner edge."""
        if not len(boxes):
            return np.zeros(0, bool)
        return _touching(boxes.min(axis=1), boxes.max(axis=1), self.inner, self.size, edge)

    def match(self, boxes: np.ndarray, same: float = SAME_OUTLINE) -> np.ndarray:
        """Each of the tile's outlines' (``boxes``, N, 4, 2) known card (its index; -1: none),
        one to one, the most overlapping pairs first (outline IoU at least ``same``): an outline
        on a card half under a known one is that card's, not a second view of the known one."""
        at = np.full(len(boxes), -1, np.int64)
        pairs = _one_to_one(((outline_iou(b, k), i, j) for i, b in enumerate(boxes) for j, k in enumerate(self.known)),
                            same)
        for i, j in pairs.items():
            at[i] = j
        return at


def _one_to_one(scored, same: float) -> dict[int, int]:
    """Pairs (i -> j) from ``scored`` (iou, i, j), each i and each j at most once, the most
    overlapping first, none under ``same``."""
    pairs: dict[int, int] = {}
    taken: set[int] = set()
    for iou, i, j in sorted(scored, reverse=True):
        if iou < same:
            break
        if i not in pairs and j not in taken:
            pairs[i] = j
            taken.add(j)
    return pairs


def _moved(dets: CardDetections, dx: float, dy: float, size) -> CardDetections:
    corners = None if dets.corners is None else (dets.corners + np.float32([dx, dy])).astype(np.float32)
    xyxy = (dets.xyxy + np.float32([dx, dy, dx, dy])).astype(np.float32) if corners is None \
        else outline_boxes(corners, size)
    return replace(dets, corners=corners, xyxy=xyxy)


def _iou(a: CardDetections, i: int, b: CardDetections, j: int) -> float:
    if a.corners is not None and b.corners is not None:
        return outline_iou(a.corners[i], b.corners[j])
    (ax0, ay0, ax1, ay1), (bx0, by0, bx1, by1) = a.xyxy[i], b.xyxy[j]
    iw, ih = max(0.0, min(ax1, bx1) - max(ax0, bx0)), max(0.0, min(ay1, by1) - max(ay0, by0))
    union = (ax1 - ax0) * (ay1 - ay0) + (bx1 - bx0) * (by1 - by0) - iw * ih
    return float(iw * ih / union) if union > 0 else 0.0


def merge(base: CardDetections, extra: CardDetections, same: float = SAME_PLACE) -> CardDetections:
    """``base`` with ``extra``'s cards: matched one to one by outline IoU (at least ``same``,
    the most overlapping pairs first), an unread card takes a reading, two readings that differ
    make the card unreadable, and an unmatched card ``extra`` reads is added.

    >>> q = np.array([[[0, 0], [70, 0], [70, 100], [0, 100]]], np.float32)
    >>> one = lambda code, dx=0: CardDetections(outline_boxes(q + dx, (500, 500)), (code,),
    ...     np.float32([0.99]), np.float32([0.9]), q + dx)
    >>> merge(one(""), one("2S", 2)).codes, merge(one("2S"), one("2C", 1)).codes
    (('2S',), ('',))
    >>> merge(one("2S"), one("3H", 200)).codes
    ('2S', '3H')
    """
    if len(extra) == 0:
        return base
    if len(base) == 0:
        return extra
    matched_b = _one_to_one(((_iou(base, i, extra, j), i, j) for i in range(len(base)) for j in range(len(extra))),
                            same)
    matched_e = set(matched_b.values())
    codes, conf = list(base.codes), base.confidence.copy()
    corners = None if base.corners is None else base.corners.copy()
    xyxy = base.xyxy.copy()
    for i, j in matched_b.items():
        mine, theirs = codes[i], extra.codes[j]
        if theirs == mine:
            conf[i] = max(conf[i], extra.confidence[j])
        elif theirs == UNREADABLE:
            continue
        elif mine == UNREADABLE:
            codes[i], conf[i], xyxy[i] = theirs, extra.confidence[j], extra.xyxy[j]
            if corners is not None and extra.corners is not None:
                corners[i] = extra.corners[j]
        else:  # read two ways: neither
            codes[i], conf[i] = UNREADABLE, base.locate_confidence[i]
    merged = replace(base, codes=tuple(codes), confidence=conf.astype(np.float32), xyxy=xyxy, corners=corners)
    # a box a tile found but could not read, where the whole image has none, is left out: no
    # card the whole image missed is any surer for it, and a tile's partial views add such boxes
    new = [j for j in range(len(extra)) if j not in matched_e and extra.codes[j] != UNREADABLE]
    if not new:
        return merged
    add = extra[new]
    both_corners = (None if merged.corners is None or add.corners is None
                    else np.concatenate([merged.corners, add.corners]))
    face_up = None if merged.face_up is None or add.face_up is None else np.concatenate([merged.face_up, add.face_up])
    return CardDetections(np.concatenate([merged.xyxy, add.xyxy]), merged.codes + add.codes,
                          np.concatenate([merged.confidence, add.confidence]),
                          np.concatenate([merged.locate_confidence, add.locate_confidence]), both_corners, face_up)


#: A still image's tiles read at most this many side by side (each on a thread of its own, with
#: no more than the process's cores): a tile spends about two fifths of its time in Python and
#: in the small networks' single-core runs, which a second tile's reading fills. Two at a time on
#: two cores: 0.84 of the time, photo by photo, the same cards (``models/EXPERIMENTS.md``,
#: twenty-fifth session).
TILES_AT_ONCE = 2


def tiled_look(read: Callable[[np.ndarray, TileView], CardDetections], frame: np.ndarray,
               dets: CardDetections, hand_read: bool = False, at_once: int = 1) -> CardDetections:
    """``dets`` (the whole ``frame`` read) with the cards each tile of it reads
    (``read``: a tile and its :class:`TileView` in, its cards in its pixels out), merged as
    :func:`merge`; ``hand_read``: the view also names the cards ``dets`` read and their
    readings, for the tile to take as read rather than read again; ``at_once``: how many tiles
    ``read`` is asked side by side, on threads (it must allow that). The tiles are merged in
    their own order whatever order they finish in, so the cards are the same either way."""
    h, w = frame.shape[:2]
    out = dets
    read_codes = np.asarray([c != UNREADABLE for c in dets.codes], bool)
    hand = hand_read and dets.corners is not None and bool(read_codes.any())
    known = dets.corners[read_codes] if hand else np.zeros((0, 4, 2), np.float32)
    codes = tuple(c for c, r in zip(dets.codes, read_codes) if r) if hand else ()
    conf = dets.confidence[read_codes] if hand else None
    windows = tile_windows(w, h)
    parts = [(np.ascontiguousarray(frame[y0:y1, x0:x1]),
              TileView((known - np.float32([x0, y0])).astype(np.float32), _inner_edges((x0, y0, x1, y1), (w, h)),
                       (x1 - x0, y1 - y0), codes, conf)) for x0, y0, x1, y1 in windows]
    if at_once > 1:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(min(at_once, len(parts)), thread_name_prefix="sueca-tiles") as pool:
            tiles_read = list(pool.map(lambda part: read(*part), parts))
    else:
        tiles_read = [read(*part) for part in parts]
    for window, found in zip(windows, tiles_read):
        x0, y0 = window[:2]
        found = found[np.flatnonzero(~_cut(found, window, (w, h)))] if len(found) else found
        out = merge(out, _moved(found, x0, y0, (w, h)))
    codes, conf = one_per_card(list(out.codes), out.confidence)
    conf = np.where([c == UNREADABLE for c in codes], out.locate_confidence, conf).astype(np.float32)
    return replace(out, codes=tuple(codes), confidence=conf)
