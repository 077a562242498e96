"""Cut the corner indices of located cards out of the full-resolution frame.

A located card is a quadrilateral (4 corners, clockwise on screen). Standard
decks print the index in the top-left corner and, turned by 180 degrees, in the
bottom-right one; so whichever way up the card lies, the top-left corner of
the card *rectified to portrait* shows an upright index, and so does the
opposite corner once turned. The reader therefore sees, per card, the two
"top-left" crops of the two portrait orderings of its quad.

>>> import numpy as np
>>> q = np.array([[10, 10], [73, 10], [73, 98], [10, 98]], np.float32)
>>> portrait_orderings(q)[0][0].tolist()
[10.0, 10.0]
>>> frame = np.zeros((120, 100, 3), np.uint8)
>>> corner_crops(frame, q[None], CropSpec()).shape
(2, 48, 36, 3)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class CropSpec:
    """Which part of the upright card the reader sees, and at what size.

    ``box``: (u0, v0, u1, v1) in card units (0..1 across the width, 0..1 down
    the height); slightly outside the card is allowed (locator error margin).
    ``size``: (h, w) of the crop in pixels fed to the reader.
    ``channels``: 3 for BGR crops (suit colour helps tell a diamond from a
    spade), 1 for grey.
    """

    # The index spans about u 0.03-0.17, v 0.03-0.22 of a card; the margin around
    # it lets an outline that is a few percent off still show the whole index.
    box: tuple[float, float, float, float] = (-0.10, -0.08, 0.40, 0.40)
    size: tuple[int, int] = (48, 36)
    channels: int = 3

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "CropSpec":
        return cls(tuple(float(v) for v in d["box"]), tuple(int(v) for v in d["size"]), int(d.get("channels", 1)))

    @property
    def shape(self) -> tuple[int, ...]:
        """Shape of one crop: (h, w) grey or (h, w, 3) BGR."""
        return tuple(self.size) if self.channels == 1 else (*self.size, 3)


_NEXT = np.array([1, 2, 3, 0])
# the four cyclic orderings of a quad's points: _CYCLES[r] starts at point r
_CYCLES = np.array([[0, 1, 2, 3], [1, 2, 3, 0], [2, 3, 0, 1], [3, 0, 1, 2]])


def clockwise(quad: np.ndarray) -> np.ndarray:
    """The same 4 points, clockwise on screen (y down), so a crop is never mirrored."""
    q = np.asarray(quad, np.float32).reshape(4, 2)
    n = q[_NEXT]
    area2 = float(np.sum(q[:, 0] * n[:, 1] - n[:, 0] * q[:, 1]))
    return q if area2 >= 0 else q[::-1].copy()


def longest_side(quads: np.ndarray) -> np.ndarray:
    """Per quad (N, 4, 2), the longer of its sides from its first point, in pixels.

    >>> longest_side(np.array([[[0, 0], [30, 0], [30, 50], [0, 50]]], np.float32)).tolist()
    [50.0]
    """
    q = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    return np.maximum(np.linalg.norm(q[:, 1] - q[:, 0], axis=1), np.linalg.norm(q[:, 3] - q[:, 0], axis=1))


def portrait_orderings(quad: np.ndarray, ambiguous: float = 0.0) -> list[np.ndarray]:
    """Orderings TL, TR, BR, BL of ``quad`` in which the top edge is a short side.

    Returns two orderings (180 degrees apart). When the quad's short/long side
    ratio exceeds ``ambiguous`` (> 0), as for a card seen steeply along its long
    axis, the two landscape orderings are added after them.
    """
    q = clockwise(quad)
    d = q[_NEXT] - q
    sides = np.sqrt(d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1])  # side i: q[i] -> q[i+1]
    pair0 = float(sides[0] + sides[2])
    pair1 = float(sides[1] + sides[3])
    start = 0 if pair0 <= pair1 else 1
    rolls = [start, start + 2]
    if ambiguous > 0 and min(pair0, pair1) / max(pair0, pair1, 1e-6) > ambiguous:
        rolls += [start + 1, start + 3]
    return [q[_CYCLES[r % 4]] for r in rolls]


def card_canvas(frame: np.ndarray, quad: np.ndarray, w: int, h: int, margin: float) -> tuple[np.ndarray, np.ndarray]:
    """The card ``quad`` (4, 2) warped to a ``w`` x ``h`` pixel card with ``margin`` of its own
    width and height around it on every side (area-averaged; black beyond the frame): the
    canvas and the frame-to-canvas homography. Card units: u across the quad's first side,
    v along its last, both 0..1 on the card; the canvas spans -margin..1 + margin.

    >>> frame = np.zeros((100, 100, 3), np.uint8); frame[20:80, 30:70] = 255
    >>> q = np.array([[30, 20], [70, 20], [70, 80], [30, 80]], np.float32)
    >>> canvas, _ = card_canvas(frame, q, 4, 6, 0.5)
    >>> canvas.shape, int(canvas[6, 4, 0]), int(canvas[0, 0, 0])
    ((12, 8, 3), 255, 0)
    """
    cw, ch = int(w * (1 + 2 * margin)), int(h * (1 + 2 * margin))
    m = margin
    src = np.array([[-m, -m], [1 + m, -m], [1 + m, 1 + m], [-m, 1 + m]], np.float32)
    corners = cv2.perspectiveTransform(src[None], _card_homography(clockwise(quad)))[0]
    to_canvas = cv2.getPerspectiveTransform(corners, np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], np.float32))
    canvas = cv2.warpPerspective(frame, to_canvas, (cw, ch), flags=cv2.INTER_AREA,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return canvas, to_canvas


def _card_homography(ordered: np.ndarray) -> np.ndarray:
    """Homography from card units (u, v) in [0, 1]^2 to image pixels."""
    src = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    return cv2.getPerspectiveTransform(src, np.asarray(ordered, np.float32))


def crop_top_left(frame: np.ndarray, ordered: np.ndarray, spec: CropSpec) -> np.ndarray:
    """``spec.shape`` uint8 crop of the region ``spec.box`` of the card ``ordered`` (TL, TR, BR, BL).

    ``frame`` is BGR, or already grey for a grey spec.
    """
    h, w = spec.size
    u0, v0, u1, v1 = spec.box
    hom = _card_homography(ordered)
    # native size of the region in the frame, to down-sample with area averaging (no aliasing)
    region = np.array([[u0, v0], [u1, v0], [u1, v1], [u0, v1]], np.float32)
    pts = cv2.perspectiveTransform(region[None], hom)[0]
    native_h = 0.5 * (np.linalg.norm(pts[3] - pts[0]) + np.linalg.norm(pts[2] - pts[1]))
    k = max(1, int(native_h / h))
    oh, ow = h * k, w * k
    # output pixel centres -> card units -> frame pixels
    scale = np.array([[(u1 - u0) / ow, 0, u0 + 0.5 * (u1 - u0) / ow],
                      [0, (v1 - v0) / oh, v0 + 0.5 * (v1 - v0) / oh],
                      [0, 0, 1]], np.float64)
    m = hom @ scale
    # pixel-centre convention of OpenCV: sample at (x, y) of the source for output (x, y)
    shift = np.array([[1, 0, -0.5], [0, 1, -0.5], [0, 0, 1]], np.float64)
    m = shift @ m
    src = _as_input(frame, spec)
    out = cv2.warpPerspective(src, m, (ow, oh), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                              borderMode=cv2.BORDER_REPLICATE)
    if k > 1:
        out = cv2.resize(out, (w, h), interpolation=cv2.INTER_AREA)
    return out


def _as_input(frame: np.ndarray, spec: CropSpec) -> np.ndarray:
    if spec.channels == 1 and frame.ndim == 3:
        return cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    if spec.channels == 3 and frame.ndim != 3:
        raise ValueError(f"colour crops need a BGR frame, got shape {frame.shape}")
    return frame


def corner_crops(frame: np.ndarray, quads: np.ndarray, spec: CropSpec, ambiguous: float = 0.0) -> np.ndarray:
    """(sum of orderings, *spec.shape) uint8 crops: for each quad, its portrait orderings in turn.

    With ``ambiguous == 0`` that is exactly two crops per card.
    """
    return corner_crops_counted(frame, quads, spec, ambiguous)[0]


def corner_crops_counted(frame: np.ndarray, quads: np.ndarray, spec: CropSpec,
                         ambiguous: float = 0.0) -> tuple[np.ndarray, list[int]]:
    """:func:`corner_crops` and, per quad, how many of the crops are its own."""
    orderings = corner_orderings(quads, ambiguous)
    crops = np.zeros((sum(len(o) for o in orderings), *spec.shape), np.uint8)
    cut_rows(frame, orderings, spec, crops, range(len(orderings)))
    return crops, [len(o) for o in orderings]


def corner_orderings(quads: np.ndarray, ambiguous: float = 0.0) -> list[list[np.ndarray]]:
    """Each quad's :func:`portrait_orderings`: the crops :func:`corner_crops` cuts, in order."""
    return [portrait_orderings(q, ambiguous) for q in np.asarray(quads)]


def cut_rows(frame: np.ndarray, orderings: list[list[np.ndarray]], spec: CropSpec, crops: np.ndarray,
             which) -> None:
    """Cut the crops of the quads ``which`` (indices into ``orderings``, each quad's
    :func:`corner_orderings`) into their rows of ``crops`` (in place): a reader asked for
    some quads only needs no crop of the others."""
    src = _as_input(frame, spec)
    starts = np.concatenate([[0], np.cumsum([len(o) for o in orderings])]).astype(int)
    for j in which:
        for r, o in enumerate(orderings[j]):
            crops[starts[j] + r] = crop_top_left(src, o, spec)

