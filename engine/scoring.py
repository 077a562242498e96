"""Riscos of a hand from its points, tricks and how it ended (``rules.md``).

>>> from sueca.engine import Rules
>>> score_hand(Rules(), (74, 46), (6, 4), complete=True).riscos
(1, 0)
>>> score_hand(Rules(), (120, 0), (9, 1), complete=True).riscos
(2, 0)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .rules import Rules

if TYPE_CHECKING:
    from .hand import Renuncia


@dataclass(frozen=True)
class HandResult:
    """How a hand ended.

    ``outcome``: ``"in_progress"``, ``"tie"``, ``"points"`` (1 or 2 riscos by
    points), ``"capote"``, ``"pente"``, ``"renuncia"``. ``bonus_used`` is the
    tie bonus added to the winner; ``bonus_after`` the bonus pending for the
    next hand.
    """

    riscos: tuple[int, int]
    outcome: str
    winner: int | None
    bonus_used: int = 0
    bonus_after: int = 0


def score_hand(rules: Rules, points: tuple[int, int], tricks_won: tuple[int, int], complete: bool,
               renuncia: "Renuncia | None" = None, bonus: int = 0) -> HandResult:
    """Score one hand; ``bonus`` is the tie bonus pending from the hands before."""
    if renuncia is not None:
        winner = 1 - renuncia.team
        riscos = [0, 0]
        riscos[winner] = 4 + bonus
        return HandResult((riscos[0], riscos[1]), "renuncia", winner, bonus, 0)
    if not complete:
        return HandResult((0, 0), "in_progress", None, 0, bonus)
    if points[0] == points[1]:
        after = bonus + 1 if rules.tie == "next_hand_bonus" else 0
        return HandResult((0, 0), "tie", None, 0, after)
    winner = 0 if points[0] > points[1] else 1
    loser = 1 - winner
    wp = points[winner]
    if rules.capote == "all_tricks":
        capote = tricks_won[winner] == 10
    else:
        capote = wp == 120
    if capote:
        base, outcome = 4, "capote"
    elif rules.pente and points[loser] < 30:
        base, outcome = 4, "pente"
    elif wp >= 91:
        base, outcome = 2, "points"
    else:
        base, outcome = 1, "points"
    riscos = [0, 0]
    riscos[winner] = base + bonus
    if rules.rolha and wp > 90:
        riscos[loser] = -2
    return HandResult((riscos[0], riscos[1]), outcome, winner, bonus, 0)
