"""The live state (``GET /api/state``, each ``/api/stream`` message) as typed models.

``view.build_state`` builds the dict; these models are its published schema.
``extra="allow"`` keeps a field added to the dict from being dropped before the
schema catches up; the tests check that there are no such extras.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Out(BaseModel):
    model_config = ConfigDict(extra="allow")


class MatchInfo(_Out):
    id: int
    title: str
    created: float
    live: bool


class PlayOut(_Out):
    hand: int
    index: int
    seat: int
    card: str
    uncertain: bool
    confidence: float | None = None


class TrickOut(_Out):
    number: int
    leader: int
    winner: int | None
    complete: bool
    points: int | None = None
    plays: list[PlayOut]


class LiveHand(_Out):
    index: int
    dealer: int
    trump_card: str
    trump: Literal["S", "H", "D", "C"]
    trump_card_played: bool
    leader: int
    turn: int | None
    over: bool
    tricks_done: int
    plays: int
    trick: TrickOut
    points: list[int]
    tricks_won: list[int]
    riscos: list[int]
    outcome: str
    play_list: list[PlayOut]


class HistoryEntry(_Out):
    index: int
    dealer: int
    trump_card: str
    points: list[int]
    tricks_won: list[int]
    riscos: list[int]
    outcome: str
    complete: bool
    bonus: int
    renuncias: int


class RenunciaOut(_Out):
    """A proven renúncia with its evidence; ``snapshots``: [the offence, the proof] URLs or null."""

    hand: int
    seat: int
    trick: int
    led_suit: str
    proven_at_trick: int
    proof_card: str
    proof_play: int
    kind: str
    status: Literal["applied", "proven", "pending", "confirmed", "dismissed"]
    offence_play: int
    offence_card: str | None
    snapshots: list[str | None]


class UncertainPlay(PlayOut):
    snapshot: str | None = None


class Mismatch(_Out):
    hand: int
    play: int
    expected: int
    seen: int
    card: str


class SourceStatusOut(_Out):
    connected: bool
    fps: float
    frames: int
    model: str
    last_error: str
    source: str = ""
    t: float = 0.0
    held: int = Field(0, description="plays the camera holds back behind a card nobody could read; "
                                     "a manual play of that card lets them in")
    held_t: float | None = Field(None, description="source time (s) at which the unread card was played")
    slow: bool = Field(False, description="the live camera is read at fewer frames a second than the referee "
                                          "needs (sueca.vision.pipeline.MIN_LIVE_FPS): plays may go to the referee")


class StateOut(_Out):
    version: int
    match: MatchInfo
    players: list[str]
    teams: list[str]
    rules: dict[str, Any]
    target: int
    riscos: list[int]
    winner: int | None
    leading: int | None
    pending_bonus: int
    history: list[HistoryEntry]
    hand: LiveHand | None
    renuncias: list[RenunciaOut]
    uncertain: list[UncertainPlay]
    mismatches: list[Mismatch]
    rejected: list[dict[str, Any]]
    errors: list[dict[str, Any]]
    status: SourceStatusOut
    server_time: float


def extras(model: BaseModel, path: str = "") -> list[str]:
    """Fields present in the data but not in the schema (recursively)."""
    out = [f"{path}{k}" for k in (model.model_extra or {})]
    for name in type(model).model_fields:
        value = getattr(model, name)
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, BaseModel):
                out += extras(item, f"{path}{name}.")
    return out
