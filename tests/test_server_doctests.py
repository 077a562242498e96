"""The examples in the server's docstrings run as written."""

import doctest
import importlib

import pytest

MODULES = ["config", "store", "replay", "view", "push", "service", "feed", "app", "runner", "demo"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(f"sueca.server.{name}"))
    assert result.failed == 0
