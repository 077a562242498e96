"""Play a random game with the engine and lay it out in time: who moves what, when.

The plan is pure data (tracks of plane poses over time); ``game.py`` renders it.

>>> plan = plan_game(seed=1, hands=1, size=(640, 480))
>>> len(plan.record["hands"][0]["plays"])
40
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import numpy as np


@dataclass
class Track:
    """Keyframes (t, x, y, angle) in plane pixels; eased between keys, held outside."""

    keys: list = field(default_factory=list)
    t0: float = 0.0                  # appears
    t1: float = float("inf")         # gone
    face_up: list = field(default_factory=list)  # (t, bool) changes, sorted

    def add(self, t, x, y, a):
        self.keys.append((float(t), float(x), float(y), float(a)))
        return self

    def pose(self, t: float):
        k = self.keys
        if t <= k[0][0]:
            return k[0][1:]
        for (ta, xa, ya, aa), (tb, xb, yb, ab) in zip(k, k[1:]):
            if t <= tb:
                u = 0.0 if tb <= ta else (t - ta) / (tb - ta)
                u = u * u * (3 - 2 * u)   # smoothstep: people accelerate and brake
                da = (ab - aa + 180) % 360 - 180
                return xa + (xb - xa) * u, ya + (yb - ya) * u, aa + da * u
        return k[-1][1:]

    def is_face_up(self, t: float) -> bool:
        up = True
        for tt, v in self.face_up:
            if t >= tt:
                up = v
        return up

    def visible(self, t: float) -> bool:
        return self.t0 <= t < self.t1


@dataclass
class GamePlan:
    size: tuple[int, int]
    unit: float                      # card height, plane px
    centre: np.ndarray
    seat_dirs: list                  # unit vectors from the centre towards each seat
    seat_edges: list                 # plane points at the table edge in front of each seat
    cards: list                      # (code, Track, z) in drawing order
    hands: list                      # (seat, pose, Track)
    record: dict                     # interfaces.md game record
    events: dict                     # extra truth
    duration: float


def _angle_facing(d) -> float:
    """Card/arm angle whose 'up' points away from a player in direction ``d`` from the centre."""
    return float(np.degrees(np.arctan2(-d[0], d[1])))


def _simulate(rng: random.Random, hands: int, renuncias: int, target: int = 4):
    from sueca.engine import Card, Deal, Hand, Match, MatchRecord, Rules

    rules = Rules(target=target)
    dealer = rng.randrange(4)
    out = []
    per_hand = [0] * hands
    for k in range(renuncias):
        per_hand[k % hands] += 1
    injected = 0
    record = MatchRecord(rules)
    for h in range(hands):
        deal = Deal.random(rng, rules, dealer)
        hand = Hand(rules, dealer, deal.trump_card)
        held = [sorted(x, key=str) for x in deal.holdings]
        plays, todo, revokers = [], per_hand[h], set()
        while hand.turn is not None:
            seat = hand.turn
            legal = hand.legal_moves(held[seat])
            choices = legal
            if todo and seat not in revokers and hand.trick_index >= 1 and len(legal) < len(held[seat]):
                other = [c for c in held[seat] if c not in legal and c is not deal.trump_card]
                if other and (rng.random() < 0.4 or hand.trick_index >= 7):
                    choices, todo = other, todo - 1
                    revokers.add(seat)
                    injected += 1
            if seat == dealer and deal.trump_card in choices and len(choices) > 1 and rng.random() < 0.6:
                choices = [c for c in choices if c is not deal.trump_card]  # keep the trump card a while
            card = rng.choice(choices)
            held[seat].remove(card)
            trick_before = hand.trick_index
            hand.play(card, seat)
            winner = hand.tricks[-1].winner if hand.trick_index > trick_before else None
            plays.append((str(card), seat, winner))
        out.append((dealer, str(deal.trump_card), plays))
        record = record.new_hand(dealer, deal.trump_card)
        for code, seat, _ in plays:
            record = record.add_play(Card.parse(code), seat)
        if Match(record).winner is not None:
            break
        dealer = (dealer + 1) % 4
    return out, injected, rules.to_dict()


def plan_game(seed: int, hands: int = 1, size=(1280, 960), renuncias: int = 0, clockwise: bool = False,
              pace: float = 1.0, target: int = 4) -> GamePlan:
    """Simulate ``hands`` hands and time every movement. ``pace`` < 1 shortens the pauses.

    The match stops early when a team reaches ``target`` riscos (a renúncia alone scores 4,
    so several renúncias over several hands need a higher target).
    """
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    w, h = size
    unit = 0.105 * h
    centre = np.array([w / 2, h / 2]) + nrng.normal(0, 0.02, 2) * [w, h]
    # Seat 0 at the bottom; counter-clockwise as seen from above: bottom, right, top, left.
    dirs = [np.array(d, float) for d in ((0, 1), (1, 0), (0, -1), (-1, 0))]
    if clockwise:
        dirs = [dirs[0], dirs[3], dirs[2], dirs[1]]
    reach = [0.46 * (h if abs(d[1]) else w) for d in dirs]
    edges = [centre + d * r for d, r in zip(dirs, reach)]
    off = [centre + d * (r + 4.5 * unit) for d, r in zip(dirs, reach)]   # out of frame
    games, injected, rules = _simulate(rng, hands, renuncias, target)

    cards, hand_tracks, rec_hands, ev_plays, ev_tricks, ev_trumps = [], [], [], [], [], []
    z = 0

    def J(s):  # jittered duration
        return s * rng.uniform(0.8, 1.25)

    def hand_move(seat, pose, path, t0, t1):
        tr = Track(t0=t0, t1=t1)
        for t, p in path:
            tr.add(t, p[0], p[1], _angle_facing(dirs[seat]) + rng.gauss(0, 6))
        hand_tracks.append((seat, pose, tr))

    def pinch_point(card_xy, seat):
        return np.asarray(card_xy) + dirs[seat] * unit * 0.38

    t = 1.0
    for hi, (dealer, trump, plays) in enumerate(games):
        # The dealer puts the turned trump card beside them.
        perp = np.array([-dirs[dealer][1], dirs[dealer][0]])
        tspot = centre + dirs[dealer] * (reach[dealer] - 1.3 * unit) + perp * unit * rng.uniform(0.9, 1.6)
        tang = _angle_facing(dirs[dealer]) + rng.gauss(0, 15)
        trump_track = Track(t0=t)
        t_in = t + J(0.8)
        p = pinch_point(tspot, dealer)
        trump_track.add(t, *(off[dealer] - dirs[dealer] * 0.38 * unit), tang).add(t_in, *tspot, tang)
        hand_move(dealer, "pinch", [(t, off[dealer]), (t_in, p), (t_in + 0.2, p), (t_in + J(0.8), off[dealer])],
                  t, t_in + 1.2)
        ev_trumps.append({"hand": hi, "card": trump, "seat": dealer, "t": round(t_in, 3)})
        trump_obj = [trump, trump_track, z]
        cards.append(trump_obj)
        z += 1
        t = t_in + J(1.5) * pace
        rec_plays, trick = [], []
        t_deal = trump_track.keys[0][0]
        leaves = {seat: [] for seat in range(4)}   # when each held card leaves its player's fan
        for pi, (code, seat, winner) in enumerate(plays):
            rest = (centre + dirs[seat] * unit * rng.uniform(0.55, 0.95)
                    + np.array([-dirs[seat][1], dirs[seat][0]]) * unit * rng.gauss(0, 0.15))
            ang = _angle_facing(dirs[seat]) + rng.gauss(0, 18) + (180 if rng.random() < 0.2 else 0)
            think = J(1.2) * pace if trick else J(1.6) * pace
            start = t + think
            if code != trump:
                leaves[seat].append(start)
            if code == trump:   # the dealer picks the trump card up from beside them
                tr = trump_obj[1]
                pick = start + J(0.5)
                t_rest = pick + J(0.7)
                tr.add(pick, *tr.keys[-1][1:]).add(t_rest, *rest, ang)
                hp = [(start, off[seat]), (pick, pinch_point(tspot, seat)), (t_rest, pinch_point(rest, seat))]
                cards.remove(trump_obj)
                trump_obj[2] = z
                cards.append(trump_obj)
                obj = trump_obj
            else:
                t_rest = start + J(0.8)
                tr = Track(t0=start).add(start, *(off[seat] - dirs[seat] * 0.38 * unit), ang).add(t_rest, *rest, ang)
                hp = [(start, off[seat]), (t_rest, pinch_point(rest, seat))]
                obj = [code, tr, z]
                cards.append(obj)
            z += 1
            t_out = t_rest + J(0.2) + J(0.6)
            hp += [(t_rest + J(0.2), hp[-1][1]), (t_out, off[seat])]
            hand_move(seat, "pinch", hp, start, t_out + 0.05)
            if rng.random() < 0.12:  # someone else's hand drifts over the table meanwhile
                other = (seat + rng.randrange(1, 4)) % 4
                mid = centre + dirs[other] * unit * rng.uniform(1.2, 2.5) + nrng.normal(0, unit * 0.5, 2)
                hand_move(other, "flat", [(start, off[other]), (start + J(0.9), mid), (start + J(1.8), mid),
                                          (start + J(2.6), off[other])], start, start + 3.5)
            rec_plays.append({"card": code, "seat": seat, "t": round(t_rest, 3)})
            ev_plays.append({"hand": hi, "index": pi, "card": code, "seat": seat, "t": round(t_rest, 3),
                             "rest_xy": [round(float(v), 1) for v in rest], "rest_angle": round(ang, 1)})
            trick.append(obj)
            t = t_rest
            if winner is not None:
                # The winner sweeps the trick towards themselves and it leaves the table.
                s0 = t + J(1.4) * pace
                s1 = s0 + J(0.7)          # hand reaches the middle
                s2 = s1 + J(0.4)          # cards gathered into a pile
                s3 = s2 + J(0.8)          # pile carried off the table
                pile = centre + dirs[winner] * unit * 0.3
                for k, o in enumerate(trick):
                    x, y, a = o[1].keys[-1][1:]
                    o[1].add(s1, x, y, a).add(s2, *(pile + k * 2.0), a).add(s3, *(off[winner]), a)
                    o[1].face_up.append((s2, False))
                    o[1].t1 = s3
                hand_move(winner, "flat", [(s0, off[winner]), (s1, pile + dirs[winner] * unit * 0.6),
                                           (s2, pile + dirs[winner] * unit * 0.5), (s3, off[winner] + dirs[winner] * unit)],
                          s0, s3 + 0.05)
                ev_tricks.append({"hand": hi, "trick": len([e for e in ev_tricks if e["hand"] == hi]),
                                  "winner": winner, "t_sweep_start": round(s0, 3), "t_gone": round(s3, 3)})
                trick = []
                t = s3
        # Each player holds their cards in a fan of backs at the table's edge, one fewer per play.
        for seat in range(4):
            if not leaves[seat]:
                continue
            up = _angle_facing(dirs[seat])
            pivot = edges[seat] - dirs[seat] * unit * 0.15
            n = len(leaves[seat])
            spread = rng.uniform(7, 11)
            for k in range(n):
                a = up + spread * (k - (n - 1) / 2)
                top = np.array([np.sin(np.radians(a)), -np.cos(np.radians(a))])
                q = pivot + top * unit * 0.32
                tr = Track(t0=t_deal, t1=leaves[seat][n - 1 - k], face_up=[(-1.0, False)]).add(t_deal, *q, a)
                cards.insert(0, ["back", tr, -1])
            hand_tracks.append((seat, "fist", Track(t0=t_deal, t1=max(leaves[seat]))
                                .add(t_deal, *pivot, up + rng.gauss(0, 6))))
        rec_hands.append({"dealer": dealer, "trump_card": trump, "plays": rec_plays})
        t += J(2.0)
    record = {"rules": rules, "hands": rec_hands}
    events = {"plays": ev_plays, "tricks": ev_tricks, "trumps": ev_trumps, "renuncias_injected": injected,
              "clockwise": clockwise, "card_height_px": round(unit, 1)}
    return GamePlan((w, h), unit, centre, dirs, edges, cards, hand_tracks, record, events, t + 1.0)
