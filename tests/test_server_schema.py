"""Generated requests against the OpenAPI schema (schemathesis): never a 500.

Writes carry the admin token so that generated bodies reach the handlers and
the engine (without it they stop at the 401, which test_server_api covers).
"""

from __future__ import annotations

import tempfile

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error, response_schema_conformance

from sueca.server.app import create_app

_DIR = tempfile.mkdtemp(prefix="sueca-schema-")
APP = create_app(_DIR)
TOKEN = APP.state.config.admin_token
# the stream never ends by design; it is exercised in test_server_api and the browser test
schema = schemathesis.openapi.from_asgi("/openapi.json", APP).exclude(path="/api/stream")


def _seed() -> None:
    """A live hand with plays, so that generated corrections hit real hands and plays."""
    ref = APP.state.referee
    if not ref.state()["hand"]:
        ref.submit("new_hand", {"dealer": 3, "trump_card": "5H"}, "test")
        for c in ["AS", "2S", "KS"]:
            ref.submit("play", {"card": c}, "test")


@schema.parametrize()
@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_server_error(case):
    _seed()
    case.call_and_validate(headers={"Authorization": f"Bearer {TOKEN}"}, checks=[not_a_server_error, response_schema_conformance])


def test_schema_lists_every_router():
    paths = set(schema.raw_schema["paths"])
    for p in ("/api/state", "/api/matches", "/api/matches/{match_id}/record.csv", "/api/calibration",
              "/api/matches/{match_id}/renuncias", "/api/camera"):
        assert p in paths

