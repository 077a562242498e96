"""All the third-party art the recipe may use, fetched at build time, and what is there now.

The generator draws a few styles from art it cannot ship (licence-checked, never
committed): Adrian Kennard's CC0 deck (:mod:`svgdeck`), CC0 photo textures
(:mod:`phototex`) and other artists' printed decks (:mod:`realdecks`). Each is
optional, and a style whose art is missing is simply not drawn, so a model trained
without them is a different model. ``sueca train`` therefore fetches them first and
records :func:`fetched` in the model's ``info``; this machine may still be offline,
which is said in the log and in that record rather than stopping the run.

>>> sorted(fetched())
['letele', 'printed_decks', 'textures']
"""

from __future__ import annotations

import subprocess
from typing import Callable

#: What a fetch may fail with (no network, a changed package, a tool missing or stuck);
#: ``realdecks.fetch_heldout_decks`` catches these deck by deck too.
FETCH_ERRORS = (RuntimeError, ValueError, OSError, KeyError, subprocess.SubprocessError)


def fetch_all(log: Callable[[str], None] = print) -> dict[str, str]:
    """Fetch (or find cached) every piece of art; returns what -> cache folder or why not.
    A failure is logged and returned, never raised: the run goes on without that art."""
    from . import phototex, realdecks, svgdeck

    out: dict[str, str] = {}
    for name, fetch in (("letele", svgdeck.fetch_deck), ("textures", phototex.fetch_textures)):
        try:
            out[name] = str(fetch())
        except FETCH_ERRORS as e:
            out[name] = f"not made: {e}"
        log(f"fetch {name}: {out[name]}")
    try:
        made = realdecks.fetch_heldout_decks(log=lambda m: None)
    except FETCH_ERRORS as e:
        made = {"printed_decks": f"not made: {e}"}
    out.update(made)
    missing = {k: v for k, v in made.items() if v.startswith("not made")}
    log(f"fetch printed decks: {len(made) - len(missing)} of {len(made)} there"
        + "".join(f"; {k} {v}" for k, v in missing.items()))
    return out


def fetched() -> dict:
    """What is cached now: ``{"letele": bool, "textures": bool, "printed_decks": [names]}``."""
    from . import phototex, realdecks, svgdeck

    return {"letele": svgdeck.available("letele"), "textures": phototex.available(),
            "printed_decks": [d for d in realdecks.DECKS if realdecks.available(d)]}


__all__ = ["fetch_all", "fetched"]
