"""Fold a match's event log into its game record (and what the record does not hold).

The store keeps events; this module is the only place that turns them into a
:class:`sueca.engine.MatchRecord`. An event that the engine refuses raises
:class:`EventRejected` before it is ever stored; while replaying an old log a
refused event is skipped and listed in ``MatchView.errors`` so that a log written
by an older engine still opens.

>>> v = MatchView.empty()
>>> v = apply(v, "new_hand", {"dealer": 3, "trump_card": "5H"}, event_id=1)
>>> v = apply(v, "play", {"card": "AS", "seat": 0}, event_id=2)
>>> v.record.to_json()["hands"][0]["plays"]
[{'card': 'AS', 'seat': 0}]
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from sueca.engine import Card, Match, MatchRecord, RecordError, Rules, RulesError

DEFAULT_PLAYERS = ("Jogador 1", "Jogador 2", "Jogador 3", "Jogador 4")
DEFAULT_TEAMS = ("Nós", "Eles")

#: every event kind the log may hold (payload fields in ``models.py``)
KINDS = ("rules", "names", "new_hand", "set_dealer", "set_trump", "play", "correct_play",
         "confirm_play", "undo", "renuncia_decision", "import", "rejected", "insert_play", "remove_play")


class EventRejected(ValueError):
    """The engine refused the event: it names what is wrong and where."""


@dataclass(frozen=True)
class PlayMeta:
    """What the record does not keep about a play: its event, camera confidence,
    whether the referee must still confirm it, whether a snapshot exists."""

    event: int | None = None
    confidence: float | None = None
    uncertain: bool = False
    snapshot: bool = False


@dataclass(frozen=True)
class MatchView:
    """The folded log: the record, derived match, names and per-play metadata."""

    record: MatchRecord
    match: Match
    players: tuple[str, ...] = DEFAULT_PLAYERS
    teams: tuple[str, ...] = DEFAULT_TEAMS
    meta: tuple[tuple[PlayMeta, ...], ...] = ()
    errors: tuple[dict, ...] = ()
    rejected: tuple[dict, ...] = ()
    last_event: int = 0

    @classmethod
    def empty(cls, rules: Rules | None = None) -> "MatchView":
        rec = MatchRecord(rules or Rules())
        return cls(rec, Match(rec))


def _card(code, what: str = "card") -> Card:
    try:
        return Card.parse(str(code))
    except ValueError:
        raise EventRejected(f"{what}: unknown card code {code!r}") from None


def _derive(view: MatchView, record: MatchRecord, meta, **changes) -> MatchView:
    try:
        match = Match(record)
    except RecordError as e:
        raise EventRejected(str(e)) from None
    return replace(view, record=record, match=match, meta=tuple(meta), **changes)


def _set_meta(meta: tuple, hand: int, index: int, pm: PlayMeta) -> tuple:
    rows = [list(h) for h in meta]
    rows[hand][index] = pm
    return tuple(tuple(h) for h in rows)


def apply(view: MatchView, kind: str, payload: dict, event_id: int = 0) -> MatchView:
    """One event on top of ``view``; raises :class:`EventRejected` when refused."""
    rec, meta = view.record, view.meta
    try:
        if kind == "names":
            players = tuple(payload.get("players") or view.players)
            teams = tuple(payload.get("teams") or view.teams)
            if len(players) != 4 or len(teams) != 2:
                raise EventRejected("names: 4 players and 2 teams")
            return replace(view, players=players, teams=teams, last_event=event_id)
        if kind == "rules":
            try:
                rules = Rules.from_dict({**view.record.rules.to_dict(), **payload.get("rules", {})})
            except RulesError as e:
                raise EventRejected(str(e)) from None
            return _derive(view, rec.with_rules(rules), meta, last_event=event_id)
        if kind == "new_hand":
            if view.match.winner is not None:
                raise EventRejected("the match is over: start a new match")
            if view.match.current_hand is not None:
                raise EventRejected("the current hand is not over yet")
            rec = rec.new_hand(payload["dealer"], _card(payload["trump_card"], "trump_card"),
                               payload.get("leader"))
            return _derive(view, rec, meta + ((),), last_event=event_id)
        if kind == "set_dealer":
            return _derive(view, rec.set_dealer(payload["hand"], payload["dealer"]), meta, last_event=event_id)
        if kind == "set_trump":
            rec = rec.set_trump(payload["hand"], _card(payload["trump_card"], "trump_card"))
            return _derive(view, rec, meta, last_event=event_id)
        if kind == "play":
            if not rec.hands:
                raise EventRejected("no hand started: set the dealer and the trump card first")
            if view.match.winner is not None:
                raise EventRejected("the match is over: start a new match")
            t = payload.get("t")
            rec = rec.add_play(_card(payload["card"]), payload.get("seat"), None if t is None else float(t))
            pm = PlayMeta(event_id or None, payload.get("confidence"), bool(payload.get("uncertain")),
                          bool(payload.get("snapshot")))
            meta = meta[:-1] + (meta[-1] + (pm,),)
            return _derive(view, rec, meta, last_event=event_id)
        if kind == "correct_play":
            h, i = payload["hand"], payload["index"]
            if "card" in payload and payload["card"] is not None:
                rec = rec.replace_card(h, i, _card(payload["card"]))
            if "seat" in payload:
                rec = rec.replace_seat(h, i, payload["seat"])
            # a corrected card is the referee's word: no longer uncertain
            meta = _set_meta(meta, h, i, replace(meta[h][i], uncertain=False))
            return _derive(view, rec, meta, last_event=event_id)
        if kind == "insert_play":
            # a play the camera missed, put back where it happened (the referee's word)
            h, i = payload["hand"], payload["index"]
            rec = rec.insert_play(h, i, _card(payload["card"]), payload.get("seat"))
            rows = [list(x) for x in meta]
            rows[h].insert(i, PlayMeta(event_id or None))
            return _derive(view, rec, tuple(tuple(x) for x in rows), last_event=event_id)
        if kind == "remove_play":
            h, i = payload["hand"], payload["index"]
            rec = rec.remove_play(h, i)
            rows = [list(x) for x in meta]
            del rows[h][i]
            return _derive(view, rec, tuple(tuple(x) for x in rows), last_event=event_id)
        if kind == "confirm_play":
            h, i = payload["hand"], payload["index"]
            if payload.get("card"):
                rec = rec.replace_card(h, i, _card(payload["card"]))
            rec.hands[h].plays[i]  # IndexError -> rejected below
            meta = _set_meta(meta, h, i, replace(meta[h][i], uncertain=False))
            return _derive(view, rec, meta, last_event=event_id)
        if kind == "undo":
            rec = rec.undo_last_play()
            if len(rec.hands) < len(meta):
                meta = meta[:-1]
            else:
                meta = meta[:-1] + (meta[-1][:-1],)
            return _derive(view, rec, meta, last_event=event_id)
        if kind == "renuncia_decision":
            if view.record.rules.renuncia != "claim":
                raise EventRejected("renúncia decisions exist only with the 'claim' rule")
            rec = rec.decide_renuncia(payload["hand"], payload["seat"], payload["trick"], bool(payload["confirm"]))
            return _derive(view, rec, meta, last_event=event_id)
        if kind == "import":
            rec = MatchRecord.from_json(payload["record"])
            meta = tuple(tuple(PlayMeta() for _ in h.plays) for h in rec.hands)
            view = _derive(view, rec, meta, last_event=event_id)
            names = payload.get("names") or {}
            if names:
                view = apply(view, "names", names, event_id)
            return view
        if kind == "rejected":
            entry = {"event": event_id, **payload}
            return replace(view, rejected=(view.rejected + (entry,))[-20:], last_event=event_id)
    except (RecordError, KeyError, IndexError, TypeError, ValueError) as e:
        if isinstance(e, EventRejected):
            raise
        what = f"missing field {e}" if isinstance(e, KeyError) else str(e) or type(e).__name__
        raise EventRejected(f"{kind}: {what}") from None
    raise EventRejected(f"unknown event kind {kind!r}")


def replay(events, rules: Rules | None = None) -> MatchView:
    """Fold a whole log (``Event`` objects of ``store.py``); refused events are skipped."""
    view = MatchView.empty(rules)
    errors = []
    for ev in events:
        try:
            view = apply(view, ev.kind, ev.payload, ev.id)
        except EventRejected as e:
            errors.append({"event": ev.id, "kind": ev.kind, "error": str(e)})
    return replace(view, errors=tuple(errors)) if errors else view
