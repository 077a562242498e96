"""The referee service: validate an event, commit it, then show it.

Order matters for crash safety: an event is folded (the engine may refuse it),
appended and committed, and only then does the new state go to the pages. A
kill -9 between the commit and the push loses nothing: the restart replays
the log. All writers (the pipeline thread, request workers) go through one
lock, so events are totally ordered.

>>> from sueca.server.store import Store
>>> ref = Referee(Store(":memory:"))
>>> _ = ref.submit("new_hand", {"dealer": 3, "trump_card": "5H"}, who="referee")
>>> _ = ref.submit("play", {"card": "AS"}, who="camera")
>>> ref.state()["hand"]["turn"]
1
"""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import Callable

from sueca.engine import Rules

from .push import Hub, sse_message
from .replay import EventRejected, MatchView, apply, replay
from .store import Event, Store
from .view import build_state

KEEP_SNAPSHOT_MATCHES = 30
NO_STATUS = {"connected": False, "fps": 0.0, "frames": 0, "model": "", "last_error": "", "source": "",
             "held": 0, "held_t": None, "slow": False}


class UnknownMatch(LookupError):
    pass


class Referee:
    def __init__(self, store: Store, hub: Hub | None = None) -> None:
        self.store = store
        self.hub = hub or Hub()
        self._lock = threading.RLock()
        self._past: dict[int, tuple[int | None, MatchView]] = {}  # match -> (last event id, view)
        self.status: dict = dict(NO_STATUS)
        self.live_id = store.latest_match() or self._create("", None, None, "system")
        self._view = replay(store.events(self.live_id))
        self._state = self._build()
        self._listeners: list[Callable[[dict], None]] = []

    # -- reading -----------------------------------------------------------
    def _info(self, match_id: int) -> dict:
        row = self.store.match(match_id)
        if row is None:
            raise UnknownMatch(match_id)
        return {"id": row.id, "title": row.title, "created": row.created, "live": match_id == self.live_id}

    def _build(self) -> dict:
        return build_state(self._view, self._info(self.live_id), self.status)

    @property
    def lock(self) -> threading.RLock:
        """Held while an event is folded and written; hold it to read-then-write atomically."""
        return self._lock

    def state(self) -> dict:
        return self._state

    def view(self, match_id: int | None = None) -> MatchView:
        """The folded log of a match (the live one is cached)."""
        with self._lock:
            if match_id is None or match_id == self.live_id:
                return self._view
        row = self.store.match(match_id)
        if row is None:
            raise UnknownMatch(match_id)
        # past matches rarely change: fold each log once, again only when it grew
        cached = self._past.get(match_id)
        if cached is not None and cached[0] == row.last_event:
            return cached[1]
        view = replay(self.store.events(match_id))
        self._past[match_id] = (row.last_event, view)
        return view

    def match_state(self, match_id: int) -> dict:
        return build_state(self.view(match_id), self._info(match_id), None)

    # -- writing -----------------------------------------------------------
    def _create(self, title: str, rules: dict | None, names: dict | None, who: str) -> int:
        if rules is not None:
            try:
                Rules.from_dict(rules)  # refuse before creating anything
            except ValueError as e:
                raise EventRejected(f"rules: {e}") from None
        mid = self.store.create_match(title)
        if rules:
            self.store.append(mid, "rules", {"rules": rules}, who)
        if names:
            self.store.append(mid, "names", names, who)
        return mid

    def start_match(self, who: str, title: str = "", rules: dict | None = None,
                    names: dict | None = None, import_record: dict | None = None) -> int:
        """A new live match; names and rules default to the previous match's."""
        with self._lock:
            old = self._view
            if import_record is not None:
                apply(MatchView.empty(), "import", {"record": import_record})  # validate first
            if rules is None and import_record is None:
                rules = old.record.rules.to_dict()
            if names is None:
                names = {"players": list(old.players), "teams": list(old.teams)}
            mid = self._create(title, rules, names, who)
            if import_record is not None:
                self.store.append(mid, "import", {"record": import_record}, who)
            self.live_id = mid
            self._view = replay(self.store.events(mid))
            self._publish()
        self.prune_snapshots()
        return mid

    def prune_snapshots(self, keep_matches: int = KEEP_SNAPSHOT_MATCHES) -> int:
        """Bound the disk a café's days of snapshots take on the Pi: matches older
        than the last ``keep_matches`` keep only their renúncia evidence."""
        dropped = 0
        recent = {row.id for row in self.store.matches()[:keep_matches]}
        for mid in self.store.matches_with_snapshots():
            if mid in recent:
                continue
            view = self.view(mid)
            evidence = set()
            for h, hand in enumerate(view.match.hands):
                for r in hand.renuncias:  # the offence and the proof
                    for idx in (4 * r.trick + (r.seat - _leader(hand, r.trick)) % 4, r.proof_play):
                        if h < len(view.meta) and idx < len(view.meta[h]) and view.meta[h][idx].event:
                            evidence.add(view.meta[h][idx].event)
            dropped += self.store.drop_snapshots(mid, evidence)
        return dropped

    def submit(self, kind: str, payload: dict, who: str, snapshot: bytes | None = None,
               match_id: int | None = None) -> Event:
        """Fold, commit, publish. Raises :class:`EventRejected` (nothing stored)."""
        with self._lock:
            target = self.live_id if match_id is None else match_id
            base = self.view(target)
            if snapshot:
                payload = {**payload, "snapshot": True}
            apply(base, kind, payload, 0)  # the engine's verdict before anything is stored
            ev = self.store.append(target, kind, payload, who, snapshot)
            if target == self.live_id:
                self._view = replace(apply(base, kind, payload, ev.id), errors=base.errors)
                self._publish()
            return ev

    def reject(self, payload: dict, who: str) -> Event:
        """Log something the camera saw that the engine refused (shown as an alert)."""
        return self.submit("rejected", payload, who)

    def set_title(self, match_id: int, title: str) -> None:
        with self._lock:
            self._info(match_id)
            self.store.set_title(match_id, title)
            if match_id == self.live_id:
                self._publish()

    def set_status(self, status: dict) -> None:
        with self._lock:
            self.status = {**NO_STATUS, **status}
            self._publish()

    def add_listener(self, fn: Callable[[dict], None]) -> None:
        """Called (in the writer's thread) with every new state."""
        self._listeners.append(fn)

    def _publish(self) -> None:
        self._state = self._build()
        self.hub.publish(sse_message(self._state))
        for fn in self._listeners:
            fn(self._state)


def _leader(hand, trick: int) -> int:
    return hand.tricks[trick].leader if trick < len(hand.tricks) else hand.current_trick.leader


__all__ = ["Referee", "EventRejected", "UnknownMatch"]
