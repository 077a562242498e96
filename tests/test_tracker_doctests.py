"""The docstring examples of the tracking and play-event modules run."""

import doctest

import pytest

import sueca.vision.gamecheck
import sueca.vision.play_parts
import sueca.vision.simtable
import sueca.vision.tracker


@pytest.mark.parametrize("module", [sueca.vision.tracker, sueca.vision.play_parts, sueca.vision.gamecheck,
                                    sueca.vision.simtable], ids=lambda m: m.__name__)
def test_doctests(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
