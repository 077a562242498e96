"""``scripts/tune_locator_tables.py``: its data parts and argument checks (training itself needs torch)."""

import argparse

import pytest
from _scripts import load_script

from sueca.datasets.textures import BRIGHT_KINDS


def _script():
    return load_script("tune_locator_tables")


def _args(**kw):
    base = dict(bright_scenes=500, bright_real_scenes=250, synth_scenes=700, real_scenes=250)
    return argparse.Namespace(**{**base, **kw})


def test_white_parts_ask_for_the_white_tops_and_the_others_for_the_generators_tables():
    mod = _script()
    p = mod.parts(_args())
    assert [x[0] for x in p] == ["white", "whitereal", "synth", "real"]
    assert [x[2] for x in p] == [None, "real_train_all", None, "real_train_all"]
    assert p[0][4] == p[1][4] == {"tables": BRIGHT_KINDS} and p[2][4] == p[3][4] == {}
    # each part its own seeds, and none reaches the next part's
    assert all(a[1] + a[3] <= b[1] for a, b in zip(p, p[1:]))


def test_empty_parts_are_left_out():
    p = _script().parts(_args(bright_real_scenes=0, real_scenes=0))
    assert [x[0] for x in p] == ["white", "synth"]


@pytest.mark.parametrize("argv", [["--epochs", "0"], ["--bright-scenes", "5"], ["--synth-scenes", "3"]])
def test_bad_arguments_are_refused(argv, tmp_path):
    with pytest.raises(SystemExit):
        _script().main(["--out", str(tmp_path), *argv])
