"""Plain-array results of card recognition on one frame.

Every stage after the detector (tracker, play events, ``sueca detect``) speaks
this type. One row per physical card.

>>> import numpy as np
>>> d = CardDetections.empty()
>>> len(d)
0
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

UNREADABLE = ""  # card code of a card that was located but not read with confidence


def outline_boxes(corners: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """(N, 4) float32 boxes (x0, y0, x1, y1) around outlines (N, 4, 2), inside an image of
    ``size`` (w, h).

    >>> outline_boxes(np.array([[[-5, 2], [30, 2], [30, 40], [-5, 40]]], np.float32), (20, 100)).tolist()
    [[0.0, 2.0, 20.0, 40.0]]
    """
    w, h = size
    xyxy = np.concatenate([corners.min(axis=1), corners.max(axis=1)], axis=1)
    return np.clip(xyxy, 0, [w, h, w, h]).astype(np.float32)


@dataclass(frozen=True)
class CardDetections:
    """Cards found in one image.

    ``xyxy``: (N, 4) float32 axis-aligned boxes in image pixels.
    ``corners``: (N, 4, 2) float32 card outline (clockwise, starting anywhere),
    ``None`` when the backend gives only boxes.
    ``codes``: N card codes (``"7H"``, ``"10D"``) or ``UNREADABLE``.
    ``confidence``: (N,) calibrated probability that ``codes[i]`` is right
    (for an unreadable card: the locator's confidence that a card is there).
    ``locate_confidence``: (N,) confidence that a card is there at all.
    """

    xyxy: np.ndarray
    codes: tuple[str, ...]
    confidence: np.ndarray
    locate_confidence: np.ndarray
    corners: np.ndarray | None = None
    face_up: np.ndarray | None = field(default=None)

    def __post_init__(self) -> None:
        n = len(self.codes)
        if self.xyxy.shape != (n, 4):
            raise ValueError(f"xyxy must be ({n}, 4), got {self.xyxy.shape}")
        if self.confidence.shape != (n,) or self.locate_confidence.shape != (n,):
            raise ValueError("confidence arrays must have one value per card")
        if self.corners is not None and self.corners.shape != (n, 4, 2):
            raise ValueError(f"corners must be ({n}, 4, 2), got {self.corners.shape}")

    def __len__(self) -> int:
        return len(self.codes)

    @classmethod
    def empty(cls) -> "CardDetections":
        z = np.zeros((0,), np.float32)
        return cls(np.zeros((0, 4), np.float32), (), z, z.copy(), np.zeros((0, 4, 2), np.float32))

    @property
    def centers(self) -> np.ndarray:
        """(N, 2) box centres."""
        return np.stack([(self.xyxy[:, 0] + self.xyxy[:, 2]) / 2, (self.xyxy[:, 1] + self.xyxy[:, 3]) / 2], axis=1)

    def __getitem__(self, index) -> "CardDetections":
        idx = np.arange(len(self))[index]
        idx = np.atleast_1d(idx)
        return CardDetections(
            self.xyxy[idx],
            tuple(self.codes[i] for i in idx),
            self.confidence[idx],
            self.locate_confidence[idx],
            None if self.corners is None else self.corners[idx],
            None if self.face_up is None else self.face_up[idx],
        )

    def restricted_to(self, codes) -> "CardDetections":
        """The same cards, with readings outside ``codes`` made unreadable.

        A Sueca deck has no 8, 9 or 10: a 52-card reader that sees one there
        has misread the card, and its reading must not count as a vote.

        >>> d = CardDetections(np.zeros((2, 4), np.float32), ("10H", "AH"),
        ...                    np.array([0.99, 0.97], np.float32), np.ones(2, np.float32))
        >>> d.restricted_to({"AH", "7H"}).codes
        ('', 'AH')
        """
        keep = [c == UNREADABLE or c in codes for c in self.codes]
        if all(keep):
            return self
        return CardDetections(
            self.xyxy,
            tuple(c if k else UNREADABLE for c, k in zip(self.codes, keep)),
            # an unreadable card's confidence is the locator's (see above)
            np.where(keep, self.confidence, self.locate_confidence).astype(self.confidence.dtype),
            self.locate_confidence, self.corners, self.face_up,
        )

    def scaled(self, gx: float, gy: float, size: tuple[int, int]) -> "CardDetections":
        """The same cards found on a frame shrunk ``gx`` x ``gy`` times, in the pixels of the
        frame of ``size`` (w, h) (pixel centres map to pixel centres).

        >>> q = np.array([[[0, 0], [9, 0], [9, 19], [0, 19]]], np.float32)
        >>> d = CardDetections(outline_boxes(q, (40, 40)), ("AH",), np.ones(1, np.float32),
        ...                    np.ones(1, np.float32), q)
        >>> d.scaled(2, 2, (80, 80)).xyxy.tolist()
        [[0.5, 0.5, 18.5, 38.5]]
        """
        if len(self) == 0 or (gx == 1 and gy == 1):
            return self
        if self.corners is None:
            w, h = size
            xyxy = (self.xyxy + 0.5) * np.array([gx, gy, gx, gy], np.float32) - 0.5
            return replace(self, xyxy=np.clip(xyxy, 0, [w, h, w, h]).astype(np.float32))
        corners = ((self.corners + 0.5) * np.array([gx, gy], np.float32) - 0.5).astype(np.float32)
        return replace(self, corners=corners, xyxy=outline_boxes(corners, size))

    def turned_back(self, size: tuple[int, int]) -> "CardDetections":
        """The same cards found on a frame turned a quarter counter-clockwise
        (``np.rot90(frame)``), in the pixels of the unturned frame of ``size`` (w, h).

        >>> q = np.array([[[0, 0], [9, 0], [9, 19], [0, 19]]], np.float32)  # on the turned frame
        >>> d = CardDetections(outline_boxes(q, (40, 30)), ("AH",), np.ones(1, np.float32),
        ...                    np.ones(1, np.float32), q)
        >>> d.turned_back((30, 40)).xyxy.tolist()
        [[10.0, 0.0, 29.0, 9.0]]
        """
        w, h = size
        if len(self) == 0:
            return self
        if self.corners is None:
            x0, y0, x1, y1 = self.xyxy.T
            xyxy = np.stack([w - 1 - y1, x0, w - 1 - y0, x1], axis=1)
            return replace(self, xyxy=np.clip(xyxy, 0, [w, h, w, h]).astype(np.float32))
        # a turned pixel (x', y') is the unturned (w - 1 - y', x'): pixel centres to pixel centres
        corners = np.stack([w - 1 - self.corners[..., 1], self.corners[..., 0]], axis=-1).astype(np.float32)
        return replace(self, corners=corners, xyxy=outline_boxes(corners, size))

    def turned(self, size: tuple[int, int]) -> "CardDetections":
        """The same cards in the pixels of their frame of ``size`` (w, h) turned a quarter
        counter-clockwise (``np.rot90(frame)``): :meth:`turned_back` undone.

        >>> q = np.array([[[10, 0], [29, 0], [29, 9], [10, 9]]], np.float32)  # on the upright frame
        >>> d = CardDetections(outline_boxes(q, (30, 40)), ("AH",), np.ones(1, np.float32),
        ...                    np.ones(1, np.float32), q)
        >>> np.allclose(d.turned((30, 40)).turned_back((30, 40)).corners, q)
        True
        """
        w, h = size
        if len(self) == 0:
            return self
        if self.corners is None:
            x0, y0, x1, y1 = self.xyxy.T
            xyxy = np.stack([y0, w - 1 - x1, y1, w - 1 - x0], axis=1)
            return replace(self, xyxy=np.clip(xyxy, 0, [h, w, h, w]).astype(np.float32))
        # an unturned pixel (x, y) is the turned (y, w - 1 - x)
        corners = np.stack([self.corners[..., 1], w - 1 - self.corners[..., 0]], axis=-1).astype(np.float32)
        return replace(self, corners=corners, xyxy=outline_boxes(corners, (h, w)))

    def to_json(self) -> list[dict]:
        """Entries of the ``sueca detect`` contract (readable cards only)."""
        out = []
        for i, code in enumerate(self.codes):
            if code == UNREADABLE:
                continue
            out.append({
                "card": code,
                "confidence": round(float(self.confidence[i]), 4),
                "box": [round(float(v), 1) for v in self.xyxy[i]],
            })
        return out


#: Outline colours (BGR): a card read, a card found but not read.
READ_COLOUR, UNREAD_COLOUR = (60, 200, 60), (0, 140, 255)


def draw_detections(image: np.ndarray, dets: CardDetections, unreadable: bool = True) -> np.ndarray:
    """A copy of the BGR ``image`` with each card's outline (or box) and its reading drawn on
    it: code and confidence in green, a card found but not read as ``?`` in orange (left out
    where ``unreadable`` is false). Lines and letters scale with the image.

    >>> img = np.zeros((200, 300, 3), np.uint8)
    >>> q = np.array([[[50, 40], [110, 40], [110, 130], [50, 130]]], np.float32)
    >>> d = CardDetections(outline_boxes(q, (300, 200)), ("QS",), np.array([0.97], np.float32),
    ...                    np.ones(1, np.float32), q)
    >>> out = draw_detections(img, d)
    >>> out.shape, tuple(int(v) for v in out[40, 80]), int(img.sum())
    ((200, 300, 3), (60, 200, 60), 0)
    """
    import cv2

    out = np.ascontiguousarray(image).copy()
    h, w = out.shape[:2]
    scale = max(h, w) / 1280
    thick = max(1, round(2 * scale))
    font = 0.6 * max(scale, 0.5)
    for i, code in enumerate(dets.codes):
        read = code != UNREADABLE
        if not read and not unreadable:
            continue
        colour = READ_COLOUR if read else UNREAD_COLOUR
        if dets.corners is not None:
            pts = np.round(dets.corners[i]).astype(np.int32)
        else:
            x0, y0, x1, y1 = dets.xyxy[i]
            pts = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]).round().astype(np.int32)
        cv2.polylines(out, [pts], True, colour, thick, cv2.LINE_AA)
        label = f"{code} {float(dets.confidence[i]):.2f}" if read else "?"
        x, y = int(pts[:, 0].min()), int(pts[:, 1].min())
        (tw, th), base = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, font, thick)
        y = max(y, th + base + 2)
        cv2.rectangle(out, (x, y - th - base - 2), (x + tw + 4, y), colour, -1)
        cv2.putText(out, label, (x + 2, y - base), cv2.FONT_HERSHEY_SIMPLEX, font, (0, 0, 0), thick, cv2.LINE_AA)
    return out

