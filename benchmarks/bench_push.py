"""Load check of the live push: N open dashboards, plays at R per second.

Starts ``sueca serve`` in a child process (its own CPU, like on the Pi), opens
``--clients`` Server-Sent-Events connections on loopback, posts plays through
the referee API at ``--rate`` per second, and measures for every client the
time from just before the POST to the arrival of the state that contains it.

    .venv/bin/python benchmarks/bench_push.py --clients 200 --rate 10 --seconds 20

Prints p50/p95/p99/max push latency, missed pushes and the server's CPU use.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import shutil
import statistics
import sys
import tempfile
import time

import httpx

from sueca.engine import Rules, random_hand
from sueca.server.runner import free_port, spawn



async def client(port: int, received: list, ready: asyncio.Event, counter: list, stop: asyncio.Event) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET /api/stream HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n\r\n".encode())
    await writer.drain()
    buf = b""
    first = True
    try:
        while not stop.is_set():
            chunk = await reader.read(65536)
            if not chunk:
                break
            now = time.perf_counter()
            buf += chunk
            # every SSE message is one chunk; keep only the unfinished tail
            for m in re.finditer(rb"id: (\d+)\n", buf):
                if first:
                    first = False
                    counter[0] += 1
                    if counter[0] == counter[1]:
                        ready.set()
                else:
                    received.append((int(m.group(1)), now))
            cut = buf.rfind(b"\n\n")
            if cut >= 0:
                buf = buf[cut + 2:]
    finally:
        writer.close()


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def main(args) -> int:
    data = tempfile.mkdtemp(prefix="sueca-bench-")
    port = args.port or free_port()
    proc = spawn(data, port)
    token = json.load(open(os.path.join(data, "config.json")))["admin_token"]
    auth = {"Authorization": f"Bearer {token}"}
    received: list[tuple[int, float]] = []
    sent: dict[int, float] = {}
    ready, stop = asyncio.Event(), asyncio.Event()
    counter = [0, args.clients]
    rng = random.Random(1)
    try:
        tasks = [asyncio.create_task(client(port, received, ready, counter, stop)) for _ in range(args.clients)]
        await asyncio.wait_for(ready.wait(), 60)
        print(f"{args.clients} clients connected", flush=True)
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", headers=auth, timeout=10) as api:
            m = (await api.get("/api/state")).json()["match"]["id"]
            await api.put(f"/api/matches/{m}/rules", json={"target": 100})
            cpu0, t0 = cpu_seconds(proc.pid), time.perf_counter()
            n, period, plays = 0, 1.0 / args.rate, []
            dealer = 0
            while time.perf_counter() - t0 < args.seconds:
                if not plays:
                    hand = random_hand(rng, Rules(), dealer)
                    await api.post(f"/api/matches/{m}/hands", json={"dealer": dealer, "trump_card": hand.trump_card.code})
                    plays = [p.card.code for p in hand.plays]
                    dealer = (dealer + 1) % 4
                due = t0 + n * period
                await asyncio.sleep(max(0.0, due - time.perf_counter()))
                ts = time.perf_counter()
                r = await api.post(f"/api/matches/{m}/plays", json={"card": plays.pop(0)})
                if r.status_code != 201:
                    print("play refused:", r.text, file=sys.stderr)
                    continue
                sent[r.json()["id"]] = ts
                n += 1
            elapsed = time.perf_counter() - t0
            cpu = cpu_seconds(proc.pid) - cpu0
        await asyncio.sleep(1.0)  # let the last pushes arrive
        stop.set()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        shutil.rmtree(data, ignore_errors=True)
    lat = sorted((t - sent[i]) * 1000 for i, t in received if i in sent)
    expected = len(sent) * args.clients
    if not lat:
        print("no pushes measured")
        return 1
    q = statistics.quantiles(lat, n=100)
    print(f"plays posted: {len(sent)} in {elapsed:.1f} s ({len(sent) / elapsed:.1f}/s); "
          f"pushes measured: {len(lat)} of {expected} ({expected - len(lat)} missed or coalesced)")
    print(f"push latency ms: p50 {q[49]:.1f}  p95 {q[94]:.1f}  p99 {q[98]:.1f}  max {lat[-1]:.1f}")
    print(f"server CPU: {cpu / elapsed * 100:.0f}% of one core")
    return 0


def browser_latency(plays: int) -> int:
    """Time from the POST of a play to its card drawn in a real page (Debian chromium)."""
    from playwright.sync_api import sync_playwright

    data = tempfile.mkdtemp(prefix="sueca-bench-")
    port = free_port()
    proc = spawn(data, port)
    token = json.load(open(os.path.join(data, "config.json")))["admin_token"]
    api = httpx.Client(base_url=f"http://127.0.0.1:{port}", headers={"Authorization": f"Bearer {token}"})
    hand = random_hand(random.Random(2), Rules(), 0)
    lat = []
    try:
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path="/usr/bin/chromium", args=[
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run"])
            page = b.new_page(viewport={"width": 1280, "height": 800})
            page.goto(f"http://127.0.0.1:{port}/")
            page.wait_for_selector("#conn.on")
            api.post("/api/matches/1/hands", json={"dealer": 0, "trump_card": hand.trump_card.code})
            for k, play in enumerate(hand.plays[:plays]):
                card = play.card.code
                page.evaluate("""(card) => { window.__t = null; const obs = new MutationObserver(() => {
                    if (document.querySelector(`.slot svg[data-card="${card}"]`)) {
                        window.__t = performance.timeOrigin + performance.now(); obs.disconnect(); } });
                    obs.observe(document.body, {subtree: true, childList: true}); }""", card)
                t0 = time.time() * 1000
                api.post("/api/matches/1/plays", json={"card": card})
                page.wait_for_function("window.__t !== null")
                lat.append(page.evaluate("window.__t") - t0)
            b.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        shutil.rmtree(data, ignore_errors=True)
    lat.sort()
    print(f"browser: {len(lat)} plays, POST -> card drawn ms: p50 {statistics.median(lat):.0f}  "
          f"p95 {lat[int(0.95 * (len(lat) - 1))]:.0f}  max {lat[-1]:.0f}")
    return 0


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=200)
    ap.add_argument("--rate", type=float, default=10.0, help="plays per second")
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--browser", type=int, default=0, metavar="N",
                    help="instead: N plays into one real chromium page, POST -> card drawn")
    a = ap.parse_args()
    sys.exit(browser_latency(a.browser) if a.browser else asyncio.run(main(a)))
