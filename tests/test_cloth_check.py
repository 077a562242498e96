"""``scripts/cloth_check.py``: cards on a bright cloth, read with the colour balance and without."""

import json

import numpy as np
import pytest
from _scripts import load_script


def test_one_scene_on_a_yellow_cloth_reads_as_without_the_balance(capsys):
    assert load_script("cloth_check").main(["--scenes", "1", "--cloths", "yellow", "--json"]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    row = out["cloths"]["yellow"]
    assert out["scenes"] == 1 and out["seeds"][0] == 976000 and 1 <= out["cards"] <= 3
    assert row["frame_estimate_changes"] == 1  # the frame alone would take the cloth for the light
    assert row["balanced"] == row["bare"] and row["balanced"][0] >= 1 and row["balanced"][1] == 0


def test_the_cloth_is_painted_outside_the_cards_only():
    from sueca.datasets.scene import render_scene

    scene = render_scene(976000, (320, 240), "test")
    img = load_script("cloth_check").on_cloth(scene, (60, 220, 250))
    changed = np.any(img != scene.image, axis=2)
    assert changed.mean() > 0.5
    cx, cy = np.asarray(scene.cards[0].corners).mean(axis=0).round().astype(int)
    assert not changed[cy, cx]


@pytest.mark.parametrize("argv", [["--cloths", "tartan"], ["--scenes", "0"]])
def test_bad_options_are_refused(argv):
    with pytest.raises(SystemExit, match="cloth_check"):
        load_script("cloth_check").main(argv)
