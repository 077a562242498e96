"""Parts of the play detector: its settings, its table memory, whose card it is,
evidence snapshots.

>>> from sueca.vision.geometry import Calibration
>>> cal = Calibration.propose(1280, 960)          # seat 0 bottom, 1 right, 2 top, 3 left
>>> seat_of_play(cal, (640, 900), (640, 600), turn=0)
0
>>> seat_of_play(cal, (640, 60), (640, 400), turn=0)   # came from the top: seat 2, reported
2
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from .tracker import TrackerConfig


class TableGeometry(Protocol):
    """What the play detector needs from a calibration (``sueca.vision.geometry.Calibration``)."""

    def seat_of(self, point) -> tuple[int, float]: ...

    def is_in_play_area(self, point) -> bool: ...


@dataclass(frozen=True)
class PlayConfig:
    """Tuning of :class:`PlayDetector`; times in seconds, distances in card diagonals."""

    rest_s: float = 0.1            # a card still this long has come to rest
    rest_tol: float = 0.14         # how much a resting card's centre may wander (outline jitter)
    min_rest_obs: int = 2          # detections inside the rest window
    full_view: float = 0.75        # box area vs. a whole card's: below it the view is partial
    uncertain_after_s: float = 2.0  # visible at rest this long without a settled identity
    uncertain_min_obs: int = 15    # ... and seen at rest in this many frames: uncertain play
    clear_s: float = 0.8           # the four cards of a trick gone this long: swept
    clear_partial_s: float = 2.5   # a trick short of a card (one missed) gone this long: swept
    trump_rest_s: float = 0.8      # the turned trump lies still this long beside a seat
    new_hand_after: int = 30       # plays after which a new trump may end an uncounted hand
    new_hand_rest_s: float = 2.0   # ... when it has lain beside its seat this long
    ghost_s: float = 1.0           # a card seen again after it was played, then unseen this long: forgotten
    suggest_conf: float = 0.8      # an unsettled reading this strong goes with an uncertain play
    partial_rest_s: float = 1.5    # a card never seen whole (under a hand) lying still this long lies there
    partial_rest_obs: int = 10     # ... seen in this many frames meanwhile
    # The frame counts here (``*_obs``, ``gone_hits``) are for a camera read this many times a
    # second; a slower one needs as many seconds' worth of frames instead (``frames_at_rate``):
    # at 4 a second, 1.5 s holds 6 frames, never the 10 asked at 10 a second.
    counts_fps: float = 10.0
    # A card read for sure, lying still this long and showing at least ``read_rest_view`` of a
    # whole card's area has come to rest too: on a white table the outliner can draw cards larger
    # than they are, and a table-wide size taken from such outlines made a card lying in plain
    # view look partly covered until its trick was swept (models/EXPERIMENTS.md, seventeenth
    # session); a strip of a card under a hand stays no play. None: only cards seen whole.
    read_rest_s: float | None = 1.5
    read_rest_view: float = 0.5
    overtaken_s: float = 1.0       # an unread card lying this long when a later one is ready: uncertain play
    hold_lost_s: float = 2.5       # an earlier card unseen this long no longer holds back later plays
    hold_max_s: float = 6.0        # nor one that entered the play area this long ago
    # An unread box seen in fewer than ``gone_hits`` frames, then out of view ``gone_s``, when a
    # later card is ready: a hand that held its cards by the trick and went back, not a play
    # (models/EXPERIMENTS.md, twenty-seventh session).
    gone_s: float = 1.0
    gone_hits: int = 8
    reread_s: float = 3.0          # a played card read as another, never played, where it lay this soon after: corrected
    seat_band_deg: float = 70.0    # evidence this close to the expected seat's angle is that seat
    snapshot_width: int = 320      # evidence JPEG width in pixels (0: no snapshots)
    tracker: TrackerConfig = field(default_factory=TrackerConfig)


@dataclass(frozen=True)
class Stray:
    """A card seen lying in the trick, never read well enough, then gone from view."""

    entered: float
    rest_t: float
    card: str
    seat: int | None
    confidence: float
    track_id: int
    hint: str = ""   # its leading reading, too weak to give (PlayEvent.hint)


@dataclass
class OnTable:
    card: str
    track_id: int
    center: tuple[float, float]
    last_seen: float
    uncertain: bool = False
    play_t: float = 0.0
    seat: int | None = None
    read_twice: bool = False  # its reading is a card played before: that reading never settles it


def seat_only(value) -> int:
    """``Calibration.seat_of`` gives (seat, margin in degrees); a plain int also works."""
    return int(value[0]) if isinstance(value, tuple) else int(value)


def angle_diff(a: float, b: float) -> float:
    """Absolute difference of two angles (radians) in degrees, 0..180."""
    d = (a - b + math.pi) % (2 * math.pi) - math.pi
    return abs(math.degrees(d))


def seat_of_play(cal, origin, rest, turn: int | None, band_deg: float = 70.0) -> int:
    """The seat a card came from: where its journey started if that was outside the
    play area (the player's edge), else where it lies (in front of its player).
    Evidence within ``band_deg`` of the expected seat's direction is that seat (a
    crooked throw near a boundary); evidence clearly elsewhere is what it is, and
    the engine reports the mismatch."""
    point = origin if not cal.is_in_play_area(origin) else rest
    seen = seat_only(cal.seat_of(point))
    center = getattr(cal, "center", None)
    seats = getattr(cal, "seats", None)
    if center is None or seats is None or turn is None or seen == turn:
        return seen
    cx, cy = float(center[0]), float(center[1])
    ang = math.atan2(point[1] - cy, point[0] - cx)
    expected = math.atan2(float(seats[turn][1]) - cy, float(seats[turn][0]) - cx)
    return turn if angle_diff(ang, expected) <= band_deg else seen


def seats_in_turn(seats) -> bool:
    """Whether ``seats`` are all known and follow one another in turn, as a trick's do.

    >>> seats_in_turn([3, 0, 1]), seats_in_turn([2, 1]), seats_in_turn([1, None]), seats_in_turn([])
    (True, False, False, False)
    """
    return bool(seats) and None not in seats and all(s == (seats[0] + i) % 4 for i, s in enumerate(seats))


def frames_at_rate(n: int, frame_dt: float | None, counts_fps: float, least: int = 2) -> int:
    """``n`` frames at ``counts_fps``, as frames of a camera read every ``frame_dt`` seconds:
    as many seconds' worth, never more than ``n`` nor fewer than ``least`` (None: ``n``).

    >>> frames_at_rate(10, 0.1, 10.0), frames_at_rate(10, 0.25, 10.0), frames_at_rate(10, 1 / 30, 10.0)
    (10, 4, 10)
    """
    if frame_dt is None or frame_dt * counts_fps <= 1.0:
        return n
    return max(min(least, n), math.ceil(n / (frame_dt * counts_fps) - 1e-9))


def still_since(tr, rest_tol: float) -> tuple[float, int]:
    """(since when, observations) a track has lain where it was last seen, within
    ``rest_tol`` card diagonals (outline jitter). ``tr``: a ``TrackView`` with history."""
    last = tr.history[-1]
    tol = rest_tol * max(last.diag, 1.0)
    start, count = last.t, 0
    for o in reversed(tr.history):
        if math.hypot(o.cx - last.cx, o.cy - last.cy) > tol:
            break
        start, count = o.t, count + 1
    return start, count


def weak_reading(tr, since: float, until: float, floor: float) -> str:
    """The card ``tr`` was read as while it lay there (``since`` <= t < ``until``), however
    few the readings: the one with the most confidence summed over readings of at least
    ``floor`` (the tracker's ``read_floor``). Never a play's card: a hint for the hand's
    end (``PlayEvent.hint``). Only the tracker's recent history (``history_s``) is searched.

    >>> from types import SimpleNamespace as O
    >>> tr = O(history=[O(t=1.0, code="7H", confidence=0.9), O(t=2.0, code="", confidence=0.0)])
    >>> weak_reading(tr, 0.5, math.inf, 0.55), weak_reading(tr, 1.5, math.inf, 0.55)
    ('7H', '')
    """
    votes: dict[str, float] = {}
    for o in tr.history:
        if o.code and since <= o.t < until and o.confidence >= floor:
            votes[o.code] = votes.get(o.code, 0.0) + o.confidence
    return max(votes, key=votes.__getitem__) if votes else ""


def snapshot_jpeg(image: np.ndarray | None, width: int) -> bytes | None:
    """A small JPEG of the table (evidence of a play), ``width`` pixels wide."""
    if image is None or width <= 0:
        return None
    import cv2

    h = max(1, round(image.shape[0] * width / image.shape[1]))
    small = cv2.resize(image, (width, h), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 70])
    return buf.tobytes() if ok else None


def polygon_area(poly: np.ndarray) -> float:
    """Area of a polygon given as (N, 2) points (shoelace formula)."""
    x, y = poly[:, 0].astype(np.float64), poly[:, 1].astype(np.float64)
    return abs(0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


class CardSize:
    """Expected area of a whole card at a point of the image.

    A plane fitted to the areas of confidently read cards: a tilted camera shows
    near cards bigger than far ones, and a card partly under a hand is smaller
    than what the plane says for its place. Only near where cards were read: a
    tilted camera makes a card across the table a third smaller than the trump
    card at the start of a hand, so far from every sample the size is unknown.

    >>> cs = CardSize()
    >>> for x in range(0, 1000, 20):
    ...     cs.add(x, 500.0, 8000 + 4 * x)
    >>> round(cs.at(500, 500))
    10000
    >>> cs.at(500, 900) is None   # four card sides away from any read card
    True
    """

    def __init__(self, keep: int = 400, refit_every: int = 25) -> None:
        from collections import deque

        self.samples: deque = deque(maxlen=keep)
        self.refit_every = refit_every
        self._coef: np.ndarray | None = None
        self._median = 0.0
        self._box = (0.0, 0.0, 0.0, 0.0)   # where the samples lie, grown by a card side
        self._since = 0

    def add(self, x: float, y: float, area: float) -> None:
        self.samples.append((x, y, area))
        self._since += 1

    def at(self, x: float, y: float) -> float | None:
        n = len(self.samples)
        if n < 5:
            return None
        if self._coef is None or self._since >= self.refit_every:
            self._fit()
        x1, y1, x2, y2 = self._box
        if not (x1 <= x <= x2 and y1 <= y <= y2):
            return None
        if self._coef is None:
            return self._median
        est = float(self._coef @ (1.0, x, y))
        return min(max(est, 0.5 * self._median), 1.5 * self._median)

    def _fit(self) -> None:
        s = np.asarray(self.samples, np.float64)
        self._since = 0
        self._median = float(np.percentile(s[:, 2], 90))
        side = math.sqrt(max(self._median, 1.0))
        lo, hi = s[:, :2].min(axis=0), s[:, :2].max(axis=0)
        self._box = (lo[0] - side, lo[1] - side, hi[0] + side, hi[1] + side)
        # a slope only along a direction the samples spread over (else it is noise)
        axes = [k for k in (0, 1) if hi[k] - lo[k] >= 2 * side]
        if len(s) < 30 or not axes:
            self._coef = None
            return
        a = np.column_stack([np.ones(len(s))] + [s[:, k] for k in axes])
        coef, *_ = np.linalg.lstsq(a, s[:, 2], rcond=None)
        # partial views pull the plane down: fit again without them
        keep = s[:, 2] >= 0.9 * (a @ coef)
        if keep.sum() >= 10:
            coef, *_ = np.linalg.lstsq(a[keep], s[keep, 2], rcond=None)
        full = np.zeros(3)
        full[0] = coef[0]
        for i, k in enumerate(axes):
            full[1 + k] = coef[1 + i]
        self._coef = full
