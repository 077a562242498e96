"""A video's colour cast measured on the cards of its recent frames (:class:`sueca.vision.balance.RunningBalance`)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from sueca.datasets.degrade import degrade
from sueca.vision.balance import RunningBalance, applied_gains, balanced, card_cast_axes, cast_axes
from sueca.vision.recognizer import load_recognizer
from sueca.vision.still import OutlineMemory

ALLOWED = (0.5, 0.15)
XS = (100, 280, 460)
MAGENTA = (1.0, 0.65, 1.0)
TUNGSTEN = (0.5, 0.85, 1.06)


def cloth_with_cards(light=(1.0, 1.0, 1.0)):
    """A green cloth with three white cards (a black index each), lit by ``light`` (B, G, R gains)."""
    frame = np.full((480, 640, 3), (50, 110, 40), np.float32)
    for x in XS:
        frame[150:330, x:x + 110] = 240
        frame[160:190, x + 8:x + 24] = 20
    return np.clip(frame * np.float32(light), 0, 255).astype(np.uint8)


def outlines() -> np.ndarray:
    return np.array([[[x, 150], [x + 109, 150], [x + 109, 329], [x, 329]] for x in XS], np.float32)


def fed(rb: RunningBalance, frame: np.ndarray, times: int = 1) -> np.ndarray:
    """``frame`` as the live call reads it, ``times`` frames in a row; the last one read."""
    for _ in range(times):
        out = rb(frame)
        rb.observe(frame, outlines(), ALLOWED)
    return out


def test_the_cards_own_stock_gives_the_light_where_the_frame_has_brighter_things():
    frame = cloth_with_cards(TUNGSTEN)
    frame[20:120, 20:140] = 255  # a white saucer, clipped: no colour of the light
    assert np.allclose(cast_axes(frame), 0.0)
    assert np.allclose(card_cast_axes(frame, outlines()), cast_axes(cloth_with_cards(TUNGSTEN)), atol=0.02)
    assert card_cast_axes(frame, outlines()[:, :, :] * 0 + 5) is None  # outlines of no area


def test_nothing_is_corrected_before_enough_samples():
    rb = RunningBalance(every=1, least=3)
    frame = cloth_with_cards(MAGENTA)
    assert fed(rb, frame, 3) is frame  # the third frame was read before its own sample
    assert fed(rb, frame) is not frame


def test_frames_where_no_card_was_found_are_measured_whole():
    """Under a strong cast the locator may find nothing until the frame is balanced."""
    rb = RunningBalance(every=1, least=2)
    frame = cloth_with_cards(MAGENTA)
    rb.observe(frame, np.zeros((0, 4, 2), np.float32), ALLOWED)
    rb.observe(frame, None, ALLOWED)
    assert np.array_equal(rb.gains(), applied_gains(frame, ALLOWED, rb.keep))


def test_the_cards_samples_win_over_the_frames_once_there_are_enough():
    rb = RunningBalance(every=1, least=2)
    frame = cloth_with_cards(TUNGSTEN)
    frame[20:120, 20:140] = 255  # a white saucer: the frame's brightest pixels say "neutral"
    for _ in range(5):
        rb.observe(frame, None, ALLOWED)  # nothing found yet
    assert rb(frame) is frame
    fed(rb, frame, 2)
    assert np.array_equal(rb.gains(), applied_gains(cloth_with_cards(TUNGSTEN), ALLOWED, rb.keep))
    assert not np.all(rb.gains() == 1.0)


def test_a_video_cast_is_brought_back_to_half_the_allowance():
    """Further than a still image's (brought back to the allowance): on the game videos one
    card left unread under a residual tint holds a whole hand."""
    rb = RunningBalance(every=1, least=1)
    frame = cloth_with_cards(MAGENTA)
    fed(rb, frame)
    assert rb.keep == 0.5
    assert np.array_equal(rb.gains(), applied_gains(frame, ALLOWED, 0.5))
    left = cast_axes(rb(frame))[1]  # the magenta left in the balanced frame
    assert abs(left - 0.5 * ALLOWED[1]) < 0.03
    assert cast_axes(balanced(frame, ALLOWED))[1] > left + 0.04


def test_a_neutral_video_is_never_touched():
    rb = RunningBalance(every=1, least=1)
    frame = cloth_with_cards()
    for _ in range(20):
        assert fed(rb, frame) is frame


def test_a_frame_where_a_hand_covers_the_cards_does_not_move_the_gains():
    rb = RunningBalance(every=1, least=1)
    lit = cloth_with_cards(TUNGSTEN)
    fed(rb, lit, 5)
    first = rb.gains()
    hand = lit.copy()
    hand[100:400, 50:600] = (120, 160, 230)  # skin over every card
    assert not np.array_equal(applied_gains(hand, ALLOWED), first)  # alone it would
    fed(rb, hand)
    assert np.array_equal(rb.gains(), first)


def test_small_wobbles_of_the_estimate_keep_the_gains_fixed():
    """A few levels of brightness more or less (the camera's exposure) leave the gains as
    they were; the lying cards' crops stay the same and are not read afresh."""
    rb = RunningBalance(every=1, least=1)
    base = cloth_with_cards(TUNGSTEN).astype(np.float32)
    seen = set()
    for k in range(30):
        frame = np.clip(base * (1 + 0.03 * np.sin(k)) + (k % 3), 0, 255).astype(np.uint8)
        fed(rb, frame)
        seen.add(tuple(np.round(rb.gains(), 2)))
    assert len(seen) == 1


def test_the_balance_follows_a_new_light_and_lets_go_when_it_is_fine_again():
    rb = RunningBalance(every=1, least=1, window=6)
    warm, pink, plain = cloth_with_cards(TUNGSTEN), cloth_with_cards(MAGENTA), cloth_with_cards()
    fed(rb, warm, 6)
    fed(rb, pink)
    assert np.array_equal(rb.gains(), applied_gains(warm, ALLOWED, rb.keep))  # one frame: not yet
    fed(rb, pink, 6)
    assert np.array_equal(rb.gains(), applied_gains(pink, ALLOWED, rb.keep))
    fed(rb, plain, 6)
    assert rb(plain) is plain


def test_samples_are_taken_every_few_frames():
    rb = RunningBalance(every=5, least=2)
    pink = cloth_with_cards(MAGENTA)
    fed(rb, pink, 5)  # samples at the first frame only
    assert rb(pink) is pink
    fed(rb, pink)  # the sixth frame: the second sample
    assert rb(pink) is not pink


@pytest.fixture(scope="module")
def scene():
    from sueca.vision.train_data import render

    return render(970003, (1280, 960), ["test_light_sans"])


def test_a_tinted_video_is_read_as_its_balanced_frames(scene):
    """Once the running balance has its samples (from the cards it found), the live call reads
    a tinted frame as the recognizer without the balance reads the frame balanced by those gains."""
    from sueca.vision.balance import with_gains

    rec = load_recognizer()
    as_is = load_recognizer()
    as_is.config = replace(as_is.config, balance=None)
    frame = degrade(scene.image, "tint:1", seed=1)
    memory = OutlineMemory(balance=RunningBalance(every=1, least=1))
    first = rec(frame, memory=memory, threshold=rec.config.video_threshold)  # read as it came
    gains = memory.balance.gains()
    assert not np.all(gains == 1.0)
    got = rec(frame, memory=OutlineMemory(balance=memory.balance), threshold=rec.config.video_threshold)
    want = as_is(with_gains(frame, gains), memory=OutlineMemory(), threshold=rec.config.video_threshold)
    assert got.codes == want.codes and np.allclose(got.corners, want.corners)
    read = sum(c not in ("", "?") for c in got.codes)
    assert read > sum(c not in ("", "?") for c in first.codes)


def test_a_plain_video_frame_reads_the_same_with_or_without_the_balance(scene):
    rec = load_recognizer()
    as_is = load_recognizer()
    as_is.config = replace(as_is.config, balance=None)
    memory = OutlineMemory()
    for _ in range(3):
        got = rec(scene.image, memory=memory, threshold=rec.config.video_threshold)
    assert np.all(memory.balance.gains() == 1.0)
    want = as_is(scene.image, memory=OutlineMemory(), threshold=rec.config.video_threshold)
    assert got.codes == want.codes and np.allclose(got.confidence, want.confidence)
