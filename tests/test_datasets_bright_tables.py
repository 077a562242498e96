"""White table tops: drawn only where asked for, as bright as a card's stock."""

import numpy as np
import pytest

from sueca.datasets.scene import render_scene
from sueca.datasets.textures import BRIGHT_KINDS, KINDS, table_kinds, table_texture


@pytest.mark.parametrize("kind", BRIGHT_KINDS)
def test_each_white_top_is_near_white_and_fixed_by_its_variant(kind):
    a, b = table_texture(kind, 0), table_texture(kind, 3)
    assert a.shape == (768, 768, 3) and a.dtype == np.uint8
    assert np.all(a.reshape(-1, 3).mean(0) > 215)               # as bright as card stock, every channel
    assert a.std() < 12                                          # a faint texture, no pattern to see edges by
    assert np.array_equal(a, table_texture(kind, 0)) and not np.array_equal(a, b)


def test_the_generator_draws_them_only_when_asked():
    assert not set(BRIGHT_KINDS) & set(table_kinds()) and not set(BRIGHT_KINDS) & set(KINDS)
    seen = {render_scene(seed, (320, 240), "test", tables=BRIGHT_KINDS).meta["table"] for seed in range(12)}
    assert seen <= set(BRIGHT_KINDS) and len(seen) >= 2
    plain = {render_scene(seed, (320, 240), "test").meta["table"] for seed in range(12)}
    assert not plain & set(BRIGHT_KINDS)


def test_an_unknown_table_is_named_in_the_error():
    with pytest.raises(ValueError, match="white_felt"):
        table_texture("white_felt", 0)
