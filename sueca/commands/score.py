"""``sueca score RECORD.json``: the score report of a game record."""

from __future__ import annotations

import argparse
import json
import sys
from importlib import resources

TEXTS = {
    "pt": {"title": "Sueca: folha de pontuação", "target": "jogo a {n} riscos", "teams": ("Nós", "Eles"),
           "hand": "Mão {n}", "dealer": "baralha o lugar {s}", "trump": "trunfo {suit} ({card})",
           "trick": "vaza {n}", "wins": "ganha o lugar {s}", "pts": "pts", "points": "Pontos",
           "tricks": "Vazas", "riscos": "Riscos", "total": "Total", "winner": "Vencedor: {t}",
           "no_winner": "Ainda sem vencedor", "in_progress": "em jogo", "tie": "empate 60-60",
           "capote": "capote", "pente": "pente", "renuncia": "renúncia", "points_o": "por pontos",
           "ren": "Renúncia do lugar {s} na vaza {t} (naipe pedido: {suit}), provada na vaza {p} com {c}",
           "bonus": "+{n} de bónus de empate", "lead": "sai o lugar {s}"},
    "en": {"title": "Sueca: score sheet", "target": "match to {n} riscos", "teams": ("Us", "Them"),
           "hand": "Hand {n}", "dealer": "seat {s} deals", "trump": "trump {suit} ({card})",
           "trick": "trick {n}", "wins": "seat {s} wins", "pts": "pts", "points": "Points",
           "tricks": "Tricks", "riscos": "Riscos", "total": "Total", "winner": "Winner: {t}",
           "no_winner": "No winner yet", "in_progress": "in progress", "tie": "60-60 tie",
           "capote": "capote", "pente": "pente", "renuncia": "renúncia", "points_o": "on points",
           "ren": "Renúncia by seat {s} in trick {t} (led suit: {suit}), proven in trick {p} by {c}",
           "bonus": "+{n} tie bonus", "lead": "seat {s} leads"},
}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("score", help="pontuar um registo de jogo / score a game record (JSON)",
                       description="Print the score report of a game record (interfaces.md). "
                                   "Exits non-zero with one line naming hand and play on a bad record.")
    p.add_argument("record", nargs="?", help="game record JSON file ('-' for stdin)")
    p.add_argument("--example", action="store_true", help="score the bundled example match")
    p.add_argument("--text", action="store_true", help="human score sheet instead of JSON")
    p.add_argument("--lang", choices=("pt", "en"), default="pt", help="language of --text (default pt)")
    p.set_defaults(func=run)


def load_example() -> dict:
    return json.loads(resources.files("sueca").joinpath("data/example_match.json").read_text("utf-8"))


def run(args: argparse.Namespace) -> int:
    from sueca.engine import Match, MatchRecord, RecordError

    if args.example == bool(args.record):
        print("sueca score: give a RECORD.json file or --example", file=sys.stderr)
        return 2
    if args.example:
        obj, name = load_example(), "example"
    else:
        name = args.record
        try:
            text = sys.stdin.read() if name == "-" else open(name, encoding="utf-8").read()
        except OSError as e:
            print(f"{name}: cannot read: {e.strerror}", file=sys.stderr)
            return 2
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as e:
            print(f"{name}: invalid JSON at line {e.lineno} column {e.colno}: {e.msg}", file=sys.stderr)
            return 1
    try:
        match = Match(MatchRecord.from_json(obj), strict=True)
    except RecordError as e:
        print(f"{name}: {e}", file=sys.stderr)
        return 1
    report = match.report()
    if args.text:
        print(score_sheet(report, args.lang))
    else:
        print(json.dumps(report, ensure_ascii=False))
    return 0


def score_sheet(report: dict, lang: str = "pt") -> str:
    """A human score sheet of a score report, hand by hand."""
    from sueca.engine import Card, Suit

    tx = TEXTS[lang]
    teams = tx["teams"]
    lines = [tx["title"] + " (" + tx["target"].format(n=report["rules"]["target"]) + ")", ""]
    for n, h in enumerate(report["hands"], 1):
        trump = Card.parse(h["trump_card"])
        lines.append(f"{tx['hand'].format(n=n)}: {tx['dealer'].format(s=h['dealer'])}, "
                     f"{tx['trump'].format(suit=trump.suit.display_name(lang), card=trump.display_name(lang))}, "
                     f"{tx['lead'].format(s=h['leader'])}")
        for k, t in enumerate(h["tricks"], 1):
            seats = [(t["leader"] + i) % 4 for i in range(4)]
            cards = "  ".join(f"{s}:{c:>3}" for s, c in zip(seats, t["cards"]))
            lines.append(f"  {tx['trick'].format(n=k):>8}  {cards}   {tx['wins'].format(s=t['winner'])}"
                         f" ({t['points']} {tx['pts']})")
        for r in h["renuncias"]:
            lines.append("  ! " + tx["ren"].format(s=r["seat"], t=r["trick"], p=r["proven_at_trick"],
                                                   suit=Suit(r["led_suit"]).display_name(lang), c=r["proof_card"]))
        outcome = {"points": tx["points_o"]}.get(h["outcome"], tx.get(h["outcome"], h["outcome"]))
        extra = ", " + tx["bonus"].format(n=h["bonus"]) if h.get("bonus") else ""
        lines.append(f"  {tx['points']}: {teams[0]} {h['points'][0]} - {teams[1]} {h['points'][1]}   "
                     f"{tx['tricks']}: {h['tricks_won'][0]} - {h['tricks_won'][1]}   "
                     f"{tx['riscos']}: {teams[0]} {h['riscos'][0]:+d}, {teams[1]} {h['riscos'][1]:+d} ({outcome}{extra})")
        lines.append("")
    r = report["riscos"]
    lines.append(f"{tx['total']}: {teams[0]} {r[0]} - {teams[1]} {r[1]}")
    w = report["winner"]
    lines.append(tx["winner"].format(t=teams[w]) if w is not None else tx["no_winner"])
    return "\n".join(lines)
