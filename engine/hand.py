"""One hand of Sueca as it happens on the table: tricks, turn, renúncia proof.

The hand accepts whatever the camera saw. Impossible plays (a card outside the
deck, a card already played, an eleventh trick) raise :class:`PlayError`;
illegal but possible plays (failing to follow suit) are recorded and become
renúncias once proven.

>>> from sueca.engine import Card, Rules
>>> h = Hand(Rules(), dealer=3, trump_card=Card.parse("5H"))
>>> h.turn
0
>>> for code in ["AS", "2S", "KS", "QS"]:
...     h.play(Card.parse(code))
>>> h.tricks[0].winner, h.tricks[0].points, h.turn
(0, 17, 0)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, NamedTuple

from .cards import Card, Suit
from .rules import Rules
from .scoring import HandResult, score_hand


class PlayError(ValueError):
    """A play that cannot have happened with one Sueca deck."""


class Trick(NamedTuple):
    """A trick: ``cards`` in play order, the seat of each in ``seats``."""

    leader: int
    cards: tuple[Card, ...]
    winner: int | None
    points: int

    @property
    def seats(self) -> tuple[int, ...]:
        return tuple((self.leader + i) % 4 for i in range(len(self.cards)))

    @property
    def led_suit(self) -> Suit | None:
        return self.cards[0].suit if self.cards else None

    @property
    def complete(self) -> bool:
        return len(self.cards) == 4


@dataclass(frozen=True)
class Renuncia:
    """A proven revoke, with its evidence.

    ``kind`` is ``"follow"`` (did not follow the led suit) or ``"trump"``
    (``forced_trump``: void in the led suit and did not trump). ``proof_play``
    is the index in the hand's play list of the card that proves it.
    """

    seat: int
    trick: int
    led_suit: Suit
    proven_at_trick: int
    proof_card: Card
    proof_play: int
    kind: str = "follow"

    @property
    def team(self) -> int:
        return self.seat % 2

    def to_json(self) -> dict:
        return {"seat": self.seat, "trick": self.trick, "led_suit": self.led_suit.code,
                "proven_at_trick": self.proven_at_trick, "proof_card": self.proof_card.code,
                "proof_play": self.proof_play, "kind": self.kind}


@dataclass(frozen=True)
class SeatMismatch:
    """The camera saw ``seen`` play while it was ``expected``'s turn."""

    play: int
    expected: int
    seen: int


def first_leader(rules: Rules, dealer: int) -> int:
    """Who leads the first trick: ``(dealer + 1) % 4`` or, for ``cutter``, ``(dealer + 3) % 4``."""
    return (dealer + (3 if rules.first_lead == "cutter" else 1)) % 4


class Hand:
    """The state of one hand, built play by play (see the module example)."""

    __slots__ = ("rules", "dealer", "trump_card", "trump", "leader", "decisions", "plays",
                 "tricks", "_cur", "_cur_leader", "_seen", "_open", "renuncias",
                 "seat_mismatches", "_decided_by", "_trump_card_played", "_proving", "_strength")

    def __init__(self, rules: Rules, dealer: int, trump_card: Card, leader: int | None = None,
                 decisions: dict[tuple[int, int], bool] | None = None) -> None:
        if dealer not in (0, 1, 2, 3):
            raise PlayError(f"dealer must be a seat 0..3, got {dealer!r}")
        if not rules.in_deck(trump_card):
            raise PlayError(f"trump card {trump_card} is not in the Sueca deck")
        if leader is not None and leader not in (0, 1, 2, 3):
            raise PlayError(f"leader must be a seat 0..3, got {leader!r}")
        self.rules = rules
        self.dealer = dealer
        self.trump_card = trump_card
        self.trump = trump_card.suit
        self.leader = first_leader(rules, dealer) if leader is None else leader
        #: claim mode: (seat, trick) -> True (confirmed) / False (dismissed)
        self.decisions = dict(decisions or {})
        self.plays: list[tuple[Card, int, float | None]] = []
        self.tricks: list[Trick] = []
        self._cur: list[Card] = []
        self._cur_leader = self.leader
        self._seen: set[int] = set()
        # seat -> list of (trick, led suit index, kind) revokes not yet proven
        self._open: list[list[tuple[int, int, str]]] = [[], [], [], []]
        # seat -> suit indices whose play would prove one of its open revokes
        self._proving: list[set[int]] = [set(), set(), set(), set()]
        self._strength = rules.strength
        self.renuncias: list[Renuncia] = []
        self.seat_mismatches: list[SeatMismatch] = []
        self._decided_by: Renuncia | None = None
        self._trump_card_played = False

    # -- questions -------------------------------------------------------
    @property
    def turn(self) -> int | None:
        """The seat whose turn it is, or ``None`` once ten tricks are done."""
        if len(self.tricks) == 10:
            return None
        return (self._cur_leader + len(self._cur)) % 4

    @property
    def current_trick(self) -> Trick:
        """The trick being played (possibly empty)."""
        return Trick(self._cur_leader, tuple(self._cur), None, sum(self.rules.points(c) for c in self._cur))

    @property
    def trick_index(self) -> int:
        return len(self.tricks)

    @property
    def all_played(self) -> bool:
        return len(self.tricks) == 10

    @property
    def decided_by(self) -> Renuncia | None:
        """The renúncia that ended the hand (auto, or confirmed in claim mode)."""
        return self._decided_by

    @property
    def pending_renuncias(self) -> list[Renuncia]:
        """Claim mode: proven renúncias waiting for a confirm/dismiss decision."""
        if self.rules.renuncia != "claim":
            return []
        return [r for r in self.renuncias if (r.seat, r.trick) not in self.decisions]

    @property
    def is_over(self) -> bool:
        """Ten tricks played, or decided by a renúncia."""
        return self._decided_by is not None or len(self.tricks) == 10

    def _counted_tricks(self) -> list[Trick]:
        if self._decided_by is not None:
            return self.tricks[: self._decided_by.proven_at_trick]
        return self.tricks

    @property
    def points(self) -> tuple[int, int]:
        """Card points per team (up to the proof when a renúncia decided the hand)."""
        p = [0, 0]
        for t in self._counted_tricks():
            p[t.winner % 2] += t.points
        return p[0], p[1]

    @property
    def tricks_won(self) -> tuple[int, int]:
        n = [0, 0]
        for t in self._counted_tricks():
            n[t.winner % 2] += 1
        return n[0], n[1]

    def result(self, bonus: int = 0) -> HandResult:
        """Riscos of this hand, with ``bonus`` pending from tied hands before it."""
        return score_hand(self.rules, self.points, self.tricks_won, self.all_played,
                          self._decided_by, bonus)

    def legal_moves(self, holding: Iterable[Card]) -> list[Card]:
        """The cards of ``holding`` (the hand of the seat to play) that the rules allow."""
        holding = list(holding)
        if not self._cur:
            return holding
        led = self._cur[0].suit
        follow = [c for c in holding if c.suit is led]
        if follow:
            return follow
        if self.rules.forced_trump:
            trumps = [c for c in holding if c.suit is self.trump]
            if trumps:
                return trumps
        return holding

    # -- the one way to change it ------------------------------------------
    def play(self, card: Card, seat: int | None = None, t: float | None = None) -> None:
        """Record ``card`` hitting the table. ``seat`` is who the camera saw play it."""
        n = len(self.plays)
        if n >= 40:
            raise PlayError("more than 40 plays in a hand")
        idx = card.index
        if not self._strength[idx]:
            raise PlayError(f"{card} is not in the Sueca deck")
        seen = self._seen
        if idx in seen:
            raise PlayError(f"{card} was already played in this hand")
        cur = self._cur
        expected = (self._cur_leader + len(cur)) % 4
        if card is self.trump_card:
            if expected != self.dealer:
                raise PlayError(f"{card} is the turned trump card of the dealer (seat {self.dealer}),"
                                f" played on seat {expected}'s turn")
            self._trump_card_played = True
        if seat is not None and seat != expected:
            self.seat_mismatches.append(SeatMismatch(n, expected, seat))
        seen.add(idx)
        self.plays.append((card, expected, t))
        suit_i = card._suit_index
        if suit_i in self._proving[expected]:
            self._prove(expected, suit_i, card, n)
        if cur:
            led_i = cur[0]._suit_index
            if suit_i != led_i:
                self._open_revoke(expected, suit_i, led_i, n)
        cur.append(card)
        if len(cur) == 4:
            self._close_trick()

    def _open_revoke(self, seat: int, suit_i: int, led_i: int, n: int) -> None:
        trump_i = self.trump_card._suit_index
        opened = self._open[seat]
        proving = self._proving[seat]
        tnum = len(self.tricks)
        opened.append((tnum, led_i, "follow"))
        proving.add(led_i)
        dealer_holds_trump = seat == self.dealer and not self._trump_card_played
        if led_i == trump_i:
            if dealer_holds_trump:
                self._prove(seat, led_i, self.trump_card, n)
        elif self.rules.forced_trump and suit_i != trump_i:
            opened.append((tnum, led_i, "trump"))
            proving.add(trump_i)
            if dealer_holds_trump:
                self._prove(seat, trump_i, self.trump_card, n)

    def _prove(self, seat: int, suit_i: int, card: Card, play: int) -> None:
        trump_i = self.trump_card._suit_index
        tnum = len(self.tricks)
        opened = self._open[seat]
        proven_tricks = set()
        for trick, led_i, kind in opened:
            hit = (led_i == suit_i) if kind == "follow" else (suit_i == trump_i)
            if hit and trick not in proven_tricks:
                proven_tricks.add(trick)
                r = Renuncia(seat, trick, _SUITS[led_i], tnum, card, play, kind)
                self.renuncias.append(r)
                if self._decided_by is None and (self.rules.renuncia == "auto"
                                                 or self.decisions.get((seat, trick))):
                    self._decided_by = r
        # one result per revoke: a trick proven by one kind drops its other candidate
        opened[:] = [e for e in opened if e[0] not in proven_tricks]
        self._proving[seat] = {e[1] if e[2] == "follow" else trump_i for e in opened}

    def _close_trick(self) -> None:
        cur = self._cur
        strength = self._strength
        trump_i = self.trump_card._suit_index
        led_i = cur[0]._suit_index
        best = 0
        best_key = -1
        for i, c in enumerate(cur):
            s = c._suit_index
            key = strength[c.index] + (100 if s == trump_i else 0 if s == led_i else -1000)
            if key > best_key:
                best, best_key = i, key
        winner = (self._cur_leader + best) % 4
        pts = self.rules.points_of
        self.tricks.append(Trick(self._cur_leader, tuple(cur), winner,
                                 pts[cur[0].index] + pts[cur[1].index] + pts[cur[2].index] + pts[cur[3].index]))
        self._cur = []
        self._cur_leader = winner

    def decide(self, seat: int, trick: int, confirm: bool) -> None:
        """Claim mode: confirm or dismiss the proven renúncia of ``seat`` in ``trick``."""
        if self.rules.renuncia != "claim":
            raise PlayError("renúncias are decided by hand only in claim mode (renuncia: claim)")
        match = [r for r in self.renuncias if r.seat == seat and r.trick == trick]
        if not match:
            raise PlayError(f"no proven renúncia of seat {seat} in trick {trick}")
        self.decisions[(seat, trick)] = confirm
        confirmed = [r for r in self.renuncias if self.decisions.get((r.seat, r.trick))]
        self._decided_by = min(confirmed, key=lambda r: r.proof_play) if confirmed else None


_SUITS = tuple(Suit)
