"""The typed door through which the live pipeline talks to the referee.

A background thread (the vision pipeline, or the demo) calls
:meth:`LiveFeed.on_event` with the events of ``sueca.vision.events`` and
:meth:`LiveFeed.on_frame` with the latest camera JPEG and its detections. Each
call returns once the event is committed (or refused and logged as an alert).

>>> from sueca.server.store import Store
>>> from sueca.server.service import Referee
>>> from sueca.vision.events import PlayEvent, TrumpSeen
>>> feed = LiveFeed(Referee(Store(":memory:")))
>>> feed.on_event(TrumpSeen("5H", seat=3, t=0.0, confidence=0.9))
'new_hand'
>>> feed.on_event(PlayEvent("AS", seat=0, t=1.0, confidence=0.97))
'play'
"""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from sueca.engine import MatchRecord
from sueca.vision.events import PlayCorrected, PlayEvent, SourceStatus, TrickCleared, TrumpSeen

from .replay import EventRejected
from .service import Referee

WHO = "camera"


@dataclass(frozen=True)
class CameraFrame:
    """The latest camera picture and what the detector found on it.

    ``detections``: entries of the ``sueca detect`` contract
    (``{"card", "confidence", "box": [x1, y1, x2, y2]}``), pixel coordinates of
    ``size`` = (width, height). ``card_px``: the median long side of the card outlines
    read in the recent frames (None before any), in the same pixels.
    """

    jpeg: bytes
    size: tuple[int, int]
    detections: tuple[dict, ...] = ()
    index: int = 0
    t: float = 0.0
    received: float = field(default_factory=time.time)
    card_px: float | None = None

    def meta(self) -> dict:
        out = {"index": self.index, "t": self.t, "size": list(self.size),
               "detections": list(self.detections), "age": round(time.time() - self.received, 3)}
        if self.card_px is not None:
            read = self.card_px * read_scale(self.size)
            out.update(card_px=round(self.card_px, 1), card_read_px=round(read, 1),
                       small_cards=bool(read < SMALL_CARD_PX))
        return out


#: A card's long side as the recognizer reads it, in pixels, under which the camera view warns
#: that cards are too small. The recognizer is made for about 100 px (a 1280x960 frame over an
#: 85 cm table, docs/raspberry-pi.md). Printed held-out cards lying whole (models/README.md,
#: Known weaknesses): 381 of 384 read at 100 px long or more, 297 of 310 at 60-100, 49 of 59
#: under 60; game videos at 76 px were read right, but with less to spare.
SMALL_CARD_PX = 90.0
#: Card lengths kept for the camera view's running median (a few frames' worth of cards).
CARD_LENGTHS_KEPT = 64


def read_scale(size: tuple[int, int]) -> float:
    """How much the recognizer shrinks a frame of ``size`` before reading it (1 up to its
    :data:`~sueca.vision.recognizer.MAX_SIDE`)."""
    from sueca.vision.recognizer import MAX_SIDE

    return min(1.0, MAX_SIDE / max(1, max(size)))


def card_lengths(detections) -> np.ndarray:
    """Long side of each card outline read in a ``CardDetections``, in pixels; empty for plain
    detection entries (they carry no outline). Unread boxes are left out: on the demo game
    their median is 53 px against the read cards' 105 (hands, a card's faint half-boxes)."""
    corners = getattr(detections, "corners", None)
    if corners is None or len(corners) == 0:
        return np.zeros(0, np.float32)
    from sueca.vision.detections import UNREADABLE
    from sueca.vision.rectify import longest_side

    read = np.asarray([c != UNREADABLE for c in detections.codes], bool)
    return longest_side(np.asarray(corners, np.float32).reshape(-1, 4, 2)[read])


class LiveFeed:
    """Pipeline events in, committed match events out."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee
        self._frame: CameraFrame | None = None
        self._frame_lock = threading.Lock()
        self._card_lengths: deque = deque(maxlen=CARD_LENGTHS_KEPT)
        self._card_size: tuple[int, int] | None = None
        self._calibration_listeners: list[Callable[[dict], None]] = []
        self.last_error = ""

    # -- events --------------------------------------------------------------
    def on_event(self, event) -> str:
        """Apply one pipeline event; returns what it became (``play``, ``new_hand``,
        ``rejected``, ``status``, ``ignored``...). Never raises for a refused play."""
        if isinstance(event, PlayEvent):
            return self._play(event)
        if isinstance(event, TrumpSeen):
            return self._trump(event)
        if isinstance(event, PlayCorrected):
            return self._corrected(event)
        if isinstance(event, TrickCleared):
            return "ignored"  # the engine closes tricks itself after four cards
        if isinstance(event, SourceStatus):
            self.referee.set_status({"connected": event.connected, "fps": round(float(event.fps), 1),
                                     "frames": int(event.frames), "model": event.model,
                                     "last_error": event.last_error or self.last_error, "t": event.t,
                                     "held": int(event.held), "held_t": event.held_t,
                                     "slow": bool(event.slow)})
            return "status"
        raise TypeError(f"LiveFeed.on_event: not a pipeline event: {type(event).__name__}")

    def _play(self, ev: PlayEvent) -> str:
        payload = {"card": ev.card, "seat": ev.seat, "t": round(float(ev.t), 3),
                   "confidence": round(float(ev.confidence), 4), "uncertain": bool(ev.uncertain)}
        if ev.seat is None:
            del payload["seat"]
        if not ev.card:
            # a card nobody could read (or saw at all): the referee names it; its weak
            # reading, if any, helps
            hint = {"hint": ev.hint} if ev.hint else {}
            if ev.unseen:
                why = {"why": "unseen", "reason": "nobody saw this seat's card played: the referee names it"}
            else:
                why = {"why": "unreadable", "reason": "nobody could read this card: the referee names it"}
            self.referee.reject({**payload, **hint, **why}, WHO)
            return "rejected"
        try:
            self.referee.submit("play", payload, WHO, snapshot=ev.snapshot_jpeg)
            return "play"
        except EventRejected as e:
            self.referee.reject({**payload, "reason": str(e)}, WHO)
            return "rejected"

    def _corrected(self, ev: PlayCorrected) -> str:
        """The camera read an uncertain play after all: correct that play's card,
        found by its time (the record keeps ``t`` to the millisecond)."""
        with self.referee.lock:
            view = self.referee.view()
            for h in range(len(view.record.hands) - 1, -1, -1):
                for i, p in enumerate(view.record.hands[h].plays):
                    if p.t is not None and abs(p.t - round(float(ev.play_t), 3)) < 1e-3:
                        if p.card.code == ev.card:
                            return "ignored"
                        try:
                            self.referee.submit("correct_play", {"hand": h, "index": i, "card": ev.card}, WHO)
                            return "correct_play"
                        except EventRejected as e:
                            self.referee.reject({"card": ev.card, "t": ev.t, "reason": str(e)}, WHO)
                            return "rejected"
            self.referee.reject({"card": ev.card, "t": ev.t,
                                 "reason": f"no play at t={ev.play_t:.3f} to correct to {ev.card}"}, WHO)
            return "rejected"

    def _trump(self, ev: TrumpSeen) -> str:
        # decide and write under the referee's lock: a request must not slip in between
        with self.referee.lock:
            return self._trump_locked(ev)

    def _trump_locked(self, ev: TrumpSeen) -> str:
        ref = self.referee
        view = ref.view()
        match = view.match
        payload = {"dealer": ev.seat, "trump_card": ev.card}
        try:
            if match.winner is not None:
                # the table plays on: a new match with the same players and rules
                ref.start_match(WHO)
                ref.submit("new_hand", payload, WHO)
                return "new_match"
            if not match.hands or match.hands[-1].is_over:
                ref.submit("new_hand", payload, WHO)
                return "new_hand"
            h = len(match.hands) - 1
            hand = match.hands[h]
            if hand.plays:
                # the turned card stays in view all hand long: nothing new
                if hand.trump_card.code != ev.card or hand.dealer != ev.seat:
                    ref.reject({"card": ev.card, "seat": ev.seat, "t": ev.t,
                                "reason": f"trump {ev.card} at seat {ev.seat} seen during hand {h} "
                                          f"(recorded {hand.trump_card.code}, dealer {hand.dealer})"}, WHO)
                    return "rejected"
                return "ignored"
            done = "ignored"
            if hand.dealer != ev.seat:
                ref.submit("set_dealer", {"hand": h, "dealer": ev.seat}, WHO)
                done = "set_dealer"
            if hand.trump_card.code != ev.card:
                ref.submit("set_trump", {"hand": h, "trump_card": ev.card}, WHO)
                done = "set_trump"
            return done
        except EventRejected as e:
            ref.reject({"card": ev.card, "seat": ev.seat, "t": ev.t, "reason": str(e)}, WHO)
            return "rejected"

    def committed(self) -> MatchRecord:
        """The live match's record as committed now: the pipeline's single truth
        (``Pipeline(committed=feed.committed)``); safe to call from any thread."""
        return self.referee.view().record

    # -- camera view -----------------------------------------------------------
    def on_frame(self, jpeg: bytes, size: tuple[int, int], detections=(), index: int = 0,
                 t: float = 0.0) -> None:
        """Keep the latest picture; ``detections`` may be a ``CardDetections``, whose outlines
        also give the cards' size over the recent frames (the camera view warns when they are
        too small to read well: :data:`SMALL_CARD_PX`)."""
        size = (int(size[0]), int(size[1]))
        lengths = card_lengths(detections)
        if hasattr(detections, "to_json"):
            detections = detections.to_json()
        with self._frame_lock:
            if self._card_size != size:  # another camera or resolution: its own cards
                self._card_lengths.clear()
                self._card_size = size
            self._card_lengths.extend(float(v) for v in lengths)
            card_px = float(np.median(self._card_lengths)) if self._card_lengths else None
            self._frame = CameraFrame(bytes(jpeg), size, tuple(detections), index, t, card_px=card_px)

    def frame(self) -> CameraFrame | None:
        with self._frame_lock:
            return self._frame

    # -- calibration -----------------------------------------------------------
    def on_calibration(self, fn: Callable[[dict], None]) -> None:
        """``fn(calibration)`` runs when the referee moves the seat points."""
        self._calibration_listeners.append(fn)

    def calibration_changed(self, calibration: dict) -> None:
        for fn in self._calibration_listeners:
            try:
                fn(calibration)
            except Exception as e:  # a listener's bug must not fail the referee's request
                self.last_error = f"calibration listener: {e}"
