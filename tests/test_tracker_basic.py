"""The card tracker on hand-made detection sequences."""

import numpy as np
import pytest

from sueca.vision.detections import CardDetections
from sueca.vision.tracker import CardTracker


def dets(*cards):
    """cards: (code, cx, cy, confidence) with an 84x120 box around the centre."""
    if not cards:
        return CardDetections.empty()
    boxes = np.array([[x - 42, y - 60, x + 42, y + 60] for _, x, y, _ in cards], np.float32)
    conf = np.array([c for *_, c in cards], np.float32)
    return CardDetections(boxes, tuple(c for c, *_ in cards), conf, np.full(len(cards), 0.9, np.float32))


def run(frames, dt=0.1):
    tr = CardTracker()
    out = None
    for i, f in enumerate(frames):
        out = tr.update(f, t=i * dt)
    return tr, out


def test_votes_identity_over_misreads():
    frames = [dets(("7H", 300, 300, 0.9))] * 6 + [dets(("7D", 300, 300, 0.5))] * 3 + [dets(("AH", 300, 300, 0.6))]
    _, tracks = run(frames)
    assert len(tracks) == 1
    assert tracks[0].identity == "7H"
    assert tracks[0].identity_confidence > 0.99


def test_unsettled_until_enough_reads():
    _, tracks = run([dets(("7H", 300, 300, 0.95)), dets(("", 300, 300, 0.9))])
    assert tracks[0].identity == ""           # one read is not enough
    assert tracks[0].best == "7H"


def test_track_survives_occlusion_for_seconds():
    seen = [dets(("KS", 500, 400, 0.95))] * 5
    hidden = [dets()] * 40                     # four seconds under a hand
    back = [dets(("", 505, 402, 0.9))] * 2
    _, tracks = run(seen + hidden + back)
    assert [t.id for t in tracks] == [1]
    assert tracks[0].visible and tracks[0].identity == "KS"


def test_flicker_keeps_one_track():
    frames = [dets(("QC", 200, 200, 0.9)) if i % 3 else dets() for i in range(30)]
    _, tracks = run(frames)
    assert len(tracks) == 1 and tracks[0].identity == "QC"


def test_one_frame_ghost_is_not_a_track():
    frames = [dets(("QC", 200, 200, 0.9))] * 3 + [dets(("QC", 200, 200, 0.9), ("", 900, 700, 0.4))] + \
             [dets(("QC", 200, 200, 0.9))] * 6
    _, tracks = run(frames)
    assert len(tracks) == 1


def test_neighbouring_cards_keep_their_identities():
    frames = [dets(("AS", 400, 300, 0.9), ("2S", 490, 300, 0.9))] * 5
    # one frame both unreadable, slightly jittered
    frames += [dets(("", 402, 301, 0.9), ("", 488, 299, 0.9))]
    frames += [dets(("AS", 400, 300, 0.9), ("2S", 490, 300, 0.9))] * 2
    _, tracks = run(frames)
    ids = {t.identity: t.id for t in tracks}
    assert set(ids) == {"AS", "2S"} and len(tracks) == 2


def test_card_lifted_and_put_back_elsewhere_keeps_its_track():
    frames = [dets(("JD", 300, 300, 0.95))] * 5 + [dets()] * 10 + [dets(("JD", 600, 500, 0.95))] * 3
    _, tracks = run(frames)
    assert [t.id for t in tracks] == [1]
    assert tracks[0].center == pytest.approx((600, 500))


def test_nudged_card_keeps_its_track():
    frames = [dets(("5C", 300, 300, 0.95))] * 12 + [dets(("", 330, 315, 0.9))] + [dets(("5C", 340, 320, 0.95))] * 3
    _, tracks = run(frames)
    assert len(tracks) == 1 and tracks[0].identity == "5C"


def test_thrown_card_is_followed():
    path = [(100 + 60 * i, 480) for i in range(8)]
    frames = [dets(("", x, y, 0.8)) for x, y in path] + [dets(("6H", 520, 480, 0.9))] * 3
    _, tracks = run(frames)
    assert len(tracks) == 1
    assert tracks[0].first_center == pytest.approx((100, 480))
    assert tracks[0].identity == "6H"


def test_same_input_same_tracks():
    rng = np.random.default_rng(3)
    frames = [dets(*[(c, x + rng.normal(0, 2), y + rng.normal(0, 2), 0.9)
                     for c, x, y in (("AS", 100, 100), ("KD", 400, 400), ("7C", 700, 300))
                     if rng.random() > 0.2]) for _ in range(40)]
    a = run(frames)[1]
    b = run(frames)[1]
    assert a == b


def test_time_must_not_go_back():
    tr = CardTracker()
    tr.update(dets(), 1.0)
    with pytest.raises(ValueError, match="backwards"):
        tr.update(dets(), 0.5)


def test_a_card_landing_on_a_still_one_is_another_track():
    """At 4 frames a second the 5H is seen once in flight, once landing unread, then read
    where it covers the 3H, a third of a card off. Each card exists once: the 3H's track,
    settled, does not swallow the 5H's, and stays the 3H while covered."""
    still = [dets(("3H", 600, 400, 0.99))] * 12
    landing = [dets(("3H", 600, 400, 0.99), ("", 420, 430, 0.5)),
               dets(("", 600, 400, 0.6), ("", 572, 418, 0.4))]
    covered = [dets(("5H", 570, 420, 0.99))] * 8
    tr = CardTracker()
    for i, f in enumerate(still + landing + covered):
        tracks = tr.update(f, t=i * 0.25)
    by_card = {t.identity: t for t in tracks}
    assert set(by_card) == {"3H", "5H"}
    assert by_card["5H"].visible and not by_card["3H"].visible
    assert by_card["3H"].center == (600.0, 400.0)
