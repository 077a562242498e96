"""The examples in the engine's docstrings are part of its contract."""

import doctest
import importlib

import pytest

MODULES = ["sueca.engine", "sueca.engine.cards", "sueca.engine.rules", "sueca.engine.hand",
           "sueca.engine.scoring", "sueca.engine.record", "sueca.engine.match", "sueca.engine.deal"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0
