"""Frames in, the game record out: source -> recognizer -> play events -> engine.

``Pipeline`` pulls frames from a source, recognizes the cards on each, turns
them into events (:class:`~sueca.vision.play_events.PlayDetector`), and keeps
the game record up to date with the rules engine, which also says whose turn
it is (the play detector weighs the seat it sees against that).

Usage (needs a video, a model and a calibration, so not a doctest)::

    pipe = Pipeline(open_source("game.mp4"), load_recognizer(), calibration)
    for event in pipe:                  # PlayEvent, TrumpSeen, ...
        print(event)
    pipe.record_json()                  # interfaces.md game record

Any iterable of frames with ``image``, ``t`` and ``index`` works as a source
and any callable ``image -> CardDetections`` as a recognizer, so the
simulated table of :mod:`sueca.vision.simtable` drives it in tests.

With a dashboard, ``committed`` (a callable returning the referee's
``MatchRecord``) makes the committed record the single truth: see
:mod:`sueca.vision.committed`.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from dataclasses import dataclass, replace
from typing import Callable, Iterable, Iterator

import numpy as np

from sueca.engine import Card, Hand, MatchRecord, PlayError, Rules

from .committed import FollowsCommitted
from .events import PlayCorrected, PlayEvent, SourceStatus, TrickCleared, TrumpSeen
from .play_events import PlayConfig, PlayDetector
from .prefetch import prefetched
from .recognizer import Recognizer
from .still import OutlineMemory
from .unread import UnreadPlays

log = logging.getLogger("sueca.vision.pipeline")

#: Frames a second a live source must be read at for the referee's figures to hold. The same
#: simulated games (``scripts/eval_games.py --sim --seeds 1000-1039 --hands 3 --fps F``, and
#: ``--seeds 4000-4039 --faults harsh``) gave 120 and 120 of 120 hands right at 10 and at 30
#: frames a second, 120 and 119 at 8, 120 and 118 at 6, 119 and 108 at 4, 99 and 30 at 2.5
#: (``models/EXPERIMENTS.md``, thirty-first session): fewer frames, fewer readings of a card
#: before its trick is swept. Under it the status says so (``SourceStatus.slow``) and the log warns.
MIN_LIVE_FPS = 8.0
#: ... not said before the source has been read this long: the first frames wait for the networks
#: to warm up
SLOW_AFTER_S = 5.0


@dataclass(frozen=True)
class Progress:
    """What ``on_progress`` receives: frames done, processing rate, source time, plays."""

    frames: int
    fps: float
    t: float
    plays: int
    hands: int
    elapsed: float


class Pipeline(FollowsCommitted, UnreadPlays):
    """Iterate it for events; ``record`` / ``record_json()`` hold the game so far.

    ``dealer``/``trump`` set the first hand when the camera cannot see the
    turned card; ``set_trump`` does the same at any time (the dashboard).
    ``on_event`` (e.g. a server's live feed) and ``on_progress`` are optional
    callbacks; ``status_every_s`` paces ``SourceStatus`` events (wall clock).
    ``committed`` (server mode): plays go to ``on_event`` only when the committed
    record can take them, and turn, trump and played cards follow that record.
    ``still_outlines``: a card lying still keeps its outline from frame to frame
    instead of being outlined again (:mod:`sueca.vision.still`; the reader still
    reads it in every frame). A :class:`Recognizer` reads video frames with its
    ``video_threshold``: one frame's reading is one vote, and the tracker settles
    a card's identity only on agreeing votes with a clear lead.
    """

    def __init__(self, source: Iterable, recognizer: Callable, calibration, rules: Rules | None = None,
                 *, dealer: int | None = None, trump: str | None = None,
                 config: PlayConfig | None = None, on_event: Callable | None = None,
                 on_frame: Callable | None = None,
                 on_progress: Callable[[Progress], None] | None = None, progress_every_s: float = 1.0,
                 status_every_s: float = 2.0, model_name: str = "", clock: Callable[[], float] = time.monotonic,
                 prefetch: int = 0, committed: Callable[[], MatchRecord] | None = None,
                 still_outlines: bool = True) -> None:
        self.source = source
        self.recognizer = recognizer
        # a card lying still keeps its outline between frames (sueca.vision.still)
        self.outline_memory = OutlineMemory() if still_outlines and isinstance(recognizer, Recognizer) else None
        if self.outline_memory is not None:
            # close looks only in the play area (sueca.vision.close_look)
            self.outline_memory.close.where = self._in_play_area
        self.calibration = calibration
        self.rules = rules or Rules()
        self.detector = PlayDetector(calibration, config)
        self._deck_codes = frozenset(c.code for c in self.rules.deck)
        self.on_event = on_event
        self.on_frame = on_frame  # on_frame(image, detections, index, t) after each frame
        self.prefetch = prefetch  # frames decoded ahead on a thread (files)
        self.on_progress = on_progress
        self.progress_every_s = progress_every_s
        self.status_every_s = status_every_s
        self.model_name = model_name
        self._slow = False  # the last status said the live source was read too slowly
        self._clock = clock
        self.record = MatchRecord(self.rules)
        self.finished_records: list[MatchRecord] = []   # earlier matches when one was won
        self._hand: Hand | None = None
        self._pending: list[PlayEvent] = []             # plays waiting for a dealer and trump
        self._blocked = False                            # an unreadable play holds the hand
        self._read_twice: dict[float, str] = {}          # held play's t -> the played card it read as
        self.abandoned: list[list[PlayEvent]] = []       # held plays of hands that ended unresolved
        self._abandoned_hand: list[int] = []             # ... and the hand each list belonged to
        self._flags: dict[tuple[int, int], dict] = {}    # (hand, play) -> extra JSON (uncertain)
        self.rejected: list[tuple[PlayEvent, str]] = []  # impossible plays, reported, never scored
        # the latest events (a referee running for days must not grow without bound)
        self.events: deque = deque(maxlen=10000)
        self.emitted: dict[tuple[int, int], float] = {}  # (hand, play) -> source time of its event
        self._now_t = 0.0
        self._emit_t: dict[int, float] = {}
        self.frames = 0
        self.plays = 0
        self._scaled = False
        self.committed = committed
        self._seen: MatchRecord | None = None           # the committed record last followed
        self._next_trump: tuple[TrumpSeen, int] | None = None  # a new hand the record could not start yet
        if committed is not None:
            self._sync()
        if (dealer is None) != (trump is None):
            raise ValueError("Pipeline: give both dealer and trump, or neither")
        if dealer is not None:
            self.set_trump(int(dealer), str(trump))

    # -- outside corrections ----------------------------------------------
    def set_calibration(self, calibration) -> None:
        """New seat points (the referee dragged them): used from the next frame."""
        self.calibration = calibration
        self.detector.calibration = calibration
        self._scaled = False

    def set_trump(self, dealer: int, trump: str) -> None:
        """Dealer and trump of the hand waiting for them (or of a new hand)."""
        card = Card.parse(trump)
        self.detector.set_trump(card.code, dealer)
        if self.committed is not None:
            # the referee's record takes it as it takes a trump the camera saw
            self._served(TrumpSeen(card.code, int(dealer), self._now_t, 1.0))
            return
        self._start_hand(dealer, card)

    def _in_play_area(self, x: float, y: float, size: tuple[int, int]) -> bool:
        return self.calibration.is_in_play_area((x, y), size)

    @property
    def turn(self) -> int | None:
        if self._hand is None:
            return None
        return self.held_turn() if self._blocked else self._hand.turn

    # -- the loop -------------------------------------------------------------
    def __iter__(self) -> Iterator:
        start = self._clock()
        last_progress = last_status = start
        t = 0.0
        for frame in self._frames():
            image, t, index = frame.image, float(frame.t), int(frame.index)
            if not self._scaled and isinstance(image, np.ndarray) and hasattr(self.calibration, "scaled"):
                # a calibration made on frames of another size still applies
                self.calibration = self.calibration.scaled((image.shape[1], image.shape[0]))
                self.detector.calibration = self.calibration
                self._scaled = True
            self._now_t = t
            if self.committed is not None:
                self._sync()  # the referee may have changed the record since the last frame
                self._release()
            if isinstance(self.recognizer, Recognizer):
                if self.outline_memory is not None:
                    self.outline_memory.close.t = t  # a close look's wait is time, whatever the rate
                dets = self.recognizer(image, memory=self.outline_memory,
                                       threshold=self.recognizer.config.video_threshold)
            else:
                dets = self.recognizer(image)
            # a card this game's deck lacks (an 8, 9 or 10 in Sueca) is a misreading
            dets = dets.restricted_to(self._deck_codes)
            out = self.detector.update(dets, t, index, turn=self.turn,
                                       image=image if isinstance(image, np.ndarray) else None)
            self.frames += 1
            if self.on_frame is not None:
                self.on_frame(image, dets, index, t)
            for ev in out:
                self._apply(ev)
                yield ev
            now = self._clock()
            if self.on_progress and now - last_progress >= self.progress_every_s:
                last_progress = now
                self.on_progress(self.progress(now - start, t))
            if now - last_status >= self.status_every_s:
                last_status = now
                ev = self._status(now - start, t)
                self._emit(ev)
                yield ev
        for ev in self.detector.finish():  # what the last frames leave told (a card nobody saw)
            self._apply(ev)
            yield ev
        if self.on_progress:
            self.on_progress(self.progress(self._clock() - start, t))

    def _frames(self):
        """The source's frames; with ``prefetch`` a thread decodes the next ones while
        this one is recognized (files only: a live source must hand over its newest)."""
        return prefetched(self.source, self.prefetch) if self.prefetch else iter(self.source)

    def run(self) -> MatchRecord:
        """Process the whole source; returns the record."""
        for _ in self:
            pass
        self.deduce_unknown()
        return self.record

    def progress(self, elapsed: float, t: float) -> Progress:
        return Progress(self.frames, self.frames / elapsed if elapsed > 0 else 0.0, t, self.plays,
                        len(self.record.hands), elapsed)

    def _status(self, elapsed: float, t: float) -> SourceStatus:
        st = getattr(self.source, "status", None)
        if st is not None and hasattr(st, "to_event"):
            ev = st.to_event(model=self.model_name, t=t)
        else:
            fps = self.frames / elapsed if elapsed > 0 else 0.0
            ev = SourceStatus(connected=True, fps=fps, frames=self.frames, model=self.model_name, t=t)
        held = self.unresolved
        slow = (bool(getattr(self.source, "live", False)) and ev.connected and elapsed >= SLOW_AFTER_S
                and 0 < ev.fps < MIN_LIVE_FPS)
        if slow and not self._slow:
            log.warning("the live source is read at %.1f frames/s, under %.0f: cards lying briefly may go "
                        "unread and their plays to the referee (docs/raspberry-pi.md)", ev.fps, MIN_LIVE_FPS)
        self._slow = slow
        # the referee must see that the game waits for him to name a card
        return replace(ev, held=len(held), held_t=round(held[0].t, 2) if held else None, slow=slow)

    # -- the engine side --------------------------------------------------------
    def _emit(self, ev) -> None:
        if self.on_event is not None:
            try:
                self.on_event(ev)
            except TypeError:
                if not isinstance(ev, PlayCorrected):
                    raise
                # a consumer that predates corrections: the referee confirms the play there
                log.info("on_event does not take PlayCorrected; %s left to the referee", ev)

    def _apply(self, ev) -> None:
        self.events.append(ev)
        if self.committed is not None:
            self._served(ev)
            return
        self._emit(ev)
        if isinstance(ev, TrumpSeen):
            self.deduce_unknown()
            if self._hand is not None and self._hand.plays and not self._hand.all_played:
                # the play detector saw the table start a new hand: trust it, say so
                log.warning("hand %d ends with %d plays: new trump %s beside seat %s",
                            len(self.record.hands) - 1, len(self._hand.plays), ev.card, ev.seat)
            self._start_hand(ev.seat, Card.parse(ev.card))
        elif isinstance(ev, PlayCorrected):
            self._correct(ev)
        elif isinstance(ev, PlayEvent):
            self.plays += 1
            self._emit_t[id(ev)] = self._now_t
            if self._hand is None or self._hand.all_played or self._blocked:
                self._pending.append(ev)
            else:
                self._add_play(ev)

    def _add_or_hold(self, ev: PlayEvent) -> None:
        if self._blocked or (self.committed is not None and (self._hand is None or self._pending)):
            self._pending.append(ev)
        else:
            self._add_play(ev)

    def _start_hand(self, dealer: int, trump: Card) -> None:
        self.deduce_unknown()
        if self._blocked:
            # a new hand began while a card of the last one was still unnamed: keep
            # that hand's tail for the referee, start the new one clean
            self._abandon()
        if self._hand is not None and not self._hand.plays:
            # the hand that was waiting gets its dealer and trump
            h = len(self.record.hands) - 1
            self.record = self.record.set_dealer(h, dealer).set_trump(h, trump)
        else:
            if self._winner() is not None:
                self.finished_records.append(self.record)
                self.record = MatchRecord(self.rules)
                self._flags = {}
            self.record = self.record.new_hand(dealer, trump)
        self._hand = Hand(self.rules, dealer, trump)
        pending, self._pending = self._pending, []
        for ev in pending:
            self._add_or_hold(ev)

    def _winner(self) -> int | None:
        from sueca.engine import Match

        try:
            return Match(self.record).winner
        except Exception:  # a record the engine rejects has no winner to speak of
            return None

    def _add_play(self, ev: PlayEvent) -> None:
        hand = self._hand
        assert hand is not None
        if not ev.card:
            # nobody could read it: the hand waits for the referee to name it (never a
            # guess), and keeps every later play meanwhile
            self._tell_referee(ev)
            self._blocked = True
            self._pending.append(ev)
            return
        try:
            card = Card.parse(ev.card)
            hand.play(card, ev.seat, ev.t)
        except (ValueError, PlayError) as e:
            if ev.uncertain:
                # a weak reading that cannot be: the card is unknown, and the hand
                # waits for it to be named (or deduced) rather than lose the turn
                log.warning("uncertain play %s at t=%.2f is impossible (%s): held", ev.card, ev.t, e)
                self._doubt_read_twice(ev)
                self._tell_referee(ev)
                self._blocked = True
                self._pending.append(replace(ev, card=""))
                return
            # an impossible play (a card outside the deck, seen twice) cannot enter
            # the record; it is kept for the referee
            self.rejected.append((ev, str(e)))
            log.warning("play %s at t=%.2f not recorded: %s", ev.card or "?", ev.t, e)
            self._tell_referee(ev)
            return
        if self.committed is not None:
            self._commit(ev, card)
            return
        self.record = self.record.add_play(card, ev.seat, round(ev.t, 3))
        key = (len(self.record.hands) - 1, len(self.record.hands[-1].plays) - 1)
        self.emitted[key] = self._emit_t.pop(id(ev), self._now_t)
        if ev.uncertain:
            self._flags[key] = {"uncertain": True, "confidence": ev.confidence}

    def record_json(self) -> dict:
        """The game record of ``interfaces.md``; uncertain plays carry ``"uncertain": true``;
        plays that could not enter it are listed under ``"unresolved"`` (:meth:`held_json`)."""
        out = self.record.to_json()
        held = self.held_json()
        if held:
            out["unresolved"] = held
        for (h, i), extra in self._flags.items():
            p = out["hands"][h]["plays"][i]
            if isinstance(p, str):
                p = {"card": p}
            p.update(extra)
            out["hands"][h]["plays"][i] = p
        return out

    def records_json(self) -> list[dict]:
        """Every match seen, in order (a new one starts after a match is won)."""
        if not self.finished_records:
            return [self.record_json()]
        out = []
        flags, self._flags = self._flags, {}
        for rec in self.finished_records:
            out.append(rec.to_json())
        self._flags = flags
        out.append(self.record_json())
        return out

    @property
    def trick_cleared_count(self) -> int:
        return sum(isinstance(e, TrickCleared) for e in self.events)
