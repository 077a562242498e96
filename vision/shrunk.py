"""An unread outline read again a little smaller.

Each card's outline is read as the outliner found it and 8% larger (a printed border
or a shadow can pull the found outline in). Where neither reads, the outline is often
too large instead: a partly covered card's outline reaches onto the card beside it, and
its corner crops take the index against their edge. The outline shrunk about its
centre (by ``outliner.shrunk``, 0.93 installed) is read once more, after every other
look at unread boxes (:mod:`sueca.vision.anchored`); a card read there and not read
elsewhere in the frame is reported on the box's own outline, which the shrunk one
differs from by a few pixels. (Of the 18 cards it read on the three printed held-out
sets, 10 had outlines 5-45% larger than the card, 5 about its size, 3 smaller; 14 were
under 70% in view.)

Against six nudged outlines (7% smaller and larger, moved 5% of a side either way
along each side), the shrunk one alone read as many of the test and printed cards
(three fewer of 2209 validation cards) at a sixth of the crops; grown alone, fewer
(``models/EXPERIMENTS.md``, thirteenth session). Still images only: on video each
card was read whole when it was played.

>>> from sueca.vision.refine import grown
>>> q = np.array([[0, 0], [100, 0], [100, 140], [0, 140]], np.float32)
>>> grown(q[None], 0.9)[0].tolist()   # the outline read again, shrunk by 0.9
[[5.0, 7.0], [95.0, 7.0], [95.0, 133.0], [5.0, 133.0]]
"""

from __future__ import annotations

import numpy as np

from sueca.vision.anchored import read_again, unread
from sueca.vision.refine import grown


def shrunk_look(recognizer, frame: np.ndarray, corners: np.ndarray, codes: list[str], confs: np.ndarray,
                threshold: float | None, factor: float, faces: dict | None = None,
                skip: np.ndarray | None = None) -> int:
    """Unread outlines read again shrunk by ``factor`` (``codes`` and ``confs`` in place; the
    outlines stay). ``skip``: boxes not to look at (the second opinions'). Returns how many
    cards it read."""
    todo = unread(codes, skip)
    if not todo:
        return 0
    hits = read_again(recognizer, frame, list(grown(corners[todo], factor)[:, None]), codes, threshold, faces)
    for k, code, conf in hits:
        codes[todo[k]], confs[todo[k]] = code, conf
    return len(hits)


__all__ = ["shrunk_look"]
