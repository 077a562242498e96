"""``sueca.datasets.degrade`` and ``scripts/robustness_check.py``: each degradation does what
its name says, more of it does more, and the check reads degraded scenes with the truth kept."""

import doctest
import json

import cv2
import numpy as np
import pytest
from _scripts import load_script

import sueca.datasets.degrade as degrade_mod
from sueca.datasets.degrade import DEGRADATIONS, _EXAMPLE, degrade, parse


@pytest.fixture(scope="module")
def card_image():
    """A grey table with a white card and a black index: edges, flat areas, both extremes."""
    img = np.full((240, 320, 3), (70, 110, 60), np.uint8)
    cv2.rectangle(img, (100, 50), (190, 180), (245, 245, 245), -1)
    cv2.putText(img, "7", (106, 80), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (20, 20, 20), 2)
    return img


def _sharpness(img):
    return float(cv2.Laplacian(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var())


def test_the_doctests_run():
    result = doctest.testmod(degrade_mod)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("name", sorted(DEGRADATIONS))
def test_each_changes_the_picture_keeps_its_shape_and_repeats_with_its_seed(name, card_image):
    spec = f"{name}:{_EXAMPLE[name]}"
    out = degrade(card_image, spec, seed=3)
    assert out.shape == card_image.shape and out.dtype == np.uint8
    assert (out != card_image).any()
    assert np.array_equal(out, degrade(card_image, spec, seed=3))
    assert degrade(card_image, "none", seed=3) is card_image


def test_more_blur_is_blurrier(card_image):
    s = [_sharpness(degrade(card_image, f"defocus:{v}")) for v in (0.8, 1.5, 3)]
    assert s[0] > s[1] > s[2]
    m = [_sharpness(degrade(card_image, f"motion:{v}", seed=1)) for v in (3, 9, 17)]
    assert m[0] > m[1] > m[2]
    r = [_sharpness(degrade(card_image, f"lowres:{v}")) for v in (0.8, 0.5, 0.25)]
    assert r[0] > r[1] > r[2]


def test_lower_quality_and_darker_light_lose_more(card_image):
    err = lambda spec: float(np.abs(degrade(card_image, spec, seed=2).astype(int) - card_image).mean())  # noqa: E731
    assert err("jpeg:60") < err("jpeg:25") < err("jpeg:8")
    assert err("noise:5") < err("noise:20")
    assert err("dark:0.5") < err("dark:0.1")
    assert err("haze:0.8") < err("haze:0.3")


def test_a_tungsten_cast_is_orange_and_a_fluorescent_one_is_not(card_image):
    white = card_image[100, 150].astype(int)  # a white card pixel, BGR
    warm = degrade(card_image, "cast:1")[100, 150].astype(int)
    cold = degrade(card_image, "cast:-1")[100, 150].astype(int)
    assert warm[2] > warm[0] and warm[0] < white[0]  # red over blue
    assert cold[0] > cold[2]


def test_glare_burns_out_and_a_shadow_darkens(card_image):
    flat = np.full((200, 200, 3), 100, np.uint8)
    glare = degrade(flat, "glare:0.2", seed=5)
    assert glare.max() == 255 and glare.min() >= 100
    shadow = degrade(flat, "shadow:0.4", seed=5)
    assert shadow.min() == 40 and shadow.max() == 100  # 0.4 of the light inside, all of it outside


@pytest.mark.parametrize("spec, words", [("blur:2", "unknown degradation 'blur'"), ("jpeg", "needs a level"),
                                         ("jpeg:high", "not a number")])
def test_a_bad_spec_says_what_is_wrong(spec, words):
    with pytest.raises(ValueError, match=words):
        parse(spec)


def test_the_check_refuses_a_bad_row():
    with pytest.raises(SystemExit, match="unknown degradation"):
        load_script("robustness_check").main(["--scenes", "1", "--rows", "none", "smudge:3"])


def test_the_check_reads_degraded_scenes_against_the_same_truth(capsys):
    """The installed models on one scene of each deck: a clean row reads cards; a picture
    shrunk to a tenth of its resolution reads fewer, and the truth (readable cards) is the same."""
    rc = load_script("robustness_check").main(["--scenes", "1", "--rows", "none", "lowres:0.1", "--json"])
    assert rc == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    assert [r["picture"] for r in rows] == ["none", "lowres:0.1"]
    clean, blurred = (r["groups"]["synthetic"] for r in rows)
    assert clean["readable_cards"] == blurred["readable_cards"] > 0
    assert clean["read_right"] > blurred["read_right"]
    assert blurred["wrong_identities"] <= blurred["reported_identities"]


def test_the_check_prints_the_balance_allowances(capsys):
    """``--allowances``: the colour balance's rule on generated validation scenes, one line a percentile."""
    assert load_script("robustness_check").main(["--allowances", "3"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert [ln.split(":")[0] for ln in lines] == [f"percentile {q}" for q in (90, 95, 98, 99)]
    values = [[float(part.split()[-1]) for part in ln.split(":")[1].split(",")] for ln in lines]
    assert all(v >= 0 for row in values for v in row)
    for axis in (0, 1):  # higher percentiles, larger allowances
        assert [row[axis] for row in values] == sorted(row[axis] for row in values)
