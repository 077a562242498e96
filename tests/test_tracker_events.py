"""Play events on hand-made detection sequences: what must not create or lose a play."""

import numpy as np

from sueca.vision.detections import CardDetections
from sueca.vision.events import PlayEvent, TrickCleared, TrumpSeen
from sueca.vision.geometry import Calibration
from sueca.vision.play_events import PlayDetector

CAL = Calibration.propose(1280, 960)   # seat 0 bottom, 1 right, 2 top, 3 left; play area r=240


def frame(*cards):
    """cards: (code, x, y, confidence)."""
    if not cards:
        return CardDetections.empty()
    boxes = np.array([[x - 42, y - 60, x + 42, y + 60] for _, x, y, _ in cards], np.float32)
    return CardDetections(boxes, tuple(c for c, *_ in cards), np.array([c[3] for c in cards], np.float32),
                          np.full(len(cards), 0.9, np.float32))


class Table:
    def __init__(self):
        self.det = PlayDetector(CAL)
        self.t = 0.0
        self.events = []

    def show(self, *cards, times=1):
        for _ in range(times):
            self.events += self.det.update(frame(*cards), self.t, round(self.t * 10))
            self.t = round(self.t + 0.1, 6)

    def plays(self):
        return [(e.card, e.seat) for e in self.events if isinstance(e, PlayEvent)]


def throw(table, code, seat_xy, rest_xy, others=()):
    """A card comes from a seat's edge to rest, unreadable in flight."""
    (x0, y0), (x1, y1) = seat_xy, rest_xy
    for k in range(6):
        a = k / 5
        table.show(*others, ("", x0 + (x1 - x0) * a, y0 + (y1 - y0) * a, 0.8))


BOTTOM, RIGHT, TOP, LEFT = (640, 900), (1200, 480), (640, 60), (80, 480)


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
    spots = {0: (640, 600), 1: (860, 480), 2: (640, 360), 3: (420, 480)}
    seats = {0: BOTTOM, 1: RIGHT, 2: TOP, 3: LEFT}
    lying = []
    for seat, code in zip((1, 2, 3, 0), ("2S", "AS", "3S", "KS")):
        throw(tb, code, seats[seat], spots[seat], lying)
        lying.append((code, *spots[seat], 0.95))
        tb.show(*lying, times=6)
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
