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

import random
import threading
import time

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


def demo_source(feed, stop: threading.Event, interval: float = 1.5) -> None:
    """The source ``sueca demo`` runs. Swap this body for the real pipeline."""
    simulated_source(feed, stop, interval=interval)


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
                     revoke_rate: float = 0.02, uncertain_rate: float = 0.04) -> None:
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
