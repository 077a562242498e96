"""A hand that holds its cards by the trick for a moment, then goes back, is no play.

Seen in a game video (test deck, game 8702, twenty-seventh session): after seat 3's card
landed, seat 1's hand rested by the trick with its cards face down; the locator boxed it in
four frames (never read) and it went back. When seat 0's card was ready 1.8 s later the box
was played before it as an uncertain card, the trick was closed with it and seat 0's card
started a trick of its own (three such plays in that game, the last one pushing three read
plays out of the hand).
"""

from dataclasses import replace

from sueca.vision.events import PlayEvent
from sueca.vision.play_events import PlayConfig
from test_tracker_events import EDGE, RIGHT, Table, lay_trick, throw


def plays(tb: Table) -> list:
    return [(e.card, e.seat, e.uncertain) for e in tb.events if isinstance(e, PlayEvent)]


def three_played(tb: Table) -> list:
    return lay_trick(tb, [(1, "JD", (710, 470)), (2, "KD", (670, 400)), (3, "4D", (560, 485))])


def hand_by_the_trick(tb: Table, lying: list, frames: int) -> None:
    """Seat 1's hand comes in with its cards, is boxed at rest ``frames`` times, goes back."""
    for k in range(4):
        a = k / 3
        tb.show(*lying, ("", RIGHT[0] + (775 - RIGHT[0]) * a, 550, 0.45), turn=0)
    tb.show(*lying, ("", 775, 550, 0.45), times=frames, turn=0)
    tb.show(*lying, times=8, turn=0)          # drawn back: out of view, then nothing there


def test_a_hand_boxed_by_the_trick_then_gone_is_no_play():
    tb = Table()
    lying = three_played(tb)
    hand_by_the_trick(tb, lying, frames=3)
    throw(tb, "", EDGE[0], (640, 560), lying)
    tb.show(*lying, ("QD", 640, 560, 0.95), times=6, turn=0)
    assert plays(tb) == [("JD", 1, False), ("KD", 2, False), ("4D", 3, False), ("QD", 0, False)]


def test_without_the_rule_the_hand_was_an_uncertain_play():
    tb = Table(replace(PlayConfig(), gone_hits=0))
    lying = three_played(tb)
    hand_by_the_trick(tb, lying, frames=3)
    throw(tb, "", EDGE[0], (640, 560), lying)
    tb.show(*lying, ("QD", 640, 560, 0.95), times=6, turn=0)
    assert ("", 0, True) in plays(tb) or ("", 1, True) in plays(tb)


def test_an_unread_card_seen_lying_longer_then_covered_is_still_a_play():
    """An unread card seen at rest in more frames than a passing hand, then hidden (a hand
    on it) when the next card is ready: an uncertain play, first, as before."""
    tb = Table()
    lying = lay_trick(tb, [(1, "JD", (710, 470)), (2, "KD", (670, 400))])
    throw(tb, "", EDGE[3], (560, 485), lying)
    tb.show(*lying, ("", 560, 485, 0.6), times=PlayConfig().gone_hits + 4, turn=3)
    tb.show(*lying, times=5, turn=3)          # a hand lies on it
    throw(tb, "", EDGE[0], (640, 560), lying)
    tb.show(*lying, ("QD", 640, 560, 0.95), times=6, turn=3)
    assert plays(tb) == [("JD", 1, False), ("KD", 2, False), ("", 3, True), ("QD", 0, False)]
