"""``scripts/versions_check.py``: a scene read back from its cache is the scene rendered."""

from __future__ import annotations

import numpy as np
from _scripts import load_script


def _script():
    return load_script("versions_check")


def test_a_cached_scene_is_the_rendered_one(tmp_path, monkeypatch):
    from sueca.vision import train_data

    monkeypatch.setattr(train_data, "render", train_data.render)  # restored after the test
    original = train_data.render
    _script().cached_render(tmp_path)
    fresh = train_data.render(900003, (320, 240), "test")
    assert len(list(tmp_path.glob("*.png"))) == 1
    calls = []
    monkeypatch.setattr(train_data, "render", lambda *a, **k: calls.append(a) or original(*a, **k))
    _script().cached_render(tmp_path)
    again = train_data.render(900003, (320, 240), "test")
    assert not calls  # read from the files, not rendered
    assert np.array_equal(again.image, fresh.image)
    assert [c.code for c in again.cards] == [c.code for c in fresh.cards]
    for a, b in zip(again.cards, fresh.cards):
        assert a.readable == b.readable and a.face_up == b.face_up
        assert np.allclose(a.corners, b.corners, atol=0.01)
    assert again.seed == fresh.seed and again.meta.get("table") == fresh.meta.get("table")


def test_scenes_with_render_options_are_cached_apart(tmp_path, monkeypatch):
    from sueca.vision import train_data

    monkeypatch.setattr(train_data, "render", train_data.render)  # restored after the test
    original = train_data.render
    _script().cached_render(tmp_path)
    plain = train_data.render(900003, (320, 240), "test")
    tilted = train_data.render(900003, (320, 240), "test", max_tilt=45.0)
    assert len(list(tmp_path.glob("*.png"))) == 2 and not np.array_equal(plain.image, tilted.image)
    calls = []
    monkeypatch.setattr(train_data, "render", lambda *a, **k: calls.append(a) or original(*a, **k))
    _script().cached_render(tmp_path)
    again = train_data.render(900003, (320, 240), "test", max_tilt=45.0)
    assert not calls and np.array_equal(again.image, tilted.image)
