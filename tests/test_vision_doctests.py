"""The docstring examples of the recognition helpers run."""

import doctest

import pytest

import sueca.vision.anchored
import sueca.vision.balance
import sueca.vision.closeup
import sueca.vision.deduce
import sueca.vision.detections
import sueca.vision.face_suit
import sueca.vision.last_look
import sueca.vision.play_parts
import sueca.vision.fans
import sueca.vision.proposals
import sueca.vision.readings
import sueca.vision.recognizer_config
import sueca.vision.shrunk
import sueca.vision.split_box
import sueca.vision.still
import sueca.vision.tiles
import sueca.vision.train_eval


@pytest.mark.parametrize("module", [sueca.vision.readings, sueca.vision.still, sueca.vision.proposals, sueca.vision.fans,
                                    sueca.vision.face_suit, sueca.vision.recognizer_config, sueca.vision.closeup,
                                    sueca.vision.detections, sueca.vision.train_eval,
                                    sueca.vision.shrunk, sueca.vision.split_box, sueca.vision.last_look, sueca.vision.anchored, sueca.vision.balance,
                                    sueca.vision.tiles, sueca.vision.deduce, sueca.vision.play_parts],
                         ids=lambda m: m.__name__)
def test_doctests(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
