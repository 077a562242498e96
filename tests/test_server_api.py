"""Every HTTP endpoint: reads, referee writes, refused writes, bad input."""

from __future__ import annotations

import csv
import io
import json
import threading
import time

import httpx
import pytest
from fastapi.testclient import TestClient

from sueca.server.app import create_app
from sueca.server.runner import free_port
from sueca.server.state_models import StateOut, extras
from sueca.vision.events import PlayEvent, TrumpSeen

RENUNCIA_PLAYS = ["AS", "2D", "KS", "QS", "AC", "3S"]


@pytest.fixture
def app(tmp_path):
    return create_app(tmp_path)


@pytest.fixture
def client(app):
    with TestClient(app) as c:
        yield c


@pytest.fixture
def auth(app):
    return {"Authorization": f"Bearer {app.state.config.admin_token}", "X-Referee": "Rita"}


def live(client) -> int:
    return client.get("/api/state").json()["match"]["id"]


def start_hand(client, auth, dealer=3, trump="5H"):
    m = live(client)
    r = client.post(f"/api/matches/{m}/hands", json={"dealer": dealer, "trump_card": trump}, headers=auth)
    assert r.status_code == 201, r.text
    return m


# every write endpoint, with a body that would be valid
WRITES = [
    ("POST", "/api/matches", {"title": "x"}),
    ("POST", "/api/matches/import", {"record": {"hands": []}}),
    ("PUT", "/api/matches/1/title", {"title": "x"}),
    ("PUT", "/api/matches/1/names", {"teams": ["A", "B"]}),
    ("PUT", "/api/matches/1/rules", {"target": 5}),
    ("POST", "/api/matches/1/hands", {"dealer": 0, "trump_card": "2C"}),
    ("PUT", "/api/matches/1/hands/0/dealer", {"dealer": 1}),
    ("PUT", "/api/matches/1/hands/0/trump", {"trump_card": "3C"}),
    ("POST", "/api/matches/1/plays", {"card": "AS"}),
    ("PATCH", "/api/matches/1/hands/0/plays/0", {"card": "KS"}),
    ("POST", "/api/matches/1/hands/0/plays/0/confirm", {}),
    ("POST", "/api/matches/1/undo", None),
    ("POST", "/api/matches/1/hands/0/plays/0/insert", {"card": "AS"}),
    ("DELETE", "/api/matches/1/hands/0/plays/0", None),
    ("POST", "/api/matches/1/renuncias", {"hand": 0, "seat": 1, "trick": 0, "confirm": True}),
    ("PUT", "/api/calibration", {"image_size": [640, 480], "center": [320, 240],
                                 "seats": [[320, 470], [630, 240], [320, 10], [10, 240]]}),
    ("GET", "/api/admin/check", None),
]


@pytest.mark.parametrize("method,path,body", WRITES, ids=[f"{m} {p}" for m, p, _ in WRITES])
def test_writes_refused_without_token_and_with_a_wrong_one(client, method, path, body):
    before = client.get("/api/matches/1/events").json()
    r = client.request(method, path, json=body)
    assert r.status_code == 401 and "token" in r.json()["detail"]
    r = client.request(method, path, json=body, headers={"Authorization": "Bearer nope-nope-nope"})
    assert r.status_code == 403
    r = client.request(method, path, json=body, headers={"X-Admin-Token": "wrong"})
    assert r.status_code == 403
    assert client.get("/api/matches/1/events").json() == before
    assert client.get("/api/calibration").json() is None


def test_admin_check_and_who_is_logged(client, auth):
    assert client.get("/api/admin/check", headers=auth).json() == {"ok": True, "who": "referee:Rita"}
    start_hand(client, auth)
    [ev] = client.get("/api/matches/1/events").json()
    assert ev["who"] == "referee:Rita" and ev["kind"] == "new_hand" and ev["at"] > 1e9
    r = client.get("/api/admin/check", headers={**auth, "X-Referee": "In%C3%AAs <script>"})
    assert r.json()["who"] == "referee:Inês script"


def test_a_hand_through_the_referee_tools(client, auth):
    m = start_hand(client, auth)
    for c in ["AS", "2S", "KS", "QS"]:
        assert client.post(f"/api/matches/{m}/plays", json={"card": c}, headers=auth).status_code == 201
    s = client.get("/api/state").json()
    assert s["hand"]["trick"]["complete"] and s["hand"]["trick"]["winner"] == 0 and s["hand"]["points"] == [17, 0]
    r = client.patch(f"/api/matches/{m}/hands/0/plays/2", json={"card": "4S"}, headers=auth)
    assert r.status_code == 200 and r.json()["kind"] == "correct_play"
    assert client.get("/api/state").json()["hand"]["points"] == [13, 0]
    r = client.patch(f"/api/matches/{m}/hands/0/plays/1", json={"seat": 2}, headers=auth)
    assert client.get("/api/state").json()["mismatches"][0]["seen"] == 2
    client.patch(f"/api/matches/{m}/hands/0/plays/1", json={"clear_seat": True}, headers=auth)
    assert client.get("/api/state").json()["mismatches"] == []
    assert client.post(f"/api/matches/{m}/undo", headers=auth).status_code == 200
    assert client.get("/api/state").json()["hand"]["plays"] == 3
    assert client.put(f"/api/matches/{m}/names", json={"players": ["Ana", "Rui", "Zé", "Bia"]},
                      headers=auth).status_code == 200
    assert client.put(f"/api/matches/{m}/title", json={"title": "Café Central"}, headers=auth).status_code == 200
    s = client.get("/api/state").json()
    assert s["players"][2] == "Zé" and s["teams"] == ["Nós", "Eles"] and s["match"]["title"] == "Café Central"


def test_referee_inserts_a_missed_play_and_removes_a_ghost(client, auth):
    m = start_hand(client, auth)
    for c in ["AS", "KS", "QS"]:  # the camera missed 2S, played second
        client.post(f"/api/matches/{m}/plays", json={"card": c}, headers=auth)
    r = client.post(f"/api/matches/{m}/hands/0/plays/1/insert", json={"card": "2S", "seat": 1}, headers=auth)
    assert r.status_code == 201 and r.json()["kind"] == "insert_play"
    s = client.get("/api/state").json()
    assert [p["card"] for p in s["hand"]["play_list"]] == ["AS", "2S", "KS", "QS"]
    assert s["hand"]["points"] == [17, 0]
    client.post(f"/api/matches/{m}/plays", json={"card": "3H"}, headers=auth)  # a ghost: nobody played it
    r = client.delete(f"/api/matches/{m}/hands/0/plays/4", headers=auth)
    assert r.status_code == 200 and r.json()["kind"] == "remove_play"
    assert client.get("/api/state").json()["hand"]["plays"] == 4
    # impossible positions and records are refused, naming why; nothing is lost
    r = client.post(f"/api/matches/{m}/hands/0/plays/9/insert", json={"card": "5C"}, headers=auth)
    assert r.status_code == 422 and "cannot insert at play 9" in r.text
    r = client.post(f"/api/matches/{m}/hands/0/plays/0/insert", json={"card": "KS"}, headers=auth)
    assert r.status_code == 422 and "KS" in r.text
    r = client.delete(f"/api/matches/{m}/hands/0/plays/7", headers=auth)
    assert r.status_code == 422 and "no play 7" in r.text
    assert client.get("/api/state").json()["hand"]["plays"] == 4


def test_dealer_trump_and_confirm(client, auth, app):
    m = start_hand(client, auth)
    assert client.put(f"/api/matches/{m}/hands/0/dealer", json={"dealer": 1}, headers=auth).status_code == 200
    assert client.put(f"/api/matches/{m}/hands/0/trump", json={"trump_card": "6C"}, headers=auth).status_code == 200
    h = client.get("/api/state").json()["hand"]
    assert (h["dealer"], h["trump_card"], h["turn"]) == (1, "6C", 2)
    app.state.feed.on_event(PlayEvent("7D", 2, 1.0, 0.5, uncertain=True))
    assert client.get("/api/state").json()["uncertain"][0]["card"] == "7D"
    r = client.post(f"/api/matches/{m}/hands/0/plays/0/confirm", json={"card": "7H"}, headers=auth)
    assert r.status_code == 200
    s = client.get("/api/state").json()
    assert s["uncertain"] == [] and s["hand"]["play_list"][0]["card"] == "7H"


def test_rules_and_renuncia_decision(client, auth):
    m = live(client)
    assert client.put(f"/api/matches/{m}/rules", json={"renuncia": "claim", "target": 7}, headers=auth).status_code == 200
    start_hand(client, auth)
    for c in RENUNCIA_PLAYS:
        client.post(f"/api/matches/{m}/plays", json={"card": c}, headers=auth)
    s = client.get("/api/state").json()
    assert s["target"] == 7 and s["renuncias"][0]["status"] == "pending"
    r = client.post(f"/api/matches/{m}/renuncias", json={"hand": 0, "seat": 1, "trick": 0, "confirm": False}, headers=auth)
    assert r.status_code == 200
    assert client.get("/api/state").json()["renuncias"][0]["status"] == "dismissed"
    r = client.post(f"/api/matches/{m}/renuncias", json={"hand": 0, "seat": 2, "trick": 0, "confirm": True}, headers=auth)
    assert r.status_code == 422 and "never proven" in r.json()["detail"]


@pytest.mark.parametrize("method,path,body,status,needle", [
    ("POST", "/api/matches/1/hands", {"dealer": 4, "trump_card": "5H"}, 422, "dealer"),
    ("POST", "/api/matches/1/hands", {"dealer": 1, "trump_card": "11H"}, 422, "trump_card"),
    ("POST", "/api/matches/1/hands", {"dealer": 1, "trump_card": "8H"}, 422, "not in the Sueca deck"),
    ("POST", "/api/matches/1/hands", {"dealer": 1}, 422, "trump_card"),
    ("POST", "/api/matches/1/plays", {"card": "AS"}, 422, "no hand started"),
    ("POST", "/api/matches/1/plays", {"card": "AS", "extra": 1}, 422, "extra"),
    ("PUT", "/api/matches/1/names", {"players": ["a", "b", "c"]}, 422, "players"),
    ("PUT", "/api/matches/1/names", {"teams": ["", "b"]}, 422, "teams"),
    ("PUT", "/api/matches/1/rules", {"capote": "sometimes"}, 422, "capote"),
    ("PUT", "/api/matches/1/rules", {"target": 0}, 422, "target"),
    ("PATCH", "/api/matches/1/hands/0/plays/0", {}, 422, "give a card"),
    ("PATCH", "/api/matches/1/hands/0/plays/99", {"card": "AS"}, 422, "index"),
    ("PUT", "/api/matches/1/hands/5/dealer", {"dealer": 1}, 422, "no hand 5"),
    ("POST", "/api/matches/1/undo", None, 422, "nothing to undo"),
    ("POST", "/api/matches/99/plays", {"card": "AS"}, 404, "no match 99"),
    ("PUT", "/api/matches/0/names", {"teams": ["a", "b"]}, 422, "match_id"),
    ("POST", "/api/matches/import", {"record": {"hands": [{"dealer": 0}]}}, 422, "trump_card"),
    ("POST", "/api/matches/import", {"record": {"hands": [], "extra": 1}}, 422, "extra"),
    ("POST", "/api/matches", {"rules": {"tie": "maybe"}}, 422, "tie"),
    ("PUT", "/api/calibration", {"image_size": [640, 480], "center": [320, 240],
                                 "seats": [[320, 470], [630, 240], [320, 10], [999, 240]]}, 422, "outside"),
    ("PUT", "/api/calibration", {"image_size": [640, 480], "center": [320, 240], "seats": []}, 422, "seats"),
])
def test_bad_input_is_a_clear_4xx(client, auth, method, path, body, status, needle):
    r = client.request(method, path, json=body, headers=auth)
    assert r.status_code == status, r.text
    assert needle in json.dumps(r.json())


def test_malformed_json_and_oversized_bodies(client, auth):
    r = client.post("/api/matches/1/plays", content=b"{nope", headers={**auth, "Content-Type": "application/json"})
    assert r.status_code == 422
    r = client.post("/api/matches/1/plays", content=b"x" * 70_000, headers={**auth, "Content-Type": "application/json"})
    assert r.status_code == 413
    big = {"record": {"hands": []}, "title": "x" * 10}
    r = client.post("/api/matches/import", content=json.dumps(big).encode() + b" " * 1_100_000,
                    headers={**auth, "Content-Type": "application/json"})
    assert r.status_code == 413

    def chunks():  # no Content-Length: the limit still holds
        for _ in range(20):
            yield b" " * 8192
    r = client.post("/api/matches/1/plays", content=chunks(), headers={**auth, "Content-Type": "application/json"})
    assert r.status_code == 413


def test_matches_export_import_roundtrip(client, auth, app):
    m = start_hand(client, auth)
    app.state.feed.on_event(PlayEvent("AS", 0, 1.25, 0.97))
    app.state.feed.on_event(PlayEvent("2S", None, 2.5, 0.93))
    record = client.get(f"/api/matches/{m}/record.json").json()
    assert record["hands"][0]["plays"] == [{"card": "AS", "seat": 0, "t": 1.25}, {"card": "2S", "t": 2.5}]
    assert record["rules"]["target"] == 4
    rows = list(csv.DictReader(io.StringIO(client.get(f"/api/matches/{m}/record.csv").text)))
    assert [(r["card"], r["seat"], r["confidence"]) for r in rows] == [("AS", "0", "0.97"), ("2S", "1", "0.93")]
    report = client.get(f"/api/matches/{m}/report").json()
    assert report["hands"][0]["turn"] == 2 and report["riscos"] == [0, 0]
    r = client.post("/api/matches/import", json={"record": record, "title": "copy",
                                                  "names": {"players": ["a", "b", "c", "d"]}}, headers=auth)
    assert r.status_code == 201
    new = r.json()["id"]
    assert new != m and client.get(f"/api/matches/{new}/record.json").json() == record
    listing = client.get("/api/matches").json()
    assert [x["id"] for x in listing] == [new, m] and listing[0]["live"] and not listing[1]["live"]
    assert [x["id"] for x in client.get("/api/matches?limit=1&offset=1").json()] == [m]
    assert client.get("/api/matches?limit=0").status_code == 422
    assert client.get("/api/state").json()["players"] == ["a", "b", "c", "d"]
    past = client.get(f"/api/matches/{m}").json()
    assert past["match"]["live"] is False and past["hand"]["plays"] == 2
    assert [e["kind"] for e in client.get(f"/api/matches/{m}/events").json()] == ["new_hand", "play", "play"]
    for st in (client.get("/api/state").json(), past):
        assert extras(StateOut.model_validate(st)) == []
    for suffix in ("", "/report", "/record.json", "/record.csv", "/events"):
        assert client.get(f"/api/matches/999{suffix}").status_code == 404


def test_new_match_keeps_names_and_rules(client, auth):
    m = live(client)
    client.put(f"/api/matches/{m}/names", json={"players": ["Ana", "Rui", "Zé", "Bia"]}, headers=auth)
    client.put(f"/api/matches/{m}/rules", json={"target": 5}, headers=auth)
    r = client.post("/api/matches", json={"title": "Final", "rules": {"tie": "next_hand_bonus"}}, headers=auth)
    assert r.status_code == 201
    s = client.get("/api/state").json()
    assert s["match"]["id"] == r.json()["id"] and s["match"]["title"] == "Final"
    assert s["players"][0] == "Ana" and s["rules"]["target"] == 5 and s["rules"]["tie"] == "next_hand_bonus"


def test_snapshots_camera_and_calibration(client, auth, app):
    start_hand(client, auth)
    assert client.get("/api/camera").json()["available"] is False
    assert client.get("/api/camera.jpg").status_code == 404
    app.state.feed.on_event(PlayEvent("AS", 0, 1.0, 0.9, snapshot_jpeg=b"\xff\xd8snap"))
    ev = client.get("/api/matches/1/events").json()[-1]
    r = client.get(f"/api/snapshots/{ev['id']}.jpg")
    assert r.status_code == 200 and r.content == b"\xff\xd8snap" and r.headers["content-type"] == "image/jpeg"
    assert client.get("/api/snapshots/999.jpg").status_code == 404
    assert client.get("/api/snapshots/0.jpg").status_code == 422
    app.state.feed.on_frame(b"\xff\xd8frame", (800, 600), [{"card": "AS", "confidence": 0.9, "box": [1, 2, 30, 40]}], 12)
    meta = client.get("/api/camera").json()
    assert meta["available"] and meta["size"] == [800, 600] and meta["detections"][0]["card"] == "AS"
    assert client.get("/api/camera.jpg").content == b"\xff\xd8frame"
    seen = []
    app.state.feed.on_calibration(seen.append)
    cal = {"image_size": [800, 600], "center": [400, 300], "seats": [[400, 590], [790, 300], [400, 10], [10, 300]]}
    assert client.put("/api/calibration", json=cal, headers=auth).status_code == 200
    assert client.get("/api/calibration").json() == cal and seen == [cal]
    assert json.loads((app.state.config.data_dir / "config.json").read_text())["calibration"] == cal


def _cards(lengths, size):
    """``CardDetections`` of upright cards ``lengths`` px tall (5:7), read, in a frame of ``size``."""
    import numpy as np

    from sueca.vision.detections import CardDetections, outline_boxes

    quads = [np.array([[x, 10], [x + 5 * L / 7, 10], [x + 5 * L / 7, 10 + L], [x, 10 + L]], np.float32)
             for x, L in zip(range(10, 2000, 150), lengths)]
    corners = np.stack(quads)
    n = len(quads)
    return CardDetections(outline_boxes(corners, size), ("AS", "7H", "KD", "")[:n], np.full(n, 0.99, np.float32),
                          np.full(n, 0.9, np.float32), corners, np.ones(n, bool))


def test_the_camera_view_tells_how_large_the_cards_show(client, app):
    feed = app.state.feed
    feed.on_frame(b"\xff\xd8f", (800, 600), [{"card": "AS", "confidence": 0.9, "box": [1, 2, 30, 40]}], 1)
    meta = client.get("/api/camera").json()
    assert meta["card_px"] is None and meta["small_cards"] is False  # plain entries carry no outline
    # a 720p camera: its cards about 76 px tall, too small to read well (an unread box, 30 px,
    # is not a card's size: a hand, a card's faint half)
    feed.on_frame(b"\xff\xd8f", (1280, 720), _cards([75, 76, 76, 30], (1280, 720)), 2)
    meta = client.get("/api/camera").json()
    assert meta["card_px"] == 76.0 and meta["card_read_px"] == 76.0 and meta["small_cards"] is True
    # the median over recent frames: one frame of cards held up close does not change it
    feed.on_frame(b"\xff\xd8f", (1280, 720), _cards([200], (1280, 720)), 3)
    assert client.get("/api/camera").json()["card_px"] == 76.0
    # another resolution starts afresh; a 1920x1080 frame is read shrunk to 1600 px
    feed.on_frame(b"\xff\xd8f", (1920, 1080), _cards([113, 113], (1920, 1080)), 4)
    meta = client.get("/api/camera").json()
    assert meta["card_px"] == 113.0 and abs(meta["card_read_px"] - 94.2) < 0.05 and meta["small_cards"] is False
    # a frame with no card keeps the recent cards' size
    feed.on_frame(b"\xff\xd8f", (1920, 1080), [], 5)
    assert client.get("/api/camera").json()["card_px"] == 113.0


def test_health_page_and_schema(client):
    h = client.get("/api/health").json()
    assert h["ok"] and h["live_match"] == 1
    page = client.get("/")
    assert page.status_code == 200 and "app.js" in page.text and 'lang="pt"' in page.text
    for f in ("app.js", "admin.js", "cards.js", "i18n.js", "app.css"):
        assert client.get("/" + f).status_code == 200
    paths = client.get("/openapi.json").json()["paths"]
    assert "/api/matches/{match_id}/hands/{hand}/plays/{index}" in paths and "/api/stream" in paths


def test_sse_stream_pushes_state_on_connect_and_on_change(app):
    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    th = threading.Thread(target=server.run, daemon=True)
    th.start()
    try:
        for _ in range(100):
            if server.started:
                break
            time.sleep(0.05)
        states = []
        with httpx.stream("GET", f"http://127.0.0.1:{port}/api/stream", timeout=10) as r:
            assert r.headers["content-type"].startswith("text/event-stream")
            for line in r.iter_lines():
                if line.startswith("data: "):
                    states.append(json.loads(line[6:]))
                    if len(states) == 1:
                        app.state.feed.on_event(TrumpSeen("5H", 3, 0.0, 0.9))
                    elif states[-1]["hand"] and states[-1]["hand"]["plays"] == 0:
                        app.state.feed.on_event(PlayEvent("AS", 0, 1.0, 0.97))
                    elif states[-1]["hand"] and states[-1]["hand"]["plays"] == 1:
                        break
        assert states[0]["hand"] is None
        assert states[-1]["hand"]["trick"]["plays"][0]["card"] == "AS"
        assert app.state.referee.hub.clients <= 1
    finally:
        app.state.referee.hub.close()
        server.should_exit = True
        th.join(timeout=5)
