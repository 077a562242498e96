"""A simulated table for testing the tracker and play events without pixels.

``simulate(record, rng)`` lays out where every face-up card is at every frame
of a whole match: the turned trump beside the dealer, each play coming in from
its player's edge and coming to rest in the middle, hands hovering over cards,
sleeves nudging them, a card lifted and put back, tricks swept towards their
winner. ``OracleDetector`` then turns each frame's truth into the
``CardDetections`` a real recognizer would give, with its faults: flicker,
missed frames, partial boxes under hands, unreadable cards in motion,
misreads (mostly at low confidence), jitter.

>>> import random
>>> from sueca.engine import MatchRecord
>>> rec = MatchRecord.from_json({"hands": [{"dealer": 3, "trump_card": "5H",
...                                         "plays": ["AS", "2S", "KS", "QS"]}]})
>>> sim = simulate(rec, random.Random(0))
>>> [p.card for p in sim.truth[0].plays]
['AS', '2S', 'KS', 'QS']
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Iterator

import numpy as np

from .classes import CARD_CODES
from .detections import CardDetections


@dataclass(frozen=True)
class SimConfig:
    """Timing and fault rates of a simulated game (seconds, pixels)."""

    fps: float = 10.0
    size: tuple[int, int] = (1280, 960)
    card: tuple[float, float] = (84.0, 120.0)
    think_s: tuple[float, float] = (0.6, 2.0)     # pause before a play
    travel_s: tuple[float, float] = (0.3, 0.8)    # from the hand to rest
    hand_over_s: tuple[float, float] = (0.0, 0.4)  # the player's hand lingers on the card
    hover_p: float = 0.25        # per play: someone's hand covers a resting card
    hover_s: tuple[float, float] = (0.5, 3.0)
    nudge_p: float = 0.05        # per play: a sleeve pushes a resting card
    lift_p: float = 0.03         # per play: a card is lifted and put back
    sweep_wait_s: tuple[float, float] = (0.8, 2.0)
    between_hands_s: float = 4.0
    trump_visible: bool = True


@dataclass(frozen=True)
class TruePlay:
    card: str
    seat: int
    t_rest: float
    t_seen: float = -1.0   # when the player's hand let go of it: visible at rest from here


@dataclass(frozen=True)
class TrueHand:
    dealer: int
    trump_card: str
    plays: tuple[TruePlay, ...]


@dataclass
class _Card:
    code: str
    keys: list[tuple[float, float, float]]   # (t, x, y), linear in between
    t0: float
    t1: float
    angle: float
    covers: list[tuple[float, float, float]] = field(default_factory=list)  # (t0, t1, visible fraction)

    def at(self, t: float) -> tuple[float, float]:
        k = self.keys
        if t <= k[0][0]:
            return k[0][1], k[0][2]
        for (ta, xa, ya), (tb, xb, yb) in zip(k, k[1:]):
            if t <= tb:
                a = (t - ta) / (tb - ta) if tb > ta else 1.0
                return xa + a * (xb - xa), ya + a * (yb - ya)
        return k[-1][1], k[-1][2]

    def visible(self, t: float) -> float:
        v = 1.0
        for a, b, f in self.covers:
            if a <= t < b:
                v = min(v, f)
        return v


@dataclass(frozen=True)
class SimCard:
    """One face-up card in one frame: centre, tilt, how much of it shows, speed."""

    code: str
    cx: float
    cy: float
    angle: float
    visible: float
    speed: float
    quad: np.ndarray | None = None   # image outline when known (else from centre, angle, card size)


@dataclass
class SimGame:
    config: SimConfig
    calibration: object
    truth: list[TrueHand]
    duration: float
    cards: list[_Card]

    def frames(self) -> Iterator[tuple[int, float, list[SimCard]]]:
        """(index, t, cards) for every frame of the game, in order."""
        dt = 1.0 / self.config.fps
        cards = sorted(self.cards, key=lambda c: c.t0)
        active: list[_Card] = []
        k = 0
        n = int(self.duration / dt) + 1
        for i in range(n):
            t = round(i * dt, 6)
            while k < len(cards) and cards[k].t0 <= t:
                active.append(cards[k])
                k += 1
            active = [c for c in active if c.t1 > t]
            out = []
            for c in active:
                x, y = c.at(t)
                x2, y2 = c.at(t + dt)
                out.append(SimCard(c.code, x, y, c.angle, c.visible(t), math.hypot(x2 - x, y2 - y) / dt))
            yield i, t, out


def simulate(record, rng: random.Random, config: SimConfig | None = None, calibration=None) -> SimGame:
    """Lay out a whole match (a ``MatchRecord`` whose plays carry seats or not)."""
    from sueca.engine import Hand
    from sueca.vision.geometry import Calibration

    cfg = config or SimConfig()
    cal = calibration or Calibration.propose(*cfg.size)
    cx, cy = cal.center
    seats = [np.array(s, float) for s in cal.seats]
    c0 = np.array([cx, cy])
    cards: list[_Card] = []
    truth: list[TrueHand] = []
    t = 1.0
    u = rng.uniform

    def spot(seat: int, along: float, side: float) -> np.ndarray:
        d = seats[seat] - c0
        n = np.array([-d[1], d[0]]) / (np.linalg.norm(d) + 1e-9)
        return c0 + along * d + side * n

    for hr in record.hands:
        hand = Hand(record.rules, hr.dealer, hr.trump_card, hr.leader)
        trump_code = hr.trump_card.code
        trump_spot = spot(hr.dealer, 0.72, 150.0)
        trump_card = None
        if cfg.trump_visible:
            trump_card = _Card(trump_code, [(t, *trump_spot)], t, math.inf, u(-0.3, 0.3))
            cards.append(trump_card)
            t += 2.0
        plays: list[TruePlay] = []
        trick: list[_Card] = []
        for p in hr.plays:
            seat = hand.turn
            t += u(*cfg.think_s)
            radius = min(np.linalg.norm(s - c0) for s in seats) * cal.play_area
            rest = spot(seat, 0.0, 0.0) + (seats[seat] - c0) / np.linalg.norm(seats[seat] - c0) * radius * u(0.4, 0.6)
            rest = rest + np.array([u(-15, 15), u(-15, 15)])
            travel = u(*cfg.travel_s)
            if p.card.code == trump_code and trump_card is not None:
                # the dealer picks up the turned card and plays it: one card, one path
                trump_card.keys.append((t, *trump_spot))
                trump_card.keys.append((t + travel, *rest))
                c = trump_card
            else:
                start = spot(seat, u(0.75, 0.9), u(-80, 80))
                c = _Card(p.card.code, [(t, *start), (t + travel, *rest)], t, math.inf, u(-0.5, 0.5))
                cards.append(c)
            # the player's hand holds the card on its way and lingers a moment
            c.covers.append((t, t + travel, u(0.5, 0.8)))
            t_rest = t + travel
            linger = u(*cfg.hand_over_s)
            if linger > 0.05:
                c.covers.append((t_rest, t_rest + linger, u(0.0, 0.6)))
            seen = t_rest + (linger if linger > 0.05 else 0.0)
            plays.append(TruePlay(p.card.code, seat, round(t_rest, 6), round(seen, 6)))
            t = t_rest + linger
            if rng.random() < cfg.hover_p and trick:
                # someone reaches over the cards already on the table
                a = t + u(0.0, 0.5)
                victim = rng.choice(trick)
                victim.covers.append((a, a + u(*cfg.hover_s), rng.choice([0.0, 0.0, 0.4])))
            if rng.random() < cfg.nudge_p:
                a = t + u(0.2, 1.0)
                x, y = c.at(a)
                c.keys += [(a, x, y), (a + 0.2, x + u(-25, 25), y + u(-25, 25))]
                c.covers.append((a, a + 0.25, 0.5))
            elif rng.random() < cfg.lift_p:
                a = t + u(0.6, 1.2)  # after it has been seen lying there
                x, y = c.at(a)
                c.covers.append((a, a + u(0.5, 2.0), 0.0))
                c.keys += [(a, x, y), (a + 0.3, x + u(-10, 10), y + u(-10, 10))]
            hand.play(p.card, seat)
            trick.append(c)
            if len(trick) == 4:
                winner = hand.tricks[-1].winner
                # nobody sweeps while a hand still covers the trick
                t = max([t + u(*cfg.sweep_wait_s)] + [b + 0.3 for c in trick for _, b, _ in c.covers])
                edge = spot(winner, 0.95, 0.0)
                for c in trick:
                    x, y = c.at(t)
                    c.keys += [(t, x, y), (t + 0.5, *edge)]
                    c.covers.append((t, t + 0.5, 0.5))
                    c.t1 = t + 0.5
                t += 0.6
                trick = []
        truth.append(TrueHand(hr.dealer, trump_code, tuple(plays)))
        if trump_card is not None and trump_card.t1 == math.inf:
            trump_card.t1 = t  # never played (an unfinished hand)
        for c in trick:
            c.t1 = t
        t += cfg.between_hands_s
    return SimGame(cfg, cal, truth, t, cards)


@dataclass(frozen=True)
class OracleNoise:
    """How a detector errs; rates per card per frame."""

    miss: float = 0.06            # flicker: a visible card not found
    unreadable: float = 0.15      # found, not read (glare)
    unreadable_moving: float = 0.7
    misread: float = 0.03         # read as another card at low confidence
    confident_misread: float = 0.002
    jitter_px: float = 1.5
    min_visible: float = 0.35     # less than this shows: not found at all


class OracleDetector:
    """Truth of a simulated frame -> ``CardDetections`` with realistic faults.

    Deterministic for a given ``seed``; a callable on ``(cards, frame_index)``.
    """

    def __init__(self, card_size: tuple[float, float] = (84.0, 120.0), noise: OracleNoise | None = None,
                 seed: int = 0) -> None:
        self.card_size = card_size
        self.noise = noise or OracleNoise()
        self.rng = np.random.default_rng(seed)

    def __call__(self, cards: list[SimCard]) -> CardDetections:
        nz, r = self.noise, self.rng
        w, h = self.card_size
        boxes, codes, conf, loc, corners = [], [], [], [], []
        for c in cards:
            if c.visible < nz.min_visible or r.random() < nz.miss:
                continue
            if c.quad is not None:
                rot = np.array(c.quad, np.float64)
                if c.visible < 1.0:
                    # a hand covers part of the card: only part of the outline is found
                    rot[2:] = rot[1::-1] + (rot[2:] - rot[1::-1]) * c.visible
                rot = rot + r.normal(0, nz.jitter_px, 2)
            else:
                ca, sa = math.cos(c.angle), math.sin(c.angle)
                pts = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
                if c.visible < 1.0:
                    # a hand covers part of the card: only part of the outline is found
                    pts[2:, 1] = -h / 2 + h * c.visible
                rot = pts @ np.array([[ca, sa], [-sa, ca]])
                rot += np.array([c.cx, c.cy]) + r.normal(0, nz.jitter_px, 2)
            x1, y1 = rot.min(0)
            x2, y2 = rot.max(0)
            boxes.append([x1, y1, x2, y2])
            corners.append(rot)
            lc = float(r.uniform(0.7, 0.99))
            loc.append(lc)
            moving = c.speed > 60.0
            p_unread = nz.unreadable_moving if moving else nz.unreadable
            if c.visible < 0.9:
                p_unread = max(p_unread, 0.8)
            roll = r.random()
            if roll < nz.confident_misread:
                codes.append(_other(c.code, r))
                conf.append(float(r.uniform(0.8, 0.9)))
            elif roll < nz.confident_misread + nz.misread:
                codes.append(_other(c.code, r))
                conf.append(float(r.uniform(0.2, 0.6)))
            elif r.random() < p_unread:
                codes.append("")
                conf.append(lc)
            else:
                codes.append(c.code)
                conf.append(float(r.uniform(0.8, 0.99)))
        if not codes:
            return CardDetections.empty()
        return CardDetections(np.asarray(boxes, np.float32), tuple(codes), np.asarray(conf, np.float32),
                              np.asarray(loc, np.float32), np.asarray(corners, np.float32))


def _other(code: str, r: np.random.Generator) -> str:
    while True:
        c = CARD_CODES[int(r.integers(len(CARD_CODES)))]
        if c != code:
            return c


@dataclass(frozen=True)
class SimFrame:
    """A frame of the simulated table: ``image`` is the list of cards in view."""

    image: list
    t: float
    index: int


def truth_json(game: SimGame) -> list[dict]:
    """The game's truth in the form :func:`sueca.vision.gamecheck.compare` reads."""
    return [{"dealer": h.dealer, "trump_card": h.trump_card,
             "plays": [{"card": p.card, "seat": p.seat, "t": p.t_rest, "t_seen": p.t_seen} for p in h.plays]}
            for h in game.truth]


def sim_source(game: SimGame) -> Iterator[SimFrame]:
    """The simulated game as a pipeline source (pair it with an ``OracleDetector``)."""
    for i, t, cards in game.frames():
        yield SimFrame(cards, t, i)
