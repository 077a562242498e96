"""The dashboard in a real browser (Debian chromium, headless, driven by Playwright).

It must see a play pushed by the server appear, show the renúncia banner with
both snapshots, and re-sync after a server restart. Screenshots go to
``test-output/``.
"""

from __future__ import annotations

import os
import random
import threading
import time
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="needs Debian chromium at /usr/bin/chromium")]
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
OUT = Path(__file__).resolve().parent.parent / "test-output"
RENUNCIA_PLAYS = [("AS", 0), ("2D", 1), ("KS", 2), ("QS", 3), ("AC", 0), ("3S", 1)]


class ServerThread:
    """uvicorn serving a fresh app on ``data_dir`` in a thread (a 'server process' we can restart)."""

    def __init__(self, data_dir, port):
        import uvicorn

        from sueca.server.app import create_app

        self.app = create_app(data_dir)
        self.server = uvicorn.Server(uvicorn.Config(self.app, host="127.0.0.1", port=port, log_level="error",
                                                    timeout_graceful_shutdown=1))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self):
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            assert time.monotonic() < deadline, "server did not start"
            time.sleep(0.05)
        return self

    def __exit__(self, *exc):
        self.app.state.referee.hub.close()
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.app.state.store.close()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def snapshot_jpeg(trick):
    from sueca.server.demo import render_table

    jpeg, _ = render_table(trick, 3, "5H", random.Random(len(trick)))
    return jpeg


def test_play_appears_banner_shows_and_page_resyncs_after_restart(browser, tmp_path):
    from sueca.server.runner import free_port
    from sueca.vision.events import PlayEvent, SourceStatus, TrumpSeen

    OUT.mkdir(exist_ok=True)
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    with ServerThread(tmp_path, port) as srv:
        feed = srv.app.state.feed
        srv.app.state.referee.submit("names", {"players": ["Ana", "Rui", "Zé", "Bia"]}, "referee")
        page.goto(url)
        page.wait_for_selector("#conn.on", timeout=10000)
        assert page.inner_text(".seat.s2").startswith("Zé")
        assert "Nós" in page.inner_text("#cross")
        assert page.text_content("#rules-short") == "Partida a 4 · regras habituais"
        srv.app.state.referee.submit("rules", {"rules": {"renuncia": "claim", "pente": True}}, "referee")
        page.wait_for_function("document.querySelector('#rules-short').textContent.includes('pente')")
        assert page.text_content("#rules-short") == "Partida a 4 · renúncia reclamada · pente"
        srv.app.state.referee.submit("rules", {"rules": {"renuncia": "auto", "pente": False}}, "referee")

        feed.on_event(TrumpSeen("5H", 3, 0.0, 0.95))
        page.wait_for_selector(".seat.s3 .chip", timeout=5000)  # the dealer marker
        page.evaluate("""() => { window.__seen = null; new MutationObserver(() => {
            if (!window.__seen && document.querySelector('.slot[data-slot="0"] svg[data-card="AS"]'))
                window.__seen = Date.now(); }).observe(document.body, {subtree: true, childList: true}); }""")
        sent = time.time() * 1000
        feed.on_event(PlayEvent("AS", 0, 1.0, 0.97, snapshot_jpeg=snapshot_jpeg([(0, "AS")])))
        page.wait_for_selector('.slot[data-slot="0"] svg[data-card="AS"]', timeout=5000)
        shown = page.evaluate("window.__seen")
        print(f"play pushed -> drawn in the browser: {shown - sent:.0f} ms")
        assert page.inner_text("#turn-line").endswith("Rui")

        trick = [(0, "AS")]
        for card, seat in RENUNCIA_PLAYS[1:]:
            trick = (trick + [(seat, card)])[-4:]
            feed.on_event(PlayEvent(card, seat, 2.0, 0.96, snapshot_jpeg=snapshot_jpeg(trick)))
        feed.on_event(SourceStatus(True, 8.0, 400, "sueca-yolo-n", ""))
        banner = page.wait_for_selector("#banner:not([hidden]) .renuncia", timeout=5000)
        text = banner.inner_text()
        assert "RENÚNCIA" in text and "Rui" in text and "espadas" in text
        page.wait_for_function("""() => [...document.querySelectorAll('#banner figure img')]
            .filter(i => i.complete && i.naturalWidth > 0).length === 2""", timeout=5000)
        page.wait_for_function("document.querySelector('#cross text.num.t0').textContent === '4'", timeout=5000)
        page.wait_for_timeout(400)  # let the last card finish landing
        page.screenshot(path=str(OUT / "server_renuncia_tv.png"))
        phone = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2)
        phone.goto(url)
        phone.wait_for_selector("#banner:not([hidden]) .renuncia", timeout=10000)
        phone.screenshot(path=str(OUT / "server_renuncia_phone.png"), full_page=True)
        phone.click('.lang button[data-lang="en"]')
        assert "did not follow spades" in phone.inner_text("#banner")
        phone.close()

    page.wait_for_selector("#conn.off", timeout=10000)
    with ServerThread(tmp_path, port) as srv:  # the restart: same data, new process state
        assert srv.app.state.referee.state()["riscos"] == [4, 0]
        srv.app.state.feed.on_event(TrumpSeen("2C", 0, 5.0, 0.9))  # a new match starts after the win
        srv.app.state.feed.on_event(PlayEvent("KC", 1, 6.0, 0.9))
        page.wait_for_selector('.slot[data-slot="1"] svg[data-card="KC"]', timeout=15000)
        assert page.is_hidden("#banner")
        page.screenshot(path=str(OUT / "server_after_restart_tv.png"))
        past = browser.new_page(viewport={"width": 1280, "height": 800})
        past.goto(f"{url}?match=1")  # the won match, read-only
        past.wait_for_selector("#banner:not([hidden]) .renuncia", timeout=10000)
        assert past.text_content("#cross text.num.t0") == "4"
        past.close()
    assert errors == []


def test_referee_drawer_corrects_a_play(browser, tmp_path):
    from sueca.server.runner import free_port
    from sueca.vision.events import PlayEvent, SourceStatus, TrumpSeen

    port = free_port()
    with ServerThread(tmp_path, port) as srv:
        token = srv.app.state.config.admin_token
        srv.app.state.feed.on_event(TrumpSeen("5H", 3, 0.0, 0.95))
        srv.app.state.feed.on_event(PlayEvent("KS", 0, 1.0, 0.6, uncertain=True))
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"http://127.0.0.1:{port}/#token={token}")
        page.wait_for_selector("#conn.on", timeout=10000)
        page.wait_for_selector('.slot[data-slot="0"] svg.uncertain', timeout=5000)
        page.click("#open-admin")
        page.wait_for_selector("#token-msg.good", timeout=5000)
        page.fill("#referee-name", "Rita")
        page.dispatch_event("#referee-name", "change")
        page.click('#a-plays [data-pick="0"]')
        page.fill('#f-play input[name="card"]', "4S")
        page.click('#f-play button[name="correct"]')
        page.wait_for_selector('.slot[data-slot="0"] svg[data-card="4S"]', timeout=5000)
        assert not page.query_selector('.slot[data-slot="0"] svg.uncertain')
        ev = srv.app.state.store.events(srv.app.state.referee.live_id)[-1]
        assert (ev.kind, ev.who, ev.payload["card"]) == ("correct_play", "referee:Rita", "4S")
        page.screenshot(path=str(OUT / "server_referee_drawer.png"))
        # plays held behind a card nobody could read: the referee is told to name it
        srv.app.state.feed.on_event(SourceStatus(True, 9.5, 120, "packaged", held=3, held_t=12.34))
        page.wait_for_selector("#notices .notice.held", timeout=5000)
        text = page.text_content("#notices .notice.held")
        assert "12.3 s" in text and "3 jogada(s)" in text
        srv.app.state.feed.on_event(SourceStatus(True, 9.5, 140, "packaged"))
        page.wait_for_selector("#notices .notice.held", state="detached", timeout=5000)
        # the unread card itself, refused as a play: its weak reading is shown, as such
        srv.app.state.feed.on_event(PlayEvent("", 1, 2.0, 0.0, uncertain=True, hint="7H"))
        page.wait_for_selector("#notices .notice.bad", timeout=5000)
        notice = page.text_content("#notices .notice.bad")
        assert "? (leitura fraca: Manilha de copas) — ninguém a conseguiu ler" in notice
        # a card nobody saw played at all: whose it was is what the referee needs
        srv.app.state.feed.on_event(PlayEvent("", 2, 2.5, 0.0, uncertain=True, unseen=True))
        page.wait_for_function("document.querySelector('#notices').textContent.includes('ninguém viu')",
                               timeout=5000)
        assert "ninguém viu a carta de Jogador 3 ser jogada" in page.text_content("#notices")
        # a Pi reading its camera too slowly: the status line says so, and stops saying it
        srv.app.state.feed.on_event(SourceStatus(True, 4.2, 150, "packaged", slow=True))
        page.wait_for_selector("#status-line .slow", state="attached", timeout=5000)
        assert "lento de mais" in page.text_content("#status-line .slow")
        assert "4.2 imagens/s" in page.text_content("#status-line")
        srv.app.state.feed.on_event(SourceStatus(True, 9.5, 160, "packaged"))
        page.wait_for_selector("#status-line .slow", state="detached", timeout=5000)
        # the camera view: the latest frame with its detections drawn over it
        jpeg = snapshot_jpeg([(0, "4S")])
        srv.app.state.feed.on_frame(jpeg, (640, 480), [{"card": "4S", "confidence": 0.93, "box": [290, 290, 350, 370]}], 5)
        page.click("#close-admin")
        page.locator("#cam-wrap").scroll_into_view_if_needed()
        page.wait_for_selector("#cam-overlay .dets rect", state="attached", timeout=5000)
        assert "4S 93%" in page.text_content("#cam-overlay")
        assert page.is_hidden("#cam-empty")
        assert page.evaluate("document.querySelector('#cam-img').naturalWidth") == 640
        assert page.is_hidden("#cam-size")  # plain entries carry no outline: nothing said
        # a camera mounted too high: its cards' outlines are 60 px long, and the view says so
        import numpy as np

        from sueca.vision.detections import CardDetections, outline_boxes

        q = np.array([[290, 290], [333, 290], [333, 350], [290, 350]], np.float32)
        small = CardDetections(outline_boxes(q[None], (640, 480)), ("4S",), np.array([0.93], np.float32),
                               np.array([0.9], np.float32), q[None], np.ones(1, bool))
        srv.app.state.feed.on_frame(jpeg, (640, 480), small, 6)
        page.wait_for_selector("#cam-size.bad", timeout=5000)
        assert "60 px" in page.text_content("#cam-size") and "baixe a câmara" in page.text_content("#cam-size")
        # the referee drags seat 0's point on the snapshot and saves the calibration
        page.click("#open-admin")
        dot = page.wait_for_selector('#calib-svg [data-pt="0"] circle', timeout=5000)
        assert "60 px" in page.text_content("#calib-size") and page.is_visible("#calib-size")
        page.wait_for_timeout(300)
        dot.scroll_into_view_if_needed()
        box = dot.bounding_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move(x - 40, y - 30, steps=6)
        page.mouse.up()
        page.click("#calib-save")
        page.wait_for_selector("#calib-msg.good", timeout=5000)
        cal = srv.app.state.config.calibration
        assert cal["image_size"] == [640, 480] and cal["seats"][0][1] < 480 * 0.92 - 5
