"""A strong colour cast taken back before reading (``balance``, :mod:`sueca.vision.balance`)."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from sueca.datasets.degrade import degrade
from sueca.vision.balance import applied_gains, balanced, cast_axes, cast_gains

ALLOWED = (0.5, 0.15)
from sueca.vision.recognizer import RecognizerConfig, default_model_dir, load_recognizer


def cloth_with_cards(light=(1.0, 1.0, 1.0)):
    """A green cloth with three white cards, lit by ``light`` (B, G, R gains)."""
    frame = np.full((480, 640, 3), (50, 110, 40), np.float32)
    for x in (100, 280, 460):
        frame[150:330, x:x + 110] = 240
    return np.clip(frame * np.float32(light), 0, 255).astype(np.uint8)


def test_white_cards_under_neutral_light_need_no_gain():
    assert np.allclose(cast_gains(cloth_with_cards()), 1.0)
    assert np.allclose(cast_axes(cloth_with_cards()), 0.0)


def test_the_axes_tell_a_warm_light_from_a_magenta_one():
    warm = cast_axes(cloth_with_cards((0.6, 0.85, 1.0)))
    magenta = cast_axes(cloth_with_cards((1.0, 0.7, 1.0)))
    assert warm[0] > 0.4 and abs(magenta[0]) < 0.02
    assert magenta[1] > 0.3


def test_a_neutral_frame_is_returned_untouched():
    frame = cloth_with_cards()
    assert balanced(frame, ALLOWED) is frame


def test_a_cast_within_what_was_learnt_is_left_alone():
    frame = cloth_with_cards((0.85, 1.0, 1.12))  # a warm lamp within the generator's range
    assert balanced(frame, ALLOWED) is frame


@pytest.mark.parametrize("light", [(0.5, 0.85, 1.06), (1.0, 0.65, 1.0)], ids=["tungsten", "magenta"])
def test_a_strong_cast_is_taken_back_by_the_allowance_not_made_neutral(light):
    frame = cloth_with_cards(light)
    before = cast_axes(frame)
    out = balanced(frame, ALLOWED)
    after = cast_axes(out)
    axis = int(np.argmax(np.abs(before) - ALLOWED))  # the axis past its allowance
    assert abs(before[axis]) > ALLOWED[axis] + 0.1
    # taken back by the allowance only (to within the gains' rounding): the cast left is the allowance
    assert abs(abs(after[axis]) - ALLOWED[axis]) < 0.04
    assert np.sign(after[axis]) == np.sign(before[axis])


def test_the_gains_are_rounded_so_pictures_under_one_light_get_the_same():
    a = cloth_with_cards((0.5, 0.85, 1.06))
    b = np.clip(a.astype(int) + 1, 0, 255).astype(np.uint8)  # another picture, a level brighter
    assert not np.array_equal(cast_gains(a), cast_gains(b))
    assert np.array_equal(applied_gains(a, ALLOWED), applied_gains(b, ALLOWED))


def _config_with_balance(folder, value):
    cfg = json.loads((default_model_dir() / "recognizer.json").read_text())
    cfg["balance"] = value
    (folder / "recognizer.json").write_text(json.dumps(cfg))
    return folder


@pytest.mark.parametrize("bad", ["yes", True, 0.25, [0.5], [0.5, -0.1], [0.5, 2], [True, 0.1], [0.5, 0.15, 0.1]])
def test_a_bad_balance_setting_is_refused_naming_the_file(tmp_path, bad):
    with pytest.raises(ValueError, match=r"recognizer\.json: balance must be"):
        RecognizerConfig.load(_config_with_balance(tmp_path, bad))


@pytest.mark.parametrize("good", [None, [0, 0], [0.5, 0.15]])
def test_the_balance_settings_load_and_round_trip(tmp_path, good):
    cfg = RecognizerConfig.load(_config_with_balance(tmp_path, good))
    assert cfg.balance == (None if good is None else tuple(good))
    assert cfg.to_dict().get("balance") == good


@pytest.fixture(scope="module")
def scene():
    from sueca.vision.train_data import render

    return render(970003, (1280, 960), ["test_light_sans"])


def test_the_installed_model_reads_a_cast_frame_as_the_balanced_frame(scene):
    rec = load_recognizer()
    assert rec.config.balance is not None
    frame = degrade(scene.image, "tint:1", seed=1)
    fixed = balanced(frame, rec.config.balance)
    assert fixed is not frame
    as_is = load_recognizer()
    as_is.config = replace(as_is.config, balance=None)
    got, want = rec(frame), as_is(fixed)
    assert got.codes == want.codes and np.allclose(got.corners, want.corners)


def test_a_frame_without_a_cast_reads_the_same_with_or_without_the_balance(scene):
    rec = load_recognizer()
    as_is = load_recognizer()
    as_is.config = replace(as_is.config, balance=None)
    assert balanced(scene.image, rec.config.balance) is scene.image
    got, want = rec(scene.image), as_is(scene.image)
    assert got.codes == want.codes and np.allclose(got.confidence, want.confidence)


def test_a_still_image_is_balanced_as_its_cards_say():
    """A few small cards on a bright yellow cloth: the cloth fills the frame's brightest 2%
    and would turn the cards blue; the cards found say the light is fine."""
    from sueca.vision.balance import checked_on_cards

    frame = np.full((960, 1280, 3), (60, 220, 250), np.uint8)
    frame[400:496, 600:664] = 235
    card = np.array([[[600, 400], [663, 400], [663, 495], [600, 495]]], np.float32)
    assert balanced(frame, ALLOWED) is not frame
    assert checked_on_cards(frame, ALLOWED, lambda f: card) is frame
    # nothing found: the frame's own estimate stands (a strong cast can hide every card)
    none = np.zeros((0, 4, 2), np.float32)
    assert np.array_equal(checked_on_cards(frame, ALLOWED, lambda f: none), balanced(frame, ALLOWED))


def test_a_strong_cast_on_the_cards_is_taken_back_as_before():
    from sueca.vision.balance import checked_on_cards

    frame = cloth_with_cards((1.0, 0.65, 1.0))
    cards = np.array([[[x, 150], [x + 109, 150], [x + 109, 329], [x, 329]] for x in (100, 280, 460)], np.float32)
    asked = []
    out = checked_on_cards(frame, ALLOWED, lambda f: asked.append(f) or cards)
    assert asked and asked[0] is frame  # the locator looks at the frame as it came
    assert np.array_equal(out, balanced(frame, ALLOWED))
    plain = cloth_with_cards()
    assert checked_on_cards(plain, ALLOWED, lambda f: asked.append(f) or cards) is plain
    assert len(asked) == 1  # a frame within the allowance is not located twice


def test_the_installed_model_reads_cards_on_a_yellow_cloth_as_they_are():
    """Three cards on a flat yellow cloth: balanced by the frame's brightest pixels none is
    read; checked on the cards, all three are, as without a balance."""
    import cv2

    from sueca.datasets.scene import render_scene

    sc = render_scene(976000, (1280, 960), "test")
    img = sc.image.copy()
    mask = np.zeros(img.shape[:2], np.uint8)
    for c in sc.cards:
        cv2.fillPoly(mask, [np.round(np.asarray(c.corners)).astype(np.int32)], 1)
    img[mask == 0] = (60, 220, 250)
    rec = load_recognizer()
    as_is = load_recognizer()
    as_is.config = replace(as_is.config, balance=None)
    got, want = rec(img), as_is(img)
    assert got.codes == want.codes and np.allclose(got.confidence, want.confidence)
    assert sorted(c for c in got.codes if c not in ("", "?")) == ["9C", "9H", "KS"]
    # the whole frame so balanced (a tile's cards are balanced by that tile's own look)
    assert all(c in ("", "?") for c in as_is(balanced(img, rec.config.balance), tiles=False).codes)
