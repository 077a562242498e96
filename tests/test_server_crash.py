"""Crash safety: a server killed with SIGKILL mid-match restarts with every committed play.

A play is committed when its POST answered 201. Plays keep arriving from a
second thread while the process is killed, so the kill lands mid-write.
"""

from __future__ import annotations

import json
import random
import signal
import threading
import time

import httpx

from sueca.engine import Rules, random_hand
from sueca.server.runner import free_port, spawn


def test_sigkill_mid_match_loses_no_committed_play(tmp_path):
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = spawn(tmp_path, port)
    token = json.loads((tmp_path / "config.json").read_text())["admin_token"]
    auth = {"Authorization": f"Bearer {token}"}
    hand = random_hand(random.Random(11), Rules(), dealer=2)
    cards = [p.card.code for p in hand.plays]
    acked: list[str] = []
    try:
        with httpx.Client(base_url=base, headers=auth, timeout=5) as c:
            m = c.get("/api/state").json()["match"]["id"]
            assert c.put(f"/api/matches/{m}/names", json={"players": ["Ana", "Rui", "Zé", "Bia"]}).status_code == 200
            assert c.post(f"/api/matches/{m}/hands",
                          json={"dealer": 2, "trump_card": hand.trump_card.code}).status_code == 201
            stop = threading.Event()

            def writer():
                for card in cards:
                    if stop.is_set():
                        return
                    try:
                        r = c.post(f"/api/matches/{m}/plays", json={"card": card})
                    except httpx.HTTPError:
                        return  # the server died under us
                    if r.status_code == 201:
                        acked.append(card)

            th = threading.Thread(target=writer)
            th.start()
            while len(acked) < 12 and th.is_alive():
                time.sleep(0.005)
            proc.send_signal(signal.SIGKILL)  # mid-match, while plays are in flight
            proc.wait(timeout=10)
            stop.set()
            th.join(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stdout.close()
    print(f"acknowledged before the kill: {len(acked)} of {len(cards)}")
    assert 12 <= len(acked) < len(cards), "the kill must land mid-hand"

    proc = spawn(tmp_path, port)
    try:
        with httpx.Client(base_url=base, timeout=5) as c:
            record = c.get(f"/api/matches/{m}/record.json").json()
            state = c.get("/api/state").json()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        proc.stdout.close()
    recorded = [p if isinstance(p, str) else p["card"] for p in record["hands"][0]["plays"]]
    # every acknowledged play is there, in order; at most one more that committed as the answer was lost
    assert recorded[: len(acked)] == acked
    assert len(recorded) - len(acked) in (0, 1) and recorded == cards[: len(recorded)]
    assert state["match"]["id"] == m and state["players"][0] == "Ana"
    assert state["hand"]["plays"] == len(recorded)
