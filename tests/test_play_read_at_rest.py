"""A card read for sure and lying still is a play even where the table's cards look bigger than it.

On a white table the outliner can draw the played cards' outlines larger than the cards; the
whole-card size learnt from them then makes a new card lying in plain view look partly covered.
Seen in a game video (seventeenth session): a 6D read at 1.0 for two seconds was never played,
and its trick was swept with an unread box in its place.
"""

from dataclasses import replace

from sueca.vision.events import PlayEvent
from sueca.vision.play_events import PlayConfig
from test_tracker_events import EDGE, throw
from test_tracker_events import Table as _Table

BIG = (118, 168)  # the played cards' outlines: 1.4 times a card's side each way


class Table(_Table):
    def plays(self):
        return [(e.card, e.seat, e.uncertain) for e in self.events if isinstance(e, PlayEvent)]


def three_big(tb: Table) -> list:
    """Seats 3, 0 and 1 play cards whose outlines come out big; returns what lies there."""
    lying = []
    for seat, code, spot in ((3, "7S", (560, 470)), (0, "JS", (640, 560)), (1, "3S", (730, 480))):
        throw(tb, code, EDGE[seat], spot, lying)
        lying.append((code, *spot, 0.99, *BIG))
        tb.show(*lying, times=8, turn=seat)
    return lying


def test_a_read_card_smaller_than_the_tables_cards_is_played():
    tb = Table()
    lying = three_big(tb)
    throw(tb, "6D", EDGE[2], (640, 390), lying)
    tb.show(*lying, ("6D", 640, 390, 0.99), times=20, turn=2)   # 2 s in view, read, its true size
    assert tb.plays() == [("7S", 3, False), ("JS", 0, False), ("3S", 1, False), ("6D", 2, False)]


def test_without_it_the_card_waits_for_a_whole_view():
    tb = Table(replace(PlayConfig(), read_rest_s=None))
    lying = three_big(tb)
    throw(tb, "6D", EDGE[2], (640, 390), lying)
    tb.show(*lying, ("6D", 640, 390, 0.99), times=20, turn=2)
    assert tb.plays() == [("7S", 3, False), ("JS", 0, False), ("3S", 1, False)]


def test_a_read_card_must_lie_still_that_long_first():
    tb = Table()
    lying = three_big(tb)
    throw(tb, "6D", EDGE[2], (640, 390), lying)
    tb.show(*lying, ("6D", 640, 390, 0.99), times=10, turn=2)   # 1 s: not yet
    assert [p[0] for p in tb.plays()] == ["7S", "JS", "3S"]
    tb.show(*lying, ("6D", 640, 390, 0.99), times=8, turn=2)
    assert [p[0] for p in tb.plays()] == ["7S", "JS", "3S", "6D"]


def test_an_unread_box_of_that_size_is_no_play():
    tb = Table()
    lying = three_big(tb)
    throw(tb, "", EDGE[2], (640, 390), lying)
    tb.show(*lying, ("", 640, 390, 0.5), times=12, turn=2)       # a hand's box, never read
    assert [p[0] for p in tb.plays()] == ["7S", "JS", "3S"]
