"""The ``sueca`` command.

Each part of the product registers its own subcommands: a module listed in
``COMMAND_MODULES`` defines ``register(subparsers)``, which adds its parsers and
sets ``func`` on each. Registration must stay cheap (no heavy imports): the
handlers import what they need when they run.
"""

from __future__ import annotations

import argparse
import importlib
import sys

COMMAND_MODULES = (
    "sueca.commands.serve",
    "sueca.commands.score",
    "sueca.commands.calibrate",
    "sueca.commands.detect",
    "sueca.commands.train",
    "sueca.commands.dataset",
    "sueca.commands.run",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sueca",
        description="Árbitro de Sueca por câmara / a camera referee for Sueca.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
