"""What the live pipeline tells the rest of the product.

Frames go in, these come out, one way: the engine and the store never look at
pixels. Times are seconds since the start of the source.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class PlayEvent:
    """A card came to rest in the play area and its identity settled.

    ``seat`` is where the card came from (the table sector), ``None`` when the
    geometry could not tell. ``uncertain`` marks an identity the referee must
    confirm (the pipeline never guesses). ``snapshot_jpeg`` is a small JPEG of
    the table at that moment, evidence for the dashboard. ``hint`` is, for a play
    given without a card, the reading it had that was too weak to give (one frame's,
    say): never recorded as its card, it only helps tell apart, at the hand's end,
    the cards nobody read (:func:`sueca.vision.deduce.reconcile`). ``unseen`` marks a play
    given without a card because nobody saw the card at all: the seats around it show that
    ``seat`` played (:mod:`sueca.vision.play_missed`).
    """

    card: str
    seat: int | None
    t: float
    confidence: float
    uncertain: bool = False
    frame_index: int = -1
    snapshot_jpeg: bytes | None = field(default=None, repr=False)
    hint: str = ""
    unseen: bool = False


@dataclass(frozen=True)
class TrumpSeen:
    """The turned trump card lies face up beside ``seat``: that seat deals."""

    card: str
    seat: int
    t: float
    confidence: float


@dataclass(frozen=True)
class TrickCleared:
    """The cards of the trick in the middle were swept away."""

    t: float
    cards: tuple[str, ...] = ()


@dataclass(frozen=True)
class PlayCorrected:
    """A play emitted ``uncertain`` was read after all: the play of time
    ``play_t`` is ``card`` (it was emitted as ``previous``, '' when unreadable)."""

    card: str
    previous: str
    play_t: float
    t: float
    confidence: float


@dataclass(frozen=True)
class SourceStatus:
    """Health of the frame source and the pipeline, for the status line."""

    connected: bool
    fps: float
    frames: int
    model: str = ""
    last_error: str = ""
    t: float = 0.0
    held: int = 0                  # plays held behind a card nobody could read ...
    held_t: float | None = None    # ... which hit the table at this source time
    slow: bool = False             # a live source read at under MIN_LIVE_FPS frames a second


PipelineEvent = PlayEvent | TrumpSeen | TrickCleared | SourceStatus | PlayCorrected
