"""Read-only live endpoints: the state, its push stream, health, snapshots."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Depends, HTTPException, Path, Request
from fastapi.responses import Response, StreamingResponse

from .models import Health
from .push import sse_message
from .service import Referee
from .state_models import StateOut

router = APIRouter(prefix="/api", tags=["live"])
HEARTBEAT_S = 15.0


def _ref(request: Request) -> Referee:
    return request.app.state.referee


@router.get("/state", response_model=StateOut, summary="The live state the dashboard draws")
def get_state(ref: Referee = Depends(_ref)):
    return ref.state()


@router.get("/health", response_model=Health)
def health(ref: Referee = Depends(_ref)) -> Health:
    return Health(ok=True, live_match=ref.live_id, clients=ref.hub.clients, version=ref.state()["version"])


@router.get("/stream", summary="Server-Sent Events: the whole state (StateOut) on connect and on every change",
            response_class=StreamingResponse,
            responses={200: {"content": {"text/event-stream": {}}}})
async def stream(request: Request, ref: Referee = Depends(_ref)):
    hub = ref.hub
    sub = hub.subscribe()

    async def events():
        try:
            # retry: how soon EventSource reconnects after a server restart (ms)
            yield b"retry: 1000\n\n"
            yield sse_message(ref.state())
            while not hub.closed:
                data = await sub.next(HEARTBEAT_S)
                if hub.closed:
                    break
                if data is None:
                    if await request.is_disconnected():
                        break
                    yield b": ping\n\n"  # keeps proxies and sleeping phones' sockets honest
                else:
                    yield data
        except asyncio.CancelledError:
            raise
        finally:
            hub.unsubscribe(sub)

    return StreamingResponse(events(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


@router.get("/snapshots/{event_id}.jpg", summary="The table snapshot the pipeline sent with a play",
            response_class=Response, responses={200: {"content": {"image/jpeg": {}}}, 404: {}})
def snapshot(event_id: int = Path(ge=1, le=2**62), ref: Referee = Depends(_ref)):
    jpeg = ref.store.snapshot(event_id)
    if jpeg is None:
        raise HTTPException(404, f"no snapshot for event {event_id}")
    # snapshots never change once written
    return Response(jpeg, media_type="image/jpeg", headers={"Cache-Control": "public, max-age=86400"})
