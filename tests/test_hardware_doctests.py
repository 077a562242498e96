"""The small examples in the hardware and geometry docstrings stay true."""

import doctest

import pytest

import sueca.hardware.files
import sueca.hardware.images
import sueca.hardware.picamera
import sueca.hardware.sources
import sueca.vision.geometry


@pytest.mark.parametrize("module", [sueca.hardware.sources, sueca.hardware.files, sueca.hardware.images,
                                    sueca.hardware.picamera, sueca.vision.geometry])
def test_docstring_examples(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
