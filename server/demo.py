"""What ``sueca demo`` feeds the dashboard: a table that plays Sueca by itself.

``demo_source(feed, stop)`` is the one function ``sueca demo`` runs in a
background thread. Today it is :func:`simulated_source`: games dealt and played
by the engine (legal moves, now and then a renúncia or an uncertain read), a
play every ``interval`` seconds, looping forever, with a drawn camera picture
and its detections. To run the real pipeline on the bundled demo video instead,
make ``demo_source`` call the pipeline with the same ``feed`` (it takes the
same events: ``PlayEvent``, ``TrumpSeen``, ``TrickCleared``, ``SourceStatus``).
"""

from __future__ import annotations

import os
import random
import threading
import time
from pathlib import Path

import cv2
import numpy as np

from sueca.engine import Card, Deal, Hand, Rules
from sueca.vision.events import PlayEvent, SourceStatus, TrickCleared, TrumpSeen

W, H = 640, 480
CENTER = (W // 2, H // 2)
#: seat -> where its card lands (seat 0 at the bottom, counter-clockwise play)
LANDING = {0: (320, 330), 1: (440, 240), 2: (320, 150), 3: (200, 240)}
EDGE = {0: (320, 450), 1: (610, 240), 2: (320, 30), 3: (30, 240)}
RED = {"H", "D"}
NOTHING_SEEN_S = 60.0


def demo_source(feed, stop: threading.Event, interval: float = 1.5, mode: str = "auto") -> None:
    """The source ``sueca demo`` runs.

    ``mode``: ``"pipeline"`` (the real product on the rendered demo game),
    ``"simulated"`` (the engine plays, no pixels), or ``"auto"``: the pipeline
    when packaged model weights exist, else the simulation.
    """
    if mode == "pipeline" or (mode == "auto" and pipeline_available()):
        try:
            pipeline_source(feed, stop)
            return
        except Exception as e:  # the demo must still show a game: say why on the status line
            feed.last_error = f"pipeline: {type(e).__name__}: {e}"
    simulated_source(feed, stop, interval=interval)


def pipeline_available() -> bool:
    """Packaged recognizer weights are there (``models/recognizer.json``)."""
    try:
        from sueca.vision.recognizer import default_model_dir

        return (default_model_dir() / "recognizer.json").is_file()
    except Exception:
        return False


def demo_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "sueca" / "demo-game"


def pipeline_source(feed, stop: threading.Event, cache_dir: str | Path | None = None) -> None:
    """The built-in demo game (rendered once, cached) through the real detector,
    tracker and engine, in real time, looping until ``stop``."""
    from sueca.datasets.game import demo_game, demo_ready
    from sueca.hardware.sources import open_source
    from sueca.vision.geometry import Calibration
    from sueca.vision.pipeline import Pipeline
    from sueca.vision.recognizer import load_recognizer

    recognizer = load_recognizer()
    cache = Path(cache_dir) if cache_dir else demo_cache_dir()
    if not demo_ready(cache):  # none yet, or one of an older demo (another size): render it
        feed.referee.set_status({"connected": False, "source": "demo", "last_error": "",
                                 "model": "a preparar o vídeo / rendering the demo video"})
    paths = demo_game(cache)
    video, cal_path = Path(paths["video"]), Path(paths["calibration"])
    calibration = Calibration.load(cal_path)
    current: dict = {}

    def recalibrate(cal: dict) -> None:  # the referee dragged the seat points
        nonlocal calibration
        calibration = Calibration.from_json(cal)
        if "pipe" in current:
            current["pipe"].set_calibration(calibration)

    feed.on_calibration(recalibrate)
    last = [0.0]
    started, version0 = time.monotonic(), feed.referee.state()["version"]

    def frame_out(image, dets, index, t) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        now = time.monotonic()
        if now - started > NOTHING_SEEN_S and feed.referee.state()["version"] == version0:
            # a newcomer must see a game: hand over to the simulated table
            raise RuntimeError(f"nothing recognised in {NOTHING_SEEN_S:.0f} s of the demo video")
        if image is None or now - last[0] < 0.25:
            return
        last[0] = now
        ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 70])
        if ok:
            feed.on_frame(buf.tobytes(), (image.shape[1], image.shape[0]), dets, index, t)

    while not stop.is_set():
        source = open_source(str(video), realtime=True)
        pipe = current["pipe"] = Pipeline(source, recognizer, calibration, on_event=feed.on_event,
                                          on_frame=frame_out, model_name="packaged",
                                          committed=feed.committed)
        try:
            pipe.run()
        except KeyboardInterrupt:
            return
        finally:
            if hasattr(source, "close"):
                source.close()
        stop.wait(3.0)  # the video ends: it starts again and the table plays on


def _draw_card(img: np.ndarray, code: str, center: tuple[int, int], angle: float = 0.0) -> list[float]:
    w, h = 56, 80
    box = cv2.boxPoints(((float(center[0]), float(center[1])), (w, h), angle)).astype(np.int32)
    cv2.fillConvexPoly(img, box, (250, 250, 250), cv2.LINE_AA)
    cv2.polylines(img, [box], True, (60, 60, 60), 1, cv2.LINE_AA)
    colour = (40, 40, 200) if code[-1] in RED else (30, 30, 30)
    cv2.putText(img, code, (center[0] - 22, center[1] + 8), cv2.FONT_HERSHEY_SIMPLEX, 0.75, colour, 2, cv2.LINE_AA)
    x1, y1 = box.min(axis=0)
    x2, y2 = box.max(axis=0)
    return [float(x1), float(y1), float(x2), float(y2)]


def render_table(trick: list[tuple[int, str]], dealer: int | None, trump: str | None,
                 rng: random.Random) -> tuple[bytes, list[dict]]:
    """A top-down picture of the table and what a detector would report on it."""
    img = np.full((H, W, 3), (40, 90, 35), np.uint8)
    cv2.ellipse(img, CENTER, (300, 220), 0, 0, 360, (30, 110, 45), -1, cv2.LINE_AA)
    noise = np.random.default_rng(rng.randrange(1 << 30)).integers(0, 12, (H, W, 1), dtype=np.uint8)
    img = cv2.add(img, np.repeat(noise, 3, axis=2))
    dets = []
    if trump is not None and dealer is not None:
        ex, ey = EDGE[dealer]
        pos = (int(0.78 * ex + 0.22 * CENTER[0]) + 50, int(0.78 * ey + 0.22 * CENTER[1]))
        box = _draw_card(img, trump, pos, 90.0)
        dets.append({"card": trump, "confidence": round(0.9 + 0.09 * rng.random(), 3), "box": box})
    for seat, code in trick:
        cx, cy = LANDING[seat]
        box = _draw_card(img, code, (cx + rng.randint(-6, 6), cy + rng.randint(-6, 6)), rng.uniform(-20, 20))
        dets.append({"card": code, "confidence": round(0.85 + 0.14 * rng.random(), 3), "box": box})
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 75])
    return buf.tobytes(), dets


def simulated_source(feed, stop: threading.Event, interval: float = 1.5, seed: int | None = None,
                     revoke_rate: float = 0.012, uncertain_rate: float = 0.04) -> None:
    """Play Sueca forever through ``feed`` until ``stop`` is set."""
    rng = random.Random(seed)
    rules = Rules()
    t0 = time.monotonic()
    frames = 0
    dealer = rng.randrange(4)

    def now() -> float:
        return round(time.monotonic() - t0, 2)

    def show(trick, hand_dealer, trump) -> bytes:
        nonlocal frames
        frames += 1
        jpeg, dets = render_table(trick, hand_dealer, trump, rng)
        feed.on_frame(jpeg, (W, H), dets, index=frames, t=now())
        return jpeg

    def wait(seconds: float, trick, hand_dealer, trump) -> bool:
        end = time.monotonic() + seconds
        while not stop.is_set() and time.monotonic() < end:
            show(trick, hand_dealer, trump)
            feed.on_event(SourceStatus(True, 4.0, frames, "demo (simulated table)", "", now()))
            stop.wait(min(0.25, max(0.0, end - time.monotonic())))
        return not stop.is_set()

    while not stop.is_set():
        deal = Deal.random(rng, rules, dealer)
        trump = deal.trump_card.code
        held = [sorted(h) for h in deal.holdings]
        hand = Hand(rules, dealer, deal.trump_card)
        feed.on_event(TrumpSeen(trump, dealer, now(), 0.97))
        if not wait(interval, [], dealer, trump):
            return
        trick: list[tuple[int, str]] = []
        while hand.turn is not None and hand.decided_by is None:
            seat = hand.turn
            legal = hand.legal_moves(held[seat])
            choices = legal
            if len(legal) < len(held[seat]) and rng.random() < revoke_rate:
                choices = [c for c in held[seat] if c not in legal and c is not deal.trump_card] or legal
            card: Card = rng.choice(choices)
            held[seat].remove(card)
            hand.play(card, seat)
            trick.append((seat, card.code))
            shown_trump = None if card is deal.trump_card or any(
                c is deal.trump_card for c, _, _ in hand.plays) else trump
            jpeg = show(trick, dealer, shown_trump)
            uncertain = rng.random() < uncertain_rate
            conf = round(rng.uniform(0.45, 0.6) if uncertain else rng.uniform(0.9, 0.995), 3)
            feed.on_event(PlayEvent(card.code, seat, now(), conf, uncertain, frames, jpeg))
            if not wait(interval, trick, dealer, shown_trump):
                return
            if len(trick) == 4:
                trick = []
                feed.on_event(TrickCleared(now()))
        if hand.decided_by is not None and not wait(4 * interval, [], None, None):
            return  # a renúncia ended the hand: leave the banner up a while
        dealer = (dealer + 1) % 4
        if feed.referee.state()["winner"] is not None and not wait(6 * interval, [], None, None):
            return
