"""The referee's tools: every write is an event with who/when; the score is re-derived.

All endpoints need the admin token (``Authorization: Bearer TOKEN``); a refused
correction (the engine says the record would be impossible) is a 422 naming why.
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, Path, Request

from .app import admin
from .models import (AdminCheck, ConfirmPlayIn, CorrectPlayIn, DealerIn, EventOut, NamesIn, NewHandIn, PlayIn,
                     RenunciaDecisionIn, RulesIn, TrumpIn)
from .replay import EventRejected
from .service import Referee

router = APIRouter(prefix="/api", tags=["referee"],
                   responses={401: {"description": "no admin token"}, 403: {"description": "wrong admin token"},
                              404: {"description": "no such match"},
                              422: {"description": "invalid input, or the engine refused the change"}})
MatchId = Path(ge=1, le=2**62)
HandNo = Path(ge=0, le=1000)
PlayNo = Path(ge=0, le=39)


def _ref(request: Request) -> Referee:
    return request.app.state.referee


def _out(ev) -> EventOut:
    return EventOut(**ev.to_json())


@router.get("/admin/check", response_model=AdminCheck, summary="Is this admin token right?")
def check(who: str = Depends(admin)):
    return AdminCheck(ok=True, who=who)


@router.put("/matches/{match_id}/names", response_model=EventOut, summary="Player and team names")
def set_names(body: NamesIn, match_id: int = MatchId, who: str = Depends(admin), ref: Referee = Depends(_ref)):
    return _out(ref.submit("names", body.model_dump(exclude_none=True), who, match_id=match_id))


@router.put("/matches/{match_id}/rules", response_model=EventOut, summary="Choose the variants (rules.md)")
def set_rules(body: RulesIn, match_id: int = MatchId, who: str = Depends(admin), ref: Referee = Depends(_ref)):
    return _out(ref.submit("rules", {"rules": body.given()}, who, match_id=match_id))


@router.post("/matches/{match_id}/hands", response_model=EventOut, status_code=201,
             summary="Start a hand: dealer and the turned trump card")
def new_hand(body: NewHandIn, match_id: int = MatchId, who: str = Depends(admin), ref: Referee = Depends(_ref)):
    return _out(ref.submit("new_hand", body.model_dump(exclude_none=True), who, match_id=match_id))


@router.put("/matches/{match_id}/hands/{hand}/dealer", response_model=EventOut, summary="Correct the dealer")
def set_dealer(body: DealerIn, match_id: int = MatchId, hand: int = HandNo, who: str = Depends(admin),
               ref: Referee = Depends(_ref)):
    return _out(ref.submit("set_dealer", {"hand": hand, "dealer": body.dealer}, who, match_id=match_id))


@router.put("/matches/{match_id}/hands/{hand}/trump", response_model=EventOut,
            summary="Correct the turned trump card")
def set_trump(body: TrumpIn, match_id: int = MatchId, hand: int = HandNo, who: str = Depends(admin),
              ref: Referee = Depends(_ref)):
    return _out(ref.submit("set_trump", {"hand": hand, "trump_card": body.trump_card}, who, match_id=match_id))


@router.post("/matches/{match_id}/plays", response_model=EventOut, status_code=201,
             summary="Enter a play by hand (the camera missed it)")
def add_play(body: PlayIn, match_id: int = MatchId, who: str = Depends(admin), ref: Referee = Depends(_ref)):
    return _out(ref.submit("play", body.model_dump(exclude_none=True), who, match_id=match_id))


@router.patch("/matches/{match_id}/hands/{hand}/plays/{index}", response_model=EventOut,
              summary="Correct the card and/or the seat of a play")
def correct_play(body: CorrectPlayIn, match_id: int = MatchId, hand: int = HandNo, index: int = PlayNo,
                 who: str = Depends(admin), ref: Referee = Depends(_ref)):
    payload: dict = {"hand": hand, "index": index}
    if body.card is not None:
        payload["card"] = body.card
    if body.clear_seat:
        payload["seat"] = None
    elif body.seat is not None:
        payload["seat"] = body.seat
    if len(payload) == 2:
        raise EventRejected("correct_play: give a card, a seat or clear_seat")
    return _out(ref.submit("correct_play", payload, who, match_id=match_id))


@router.post("/matches/{match_id}/hands/{hand}/plays/{index}/insert", response_model=EventOut, status_code=201,
             summary="Put a missed play back before play INDEX (INDEX = the hand's length appends)")
def insert_play(body: PlayIn, match_id: int = MatchId, hand: int = HandNo, index: int = Path(ge=0, le=40),
                who: str = Depends(admin), ref: Referee = Depends(_ref)):
    return _out(ref.submit("insert_play", {"hand": hand, "index": index, **body.model_dump(exclude_none=True)}, who,
                           match_id=match_id))


@router.delete("/matches/{match_id}/hands/{hand}/plays/{index}", response_model=EventOut,
               summary="Remove a play that never happened (a ghost, a card seen twice)")
def remove_play(match_id: int = MatchId, hand: int = HandNo, index: int = PlayNo, who: str = Depends(admin),
                ref: Referee = Depends(_ref)):
    return _out(ref.submit("remove_play", {"hand": hand, "index": index}, who, match_id=match_id))


@router.post("/matches/{match_id}/hands/{hand}/plays/{index}/confirm", response_model=EventOut,
             summary="Confirm an uncertain play (optionally with the right card)")
def confirm_play(body: ConfirmPlayIn, match_id: int = MatchId, hand: int = HandNo, index: int = PlayNo,
                 who: str = Depends(admin), ref: Referee = Depends(_ref)):
    payload = {"hand": hand, "index": index}
    if body.card:
        payload["card"] = body.card
    return _out(ref.submit("confirm_play", payload, who, match_id=match_id))


@router.post("/matches/{match_id}/undo", response_model=EventOut,
             summary="Undo the last play (an empty last hand is removed)")
def undo(match_id: int = MatchId, who: str = Depends(admin), ref: Referee = Depends(_ref)):
    return _out(ref.submit("undo", {}, who, match_id=match_id))


@router.post("/matches/{match_id}/renuncias", response_model=EventOut,
             summary="Claim mode: confirm (penalty applies) or dismiss a proven renúncia")
def decide_renuncia(body: RenunciaDecisionIn, match_id: int = MatchId, who: str = Depends(admin),
                    ref: Referee = Depends(_ref)):
    return _out(ref.submit("renuncia_decision", body.model_dump(), who, match_id=match_id))
