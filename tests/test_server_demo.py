"""`sueca demo`: a newcomer sees a game being refereed within a minute."""

from __future__ import annotations

import time

import httpx

from sueca.server.runner import free_port, spawn


def wait_for_plays(client, t0: float, plays: int, limit_s: float) -> dict:
    """Poll the live state until the current hand has ``plays`` plays or time runs out."""
    state = client.get("/api/state").json()
    while time.monotonic() - t0 < limit_s and not (state["hand"] and state["hand"]["plays"] >= plays):
        time.sleep(0.2)
        state = client.get("/api/state").json()
    return state


def test_demo_serves_a_game_being_played(tmp_path):
    port = free_port()
    t0 = time.monotonic()
    proc = spawn(tmp_path, port, command="demo", extra=("--source", "simulated", "--interval", "0.2"))
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=5) as c:
            state = wait_for_plays(c, t0, plays=5, limit_s=60)
            seen = time.monotonic() - t0
            assert state["hand"]["plays"] >= 5, "no game after a minute"
            assert state["players"] == ["Ana", "Rui", "Inês", "Zé"]
            assert state["status"]["connected"] and state["status"]["model"]
            cam = c.get("/api/camera").json()
            assert cam["available"] and cam["detections"]
            assert c.get("/api/camera.jpg").content[:2] == b"\xff\xd8"
            assert "app.js" in c.get("/").text
    finally:
        proc.terminate()
        out = proc.communicate(timeout=15)[0].decode()
    assert f"http://127.0.0.1:{port}/" in out and "#token=" in out
    assert proc.returncode in (0, -15), out  # uvicorn re-raises SIGTERM once it has shut down
    print(f"first five plays on the dashboard {seen:.1f} s after `sueca demo` started")


def test_serve_prints_the_admin_token_only_at_first_start(tmp_path):
    outs = []
    for _ in range(2):
        proc = spawn(tmp_path, free_port())
        proc.terminate()
        outs.append(proc.communicate(timeout=15)[0].decode())
    token = __import__("json").loads((tmp_path / "config.json").read_text())["admin_token"]
    assert token in outs[0] and "config.json" in outs[0]
    assert token not in outs[1] and "config.json" in outs[1]


def test_serve_prints_the_openapi_schema_and_leaves_no_store_behind(tmp_path):
    import json
    import os
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "sueca", "serve", "--openapi"], capture_output=True, text=True,
                         timeout=60, check=True, env=dict(os.environ, TMPDIR=str(tmp_path))).stdout
    schema = json.loads(out)
    assert schema["openapi"].startswith("3.") and "/api/matches/{match_id}/plays" in schema["paths"]
    assert "StateOut" in schema["components"]["schemas"]
    assert list(tmp_path.iterdir()) == []  # the throw-away store made for the schema is gone


def test_demo_falls_back_to_the_simulated_table_when_the_pipeline_cannot_run(tmp_path, monkeypatch):
    import threading

    from sueca.server import demo
    from sueca.server.feed import LiveFeed
    from sueca.server.service import Referee
    from sueca.server.store import Store

    def broken(feed, stop, cache_dir=None):
        raise FileNotFoundError("models/recognizer.json")

    monkeypatch.setattr(demo, "pipeline_source", broken)
    feed = LiveFeed(Referee(Store(tmp_path / "s.db")))
    stop = threading.Event()
    th = threading.Thread(target=demo.demo_source, args=(feed, stop), kwargs={"interval": 0.02, "mode": "pipeline"})
    th.start()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not (feed.referee.state()["hand"] or {}).get("plays"):
        time.sleep(0.05)
    stop.set()
    th.join(timeout=10)
    state = feed.referee.state()
    assert state["hand"]["plays"] >= 1
    assert "recognizer.json" in state["status"]["last_error"]


def test_demo_referees_the_rendered_game_through_the_real_pipeline(tmp_path, monkeypatch):
    """The README's first command on a fresh machine: the demo video is rendered,
    read by the committed model, tracked, scored and pushed, with no card invented."""
    import json

    from sueca.server.demo import pipeline_available

    assert pipeline_available(), "the packaged recognizer must be committed"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # nothing cached: render it now
    port = free_port()
    t0 = time.monotonic()
    proc = spawn(tmp_path / "data", port, command="demo", extra=("--source", "pipeline"))
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=5) as c:
            state = wait_for_plays(c, t0, plays=4, limit_s=120)
            seen = time.monotonic() - t0
            assert state["hand"] and state["hand"]["plays"] >= 4, f"no plays from the pipeline: {state['status']}"
            assert state["status"]["model"] == "packaged" and not state["status"]["last_error"]
            record = c.get(f"/api/matches/{state['match']['id']}/record.json").json()
    finally:
        proc.terminate()
        proc.communicate(timeout=15)
    truth = json.loads((tmp_path / "cache" / "sueca" / "demo-game" / "truth.json").read_text())
    first = truth["hands"][0]
    played = [p["card"] if isinstance(p, dict) else p for p in record["hands"][0]["plays"]]
    truth_cards = {p["card"] if isinstance(p, dict) else p for p in first["plays"]}
    assert record["hands"][0]["trump_card"] == first["trump_card"]
    assert set(played) <= truth_cards, f"cards the demo game never showed: {set(played) - truth_cards}"
    print(f"first four plays of the rendered demo game {seen:.1f} s after `sueca demo` started")
