"""Table geometry: which seat a point on the table belongs to.

A ``Calibration`` (the JSON file of ``interfaces.md``) gives, in the source's
pixel coordinates, the table centre and for seats 0..3 in playing order the
point at the table's edge in front of that player::

    cal = Calibration.propose(1280, 960)              # seat 0 at the bottom, ccw
    cal.seat_of((640, 700))                           # -> (0, 45.0): seat, margin°
    cal.region_of((640, 500))                         # -> Region('middle', seat=0, ...)
    cal.save("calibration.json"); Calibration.load("calibration.json")

Directions. Image coordinates have y pointing down, but every angle here is
measured the way someone looking down at the table sees it: angle 0 points
to the image's right, 90° to the image's top (``atan2(-dy, dx)``), so a
positive turn is counter-clockwise *on the screen*. An overhead camera that
is not mirrored shows the table as seen from above, so counter-clockwise on
the screen is counter-clockwise at the table.

Counter-clockwise ("ccw", Portugal's default) means each player's
right-hand neighbour plays next. With seat 0 at the bottom edge facing up
the image, their right hand points to the image's right, so the order is
bottom (0) -> right (1) -> top (2) -> left (3). Clockwise ("cw", common in
Brazil) is bottom -> left -> top -> right. A mirrored camera image (only one
of hflip/vflip set) swaps the two: fix the flip or choose the other option.

Sectors. Each seat owns the angular sector around the centre bounded
halfway between its direction and its neighbours' directions. ``seat_of``
returns the seat and the margin in degrees to the nearest boundary (0 on a
boundary: a card there could be either player's and the tracker should
weigh it against whose turn it is). The play area is a circle around the
centre whose radius is ``play_area`` times the nearest seat's distance.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, Sequence

import numpy as np

Point = tuple[float, float]
Edge = Literal["bottom", "right", "top", "left"]
Direction = Literal["ccw", "cw"]

#: Image edges in counter-clockwise order as seen on the screen.
EDGES_CCW: tuple[Edge, ...] = ("bottom", "right", "top", "left")
#: Default play-area radius as a fraction of the nearest seat distance.
DEFAULT_PLAY_AREA = 0.5


class CalibrationError(ValueError):
    """A calibration that cannot be used; the message names the field."""


@dataclass(frozen=True)
class Region:
    """Where a point lies: ``kind`` is ``"middle"`` (the play area),
    ``"edge"`` (the table in front of ``seat``) or ``"outside"`` (beyond the
    table edge or the image). ``seat`` is the sector's seat in every case,
    ``margin`` its angular margin in degrees.

    >>> str(Region("edge", 2, 30.0))
    'seat edge 2'
    """

    kind: Literal["middle", "edge", "outside"]
    seat: int
    margin: float

    @property
    def name(self) -> str:
        return f"seat edge {self.seat}" if self.kind == "edge" else self.kind

    def __str__(self) -> str:
        return self.name


def _angles(vectors: np.ndarray) -> np.ndarray:
    """Screen angles (radians, ccw positive) of image-space vectors (N, 2)."""
    return np.arctan2(-vectors[..., 1], vectors[..., 0])


def _wrap(a: np.ndarray | float) -> np.ndarray | float:
    """Angle(s) wrapped into [-pi, pi)."""
    return (np.asarray(a) + math.pi) % (2 * math.pi) - math.pi


@dataclass(frozen=True)
class Calibration:
    """Table centre and the four seat points, in pixels of ``image_size``.

    Validated on construction (``CalibrationError`` names the field). Use
    ``scaled((w, h))`` or the ``frame_size`` argument for frames of another
    size than the one calibrated.
    """

    image_size: tuple[int, int]
    center: Point
    seats: tuple[Point, Point, Point, Point]
    play_area: float = DEFAULT_PLAY_AREA
    _angles: np.ndarray = field(init=False, repr=False, compare=False)
    _sign: float = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        try:  # lists from callers become tuples: the calibration is hashable
            object.__setattr__(self, "image_size", tuple(self.image_size))
            object.__setattr__(self, "center", tuple(self.center))
            object.__setattr__(self, "seats", tuple(tuple(p) for p in self.seats))
        except TypeError as exc:
            raise CalibrationError(f"image_size/center/seats: expected sequences: {exc}") from None
        _validate(self)
        seats = np.asarray(self.seats, float)
        angles = _angles(seats - np.asarray(self.center, float))
        steps = _wrap(np.roll(angles, -1) - angles)
        sign = 1.0 if np.all(steps > 0) else -1.0
        # Work in a frame where play always goes ccw: mirror a cw table.
        object.__setattr__(self, "_angles", sign * angles)
        object.__setattr__(self, "_sign", sign)

    # -- construction --------------------------------------------------
    @classmethod
    def propose(cls, width: int, height: int, seat0_edge: Edge = "bottom",
                direction: Direction = "ccw", play_area: float = DEFAULT_PLAY_AREA
                ) -> "Calibration":
        """Centre of the image, seats at the middle of each edge.

        >>> Calibration.propose(100, 80).seats
        ((50.0, 80.0), (100.0, 40.0), (50.0, 0.0), (0.0, 40.0))
        >>> Calibration.propose(100, 80, direction="cw").seats[1]
        (0.0, 40.0)
        """
        if seat0_edge not in EDGES_CCW:
            raise CalibrationError(f"seat0_edge: expected one of {EDGES_CCW}, got {seat0_edge!r}")
        if direction not in ("ccw", "cw"):
            raise CalibrationError(f"direction: expected 'ccw' or 'cw', got {direction!r}")
        w, h = float(width), float(height)
        points = {"bottom": (w / 2, h), "right": (w, h / 2), "top": (w / 2, 0.0),
                  "left": (0.0, h / 2)}
        seats = tuple(points[edge] for edge in edges(direction, seat0_edge))
        return cls((int(width), int(height)), (w / 2, h / 2), seats, play_area)  # type: ignore[arg-type]

    @classmethod
    def from_json(cls, obj: Any, where: str = "calibration") -> "Calibration":
        """From the JSON object of ``interfaces.md``; errors say ``where: field``."""
        if not isinstance(obj, dict):
            raise CalibrationError(f"{where}: expected a JSON object, got {type(obj).__name__}")
        for key in ("image_size", "center", "seats"):
            if key not in obj:
                raise CalibrationError(f"{where}: {key}: missing")
        size = _pair(obj["image_size"], f"{where}: image_size")
        if not all(float(v).is_integer() and v > 0 for v in size):
            raise CalibrationError(f"{where}: image_size: expected two positive integers, "
                                   f"got {obj['image_size']!r}")
        center = _pair(obj["center"], f"{where}: center")
        seats = obj["seats"]
        if not isinstance(seats, list) or len(seats) != 4:
            raise CalibrationError(f"{where}: seats: expected a list of 4 [x, y] points, "
                                   f"got {seats!r}")
        points = tuple(_pair(p, f"{where}: seats[{i}]") for i, p in enumerate(seats))
        play_area = obj.get("play_area", DEFAULT_PLAY_AREA)
        if isinstance(play_area, bool) or not isinstance(play_area, (int, float)):
            raise CalibrationError(f"{where}: play_area: expected a number, got {play_area!r}")
        try:
            return cls((int(size[0]), int(size[1])), center, points, float(play_area))  # type: ignore[arg-type]
        except CalibrationError as exc:
            raise CalibrationError(f"{where}: {exc}") from None

    @classmethod
    def load(cls, path: str | Path) -> "Calibration":
        path = Path(path)
        try:
            obj = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise CalibrationError(f"{path}: não se lê / cannot read: {exc.strerror}") from None
        except json.JSONDecodeError as exc:
            raise CalibrationError(f"{path}: JSON inválido / invalid JSON: {exc}") from None
        return cls.from_json(obj, where=str(path))

    def to_json(self) -> dict:
        return {"image_size": list(self.image_size), "center": list(self.center),
                "seats": [list(p) for p in self.seats], "play_area": self.play_area}

    def dumps(self) -> str:
        """The JSON text, one point per line (easy to read and to diff)."""
        obj = self.to_json()
        point = lambda p: json.dumps([float(v) for v in p])  # noqa: E731
        seats = ",\n    ".join(point(p) for p in obj["seats"])
        return (f'{{\n  "image_size": {json.dumps(obj["image_size"])},\n'
                f'  "center": {point(obj["center"])},\n'
                f'  "seats": [\n    {seats}\n  ],\n'
                f'  "play_area": {json.dumps(obj["play_area"])}\n}}\n')

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.dumps(), encoding="utf-8")

    # -- geometry ------------------------------------------------------
    @property
    def direction(self) -> Direction:
        """``"ccw"`` or ``"cw"`` as seen from above (see the module docstring)."""
        return "ccw" if self._sign > 0 else "cw"

    @property
    def seat_distances(self) -> tuple[float, ...]:
        cx, cy = self.center
        return tuple(math.hypot(x - cx, y - cy) for x, y in self.seats)

    @property
    def play_radius(self) -> float:
        """Radius of the play area in pixels of ``image_size``."""
        return self.play_area * min(self.seat_distances)

    def scaled(self, frame_size: tuple[int, int]) -> "Calibration":
        """This calibration for frames of ``(width, height)`` (same view, resized)."""
        return _scaled(self, (int(frame_size[0]), int(frame_size[1])))

    def seats_of(self, points: np.ndarray | Sequence[Point],
                 frame_size: tuple[int, int] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Vectorised ``seat_of``: ``(seats int (N,), margins degrees (N,))``."""
        cal = self.scaled(frame_size) if frame_size else self
        pts = np.asarray(points, float).reshape(-1, 2)
        theta = cal._sign * _angles(pts - np.asarray(cal.center, float))
        a = cal._angles
        # Boundary k lies halfway (ccw) from seat k to seat k+1.
        bounds = a + _wrap(np.roll(a, -1) - a) / 2
        lower = np.roll(bounds, 1)                       # boundary between k-1 and k
        width = (bounds - lower) % (2 * math.pi)         # sector k spans [lower, bounds]
        offset = (theta[:, None] - lower[None, :]) % (2 * math.pi)
        inside = offset <= width[None, :]
        margins = np.minimum(offset, width[None, :] - offset)
        margins = np.where(inside, margins, -np.inf)
        seats = np.argmax(margins, axis=1)
        margin = np.degrees(margins[np.arange(len(pts)), seats])
        margin = np.where(np.isfinite(margin), margin, 0.0)  # float noise on a boundary
        at_centre = np.hypot(*(pts - np.asarray(cal.center)).T) < 1e-9
        margin[at_centre] = 0.0  # no direction at the centre itself
        return seats.astype(int), margin

    def seat_of(self, point: Point, frame_size: tuple[int, int] | None = None
                ) -> tuple[int, float]:
        """``(seat, margin)``: the sector ``point`` lies in, and how far inside
        it in degrees (0 on a boundary, 45 on a seat's axis for a square table)."""
        seats, margins = self.seats_of([point], frame_size)
        return int(seats[0]), float(margins[0])

    def is_in_play_area(self, point: Point, frame_size: tuple[int, int] | None = None) -> bool:
        cal = self.scaled(frame_size) if frame_size else self
        return math.hypot(point[0] - cal.center[0], point[1] - cal.center[1]) <= cal.play_radius

    def region_of(self, point: Point, frame_size: tuple[int, int] | None = None) -> Region:
        """Play area (``middle``), in front of a seat (``edge``), or ``outside``
        (off the image, or farther out along its seat's direction than the
        seat point)."""
        cal = self.scaled(frame_size) if frame_size else self
        seat, margin = cal.seat_of(point)
        if cal.is_in_play_area(point):
            return Region("middle", seat, margin)
        w, h = cal.image_size
        x, y = point
        cx, cy = cal.center
        sx, sy = cal.seats[seat]
        reach = math.hypot(sx - cx, sy - cy)
        along = ((x - cx) * (sx - cx) + (y - cy) * (sy - cy)) / reach
        if not (0 <= x <= w and 0 <= y <= h) or along > reach + 1e-6:
            return Region("outside", seat, margin)
        return Region("edge", seat, margin)

    def draw(self, image: np.ndarray) -> np.ndarray:
        """A copy of ``image`` (BGR) with the sector boundaries, the play area,
        the seat points and numbers, the centre and arrows in playing order."""
        import cv2

        cal = self.scaled((image.shape[1], image.shape[0]))
        out = image.copy()
        w, h = cal.image_size
        thick = max(1, round(min(w, h) / 320))
        c = np.asarray(cal.center, float)
        far = math.hypot(w, h)

        def at(angle: float, radius: float) -> tuple[int, int]:
            # ``angle`` in the mirrored frame (play goes ccw); back to the screen.
            a = cal._sign * angle
            return int(round(c[0] + radius * math.cos(a))), int(round(c[1] - radius * math.sin(a)))

        a = cal._angles
        bounds = a + _wrap(np.roll(a, -1) - a) / 2
        for b in bounds:
            cv2.line(out, at(0, 0), at(float(b), far), (255, 255, 255), thick + 1, cv2.LINE_AA)
            cv2.line(out, at(0, 0), at(float(b), far), (40, 40, 40), thick, cv2.LINE_AA)
        radius = cal.play_radius
        cv2.circle(out, at(0, 0), int(round(radius)), (0, 215, 255), thick, cv2.LINE_AA)
        team_colour = ((60, 200, 60), (60, 60, 230))  # team 0 green, team 1 red (BGR)
        arc = radius * 1.2
        for k in range(4):
            # An arc from seat k towards seat k+1: the playing order.
            start, span = float(a[k]), float(_wrap(a[(k + 1) % 4] - a[k]))
            pts = [at(start + span * f, arc) for f in np.linspace(0.2, 0.8, 12)]
            cv2.polylines(out, [np.asarray(pts[:-3], np.int32)], False, (255, 255, 0), thick,
                          cv2.LINE_AA)
            cv2.arrowedLine(out, pts[-4], pts[-1], (255, 255, 0), thick, cv2.LINE_AA,
                            tipLength=0.6)
        scale = max(0.6, min(w, h) / 400)
        for k, (sx, sy) in enumerate(cal.seats):
            colour = team_colour[k % 2]
            point = (int(round(min(max(sx, 0), w - 1))), int(round(min(max(sy, 0), h - 1))))
            cv2.circle(out, point, 4 * thick, colour, -1, cv2.LINE_AA)
            # The label sits inside the image, between the seat point and the centre.
            lx, ly = c + (np.asarray((sx, sy)) - c) * 0.8
            label = f"{k}"
            (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, 2 * thick)
            org = (int(lx - tw / 2), int(ly + th / 2))
            cv2.putText(out, label, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0),
                        4 * thick, cv2.LINE_AA)
            cv2.putText(out, label, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, 2 * thick,
                        cv2.LINE_AA)
        cv2.drawMarker(out, at(0, 0), (0, 215, 255), cv2.MARKER_CROSS, 12 * thick, thick + 1)
        return out


@functools.lru_cache(maxsize=16)
def _scaled(cal: Calibration, size: tuple[int, int]) -> Calibration:
    if size == cal.image_size:
        return cal
    if size[0] <= 0 or size[1] <= 0:
        raise CalibrationError(f"frame_size: expected positive (width, height), got {size}")
    fx, fy = size[0] / cal.image_size[0], size[1] / cal.image_size[1]
    return replace(cal, image_size=size, center=(cal.center[0] * fx, cal.center[1] * fy),
                   seats=tuple((x * fx, y * fy) for x, y in cal.seats))


def _pair(value: Any, where: str) -> Point:
    if (not isinstance(value, (list, tuple)) or len(value) != 2
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
            or not all(math.isfinite(v) for v in value)):
        raise CalibrationError(f"{where}: expected [x, y] (two finite numbers), got {value!r}")
    return float(value[0]), float(value[1])


def _validate(cal: Calibration) -> None:
    size = cal.image_size
    if len(size) != 2 or any(int(v) != v or v <= 0 for v in size):
        raise CalibrationError(f"image_size: expected two positive integers, got {size!r}")
    _pair(list(cal.center), "center")
    if len(cal.seats) != 4:
        raise CalibrationError(f"seats: expected 4 points, got {len(cal.seats)}")
    for i, p in enumerate(cal.seats):
        _pair(list(p), f"seats[{i}]")
    w, h = size
    cx, cy = cal.center
    if not (0 <= cx <= w and 0 <= cy <= h):
        raise CalibrationError(f"center: {cal.center} is outside the image {w}x{h}")
    for i, (x, y) in enumerate(cal.seats):
        if math.hypot(x - cx, y - cy) < 1.0:
            raise CalibrationError(f"seats[{i}]: {cal.seats[i]} is on the centre")
    if not (0 < cal.play_area <= 1) or isinstance(cal.play_area, bool):
        raise CalibrationError(f"play_area: expected a fraction in (0, 1], got {cal.play_area!r}")
    angles = _angles(np.asarray(cal.seats, float) - np.asarray(cal.center, float))
    steps = _wrap(np.roll(angles, -1) - angles)
    turn = float(np.sum(steps))
    # Playing order must go once round the centre, all one way.
    if not (np.all(steps > 0) or np.all(steps < 0)) or abs(abs(turn) - 2 * math.pi) > 1e-6:
        raise CalibrationError(
            "seats: not in playing order around the centre (seats 0..3 must go once "
            f"round the table, all clockwise or all counter-clockwise): {cal.seats}")


def edges(direction: Direction = "ccw", seat0_edge: Edge = "bottom") -> tuple[Edge, ...]:
    """Image edge of each seat for a proposed calibration.

    >>> edges("cw", "top")
    ('top', 'right', 'bottom', 'left')
    """
    start = EDGES_CCW.index(seat0_edge)
    step = 1 if direction == "ccw" else -1
    return tuple(EDGES_CCW[(start + step * k) % 4] for k in range(4))

