"""Request and response bodies of the HTTP API (the OpenAPI schema is the contract)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

CARD_PATTERN = r"^(A|[2-9]|10|J|Q|K)[SHDC]$"

CardCode = Annotated[str, StringConstraints(pattern=CARD_PATTERN),
                     Field(description="Card code, rank then suit: AS, 7H, 10D, QC", examples=["7H"])]
Seat = Annotated[int, Field(ge=0, le=3, description="Seat 0..3 in playing order")]
HandIndex = Annotated[int, Field(ge=0, le=1000, description="0-based hand number")]
PlayIndex = Annotated[int, Field(ge=0, le=39, description="0-based play number in the hand")]
Name = Annotated[str, StringConstraints(min_length=1, max_length=40, strip_whitespace=True)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RulesIn(Strict):
    """Variants of rules.md; omitted keys keep their current value."""

    target: Annotated[int, Field(ge=1, le=100, description="riscos to win; 4 by default, 3, 5, 7, 10 are common")] | None = None
    capote: Literal["all_tricks", "points_120"] | None = None
    tie: Literal["nothing", "next_hand_bonus"] | None = None
    first_lead: Literal["right_of_dealer", "cutter"] | None = None
    renuncia: Literal["auto", "claim"] | None = None
    forced_trump: bool | None = None
    pente: bool | None = None
    rolha: bool | None = None
    ten_for_seven: bool | None = None

    def given(self) -> dict:
        return self.model_dump(exclude_none=True)


class NamesIn(Strict):
    players: Annotated[list[Name], Field(min_length=4, max_length=4)] | None = None
    teams: Annotated[list[Name], Field(min_length=2, max_length=2)] | None = None


class NewMatchIn(Strict):
    title: Annotated[str, StringConstraints(max_length=80)] = ""
    rules: RulesIn | None = None
    names: NamesIn | None = None


class NewHandIn(Strict):
    dealer: Seat
    trump_card: CardCode
    leader: Seat | None = None


class DealerIn(Strict):
    dealer: Seat


class TrumpIn(Strict):
    trump_card: CardCode


class PlayIn(Strict):
    """A play the referee enters by hand (the camera missed it)."""

    card: CardCode
    seat: Seat | None = None


class CorrectPlayIn(Strict):
    """Correct the card and/or the seat of a play; ``seat: null`` clears the seat."""

    card: CardCode | None = None
    seat: Seat | None = None
    clear_seat: bool = False


class ConfirmPlayIn(Strict):
    card: CardCode | None = Field(None, description="The right card, if the camera's guess was wrong")


class RenunciaDecisionIn(Strict):
    hand: HandIndex
    seat: Seat
    trick: Annotated[int, Field(ge=0, le=9)]
    confirm: bool


class TitleIn(Strict):
    title: Annotated[str, StringConstraints(max_length=80)]


class Point(BaseModel):
    model_config = ConfigDict(extra="forbid")
    x: Annotated[float, Field(ge=-100000, le=100000)]
    y: Annotated[float, Field(ge=-100000, le=100000)]


class CalibrationIn(Strict):
    """Calibration file of interfaces.md: image pixel coordinates."""

    image_size: Annotated[list[Annotated[int, Field(ge=1, le=20000)]], Field(min_length=2, max_length=2)]
    center: Annotated[list[Annotated[float, Field(ge=-100000, le=100000)]], Field(min_length=2, max_length=2)]
    seats: Annotated[list[Annotated[list[Annotated[float, Field(ge=-100000, le=100000)]],
                                    Field(min_length=2, max_length=2)]],
                     Field(min_length=4, max_length=4)]


class ImportIn(Strict):
    """A game record (interfaces.md) to import as a new match."""

    record: dict[str, Any]
    title: Annotated[str, StringConstraints(max_length=80)] = ""
    names: NamesIn | None = None


# -- responses -----------------------------------------------------------------
class EventOut(BaseModel):
    id: int
    match_id: int
    kind: str
    payload: dict[str, Any]
    who: str
    at: float


class MatchSummary(BaseModel):
    id: int
    title: str
    created: float
    events: int
    live: bool
    riscos: list[int]
    winner: int | None
    hands: int
    teams: list[str]


class MatchCreated(BaseModel):
    id: int


class TitleOut(BaseModel):
    id: int
    title: str


class Problem(BaseModel):
    detail: str


class Health(BaseModel):
    ok: bool
    live_match: int
    clients: int
    version: int


class CameraMeta(BaseModel):
    available: bool
    index: int = 0
    t: float = 0.0
    size: list[int] = []
    detections: list[dict[str, Any]] = []
    age: float = 0.0
    card_px: float | None = Field(None, description="median long side of the cards read in the recent frames, in the frame's pixels")
    card_read_px: float | None = Field(None, description="the same as the recognizer reads it (a frame over 1600 px is shrunk)")
    small_cards: bool = Field(False, description="cards smaller than the recognizer reads well: move the camera closer or raise its resolution")


class AdminCheck(BaseModel):
    ok: bool
    who: str
