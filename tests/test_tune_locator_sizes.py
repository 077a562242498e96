"""``scripts/tune_locator_sizes.py``: its data parts and argument checks (training itself needs torch)."""

import argparse

import pytest
from _scripts import load_script


def _script():
    return load_script("tune_locator_sizes")


def _args(**kw):
    base = dict(big_scenes=700, big_real_scenes=300, synth_scenes=1500, real_scenes=300, card_frac=(0.2, 0.7))
    return argparse.Namespace(**{**base, **kw})


def test_parts_keep_their_seeds_and_order():
    mod = _script()
    p = mod.parts(_args())
    assert [x[0] for x in p] == ["big", "bigreal", "synth", "real", "synth2", "real2"]
    assert [x[3] for x in p] == [700, 300, 800, 200, 700, 100]
    assert [x[1] for x in p] == [mod.SEED0 + 10_000 * k for k in range(6)]
    assert p[0][4] == {"card_frac": (0.2, 0.7)} and p[2][4] == {}
    # the seeds of one part never reach the next part's
    assert all(a[1] + a[3] <= b[1] for a, b in zip(p, p[1:]))


def test_empty_parts_are_left_out():
    p = _script().parts(_args(big_real_scenes=0, synth_scenes=500, real_scenes=0))
    assert [x[0] for x in p] == ["big", "synth"]
    assert [x[3] for x in p] == [700, 500]


@pytest.mark.parametrize("argv", [["--card-frac", "0.7", "0.2"], ["--epochs", "0"], ["--big-scenes", "5"]])
def test_bad_arguments_are_refused(argv, tmp_path):
    with pytest.raises(SystemExit):
        _script().main(["--out", str(tmp_path), *argv])


def test_the_parts_go_into_one_dataset_file(tmp_path):
    from sueca.vision.train_data import write_yaml

    lines = write_yaml(tmp_path, ["big", "synth"]).read_text().splitlines()
    assert lines == [f"path: {tmp_path.resolve()}", "train: [big/images/train, synth/images/train]",
                     "val: [big/images/val, synth/images/val]", "names:", "  0: card"]
    # one folder of its own, as the recipe's
    assert write_yaml(tmp_path).read_text().splitlines()[1:3] == ["train: images/train", "val: images/val"]
