"""A video's colour cast measured over its recent frames (:class:`sueca.vision.balance.RunningBalance`)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from sueca.datasets.degrade import degrade
from sueca.vision.balance import RunningBalance, applied_gains, balanced
from sueca.vision.recognizer import load_recognizer
from sueca.vision.still import OutlineMemory

ALLOWED = (0.5, 0.15)


def cloth_with_cards(light=(1.0, 1.0, 1.0), shift: int = 0):
    """A green cloth with three white cards, lit by ``light`` (B, G, R gains)."""
    frame = np.full((480, 640, 3), (50, 110, 40), np.float32)
    for x in (100, 280, 460):
        frame[150 + shift:330 + shift, x:x + 110] = 240
    return np.clip(frame * np.float32(light), 0, 255).astype(np.uint8)


MAGENTA = (1.0, 0.65, 1.0)
TUNGSTEN = (0.5, 0.85, 1.06)


def skin():
    """A frame filled by a hand: its brightest pixels are not card stock."""
    return np.full((480, 640, 3), (120, 160, 230), np.uint8)


def test_nothing_is_corrected_before_enough_samples():
    rb = RunningBalance(every=1, least=3)
    frame = cloth_with_cards(MAGENTA)
    assert rb(frame, ALLOWED) is frame and rb(frame, ALLOWED) is frame
    assert rb(frame, ALLOWED) is not frame


def test_the_video_gets_the_still_images_gains_under_one_light():
    rb = RunningBalance(every=1, least=1)
    frame = cloth_with_cards(MAGENTA)
    assert np.array_equal(rb.gains(frame, ALLOWED), applied_gains(frame, ALLOWED))
    assert not np.all(rb.gains(frame, ALLOWED) == 1.0)


def test_a_neutral_video_is_never_touched():
    rb = RunningBalance(every=1, least=1)
    for k in range(20):
        frame = cloth_with_cards(shift=k)
        assert rb(frame, ALLOWED) is frame


def test_a_frame_filled_by_a_hand_does_not_move_the_gains():
    rb = RunningBalance(every=1, least=1)
    lit = cloth_with_cards(TUNGSTEN)
    first = [rb.gains(lit, ALLOWED) for _ in range(5)][-1]
    assert not np.array_equal(applied_gains(skin(), ALLOWED), first)  # alone it would
    assert np.array_equal(rb.gains(skin(), ALLOWED), first)
    assert np.array_equal(rb.gains(lit, ALLOWED), first)


def test_small_wobbles_of_the_estimate_keep_the_gains_fixed():
    """A few levels of brightness more or less (the camera's exposure) leave the gains as
    they were; the lying cards' crops stay the same and are not read afresh."""
    rb = RunningBalance(every=1, least=1)
    base = cloth_with_cards(TUNGSTEN).astype(np.int16)
    seen = set()
    for k in range(30):
        frame = np.clip(base * (1 + 0.03 * np.sin(k)) + (k % 3), 0, 255).astype(np.uint8)
        seen.add(tuple(np.round(rb.gains(frame, ALLOWED), 2)))
    assert len(seen) == 1


def test_the_balance_follows_a_new_light_and_lets_go_when_it_is_fine_again():
    rb = RunningBalance(every=1, least=1, window=6)
    warm, pink, plain = cloth_with_cards(TUNGSTEN), cloth_with_cards(MAGENTA), cloth_with_cards()
    for _ in range(6):
        rb(warm, ALLOWED)
    assert np.array_equal(rb.gains(pink, ALLOWED), applied_gains(warm, ALLOWED))  # one frame: not yet
    for _ in range(6):
        rb(pink, ALLOWED)
    assert np.array_equal(rb.gains(pink, ALLOWED), applied_gains(pink, ALLOWED))
    for _ in range(6):
        rb(plain, ALLOWED)
    assert rb(plain, ALLOWED) is plain


def test_samples_are_taken_every_few_frames():
    rb = RunningBalance(every=5, least=2)
    pink = cloth_with_cards(MAGENTA)
    for _ in range(5):
        assert rb(pink, ALLOWED) is pink  # one sample (frame 0)
    assert rb(pink, ALLOWED) is not pink  # frame 5: the second


@pytest.fixture(scope="module")
def scene():
    from sueca.vision.train_data import render

    return render(970003, (1280, 960), ["test_light_sans"])


def test_a_tinted_video_is_read_as_its_balanced_frames(scene):
    """Once the running balance has its samples, the live call reads a tinted frame as the
    recognizer without the balance reads the balanced frame."""
    rec = load_recognizer()
    as_is = load_recognizer()
    as_is.config = replace(as_is.config, balance=None)
    frame = degrade(scene.image, "tint:1", seed=1)
    fixed = balanced(frame, rec.config.balance)
    assert fixed is not frame
    memory = OutlineMemory(balance=RunningBalance(every=1, least=1))
    got = rec(frame, memory=memory, threshold=rec.config.video_threshold)
    want = as_is(fixed, memory=OutlineMemory(), threshold=rec.config.video_threshold)
    assert got.codes == want.codes and np.allclose(got.corners, want.corners)
    assert sum(c != "?" for c in got.codes) > sum(
        c != "?" for c in as_is(frame, memory=OutlineMemory(), threshold=rec.config.video_threshold).codes)


def test_a_plain_video_frame_reads_the_same_with_or_without_the_balance(scene):
    rec = load_recognizer()
    as_is = load_recognizer()
    as_is.config = replace(as_is.config, balance=None)
    got = rec(scene.image, memory=OutlineMemory(), threshold=rec.config.video_threshold)
    want = as_is(scene.image, memory=OutlineMemory(), threshold=rec.config.video_threshold)
    assert got.codes == want.codes and np.allclose(got.confidence, want.confidence)
