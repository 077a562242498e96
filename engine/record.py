"""The game record of ``interfaces.md``: what happened, nothing derived.

Records are immutable; corrections return a new record, and the score is
always re-derived from it (:class:`sueca.engine.Match`).

>>> rec = MatchRecord.from_json({"hands": [{"dealer": 3, "trump_card": "5H", "plays": ["AS"]}]})
>>> rec = rec.add_play(Card.parse("2S"), seat=1, t=3.5)
>>> rec.to_json()["hands"][0]["plays"]
['AS', {'card': '2S', 'seat': 1, 't': 3.5}]
>>> rec.undo_last_play().to_json()["hands"][0]["plays"]
['AS']
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import NamedTuple

from .cards import _BY_CODE, Card
from .rules import Rules, RulesError


class RecordError(ValueError):
    """A malformed or impossible record; names the hand and play (0-based) where known."""

    def __init__(self, message: str, hand: int | None = None, play: int | None = None) -> None:
        self.hand, self.play, self.detail = hand, play, message
        where = []
        if hand is not None:
            where.append(f"hand {hand}")
        if play is not None:
            where.append(f"play {play}")
        super().__init__((", ".join(where) + ": " if where else "") + message)


class Play(NamedTuple):
    """A card that hit the table; ``seat``/``t`` as the camera saw them (optional)."""

    card: Card
    seat: int | None = None
    t: float | None = None

    def to_json(self):
        if self.seat is None and self.t is None:
            return self.card.code
        out: dict = {"card": self.card.code}
        if self.seat is not None:
            out["seat"] = self.seat
        if self.t is not None:
            out["t"] = self.t
        return out


@dataclass(frozen=True)
class HandRecord:
    """One hand: dealer, the turned trump card, the plays in table order."""

    dealer: int
    trump_card: Card
    plays: tuple[Play, ...] = ()
    leader: int | None = None
    #: claim mode: ((seat, trick), confirmed) decisions on proven renúncias
    decisions: tuple[tuple[tuple[int, int], bool], ...] = ()

    def to_json(self) -> dict:
        out: dict = {"dealer": self.dealer, "trump_card": self.trump_card.code,
                     "plays": [p.to_json() for p in self.plays]}
        if self.leader is not None:
            out["leader"] = self.leader
        if self.decisions:
            out["renuncia_decisions"] = [{"seat": s, "trick": t, "confirm": c}
                                         for (s, t), c in self.decisions]
        return out


def _seat(value, what: str, hand: int, play: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 3:
        raise RecordError(f"{what} must be a seat 0..3, got {value!r}", hand, play)
    return value


def _card(value, what: str, hand: int, play: int | None = None) -> Card:
    try:
        return Card.parse(value)
    except ValueError:
        raise RecordError(f"unknown card {value!r} in {what}", hand, play) from None


def _parse_play(raw, h: int, i: int) -> Play:
    if isinstance(raw, str):
        return Play(_card(raw, "plays", h, i))
    if not isinstance(raw, dict):
        raise RecordError(f"a play must be a card code or an object, got {type(raw).__name__}", h, i)
    if "card" not in raw:
        raise RecordError("play object without 'card'", h, i)
    extra = set(raw) - {"card", "seat", "t", "confidence", "uncertain"}
    if extra:
        raise RecordError(f"unknown play field {sorted(extra)[0]!r}", h, i)
    card = _card(raw["card"], "plays", h, i)
    seat = raw.get("seat")
    if seat is not None:
        seat = _seat(seat, "play seat", h, i)
    t = raw.get("t")
    if t is not None:
        if isinstance(t, bool) or not isinstance(t, (int, float)) or t != t or t < 0:
            raise RecordError(f"play time t must be a non-negative number, got {t!r}", h, i)
        t = float(t)
    return Play(card, seat, t)


_PLAY_KEYS = frozenset({"card", "seat", "t", "confidence", "uncertain"})
_SEATS = {0: 0, 1: 1, 2: 2, 3: 3}


def _parse_plays(plays_raw: list, h: int) -> list[Play]:
    # Fast paths for well-formed plays (scoring many records is a hot path);
    # anything unusual goes through _parse_play, which names the problem.
    get = _BY_CODE.get
    new = tuple.__new__
    plays = []
    append = plays.append
    for i, p in enumerate(plays_raw):
        tp = type(p)
        if tp is str:
            card = get(p)
            if card is not None:
                append(new(Play, (card, None, None)))
                continue
        elif tp is dict:
            code, seat, t = p.get("card"), p.get("seat"), p.get("t")
            known = (code is not None) + (seat is not None) + (t is not None)
            card = get(code) if type(code) is str else None
            if (len(p) == known and card is not None
                    and (seat is None or (type(seat) is int and seat in _SEATS))
                    and (t is None or ((type(t) is float or type(t) is int) and 0 <= t < 1e12))):
                append(new(Play, (card, seat, None if t is None else float(t))))
                continue
        append(_parse_play(p, h, i))
    return plays


def _parse_hand(raw, h: int) -> HandRecord:
    if not isinstance(raw, dict):
        raise RecordError(f"a hand must be an object, got {type(raw).__name__}", h)
    for key in ("dealer", "trump_card"):
        if key not in raw:
            raise RecordError(f"missing {key!r}", h)
    extra = set(raw) - {"dealer", "trump_card", "plays", "leader", "renuncia_decisions"}
    if extra:
        raise RecordError(f"unknown hand field {sorted(extra)[0]!r}", h)
    dealer = _seat(raw["dealer"], "dealer", h)
    trump = _card(raw["trump_card"], "trump_card", h)
    plays_raw = raw.get("plays", [])
    if not isinstance(plays_raw, list):
        raise RecordError("plays must be a list", h)
    plays = tuple(_parse_plays(plays_raw, h))
    leader = raw.get("leader")
    if leader is not None:
        leader = _seat(leader, "leader", h)
    decisions = []
    for d in raw.get("renuncia_decisions", []) or []:
        if not isinstance(d, dict) or not {"seat", "trick", "confirm"} <= set(d):
            raise RecordError("a renuncia decision needs seat, trick and confirm", h)
        trick = d["trick"]
        if isinstance(trick, bool) or not isinstance(trick, int) or not 0 <= trick <= 9:
            raise RecordError(f"renuncia decision trick must be 0..9, got {trick!r}", h)
        if not isinstance(d["confirm"], bool):
            raise RecordError("renuncia decision confirm must be true or false", h)
        decisions.append(((_seat(d["seat"], "renuncia decision seat", h), trick), d["confirm"]))
    return HandRecord(dealer, trump, plays, leader, tuple(decisions))


@dataclass(frozen=True)
class MatchRecord:
    """Rules plus hands: the whole truth of a match."""

    rules: Rules = Rules()
    hands: tuple[HandRecord, ...] = ()

    @classmethod
    def from_json(cls, obj) -> "MatchRecord":
        """Parse the record of ``interfaces.md``; :class:`RecordError` names what is wrong."""
        if not isinstance(obj, dict):
            raise RecordError(f"a record must be a JSON object, got {type(obj).__name__}")
        extra = set(obj) - {"rules", "hands", "unresolved"}
        if extra:
            raise RecordError(f"unknown record field {sorted(extra)[0]!r}")
        # plays a camera saw but could not put in (``sueca run``): not part of the score
        if not isinstance(obj.get("unresolved", []), list):
            raise RecordError("unresolved must be a list")
        try:
            rules = Rules.from_dict(obj.get("rules"))
        except RulesError as e:
            raise RecordError(str(e)) from None
        hands_raw = obj.get("hands", [])
        if not isinstance(hands_raw, list):
            raise RecordError("hands must be a list")
        return cls(rules, tuple(_parse_hand(h, i) for i, h in enumerate(hands_raw)))

    def to_json(self) -> dict:
        return {"rules": self.rules.to_dict(), "hands": [h.to_json() for h in self.hands]}

    # -- corrections: each returns a new record ---------------------------
    def _with_hand(self, index: int, hand: HandRecord) -> "MatchRecord":
        hands = list(self.hands)
        hands[index] = hand
        return replace(self, hands=tuple(hands))

    def _hand(self, index: int) -> HandRecord:
        if not -len(self.hands) <= index < len(self.hands):
            raise RecordError(f"no hand {index} (the record has {len(self.hands)})")
        return self.hands[index]

    def with_rules(self, rules: Rules) -> "MatchRecord":
        return replace(self, rules=rules)

    def new_hand(self, dealer: int, trump_card: Card, leader: int | None = None) -> "MatchRecord":
        """Start a hand: ``dealer`` turned ``trump_card``."""
        h = len(self.hands)
        hand = HandRecord(_seat(dealer, "dealer", h), trump_card,
                          leader=None if leader is None else _seat(leader, "leader", h))
        return replace(self, hands=self.hands + (hand,))

    def add_play(self, card: Card, seat: int | None = None, t: float | None = None) -> "MatchRecord":
        """Append a play to the last hand."""
        if not self.hands:
            raise RecordError("no hand started: set the dealer and trump first")
        last = self.hands[-1]
        return self._with_hand(-1, replace(last, plays=last.plays + (Play(card, seat, t),)))

    def undo_last_play(self) -> "MatchRecord":
        """Remove the last play of the last hand that has one (an empty last hand is removed)."""
        if not self.hands:
            raise RecordError("nothing to undo: the record is empty")
        last = self.hands[-1]
        if not last.plays:
            return replace(self, hands=self.hands[:-1])
        return self._with_hand(-1, replace(last, plays=last.plays[:-1]))

    def replace_card(self, hand: int, play: int, card: Card) -> "MatchRecord":
        h = self._hand(hand)
        if not -len(h.plays) <= play < len(h.plays):
            raise RecordError(f"no play {play} (the hand has {len(h.plays)})", hand)
        plays = list(h.plays)
        plays[play] = plays[play]._replace(card=card)
        return self._with_hand(hand, replace(h, plays=tuple(plays)))

    def insert_play(self, hand: int, play: int, card: Card, seat: int | None = None,
                    t: float | None = None) -> "MatchRecord":
        """A play the camera missed, put back where it happened: before play
        ``play`` of hand ``hand`` (``play`` = the hand's length appends).

        >>> rec = MatchRecord().new_hand(0, Card.parse("5H")).add_play(Card.parse("AS"))
        >>> [p.card.code for p in rec.add_play(Card.parse("KS")).insert_play(0, 1, Card.parse("2S")).hands[0].plays]
        ['AS', '2S', 'KS']
        """
        h = self._hand(hand)
        if not 0 <= play <= len(h.plays):
            raise RecordError(f"cannot insert at play {play} (the hand has {len(h.plays)})", hand)
        seat = None if seat is None else _seat(seat, "seat", hand, play)
        plays = h.plays[:play] + (Play(card, seat, t),) + h.plays[play:]
        return self._with_hand(hand, replace(h, plays=plays))

    def remove_play(self, hand: int, play: int) -> "MatchRecord":
        """Drop a play that never happened (a card the camera saw twice, a ghost)."""
        h = self._hand(hand)
        if not -len(h.plays) <= play < len(h.plays):
            raise RecordError(f"no play {play} (the hand has {len(h.plays)})", hand)
        play %= len(h.plays)
        return self._with_hand(hand, replace(h, plays=h.plays[:play] + h.plays[play + 1:]))

    def replace_seat(self, hand: int, play: int, seat: int | None) -> "MatchRecord":
        """Correct who the camera saw play (``None`` clears it)."""
        h = self._hand(hand)
        if not -len(h.plays) <= play < len(h.plays):
            raise RecordError(f"no play {play} (the hand has {len(h.plays)})", hand)
        plays = list(h.plays)
        plays[play] = plays[play]._replace(seat=None if seat is None else _seat(seat, "seat", hand, play))
        return self._with_hand(hand, replace(h, plays=tuple(plays)))

    def set_dealer(self, hand: int, dealer: int) -> "MatchRecord":
        return self._with_hand(hand, replace(self._hand(hand), dealer=_seat(dealer, "dealer", hand)))

    def set_trump(self, hand: int, trump_card: Card) -> "MatchRecord":
        return self._with_hand(hand, replace(self._hand(hand), trump_card=trump_card))

    def set_leader(self, hand: int, leader: int | None) -> "MatchRecord":
        leader = None if leader is None else _seat(leader, "leader", hand)
        return self._with_hand(hand, replace(self._hand(hand), leader=leader))

    def decide_renuncia(self, hand: int, seat: int, trick: int, confirm: bool) -> "MatchRecord":
        """Claim mode: confirm (penalty applies) or dismiss a proven renúncia."""
        h = self._hand(hand)
        decisions = tuple(d for d in h.decisions if d[0] != (seat, trick)) + (((seat, trick), bool(confirm)),)
        return self._with_hand(hand, replace(h, decisions=decisions))
