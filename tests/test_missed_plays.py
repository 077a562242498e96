"""A card nobody saw played (at a slow frame rate it can land and be gathered between two
frames): its seat still played once that trick, so the play is given without a card, in its
turn, and the later plays keep their seats. Never when the camera's seats are no evidence."""

from sueca.vision.events import PlayCorrected, PlayEvent, TrickCleared
from test_tracker_events import BOTTOM, TOP, Table, lay_trick, throw


def plays(tb):
    return [(e.card, e.seat, e.uncertain) for e in tb.events if isinstance(e, PlayEvent)]


def test_a_trick_swept_a_card_short_lacks_the_seat_after_its_last():
    tb = Table()
    lay_trick(tb, [(1, "KC", (730, 460)), (2, "AD", (670, 390)), (3, "2C", (580, 500))])
    tb.show(times=40)                        # swept; seat 0's card was never in view
    assert len(plays(tb)) == 3               # perhaps a hand only hid the trick: not yet
    lay_trick(tb, [(2, "5S", (640, 400))])   # the next trick's lead, from seat 2
    assert plays(tb) == [("KC", 1, False), ("AD", 2, False), ("2C", 3, False), ("", 0, True),
                         ("5S", 2, False)]
    missed = [e for e in tb.events if isinstance(e, PlayEvent)][3]
    cleared = [e for e in tb.events if isinstance(e, TrickCleared)]
    assert cleared[0].cards == ("KC", "AD", "2C") and missed.t <= cleared[0].t and missed.unseen
    assert any("never seen" in text for _, text in tb.det.notices)


def test_a_trick_hidden_a_while_then_its_last_card_adds_nothing():
    tb = Table()
    lying = lay_trick(tb, [(1, "KC", (730, 460)), (2, "AD", (670, 390)), (3, "2C", (580, 500))])
    tb.show(times=40)                        # a forearm over the trick: taken for a sweep
    lay_trick(tb, [(0, "7C", (640, 580))], lying)
    # (the three cards seen again after their 'sweep' go to the referee as read again)
    assert ("", 0, True) not in plays(tb) and plays(tb)[-1] == ("7C", 0, False)


def test_a_trick_swept_two_cards_short_adds_nothing():
    tb = Table()
    lay_trick(tb, [(1, "KC", (730, 460)), (2, "AD", (670, 390))])
    tb.show(times=40)
    lay_trick(tb, [(2, "5S", (640, 400))])
    assert plays(tb) == [("KC", 1, False), ("AD", 2, False), ("5S", 2, False)]


def test_a_card_from_a_seat_further_on_skips_the_seat_between():
    tb = Table()
    lying = lay_trick(tb, [(1, "KC", (730, 460)), (2, "AD", (670, 390))])
    lay_trick(tb, [(0, "7C", (640, 580))], lying)   # seat 3's card never seen: seat 0's lands
    assert plays(tb) == [("KC", 1, False), ("AD", 2, False), ("", 3, True), ("7C", 0, False)]
    at = [e.t for e in tb.events if isinstance(e, PlayEvent)]
    assert at[1] < at[2] < at[3]


def test_a_whole_trick_seen_adds_nothing():
    tb = Table()
    lay_trick(tb, [(1, "KC", (730, 460)), (2, "AD", (670, 390)), (3, "2C", (580, 500)),
                   (0, "7C", (640, 580))])
    tb.show(times=40)
    assert plays(tb) == [("KC", 1, False), ("AD", 2, False), ("2C", 3, False), ("7C", 0, False)]


def test_a_card_from_a_seat_already_in_the_trick_adds_nothing():
    # each seat plays once a trick: the camera seated one of the two wrong, which says
    # nothing of a card missed
    tb = Table()
    lying = lay_trick(tb, [(1, "KC", (730, 460)), (2, "AD", (670, 390))])
    lay_trick(tb, [(1, "3C", (760, 520))], lying)
    assert ("", 3, True) not in plays(tb)
    assert [p for p in plays(tb) if p[0] == "3C"] == [("3C", 1, False)]


def test_the_skipped_seats_card_found_after_all_names_its_play():
    """Seat 2's card lay under a hand while seat 3's landed: its play went out with no card.
    Read at last, from seat 2, it names that play in its place, not a play of its own."""
    tb = Table()
    lying = lay_trick(tb, [(1, "KC", (730, 460)), (3, "AD", (560, 470))])
    lay_trick(tb, [(2, "5C", (640, 380))], lying)
    assert plays(tb) == [("KC", 1, False), ("", 2, True), ("AD", 3, False)]
    missed = [e for e in tb.events if isinstance(e, PlayEvent)][1]
    fixes = [e for e in tb.events if isinstance(e, PlayCorrected)]
    assert [(f.card, f.previous, f.play_t) for f in fixes] == [("5C", "", missed.t)]
    assert tb.det.trick_cards == ("KC", "5C", "AD")


def test_a_trick_swept_a_card_short_then_led_by_that_seat_on_a_clean_table():
    """Seat 0's card, never seen, won the trick: seat 0 leads the next one. No card of the
    trick lies there any more, so it was swept, not hidden: seat 0 played twice."""
    tb = Table()
    lay_trick(tb, [(1, "KC", (730, 460)), (2, "AD", (670, 390)), (3, "2C", (580, 500))])
    tb.show(times=40)
    lay_trick(tb, [(0, "5S", (640, 580))])
    assert plays(tb) == [("KC", 1, False), ("AD", 2, False), ("2C", 3, False), ("", 0, True),
                         ("5S", 0, False)]


def test_a_trick_of_three_gone_from_view_then_one_of_its_seats_plays_again():
    """The sweep was not told yet (a hand over the table a moment) when seat 3, whose card
    was in the trick, plays: the trick is over, its fourth card (seat 0's) nobody saw."""
    tb = Table()
    lay_trick(tb, [(1, "KC", (730, 460)), (2, "AD", (670, 390)), (3, "2C", (580, 500))])
    tb.show(times=8)                          # gone, under 2.5 s: no sweep told
    lay_trick(tb, [(3, "7D", (520, 400))])
    assert plays(tb) == [("KC", 1, False), ("AD", 2, False), ("2C", 3, False), ("", 0, True),
                         ("7D", 3, False)]
    assert [e.cards for e in tb.events if isinstance(e, TrickCleared)] == [("KC", "AD", "2C", "")]


def test_a_trick_of_three_in_view_and_a_card_seated_in_it_adds_nothing():
    tb = Table()
    lying = lay_trick(tb, [(1, "KC", (730, 460)), (2, "AD", (670, 390)), (3, "2C", (580, 500))])
    lay_trick(tb, [(3, "7D", (560, 430))], lying)
    assert ("", 0, True) not in plays(tb)


def test_the_skipped_seats_card_read_under_a_hand_names_its_play_at_four_frames_a_second():
    """A slow camera (4 frames a second): seat 2's card, read for sure, lies two seconds with
    a hand over most of it (never seen whole) while seat 3's lands. Lying still that long in
    most frames, it names the play nobody saw from its seat."""
    tb = Table(dt=0.25)
    lying = lay_trick(tb, [(1, "KC", (730, 460)), (3, "AD", (560, 470))])
    partly = ("5C", 640, 380, 0.97, 56, 64)           # a third of the card in view, read
    tb.show(*lying, partly, times=8)                   # 2 s: 8 frames, not the 10 of 10 a second
    assert plays(tb) == [("KC", 1, False), ("", 2, True), ("AD", 3, False)]
    fixes = [e for e in tb.events if isinstance(e, PlayCorrected)]
    assert [(f.card, f.previous) for f in fixes] == [("5C", "")]


def test_a_lead_nobody_saw_is_the_seat_whose_turn_the_rules_say():
    """The trick's first card lies under a hand from the start; the next seat's card lands on
    what looks like an empty table. The rules say whose lead it was (seat 1's): that seat
    played a card nobody saw, and its card, found, names the play."""
    tb = Table()
    throw(tb, "", TOP, (640, 380))                       # seat 2's card in flight, unread
    tb.show(("7C", 640, 380, 0.95), times=6, turn=1)     # read, lying: seat 1's lead unseen
    assert plays(tb) == [("", 1, True), ("7C", 2, False)]
    assert [e.unseen for e in tb.events if isinstance(e, PlayEvent)] == [True, False]
    tb.show(("7C", 640, 380, 0.95), ("KC", 760, 470, 0.97), times=6, turn=3)  # the hand lifts
    assert [(e.card, e.previous) for e in tb.events if isinstance(e, PlayCorrected)] == [("KC", "")]
    assert len(plays(tb)) == 2


def test_a_lead_seen_lying_unread_is_no_card_nobody_saw():
    """A slow camera: seat 1's lead was seen lying there unread, then a hand covered it while
    seat 2's card landed, and moved it a little. Seen again as the 7C is ready, it is a card
    seen, not one nobody saw (else seat 1 would have played twice)."""
    tb = Table(dt=0.25)
    tb.show(("", 900, 470, 0.6), turn=1)
    tb.show(("", 760, 470, 0.6), times=2, turn=1)
    tb.show(("AD", 760, 470, 0.9), turn=1)
    tb.show(times=4, turn=1)                              # a hand over it
    tb.show(("", 640, 200, 0.6), turn=1)                  # seat 2's card in flight
    tb.show(("7C", 640, 380, 0.95), turn=1)
    tb.show(("7C", 640, 380, 0.95), ("", 750, 405, 0.6), times=12, turn=1)
    assert not any(e.unseen for e in tb.events if isinstance(e, PlayEvent))
    assert sorted(plays(tb)) == [("", 1, True), ("7C", 2, False)]


def test_a_lead_out_of_turn_with_no_turn_known_adds_nothing():
    tb = Table()
    throw(tb, "", TOP, (640, 380))
    tb.show(("7C", 640, 380, 0.95), times=6)             # no rules' turn: nothing to tell
    assert plays(tb) == [("7C", 2, False)]


def test_a_lead_after_a_trick_played_off_the_rules_turn_adds_nothing():
    """The last trick's cards came from other seats than the rules' turn said (a misread card
    made the record's winner another than the table's): the turn is no evidence of whose lead
    went unseen, and a card from the seat after it is just a lead."""
    tb = Table()
    lay_trick(tb, [(1, "KC", (730, 460)), (2, "AD", (670, 390)), (3, "2C", (580, 500)), (0, "7C", (640, 580))],
              turns=[2, 3, 0, 1])                             # the record a seat behind the table
    tb.show(times=40, turn=3)                                 # swept; the record says seat 3 won
    assert len(plays(tb)) == 4
    throw(tb, "", BOTTOM, (640, 560))
    tb.show(("5S", 640, 560, 0.95), times=6, turn=3)           # seat 0 leads, as the table saw
    assert plays(tb)[4:] == [("5S", 0, False)]
