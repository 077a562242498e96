"""The FastAPI application: one router per concern, auth as a dependency.

>>> import shutil, tempfile
>>> d = tempfile.mkdtemp()
>>> "/api/matches/{match_id}/undo" in create_app(d).openapi()["paths"]
True
>>> shutil.rmtree(d)
"""

from __future__ import annotations

import asyncio
import hmac
import re
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import unquote

from fastapi import Depends, FastAPI, Header, HTTPException, Request
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles

from .config import Config
from .feed import LiveFeed
from .replay import EventRejected
from .service import Referee, UnknownMatch
from .store import Store

STATIC = Path(__file__).with_name("static")
MAX_BODY = 64 * 1024          # every write is a few hundred bytes
MAX_IMPORT_BODY = 1024 * 1024  # a long match record with every play as an object


class BodyLimit:
    """Refuse bodies over the limit with 413, whether or not Content-Length is sent."""

    def __init__(self, app, default: int = MAX_BODY, large: dict[str, int] | None = None) -> None:
        self.app, self.default = app, default
        self.large = large or {"/api/matches/import": MAX_IMPORT_BODY}

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            return await self.app(scope, receive, send)
        limit = self.large.get(scope["path"], self.default)
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    too_big = int(value) > limit
                except ValueError:
                    too_big = True
                if too_big:
                    return await _reply(send, 413, f"request body over {limit} bytes")
        # read the (small) body up front: an exception raised mid-read would be
        # turned into a 400 by FastAPI's body parser, hiding the 413
        body, more = b"", True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                return
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > limit:
                return await _reply(send, 413, f"request body over {limit} bytes")
        replayed = False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


async def _reply(send, status: int, detail: str) -> None:
    import json

    body = json.dumps({"detail": detail}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


_WHO = re.compile(r"[^\w .@-]", re.UNICODE)


def admin(request: Request, authorization: str | None = Header(None, description="Bearer ADMIN_TOKEN"),
          x_admin_token: str | None = Header(None, description="ADMIN_TOKEN (alternative to Authorization)"),
          x_referee: str | None = Header(None, description="Name of the referee, logged with each correction")) -> str:
    """The admin token check of every write endpoint; returns who is writing."""
    token = x_admin_token
    if authorization and authorization.lower().startswith("bearer "):
        token = authorization[7:].strip()
    if not token:
        raise HTTPException(401, "admin token required (Authorization: Bearer TOKEN)",
                            headers={"WWW-Authenticate": "Bearer"})
    expected = request.app.state.config.admin_token
    if not hmac.compare_digest(token.encode(), expected.encode()):
        raise HTTPException(403, "wrong admin token")
    # the page sends the name percent-encoded (headers are Latin-1): "In%C3%AAs" -> "Inês"
    name = _WHO.sub("", unquote(x_referee or "").strip())[:40]
    return f"referee:{name}" if name else "referee"


def referee(request: Request) -> Referee:
    return request.app.state.referee


def create_app(data_dir=None, config: Config | None = None) -> FastAPI:
    """Build the app on ``data_dir`` (config + SQLite). ``app.state.feed`` is the
    :class:`LiveFeed` a pipeline thread calls; ``app.state.token_created`` says
    whether the admin token was generated just now (print it once)."""
    if config is None:
        if data_dir is None:
            from .config import default_data_dir
            data_dir = default_data_dir()
        config, created = Config.load(data_dir)
    else:
        created = False
    store = Store(config.db_path)
    ref = Referee(store)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        ref.hub.bind(asyncio.get_running_loop())
        yield

    app = FastAPI(title="Sueca referee", version="1.0",
                  description="Live score, referee tools and match records of the Sueca camera referee.",
                  lifespan=lifespan)
    app.state.config = config
    app.state.token_created = created
    app.state.referee = ref
    app.state.feed = LiveFeed(ref)
    app.state.store = store

    @app.exception_handler(EventRejected)
    async def _rejected(request, exc):
        return JSONResponse({"detail": str(exc)}, status_code=422)

    @app.exception_handler(UnknownMatch)
    async def _unknown(request, exc):
        return JSONResponse({"detail": f"no match {exc.args[0]}"}, status_code=404)

    from . import routes_camera, routes_live, routes_matches, routes_referee

    app.include_router(routes_live.router)
    app.include_router(routes_matches.router)
    app.include_router(routes_referee.router)
    app.include_router(routes_camera.router)
    app.mount("/", StaticFiles(directory=STATIC, html=True), name="static")
    app.add_middleware(BodyLimit)
    return app


__all__ = ["create_app", "admin", "referee", "Depends"]
