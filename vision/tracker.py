"""Follow each physical card across frames and vote on what it is.

The detector sees every frame on its own: a card flickers in and out, a hand
covers it for seconds, a frame misreads it. The tracker ties the detections of
one card together (centre distance with a constant-velocity guess, box overlap,
and the card's own identity, since each card of a deck exists once) and keeps
a confidence-weighted vote of the readings. No torch, no hidden state beyond
the ``CardTracker`` object itself: the same detections give the same tracks.

>>> import numpy as np
>>> from sueca.vision.detections import CardDetections
>>> tr = CardTracker()
>>> d = CardDetections(np.array([[0, 0, 50, 70]], np.float32), ("7H",),
...                    np.array([0.95], np.float32), np.array([0.99], np.float32))
>>> for i in range(3):
...     tracks = tr.update(d, t=i * 0.1)
>>> tracks[0].identity, tracks[0].hits
('7H', 3)
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

import numpy as np

from .detections import UNREADABLE, CardDetections


@dataclass(frozen=True)
class TrackerConfig:
    """Tuning of :class:`CardTracker`. Distances are in card diagonals, times in seconds."""

    max_jump: float = 1.6          # how far a visible card may move between two frames
    max_lost_jump: float = 0.9     # how far an occluded card may have moved when it reappears
    min_hits: int = 2              # detections before a track is real (one-frame ghosts are flicker)
    tentative_gap_s: float = 0.4   # a tentative track missing this long is dropped
    max_lost_s: float = 10.0       # a real track survives this long unseen (hands cover cards)
    read_floor: float = 0.55       # readings below this confidence carry no vote (misread frames)
    settle_margin: float = 3.0     # log-odds lead of the best identity needed to settle it
    settle_min_reads: int = 2      # confident readings of the best identity needed to settle it
    history_s: float = 3.0         # observations kept per track (for rest and trajectory)
    segment_move: float = 0.35     # a jump this far between two sightings starts a fresh identity vote
    still_move: float = 0.14       # a step this small between two sightings is lying still (outline jitter)
    twin_dist: float = 0.3         # two tracks this close, not both seen now, are one card
    twin_window_s: float = 1.0     # ... when both were seen this recently
    still_s: float = 1.0           # a card still this long is parked: it does not jump far
    speed_reach_s: float = 0.2     # a moving card may be found this many seconds further on
    parked_jump: float = 0.45      # how far a parked card may move between two frames


@dataclass(frozen=True)
class Observation:
    """One detection of a track: time, box centre, box area, what was read."""

    t: float
    cx: float
    cy: float
    area: float
    diag: float
    code: str
    confidence: float


@dataclass(frozen=True)
class TrackView:
    """A read-only snapshot of a track after an update.

    ``identity`` is the settled card code ('' while unsettled); ``best`` the
    leading candidate and ``identity_confidence`` its share of the vote.
    ``visible`` says the track was detected in this very frame.
    """

    id: int
    xyxy: tuple[float, float, float, float]
    center: tuple[float, float]
    first_center: tuple[float, float]
    first_t: float
    last_t: float
    hits: int
    confirmed: bool
    visible: bool
    identity: str
    best: str
    identity_confidence: float
    reads: int
    history: tuple[Observation, ...]
    moved_t: float = 0.0   # when it last jumped (carried, or its track moved to another card)
    origin: tuple[float, float] | None = None  # where its current journey started
    best_reads: int = 0    # readings of ``best`` since it last jumped

    @property
    def diag(self) -> float:
        x1, y1, x2, y2 = self.xyxy
        return math.hypot(x2 - x1, y2 - y1)


def _logit(p: float, floor: float) -> float:
    if p < floor:
        return 0.0
    p = min(p, 0.995)
    return math.log(p / (1.0 - p))


class _Track:
    __slots__ = ("id", "xyxy", "vel", "first_center", "first_t", "last_t", "hits",
                 "confirmed", "votes", "counts", "history", "seen_now", "anchor", "seg_votes",
                 "seg_counts", "still_since", "moved_t", "origin")

    def __init__(self, tid: int, xyxy: np.ndarray, t: float) -> None:
        self.id = tid
        self.xyxy = xyxy.astype(np.float64)
        self.vel = np.zeros(2)
        c = _center(self.xyxy)
        self.first_center = (float(c[0]), float(c[1]))
        self.first_t = t
        self.origin = self.first_center
        self.last_t = t
        self.hits = 0
        self.confirmed = False
        self.votes: dict[str, float] = {}
        self.counts: dict[str, int] = {}
        self.history: deque[Observation] = deque()
        self.seen_now = False
        # Votes since the card last left where it lay: what the card is NOW. If the
        # track was wrongly carried over to another card, only these are right.
        self.anchor = c
        self.seg_votes: dict[str, float] = {}
        self.seg_counts: dict[str, int] = {}
        self.still_since = t
        self.moved_t = t

    def ranking(self, segment: bool = False) -> tuple[str, float, float]:
        """(best code, its vote, runner-up vote)."""
        votes = self.seg_votes if segment else self.votes
        if not votes:
            return UNREADABLE, 0.0, 0.0
        ordered = sorted(votes.items(), key=lambda kv: (-kv[1], kv[0]))
        second = ordered[1][1] if len(ordered) > 1 else 0.0
        return ordered[0][0], ordered[0][1], second


def _center(b: np.ndarray) -> np.ndarray:
    return np.array([(b[0] + b[2]) / 2.0, (b[1] + b[3]) / 2.0])


def _diag(b: np.ndarray) -> float:
    return float(math.hypot(b[2] - b[0], b[3] - b[1]))


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return float(inter / union) if union > 0 else 0.0


class CardTracker:
    """Ties detections into tracks frame after frame; see the module docstring."""

    def __init__(self, config: TrackerConfig | None = None) -> None:
        self.config = config or TrackerConfig()
        self._tracks: list[_Track] = []
        self._next_id = 1
        self._last_t: float | None = None
        self.merged: dict[int, int] = {}

    def identity_of(self, track: _Track, segment: bool = False) -> tuple[str, str, float]:
        """(settled identity or '', best candidate, share of the vote); ``segment``:
        only the readings since the card last moved away from where it lay."""
        best, top, second = track.ranking(segment)
        if not best:
            return UNREADABLE, UNREADABLE, 0.0
        conf = 1.0 / (1.0 + math.exp(-min(top - second, 30.0)))
        counts = track.seg_counts if segment else track.counts
        settled = (top - second >= self.config.settle_margin
                   and counts.get(best, 0) >= self.config.settle_min_reads)
        return (best if settled else UNREADABLE), best, conf

    def drop(self, track_ids) -> None:
        """Forget tracks (cards swept off the table): their identity must not pull
        a later detection of the same card, e.g. in the next hand, into the old track."""
        gone = set(track_ids)
        self._tracks = [tr for tr in self._tracks if tr.id not in gone]

    def update(self, detections: CardDetections, t: float) -> tuple[TrackView, ...]:
        """Feed one frame's detections at time ``t``; returns every live track."""
        if self._last_t is not None and t < self._last_t:
            raise ValueError(f"CardTracker.update: time went backwards ({t} < {self._last_t})")
        dt = 0.0 if self._last_t is None else t - self._last_t
        self._last_t = t
        cfg = self.config
        boxes = np.asarray(detections.xyxy, np.float64)
        n = len(detections)
        for tr in self._tracks:
            tr.seen_now = False

        pairs: list[tuple[float, int, int]] = []
        centers = [_center(boxes[j]) for j in range(n)]
        diags = [max(_diag(boxes[j]), 1.0) for j in range(n)]
        for i, tr in enumerate(self._tracks):
            gap = t - tr.last_t
            recent = gap <= 0.35
            last = _center(tr.xyxy)
            pred = last + (tr.vel * min(gap, 0.15) if recent else 0.0)
            tdiag = max(_diag(tr.xyxy), 1.0)
            settled, _, _ = self.identity_of(tr)
            for j in range(n):
                scale = (tdiag + diags[j]) / 2.0
                # a thrown card stops dead: it is near where it was going, or where it was
                dist = min(float(np.hypot(*(centers[j] - pred))),
                           float(np.hypot(*(centers[j] - last)))) / scale
                code, conf = detections.codes[j], float(detections.confidence[j])
                same = bool(settled) and code == settled and conf >= cfg.read_floor
                if recent:
                    # as far as it was going, plus a little: a card lying still does not
                    # leap to where a new card appears
                    speed = float(np.hypot(*tr.vel)) * cfg.speed_reach_s / tdiag
                    gate = min(cfg.max_jump, cfg.parked_jump + speed)
                else:
                    gate = cfg.max_lost_jump
                if t - tr.still_since >= cfg.still_s:
                    gate = min(gate, cfg.parked_jump)
                if dist > gate and not same:
                    continue
                cost = dist - 0.5 * _iou(tr.xyxy, boxes[j])
                if same:
                    cost -= 1.0
                elif settled and code and conf >= 0.8:
                    if not recent:
                        continue  # a lost card does not come back reading as another card
                    cost += 1.0  # a confident different reading: probably another card
                pairs.append((cost, i, j))
        # Greedy on ascending cost, ties broken by index: deterministic, and with a
        # handful of cards on a table as good as an optimal assignment.
        pairs.sort()
        used_t: set[int] = set()
        used_d: set[int] = set()
        for cost, i, j in pairs:
            if i in used_t or j in used_d:
                continue
            used_t.add(i)
            used_d.add(j)
            self._observe(self._tracks[i], boxes[j], detections, j, t, dt)
        for j in range(n):
            if j in used_d:
                continue
            tr = _Track(self._next_id, boxes[j], t)
            self._next_id += 1
            self._tracks.append(tr)
            self._observe(tr, boxes[j], detections, j, t, dt)

        keep = []
        for tr in self._tracks:
            gap = t - tr.last_t
            if tr.confirmed and gap <= cfg.max_lost_s or not tr.confirmed and gap <= cfg.tentative_gap_s:
                keep.append(tr)
            while tr.history and tr.history[0].t < t - cfg.history_s:
                tr.history.popleft()
        self._tracks = self._merge_twins(keep, t)
        return tuple(self._view(tr) for tr in self._tracks if tr.confirmed)

    def _merge_twins(self, tracks: list[_Track], t: float) -> list[_Track]:
        """Two live tracks on one spot are one card (an old track and a new one taking
        turns on its detections): keep the better-known one. ``merged`` says which
        track id went into which, for whoever keeps state per track."""
        self.merged = {}
        cfg = self.config
        live = [tr for tr in tracks if tr.confirmed and t - tr.last_t <= cfg.twin_window_s]
        gone: set[int] = set()
        for a_i, a in enumerate(live):
            for b in live[a_i + 1:]:
                if a.id in gone or b.id in gone:
                    continue
                d = max(_diag(a.xyxy), _diag(b.xyxy), 1.0)
                if float(np.hypot(*(_center(a.xyxy) - _center(b.xyxy)))) > cfg.twin_dist * d:
                    continue
                if a.seen_now and b.seen_now:
                    continue  # two detections: two cards lying on each other
                ka, kb = self._knowledge(a), self._knowledge(b)
                keep, drop = (a, b) if ka >= kb else (b, a)
                if self._other_card(keep, drop):
                    continue
                if drop.seen_now:
                    keep.xyxy, keep.last_t, keep.seen_now = drop.xyxy.copy(), drop.last_t, True
                    keep.history.extend(drop.history)
                    keep.history = deque(sorted(keep.history, key=lambda o: o.t))
                for code, w in drop.votes.items():
                    keep.votes[code] = keep.votes.get(code, 0.0) + w
                    keep.counts[code] = keep.counts.get(code, 0) + drop.counts.get(code, 0)
                gone.add(drop.id)
                self.merged[drop.id] = keep.id
        return [tr for tr in tracks if tr.id not in gone]

    def _other_card(self, keep: _Track, drop: _Track) -> bool:
        """``drop`` reads, as surely as settling asks, another card than the one
        ``keep`` is settled on: a card landing on (and covering) another, not one
        card's two tracks. Each card exists once, so they stay apart."""
        settled, _, _ = self.identity_of(keep, segment=True)
        best, top, second = drop.ranking(segment=True)
        return bool(settled) and bool(best) and best != settled and top - second >= self.config.settle_margin

    def _knowledge(self, tr: _Track) -> tuple:
        settled, best, conf = self.identity_of(tr, segment=True)
        return (bool(settled), conf if best else 0.0, tr.hits, -tr.id)

    def _observe(self, tr: _Track, box: np.ndarray, dets: CardDetections, j: int, t: float, dt: float) -> None:
        cfg = self.config
        new_c = _center(box)
        gap = t - tr.last_t
        was_still = float(np.hypot(*tr.vel)) * max(gap, 0.05) < 0.2 * max(_diag(tr.xyxy), 1.0)
        if tr.hits and 0 < gap <= 0.35:
            v = (new_c - _center(tr.xyxy)) / gap
            tr.vel = 0.5 * tr.vel + 0.5 * v
        else:
            tr.vel = np.zeros(2)
        d = max(_diag(box), 1.0)
        step = float(np.hypot(*(new_c - tr.anchor))) / d
        if step > cfg.segment_move:
            # carried (or the track jumped to another card): what it reads from here on
            # is what it is now, and where it came from is where this was first seen
            tr.seg_votes, tr.seg_counts = {}, {}
            tr.moved_t = t
            if tr.hits and (gap > 0.5 or was_still):
                tr.origin = (float(new_c[0]), float(new_c[1]))
        elif step > cfg.still_move and tr.hits and tr.last_t - tr.still_since >= cfg.still_s:
            # a card that lay still sets off: its journey starts where it lay
            tr.origin = (float(tr.anchor[0]), float(tr.anchor[1]))
        if step > cfg.still_move:
            tr.still_since = t
        tr.anchor = new_c
        tr.xyxy = box.copy()
        tr.last_t = t
        tr.hits += 1
        tr.seen_now = True
        if tr.hits >= cfg.min_hits:
            tr.confirmed = True
        code, conf = dets.codes[j], float(dets.confidence[j])
        if dets.corners is not None:
            area = float(abs(_shoelace(dets.corners[j])))
        else:
            area = float((box[2] - box[0]) * (box[3] - box[1]))
        if code:
            w = _logit(conf, cfg.read_floor)
            if w > 0:
                tr.votes[code] = tr.votes.get(code, 0.0) + w
                tr.counts[code] = tr.counts.get(code, 0) + 1
                tr.seg_votes[code] = tr.seg_votes.get(code, 0.0) + w
                tr.seg_counts[code] = tr.seg_counts.get(code, 0) + 1
        tr.history.append(Observation(t, float(new_c[0]), float(new_c[1]), area, _diag(box), code, conf))

    def _view(self, tr: _Track) -> TrackView:
        settled, best, conf = self.identity_of(tr, segment=True)
        c = _center(tr.xyxy)
        return TrackView(
            id=tr.id, xyxy=tuple(float(v) for v in tr.xyxy), center=(float(c[0]), float(c[1])),
            first_center=tr.first_center, first_t=tr.first_t, last_t=tr.last_t, hits=tr.hits,
            confirmed=tr.confirmed, visible=tr.seen_now, identity=settled, best=best,
            identity_confidence=conf, reads=sum(tr.counts.values()), history=tuple(tr.history),
            moved_t=tr.moved_t, origin=tr.origin, best_reads=tr.seg_counts.get(best, 0),
        )


def _shoelace(poly: np.ndarray) -> float:
    x, y = poly[:, 0].astype(np.float64), poly[:, 1].astype(np.float64)
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))
