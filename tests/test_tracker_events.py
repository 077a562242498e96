"""Play events on hand-made detection sequences: what must not create or lose a play."""

import numpy as np

from sueca.vision.detections import CardDetections
from sueca.vision.events import PlayEvent, TrickCleared, TrumpSeen
from sueca.vision.geometry import Calibration
from sueca.vision.play_events import PlayDetector

CAL = Calibration.propose(1280, 960)   # seat 0 bottom, 1 right, 2 top, 3 left; play area r=240


def frame(*cards):
    """cards: (code, x, y, confidence), or (code, x, y, confidence, width, height) for a box
    of another size than a whole card's 84x120."""
    if not cards:
        return CardDetections.empty()
    size = [c[4:6] if len(c) > 4 else (84, 120) for c in cards]
    boxes = np.array([[c[1] - w / 2, c[2] - h / 2, c[1] + w / 2, c[2] + h / 2] for c, (w, h) in zip(cards, size)],
                     np.float32)
    return CardDetections(boxes, tuple(c for c, *_ in cards), np.array([c[3] for c in cards], np.float32),
                          np.full(len(cards), 0.9, np.float32))


class Table:
    """A play detector fed hand-made frames every ``dt`` seconds (10 a second unless told)."""

    def __init__(self, config=None, dt=0.1):
        self.det = PlayDetector(CAL, config)
        self.t = 0.0
        self.dt = dt
        self.events = []

    def show(self, *cards, times=1, turn=None):
        for _ in range(times):
            self.events += self.det.update(frame(*cards), self.t, round(self.t / self.dt), turn=turn)
            self.t = round(self.t + self.dt, 6)

    def plays(self):
        return [(e.card, e.seat) for e in self.events if isinstance(e, PlayEvent)]


def throw(table, code, seat_xy, rest_xy, others=(), turn=None):
    """A card comes from a seat's edge to rest, unreadable in flight."""
    (x0, y0), (x1, y1) = seat_xy, rest_xy
    for k in range(6):
        a = k / 5
        table.show(*others, ("", x0 + (x1 - x0) * a, y0 + (y1 - y0) * a, 0.8), turn=turn)


BOTTOM, RIGHT, TOP, LEFT = (640, 900), (1200, 480), (640, 60), (80, 480)
EDGE = {0: BOTTOM, 1: RIGHT, 2: TOP, 3: LEFT}


def lay_trick(table, plays, lying=(), turns=None):
    """Each (seat, code, spot) thrown from its seat's edge, read, left lying; returns them all.
    ``turns``: the rules' turn the detector is told while each card is played."""
    lying = list(lying)
    for k, (seat, code, spot) in enumerate(plays):
        turn = None if turns is None else turns[k]
        throw(table, code, EDGE[seat], spot, lying, turn=turn)
        lying.append((code, *spot, 0.95))
        table.show(*lying, times=6, turn=turn)
    return lying


def test_flicker_and_a_misread_frame_make_one_play():
    tb = Table()
    throw(tb, "AS", BOTTOM, (640, 600))
    seq = [("AS", 640, 600, 0.95), None, ("AS", 641, 601, 0.9), ("7D", 640, 600, 0.45), None,
           ("AS", 640, 599, 0.93)] * 3
    for c in seq:
        tb.show(*([c] if c else []))
    assert tb.plays() == [("AS", 0)]


def test_hand_over_the_card_then_lifted_and_put_back_is_one_play():
    tb = Table()
    throw(tb, "KH", RIGHT, (860, 480))
    tb.show(("KH", 860, 480, 0.95), times=5)
    tb.show(times=25)                                  # lifted / covered for 2.5 s
    tb.show(("KH", 870, 470, 0.95), times=10)          # put back a little aside
    assert tb.plays() == [("KH", 1)]


def test_nudged_card_stays_one_play():
    tb = Table()
    throw(tb, "QC", TOP, (640, 360))
    tb.show(("QC", 640, 360, 0.95), times=6)
    for dx in (8, 16, 24):                             # a sleeve pushes it
        tb.show(("", 640 + dx, 360 + dx, 0.8))
    tb.show(("QC", 664, 384, 0.95), times=8)
    assert tb.plays() == [("QC", 2)]


def test_trick_sweep_and_next_lead_are_not_confused():
    tb = Table()
    lay_trick(tb, [(1, "2S", (860, 480)), (2, "AS", (640, 360)), (3, "3S", (420, 480)), (0, "KS", (640, 600))])
    tb.show(times=12)                                  # swept away
    throw(tb, "7S", BOTTOM, (640, 600))               # the winner leads
    tb.show(("7S", 640, 600, 0.95), times=6)
    plays = tb.plays()
    assert plays == [("2S", 1), ("AS", 2), ("3S", 3), ("KS", 0), ("7S", 0)]
    kinds = [type(e).__name__ for e in tb.events]
    assert kinds.index("TrickCleared") == 4
    assert [e.cards for e in tb.events if isinstance(e, TrickCleared)] == [("2S", "AS", "3S", "KS")]


def test_turned_trump_then_played_by_the_dealer_is_one_play():
    tb = Table()
    tb.show(("5H", 300, 820, 0.95), times=12)          # face up beside seat 0 (bottom left)
    assert [(e.card, e.seat) for e in tb.events if isinstance(e, TrumpSeen)] == [("5H", 0)]
    tb.show(("5H", 300, 820, 0.95), times=20)
    throw(tb, "5H", (300, 820), (640, 600))            # the dealer plays it
    tb.show(("5H", 640, 600, 0.95), times=6)
    assert tb.plays() == [("5H", 0)]


def test_card_resting_outside_the_play_area_mid_hand_is_not_a_play():
    tb = Table()
    throw(tb, "AS", BOTTOM, (640, 600))
    tb.show(("AS", 640, 600, 0.95), times=5)
    tb.show(("AS", 640, 600, 0.95), ("JD", 1100, 300, 0.95), times=30)   # someone shows a card
    assert tb.plays() == [("AS", 0)]


def test_two_boxes_on_one_landing_card_make_one_play():
    """The locator may give a landing card two boxes (an outline a little off beside the
    good one); the unread one, first to appear, must not become a play of its own."""
    tb = Table()
    throw(tb, "4D", TOP, (650, 420))
    tb.show(("", 650, 420, 0.6), times=2)
    tb.show(("", 650, 420, 0.6), ("4D", 658, 424, 0.95), times=25)
    assert tb.plays() == [("4D", 2)]
    assert not any(e.uncertain for e in tb.events if isinstance(e, PlayEvent))


def test_a_hand_hovering_before_its_turn_is_not_played_first():
    """Seat 0's open hand hovers over the play area (the locator sees a card-like box,
    never read) while seat 3, whose turn it is, plays: seat 3's card comes first, and the
    hand's card is a play when it lands."""
    tb = Table()
    palm = ("", 660, 650, 0.4)
    tb.show(palm, times=2, turn=3)
    for k in range(6):
        a = k / 5
        tb.show(palm, ("", 80 + (520 - 80) * a, 480, 0.8), turn=3)
    tb.show(palm, ("6S", 520, 480, 0.95), times=9, turn=3)   # 1.7 s: the palm rests > overtaken_s
    assert tb.plays() == [("6S", 3)]
    for k in range(6):                      # the hand lays its card
        a = k / 5
        tb.show(("6S", 520, 480, 0.95), ("", 660, 650 + (560 - 650) * a, 0.8), turn=0)
    tb.show(("6S", 520, 480, 0.95), ("QD", 660, 560, 0.95), times=10, turn=0)
    assert tb.plays() == [("6S", 3), ("QD", 0)]


def test_an_unread_card_played_before_the_next_one_is_still_first():
    """The case the hovering rule must not break: seat 3's card lands and stays unread,
    then seat 0 (next) plays a card that is read: the unread card is played first."""
    tb = Table()
    throw(tb, "", LEFT, (520, 480))
    tb.show(("", 520, 480, 0.8), times=8, turn=3)
    throw(tb, "QD", BOTTOM, (660, 600), others=[("", 520, 480, 0.8)])
    tb.show(("", 520, 480, 0.8), ("QD", 660, 600, 0.95), times=15, turn=3)
    plays = [(e.card, e.seat, e.uncertain) for e in tb.events if isinstance(e, PlayEvent)]
    assert plays == [("", 3, True), ("QD", 0, False)]


def test_a_second_unread_box_on_a_played_card_is_not_a_play():
    """A new card landing across a played one can give the locator a second box on the old
    card (its uncovered part): that box must not become a play before the new card."""
    tb = Table()
    throw(tb, "AS", BOTTOM, (640, 600))
    tb.show(("AS", 640, 600, 0.95), times=8)
    ghost = ("", 628, 616, 0.6)   # a box on the uncovered part of the AS
    for k in range(6):            # the 2D comes from the right and lands across the AS
        a = k / 5
        tb.show(("AS", 640, 600, 0.95), ("", 1200 + (740 - 1200) * a, 480 + (550 - 480) * a, 0.8),
                *([ghost] if k >= 3 else []))
    tb.show(("AS", 640, 600, 0.95), ("", 740, 550, 0.8), ghost, times=12)
    tb.show(("AS", 640, 600, 0.95), ("2D", 740, 550, 0.95), ghost, times=10)
    assert tb.plays() == [("AS", 0), ("2D", 1)]


def test_a_box_over_two_crossing_cards_does_not_hold_the_new_one_back():
    """Seat 0's QD lands across seat 3's KD. While it lands the locator also gives one box
    over the place where the two cross, never read (game 8509 held the QD 4 s behind it):
    the QD is played as soon as it lies read, and the box is no play."""
    tb = Table()
    throw(tb, "", LEFT, (553, 474))
    tb.show(("KD", 553, 474, 0.99), times=10, turn=3)
    cross = ("", 603, 512, 0.3, 77, 71)
    for k in range(6):            # the QD comes from the bottom; the box over the crossing comes first
        a = k / 5
        tb.show(("KD", 553, 474, 0.99), ("", 640 + (612 - 640) * a, 900 + (568 - 900) * a, 0.8),
                *([cross] if k >= 3 else []), turn=0)
    for frames in range(1, 31):
        tb.show(("KD", 553, 474, 0.99), ("QD", 612, 568, 0.99), cross, turn=0)
        if ("QD", 0) in tb.plays():
            break
    assert frames <= 5  # half a second after it lands (4 s in game 8509)
    tb.show(("KD", 553, 474, 0.99), ("QD", 612, 568, 0.99), cross, times=40, turn=1)
    assert tb.plays() == [("KD", 3), ("QD", 0)]


def test_a_card_under_a_hand_for_seconds_is_played_before_the_next():
    """Seat 1's card is read once as it lands, then a hand stays on it (never seen whole,
    never read again) while seat 2 plays a card that is read: seat 1's card is an
    uncertain play, first."""
    tb = Table()
    tb.show(("AS", 640, 600, 0.95), times=10, turn=0)          # seat 0 leads
    throw(tb, "", RIGHT, (840, 480), others=[("AS", 640, 600, 0.95)])
    tb.show(("AS", 640, 600, 0.95), ("KD", 820, 480, 0.99), turn=1)
    under = ("", 820, 480, 0.5, 56, 64)                            # a box far smaller than a card
    tb.show(("AS", 640, 600, 0.95), under, times=20, turn=1)       # 2 s under the hand
    throw(tb, "", TOP, (640, 360), others=[("AS", 640, 600, 0.95), under])
    tb.show(("AS", 640, 600, 0.95), under, ("7H", 640, 360, 0.95), times=10, turn=1)
    plays = [(e.card, e.seat, e.uncertain) for e in tb.events if isinstance(e, PlayEvent)]
    assert plays == [("AS", 0, False), ("", 1, True), ("7H", 2, False)]


def test_a_hand_hovering_in_front_of_its_own_seat_is_not_a_play():
    """Seat 0's open hand hovers in the play area (a box never read) and then seat 0
    plays a card that is read: one play, the read card, nothing uncertain."""
    tb = Table()
    palm = ("", 700, 660, 0.4)
    tb.show(palm, times=10, turn=0)
    throw(tb, "", BOTTOM, (600, 560), others=[palm])
    tb.show(palm, ("9C", 600, 560, 0.95), times=4, turn=0)
    tb.show(("9C", 600, 560, 0.95), times=10, turn=1)         # the hand is drawn back
    plays = [(e.card, e.seat, e.uncertain) for e in tb.events if isinstance(e, PlayEvent)]
    assert plays == [("9C", 0, False)]


def test_a_card_landing_across_a_played_one_keeps_its_turn():
    """Seat 3's card lands across seat 2's QC and stays unread a while; meanwhile seat 0's
    card lands and is read. Seat 3's card, read at last, is played before seat 0's."""
    tb = Table()
    tb.show(("QC", 640, 380, 0.95), times=10, turn=2)
    throw(tb, "", LEFT, (594, 392), others=[("QC", 640, 380, 0.95)])
    tb.show(("QC", 640, 380, 0.95), ("", 594, 392, 0.7), times=8, turn=3)
    throw(tb, "", BOTTOM, (640, 600), others=[("QC", 640, 380, 0.95), ("", 594, 392, 0.7)])
    tb.show(("QC", 640, 380, 0.95), ("", 594, 392, 0.7), ("7C", 640, 600, 0.95), times=3, turn=3)
    tb.show(("QC", 640, 380, 0.95), ("AD", 594, 392, 0.95), ("7C", 640, 600, 0.95), times=8, turn=3)
    assert tb.plays() == [("QC", 2), ("AD", 3), ("7C", 0)]



def test_an_unread_card_put_on_a_played_one_in_view_is_a_play():
    """Seat 3's card lands half across seat 2's QC and is never read. The QC is in view
    all along, the trick lacks seat 3's card and this one came from seat 3: it is not the
    QC found again but seat 3's play, uncertain."""
    tb = Table()
    tb.show(("QC", 640, 380, 0.95), times=10, turn=2)
    throw(tb, "", LEFT, (594, 392), others=[("QC", 640, 380, 0.95)])
    tb.show(("QC", 640, 380, 0.95), ("", 594, 392, 0.7), times=30, turn=3)
    plays = [(e.card, e.seat, e.uncertain) for e in tb.events if isinstance(e, PlayEvent)]
    assert plays == [("QC", 2, False), ("", 3, True)]


def test_the_first_lead_far_from_the_bigger_trump_card_is_played_at_once():
    # A tilted camera: the trump card beside the near seat looks a third bigger
    # than a card across the table. Its size says nothing about a card over there.
    tb = Table()
    trump = ("5H", 300, 820, 0.95, 100, 144)
    for k in range(40):
        tb.show(("5H", 300 + k % 2, 820, 0.95, 100 + k % 2, 144))   # outline jitter
    throw(tb, "AS", TOP, (640, 360), others=[trump])
    tb.show(trump, ("AS", 640, 360, 0.95), times=2)
    assert tb.plays() == [("AS", 2)]


def test_a_hand_hovering_does_not_delay_the_card_in_turn():
    """Seat 0's open hand comes over the play area just before seat 3, whose turn it
    is, lays a card that is read at once: that card is played without waiting to see
    whether the hand's box is read."""
    tb = Table()
    palm = ("", 660, 650, 0.4)
    throw(tb, "", LEFT, (520, 480), others=[palm])
    for _ in range(3):
        tb.show(palm, ("6S", 520, 480, 0.95), turn=3)
    assert tb.plays() == [("6S", 3)]


def three_played(tb, kc_spot):
    """Seats 1, 2, 3 play KC (at ``kc_spot``), AD and 2C, each read; the cards lying."""
    return lay_trick(tb, [(1, "KC", kc_spot), (2, "AD", (670, 390)), (3, "2C", (580, 500))])


def test_an_unread_last_card_gathered_onto_a_played_one_is_swept_as_a_play():
    """The trick's last card lies unread beside a played one; the hand that sweeps the
    trick pushes it onto that card, and the tracker takes the two for one. It was seen
    beside it, so it is a second card: swept with the trick as an uncertain play."""
    tb = Table()
    lying = three_played(tb, (730, 460))
    throw(tb, "", BOTTOM, (644, 543), lying)
    tb.show(*lying, ("", 644, 543, 0.5), times=12)            # 1.2 s: not yet an uncertain play
    tb.show(("", 644, 516, 0.4), ("", 618, 506, 0.4))          # the sweeping hand gathers them
    tb.show(("", 644, 516, 0.4), ("", 618, 506, 0.4))
    tb.show(("", 646, 517, 0.4))
    tb.show(times=40)
    plays = [(e.card, e.seat, e.uncertain) for e in tb.events if isinstance(e, PlayEvent)]
    assert plays == [("KC", 1, False), ("AD", 2, False), ("2C", 3, False), ("", 0, True)]
    assert [len(e.cards) for e in tb.events if isinstance(e, TrickCleared)] == [4]


def test_an_unread_last_card_swept_with_the_trick_is_the_seat_that_had_not_played():
    """The trick's last card (seat 0's) lands unread on seat 1's side of the trick, so where
    it lies points at seat 1. Swept with the trick, it is an uncertain play of seat 0: each
    seat plays once a trick (game 8205 lost a hand to such a card seated by its place)."""
    tb = Table()
    lying = three_played(tb, (760, 470))
    for k in range(6):                       # from the bottom, unread, to rest beside the KC
        a = k / 5
        tb.show(*lying, ("", 640 + (790 - 640) * a, 900 + (560 - 900) * a, 0.5))
    tb.show(*lying, ("", 790, 560, 0.5), times=12)
    tb.show(times=40)                        # swept
    plays = [(e.card, e.seat, e.uncertain) for e in tb.events if isinstance(e, PlayEvent)]
    assert plays[:3] == [("KC", 1, False), ("AD", 2, False), ("2C", 3, False)]
    assert plays[3:] == [("", 0, True)]


def test_a_small_box_on_a_played_card_does_not_hold_the_next_back():
    """Seat 2's QD is played. The locator then keeps a small box on one corner of it, never
    read and never a whole card (game 8601, a checked cloth). Seat 3's 4D lands and is read:
    it is played at once, not held behind that box for seconds."""
    tb = Table()
    throw(tb, "", TOP, (660, 410))
    tb.show(("QD", 660, 410, 0.95), times=10, turn=2)
    corner = ("", 636, 366, 0.3, 58, 66)
    tb.show(("QD", 660, 410, 0.95), corner, times=10, turn=3)
    throw(tb, "", LEFT, (538, 503), others=[("QD", 660, 410, 0.95), corner])
    for frames in range(1, 31):
        tb.show(("QD", 660, 410, 0.95), corner, ("4D", 538, 503, 1.0), turn=3)
        if ("4D", 3) in tb.plays():
            break
    assert frames <= 5
    tb.show(("QD", 660, 410, 0.95), corner, ("4D", 538, 503, 1.0), times=40, turn=0)
    assert tb.plays() == [("QD", 2), ("4D", 3)]


def test_an_unread_card_partly_across_a_played_one_still_comes_first():
    """Seat 3's card lands partly across seat 2's QD and is never read; it lies there whole.
    Then seat 0's 7H is read: seat 3's card is a play (uncertain) before it."""
    tb = Table()
    throw(tb, "", TOP, (660, 410))
    tb.show(("QD", 660, 410, 0.95), times=10, turn=2)
    throw(tb, "", LEFT, (585, 455), others=[("QD", 660, 410, 0.95)])
    tb.show(("QD", 660, 410, 0.95), ("", 585, 455, 0.8), times=15, turn=3)
    throw(tb, "", BOTTOM, (640, 620), others=[("QD", 660, 410, 0.95), ("", 585, 455, 0.8)])
    tb.show(("QD", 660, 410, 0.95), ("", 585, 455, 0.8), ("7H", 640, 620, 0.99), times=30, turn=3)
    plays = [(e.card, e.seat, e.uncertain) for e in tb.events if isinstance(e, PlayEvent)]
    assert plays == [("QD", 2, False), ("", 3, True), ("7H", 0, False)]


SPADES_TRICK = [(1, "4S", (760, 480)), (2, "QS", (640, 380)), (3, "7S", (540, 480)), (0, "3S", (640, 600))]

def test_a_card_misread_in_the_sweeping_pile_is_not_the_next_lead():
    """Game 8612: as the winner gathered a full trick, the pile was read QC (the QS
    blurred) for three frames, lying still for two, then gone with the rest. That
    was taken for the next lead, closing the trick at once and shifting every seat
    after it. With four cards on the table, a new card must lie still ``clear_s``
    before it is a lead; the pile never does, and is swept with the trick."""
    tb = Table()
    lay_trick(tb, SPADES_TRICK)
    tb.show(("", 620, 470, 0.4), ("3S", 640, 580, 0.9), ("4S", 730, 480, 0.9))  # the hand gathers them
    tb.show(("QC", 636, 470, 0.95), ("", 650, 540, 0.4))
    tb.show(("QC", 630, 478, 0.97))
    tb.show(("QC", 626, 482, 0.83))
    tb.show(times=12)                                                        # gone with the pile
    throw(tb, "3H", LEFT, (540, 480))                                        # the winner leads
    tb.show(("3H", 540, 480, 0.95), times=6)
    assert tb.plays() == [("4S", 1), ("QS", 2), ("7S", 3), ("3S", 0), ("3H", 3)]
    assert [e.cards for e in tb.events if isinstance(e, TrickCleared)] == [("4S", "QS", "7S", "3S")]


def test_the_next_lead_while_the_last_trick_still_lies_there_closes_it():
    """A lead put down beside a full trick nobody gathered is still the next play."""
    tb = Table()
    lying = lay_trick(tb, SPADES_TRICK)
    throw(tb, "3H", TOP, (700, 300), lying)
    tb.show(*lying, ("3H", 700, 300, 0.95), times=12)
    assert tb.plays() == [("4S", 1), ("QS", 2), ("7S", 3), ("3S", 0), ("3H", 2)]
    lead = [e for e in tb.events if isinstance(e, PlayEvent)][-1]
    assert lead.frame_index / 10 - lead.t <= 0.3   # the trick lies still in view: no wait
    assert [e.cards for e in tb.events if isinstance(e, TrickCleared)] == [("4S", "QS", "7S", "3S")]


def test_a_card_landing_on_a_played_one_and_covering_it_is_a_play():
    """Seat 3's card lands a third of a card off seat 2's QC and covers it: the QC is not
    seen again, the new card is read. It is seat 3's play, not the QC moved."""
    tb = Table()
    tb.show(("QC", 640, 380, 0.95), times=10, turn=2)
    tb.show(("QC", 640, 380, 0.95), ("", 450, 400, 0.5), turn=3)
    tb.show(("", 640, 380, 0.6), ("", 612, 406, 0.4), turn=3)
    tb.show(("5H", 610, 408, 0.99), times=10, turn=3)
    assert tb.plays() == [("QC", 2), ("5H", 3)]
