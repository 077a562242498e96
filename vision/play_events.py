"""From card tracks to what happened on the table: plays, the trump, swept tricks.

A play is a NEW card that came to rest in the play area, seen whole, with a
settled identity. Its seat is where the card came from (the table sector where
its track first appeared, else where it lies), weighed against whose turn it
is: evidence close to the expected seat is read as that seat, evidence clearly
elsewhere is reported as what it is (the engine flags the mismatch); a card is
never silently re-seated. An identity that never settles gives a play marked
``uncertain``, never a guess; so does a card nobody saw at all (landed and
gathered between two frames of a slow camera) where the seats show one was
played: a trick swept a card short, or a card from a seat further on.

>>> from sueca.vision.play_events import PlayDetector
>>> # PlayDetector(calibration).update(detections, t, frame_index, turn=0, image=frame)
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from .detections import CardDetections
from .events import PlayCorrected, PlayEvent, TrickCleared, TrumpSeen
from .play_judge import Judgement
from .play_missed import MissedPlays
from .play_parts import (CardSize, OnTable, PlayConfig, Stray, TableGeometry, seat_only,
                         snapshot_jpeg)
from .tracker import CardTracker, TrackView

__all__ = ["PlayConfig", "PlayDetector", "TableGeometry"]


class PlayDetector(Judgement, MissedPlays):
    """Turns per-frame detections into :mod:`sueca.vision.events`.

    State kept between frames: the tracker, the cards of the trick on the
    table, the cards played this hand, the trump of this hand. Feed frames in
    time order through :meth:`update`; tell it about a trump/dealer set from
    outside with :meth:`set_trump`.
    """

    def __init__(self, calibration: TableGeometry, config: PlayConfig | None = None) -> None:
        self.calibration = calibration
        self.config = config or PlayConfig()
        self.tracker = CardTracker(self.config.tracker)
        self._roles: dict[int, str] = {}         # track id -> "played" | "trump" | "ignored"
        self._trick: list[OnTable] = []
        self._hand_cards: set[str] = set()
        self._plays_in_hand = 0
        self._trump: OnTable | None = None
        self._trump_played = False
        self._gone_since: float | None = None
        self._entered: dict[int, float] = {}     # track id -> first time seen in the play area
        self._first_rest: dict[int, float] = {}  # track id -> when it was first seen at rest
        self._rest_best: dict[int, str] = {}     # track id -> best reading while at rest there
        self._strays: list[Stray] = []          # unread cards of this trick that left view
        self._renamed: dict[str, str] = {}      # referee's names of this trick's misread cards
        self._size = CardSize()                   # whole-card area by place in the image
        self._seen_now: set[int] = set()          # tracks detected in the current frame
        self._apart: dict[int, set[int]] = {}     # unread card in the trick -> played ones seen beside it
        self._unread_views: dict[int, TrackView] = {}  # ... and its last view
        self._doubled: set[int] = set()          # new cards that read as a card played before
        self._owed: tuple[int, float, float] | None = None  # a swept trick's unseen card (seat, between)
        self._tracks_now: tuple[TrackView, ...] = ()  # this frame's tracks
        self._agrees = True        # this trick's plays came from the seats the rules' turn said
        self._turn_trusted = True  # ... and the last trick's: the turn given is the table's
        self._last_t: float | None = None
        self._frame_dt: float | None = None       # the camera's time between frames, smoothed
        self.notices: list[tuple[float, str]] = []  # things a referee may want to know

    # -- outside knowledge -------------------------------------------------
    def set_trump(self, card: str, seat: int) -> None:
        """The dashboard or a CLI flag set this hand's trump card and dealer."""
        if self._trump is not None and self._trump.card == card:
            return  # already known (maybe seen): keep the track it lies under
        self._trump = OnTable(card, -1, (math.nan, math.nan), -1.0)

    def card_corrected(self, old: str | None, new: str | None) -> None:
        """The referee changed this hand's played cards: ``old`` read as ``new``
        (both), a play undone (``new`` None) or a play added by hand (``old`` None).
        E.g. ``card_corrected("3S", "2S")``: a later real 3S is a new play again."""
        if old:
            self._hand_cards.discard(old)
        if new:
            self._hand_cards.add(new)
        if old and new and any(e.card == old for e in self._trick):
            # the card on the table keeps its place, renamed; the camera may read it
            # the old way a while yet: that is still this card, not a new play
            for e in self._trick:
                e.card, e.uncertain = (new, False) if e.card == old else (e.card, e.uncertain)
            self._renamed[old] = new

    @property
    def trick_cards(self) -> tuple[str, ...]:
        return tuple(e.card for e in self._trick)

    # -- the frame loop -----------------------------------------------------
    def update(self, detections: CardDetections, t: float, frame_index: int = -1,
               turn: int | None = None, image: np.ndarray | None = None) -> list:
        """One frame in, the events it completes out (usually none)."""
        tracks = self.tracker.update(detections, t)
        self._note_frame_time(t)
        self._tracks_now = tracks
        self._seen_now = {tr.id for tr in tracks if tr.visible}
        self._learn_card_size(detections)
        for dropped, kept in self.tracker.merged.items():
            self._merge_state(dropped, kept)
        self._note_apart(tracks)
        events: list = []
        visible_trick = set()
        ready: list[tuple[tuple[float, float], TrackView]] = []
        waiting: list[tuple[float, TrackView]] = []
        stranded: list = []
        ghosts: list[int] = []
        for tr in tracks:
            role = self._roles.get(tr.id)
            if role == "played" and self._follow_played(tr, t, events, visible_trick):
                continue
            if role == "ignored":
                if not tr.visible and t - tr.last_t > self.config.ghost_s:
                    ghosts.append(tr.id)  # an old card out of sight: let it go before it
                    continue              # catches a new card landing where it was
                if not tr.identity or (tr.identity in self._hand_cards and not self._doubled_card(tr, t)):
                    continue
                del self._roles[tr.id]  # it reads as a card not yet played (or lies here as one): a new card
            self._forget_if_moved(tr)
            state = self._consider(tr, t, events, turn)
            if state is not None and state[0] == "ready":
                ready.append((state[1], tr))
                continue
            if state is not None:
                waiting.append((state[1], tr))
            best = self._rest_best.get(tr.id, "")
            if tr.id in self._first_rest and best not in self._hand_cards and self._roles.get(tr.id) is None \
                    and not (not tr.identity and self._on_played(tr)):
                # seen lying in the trick, not yet a play: if the trick is swept it goes too
                stranded.append(self._stray(tr))
                if tr.visible and self.calibration.is_in_play_area(tr.center):
                    visible_trick.add(tr.id)
        self.tracker.drop(ghosts)
        live = {x.track_id for x in stranded}
        stranded += [x for x in self._strays if x.track_id not in live and x.card not in self._hand_cards]
        swept = self._check_sweep(t, visible_trick, len(stranded))
        if swept:
            # Cards seen lying in the trick but never read well enough are swept with
            # it: they were played; the referee confirms what the tracker could not.
            stranded.sort(key=lambda x: (x.entered, x.track_id))
            room = 4 - len(self._trick)
            done = [self._play_stray(x, frame_index, image) for x in stranded[:room]]
            self._owe_missed()
            for x in stranded[room:]:
                if x.track_id not in self._seen_now:
                    self._roles[x.track_id] = "ignored"  # more than the trick held: gone with its pile
            swept = done + [TrickCleared(self._gone_since, self.trick_cards)]
            self._sweep_done()
            ready = [(k, tr) for k, tr in ready if self._roles.get(tr.id) != "played"]
        events[:0] = swept or []
        # Plays go out in the order the cards came to rest: a card that landed
        # earlier but is still under a hand holds back the ones after it.
        ready.sort(key=lambda x: (x[0], x[1].id))
        waiting = [w for w in waiting if self._roles.get(w[1].id) != "played"]
        waiting.sort(key=lambda x: (x[0], x[1].id))
        for (entered, rest_t), tr in ready:
            while waiting and waiting[0][0] < entered:
                # an earlier card still unread holds this one back, unless it is none
                w = waiting[0][1]
                verdict = self._held_back_by(w, tr, t, turn)
                if verdict == "wait":
                    break
                waiting.pop(0)
                if verdict == "ignore":
                    self._roles[w.id] = "ignored"
                elif verdict == "play":
                    # read for sure meanwhile (only its view kept failing the rest test): a play
                    # like any other; else uncertain, with the best reading it had while lying there
                    events.append(self._play(w, self._first_rest[w.id], t, frame_index, turn, image, events,
                                             card=None if w.identity else self._rest_best.get(w.id, "")))
                    turn = None if turn is None else (turn + 1) % 4
            if waiting and waiting[0][0] < entered:
                break
            events.append(self._play(tr, rest_t, t, frame_index, turn, image, events))
            if turn is not None:
                turn = (turn + 1) % 4  # a second play in the same frame is the next seat
        return events

    def finish(self) -> list:
        """The events the end of the frames tells: the game's last trick, swept a card
        short, had its fourth card played unseen (:meth:`_owed_at_hand_end`)."""
        return self._owed_at_hand_end(-1)

    # -- pieces ------------------------------------------------------------
    def _stray(self, tr: TrackView) -> "Stray":
        rest_t = self._first_rest[tr.id]
        return Stray(self._entered.get(tr.id, tr.first_t), rest_t, self._rest_best.get(tr.id, ""),
                     self._seat(tr, None), round(tr.identity_confidence, 4), tr.id, self._hint(tr, rest_t))

    def _play_stray(self, x: "Stray", frame_index: int, image) -> PlayEvent:
        self._roles[x.track_id] = "played"
        seated = {e.seat for e in self._trick}
        missing = {0, 1, 2, 3} - seated
        if len(self._trick) == 3 and None not in seated and len(missing) == 1:
            # the trick's last card: each seat plays once a trick, so it is the seat that has
            # not played; where an unread box lay says less (it may span two cards)
            x = replace(x, seat=missing.pop())
        self._trick.append(OnTable(x.card, x.track_id, (math.nan, math.nan), x.rest_t, uncertain=True,
                                    play_t=x.rest_t, seat=x.seat))
        if x.card:
            self._hand_cards.add(x.card)
        self._plays_in_hand += 1
        return PlayEvent(card=x.card, seat=x.seat, t=x.rest_t, confidence=x.confidence, uncertain=True,
                         frame_index=frame_index, snapshot_jpeg=self._snapshot(image),
                         hint="" if x.card else x.hint)

    def _forget_if_moved(self, tr: TrackView) -> None:
        # a track that jumped since it lay here is a card on the move (or another
        # card): where and when it rested before no longer applies
        if self._first_rest.get(tr.id, math.inf) < tr.moved_t:
            if self._roles.get(tr.id) is None and self._rest_best.get(tr.id, "") not in self._hand_cards:
                # it lay in the trick unread and left (swept with it?): remember it
                self._strays.append(self._stray(tr))
            self._first_rest.pop(tr.id, None)
            self._rest_best.pop(tr.id, None)
            self._entered.pop(tr.id, None)

    def _consider(self, tr: TrackView, t: float, events: list, turn: int | None = None):
        """("ready", rest time) for a new card ready to be a play, ("waiting",
        time it entered the play area) for one that may become a play soon."""
        cfg = self.config
        ident = tr.identity
        # A card of the trick on the table seen again (lifted and put back, or its
        # track lost under a hand) is the same card, not a new play.
        if ident:
            for e in self._trick:
                if e.card in (ident, self._renamed.get(ident)):
                    self._roles[tr.id] = "played"
                    e.track_id, e.center, e.last_seen = tr.id, tr.center, t
                    return None
        in_play = self.calibration.is_in_play_area(tr.center)
        if ident and in_play and ident in self._hand_cards and not self._doubled_card(tr, t):
            self._roles[tr.id] = "ignored"
            self.notices.append((t, f"{ident} seen again after it was played"))
            return None
        if in_play:
            self._entered.setdefault(tr.id, tr.last_t)
        entered = self._entered.get(tr.id)
        rest = self._rest(tr, t)
        if rest is None and in_play and ident and cfg.read_rest_s is not None:
            rest = self._read_at_rest(tr, t)
        if rest is None and in_play and tr.id not in self._first_rest and tr.reads \
                and tr.best not in self._hand_cards:
            # read as a new card (in flight, say), then never seen whole (a hand stays on
            # it) but lying still in view this long: it lies in the trick, and holds back,
            # or is swept with it, like any other. Boxes never read are rather hands.
            start = self._lying_partly(tr, t)
            if start is not None:
                self._first_rest[tr.id] = start
        if rest is None and ident and in_play and tr.id in self._first_rest:
            # lying still, read for sure, but never seen whole (a hand stays on it): enough to
            # name a play nobody saw from its seat, though not to be a play of its own
            found = self._unseen_found(tr, self._seat(tr, turn), t)
            if found is not None:
                events.append(found)
                return None
        if rest is None:
            # Only a card seen lying here (or in view now) holds back later plays: a
            # track lost in flight is most likely the card that landed under a new track.
            credible = tr.visible or tr.id in self._first_rest
            if (in_play and credible and t - tr.last_t < cfg.hold_lost_s
                    and t - entered < cfg.hold_max_s):
                return "waiting", entered
            return None
        rest_t, count = rest
        if in_play:
            self._first_rest.setdefault(tr.id, rest_t)
            if tr.best:
                if self._suggestible(tr):
                    self._rest_best[tr.id] = tr.best
        if not in_play:
            trump = self._maybe_trump(tr, t, rest_t, events)
            if trump is not None:
                events.append(trump)
            return None
        if not ident:
            if t - rest_t < cfg.uncertain_after_s or count < self._frames(cfg.uncertain_min_obs):
                return ("waiting", entered) if t - entered < cfg.hold_max_s else None
            # Still unreadable after resting in plain view: a lost trick card found
            # again under a hand, or a new card the referee must confirm.
            for e in self._trick:
                if math.hypot(e.center[0] - tr.center[0], e.center[1] - tr.center[1]) < 0.5 * tr.diag:
                    if self._turn_card_on(e, tr, turn):
                        continue
                    self._roles[tr.id] = "played"
                    e.track_id = tr.id
                    return None
        if len(self._trick) >= 4 and t - rest_t < cfg.clear_s and self._gathering(t):
            # the trick is being gathered: a card that only just stopped may be its pile
            # in the winner's hand (a blurred card read as another); a lead lies still
            return "waiting", entered
        return "ready", (entered, self._first_rest[tr.id])

    def _play(self, tr: TrackView, rest_t: float, t: float, frame_index: int, turn: int | None,
              image: np.ndarray | None, events: list,
              card: str | None = None) -> PlayEvent | PlayCorrected:
        # ``card``: a stranded card's best reading while it lay there (never settled)
        ident = tr.identity if card is None else ""
        if tr.id in self._doubled:
            # read as a card of an earlier trick: one of the two readings is wrong, so this
            # play goes out uncertain with its reading as the suggestion (the pipeline holds it)
            ident, card = "", tr.identity
            self.notices.append((t, f"{card} read again after it was played: uncertain play"))
        if len(self._trick) >= 4:
            # The next lead while the last trick still lies there: close it first.
            events.append(TrickCleared(rest_t, self.trick_cards))
            self._close_trick()
        if not ident and card is None and self._suggestible(tr):
            card = tr.best  # a suggestion for the referee, marked uncertain; weak ones are not given
        card = ident or card or ""
        seat = self._seat(tr, turn)
        found = self._unseen_found(tr, seat, t)
        if found is not None:
            return found
        events += self._missed_plays(tr, seat, turn, rest_t, frame_index)
        if len(self._trick) >= 4:  # a card nobody saw completed it: this one leads the next
            events.append(TrickCleared(rest_t, self.trick_cards))
            self._close_trick()
        if self._trump is not None and card == self._trump.card:
            self._trump_played = True
        self._agrees = self._agrees and turn is not None and seat == turn
        self._roles[tr.id] = "played"
        self._trick.append(OnTable(card, tr.id, tr.center, t, uncertain=not ident, play_t=rest_t, seat=seat,
                                   read_twice=tr.id in self._doubled))
        if card:
            self._hand_cards.add(card)
        self._plays_in_hand += 1
        return PlayEvent(card=card, seat=seat, t=rest_t, confidence=round(tr.identity_confidence, 4),
                         uncertain=not ident, frame_index=frame_index,
                         snapshot_jpeg=self._snapshot(image), hint="" if card else self._hint(tr, rest_t))

    def _maybe_trump(self, tr: TrackView, t: float, rest_t: float, events: list):
        cfg = self.config
        if not tr.identity or t - rest_t < cfg.trump_rest_s:
            return None
        if self._trump is not None or self._plays_in_hand >= 40:
            # A hand that was not counted to its end (a play missed under a hand): a
            # new card turned face up beside a seat, the table clear, late in the hand,
            # is the next hand's trump.
            late = self._plays_in_hand >= cfg.new_hand_after
            other = self._trump is None or tr.identity != self._trump.card
            if not (late and other and not self._trick and t - rest_t >= cfg.new_hand_rest_s):
                return None
            events += self._owed_at_hand_end(-1)
            self.notices.append((t, f"new hand after {self._plays_in_hand} plays"))
            self._start_hand()
        elif tr.identity in self._hand_cards:
            return None
        seat = seat_only(self.calibration.seat_of(tr.center))
        self._trump = OnTable(tr.identity, tr.id, tr.center, t)
        self._roles[tr.id] = "trump"
        return TrumpSeen(card=tr.identity, seat=int(seat), t=rest_t,
                         confidence=round(tr.identity_confidence, 4))

    def _sweep_done(self) -> None:
        # swept cards are gone: no old track may catch the next cards
        self.tracker.drop([tid for tid, role in self._roles.items() if role in ("played", "ignored")])
        self._close_trick()

    def _close_trick(self) -> None:
        self._turn_trusted, self._agrees = self._agrees, True
        self._trick = []
        self._strays = []
        self._renamed = {}
        self._gone_since = None
        if self._plays_in_hand >= 40:
            self._start_hand()

    def _start_hand(self) -> None:
        self._hand_cards = set()
        self._doubled = set()
        self._plays_in_hand = 0
        self._trump = None
        self._trump_played = False
        self._owed = None
        self._agrees = self._turn_trusted = True

    def _snapshot(self, image: np.ndarray | None) -> bytes | None:
        return snapshot_jpeg(image, self.config.snapshot_width)
