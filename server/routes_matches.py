"""Matches: list, records (export JSON/CSV, import), event logs, new match."""

from __future__ import annotations

import csv
import io

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import JSONResponse, Response

from .app import admin
from .models import EventOut, ImportIn, MatchCreated, MatchSummary, NewMatchIn, TitleIn, TitleOut
from .replay import EventRejected, MatchView, apply
from .service import Referee, UnknownMatch
from .state_models import StateOut

router = APIRouter(prefix="/api/matches", tags=["matches"])
MatchId = Path(ge=1, le=2**62, description="Match id (see GET /api/matches)")


def _ref(request: Request) -> Referee:
    return request.app.state.referee


@router.get("", response_model=list[MatchSummary], summary="Matches, newest first")
def list_matches(limit: int = Query(100, ge=1, le=1000), offset: int = Query(0, ge=0, le=10**9),
                 ref: Referee = Depends(_ref)):
    out = []
    for row in ref.store.matches()[offset: offset + limit]:
        view = ref.view(row.id)
        out.append(MatchSummary(id=row.id, title=row.title, created=row.created, events=row.events,
                                live=row.id == ref.live_id, riscos=list(view.match.riscos),
                                winner=view.match.winner, hands=len(view.record.hands), teams=list(view.teams)))
    return out


@router.get("/{match_id}", response_model=StateOut, summary="A match's state (same shape as /api/state)")
def get_match(match_id: int = MatchId, ref: Referee = Depends(_ref)):
    return ref.match_state(match_id)


@router.get("/{match_id}/report", summary="The score report of interfaces.md")
def get_report(match_id: int = MatchId, ref: Referee = Depends(_ref)) -> dict:
    return ref.view(match_id).match.report()


@router.get("/{match_id}/record.json", summary="Export: the game record of interfaces.md")
def export_json(match_id: int = MatchId, ref: Referee = Depends(_ref)):
    view = ref.view(match_id)
    return JSONResponse(view.record.to_json(),
                        headers={"Content-Disposition": f'attachment; filename="sueca-match-{match_id}.json"'})


CSV_COLUMNS = ["hand", "dealer", "trump_card", "play", "trick", "seat", "player", "team", "card",
               "seen_seat", "t", "confidence", "uncertain", "trick_winner", "trick_points"]


@router.get("/{match_id}/record.csv", summary="Export: one row per play",
            response_class=Response, responses={200: {"content": {"text/csv": {}}}})
def export_csv(match_id: int = MatchId, ref: Referee = Depends(_ref)):
    view = ref.view(match_id)
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(CSV_COLUMNS)
    for h, (hand, hrec) in enumerate(zip(view.match.hands, view.record.hands)):
        for i, (card, seat, _t) in enumerate(hand.plays):
            k = i // 4
            trick = hand.tricks[k] if k < len(hand.tricks) else None
            pm = view.meta[h][i] if h < len(view.meta) and i < len(view.meta[h]) else None
            play = hrec.plays[i]
            w.writerow([h, hand.dealer, hand.trump_card.code, i, k, seat, view.players[seat], seat % 2,
                        card.code, "" if play.seat is None else play.seat,
                        "" if play.t is None else play.t,
                        "" if pm is None or pm.confidence is None else pm.confidence,
                        int(bool(pm and pm.uncertain)),
                        "" if trick is None else trick.winner, "" if trick is None else trick.points])
    return Response(buf.getvalue(), media_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="sueca-match-{match_id}.csv"'})


@router.get("/{match_id}/events", response_model=list[EventOut],
            summary="The match's event log: every play and correction, who and when")
def events(match_id: int = MatchId, ref: Referee = Depends(_ref)):
    if ref.store.match(match_id) is None:
        raise UnknownMatch(match_id)
    return [EventOut(**e.to_json()) for e in ref.store.events(match_id)]


@router.post("", response_model=MatchCreated, status_code=201,
             summary="Start a new live match (names and rules default to the previous match's)")
def new_match(body: NewMatchIn, who: str = Depends(admin), ref: Referee = Depends(_ref)):
    rules = None
    if body.rules is not None:
        rules = {**ref.view().record.rules.to_dict(), **body.rules.given()}
    names = None
    if body.names is not None:
        old = ref.view()
        names = {"players": body.names.players or list(old.players), "teams": body.names.teams or list(old.teams)}
    return MatchCreated(id=ref.start_match(who, body.title, rules, names))


@router.post("/import", response_model=MatchCreated, status_code=201,
             summary="Import a game record (interfaces.md) as the new live match",
             responses={422: {"description": "the record is malformed or impossible"}})
def import_record(body: ImportIn, who: str = Depends(admin), ref: Referee = Depends(_ref)):
    apply(MatchView.empty(), "import", {"record": body.record})  # EventRejected -> 422
    names = None
    if body.names is not None:
        names = {k: v for k, v in body.names.model_dump().items() if v}
    return MatchCreated(id=ref.start_match(who, body.title, None, names or None, import_record=body.record))


@router.put("/{match_id}/title", response_model=TitleOut, summary="Rename a match")
def set_title(body: TitleIn, match_id: int = MatchId, who: str = Depends(admin), ref: Referee = Depends(_ref)):
    ref.set_title(match_id, body.title)
    return TitleOut(id=match_id, title=body.title)


__all__ = ["router", "EventRejected"]
