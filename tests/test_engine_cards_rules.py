import pytest

from sueca.engine import ALL_CARDS, Card, Rank, Rules, RulesError, Suit, VARIANTS
from sueca.vision.classes import CARD_CODES


def test_all_52_cards_parse_and_round_trip():
    assert len(ALL_CARDS) == 52
    assert [c.code for c in ALL_CARDS] == list(CARD_CODES)
    for i, c in enumerate(ALL_CARDS):
        assert Card.parse(c.code) is c
        assert c.index == i
        assert Card(c.rank, c.suit) is c


@pytest.mark.parametrize("bad", ["", "1S", "11H", "as", "AX", "10", None, 7, "A S"])
def test_unknown_card_codes_are_refused(bad):
    with pytest.raises(ValueError, match="unknown card"):
        Card.parse(bad)


def test_cards_are_immutable_and_hashable():
    c = Card.parse("7H")
    with pytest.raises(AttributeError):
        c.rank = Rank.ACE
    assert {c, Card.parse("7H")} == {c}


def test_display_names():
    assert Card.parse("AH").display_name("pt") == "Ás de copas"
    assert Card.parse("7S").display_name("pt") == "Manilha de espadas"
    assert Card.parse("QC").display_name("en") == "Queen of clubs"
    assert Suit.DIAMONDS.display_name() == "ouros"


def test_sueca_deck_and_points():
    rules = Rules()
    assert len(rules.deck) == 40
    assert not any(c.rank in (Rank.EIGHT, Rank.NINE, Rank.TEN) for c in rules.deck)
    assert sum(rules.points(c) for c in rules.deck) == 120
    for s in Suit:
        assert sum(rules.points(c) for c in rules.deck if c.suit is s) == 30
    assert [rules.points(Card.parse(x)) for x in "AS 7S KS JS QS 6S 2S".split()] == [11, 10, 4, 3, 2, 0, 0]


def test_rank_order():
    rules = Rules()
    order = "A 7 K J Q 6 5 4 3 2".split()
    strengths = [rules.strength[Card.parse(r + "H").index] for r in order]
    assert strengths == sorted(strengths, reverse=True)
    assert len(set(strengths)) == 10


def test_ten_for_seven_swaps_the_seven_for_the_ten():
    rules = Rules(ten_for_seven=True)
    deck = {c.code for c in rules.deck}
    assert "10H" in deck and "7H" not in deck and len(deck) == 40
    assert rules.points(Card.parse("10H")) == 10
    assert rules.strength[Card.parse("10H").index] == Rules().strength[Card.parse("7H").index]
    assert sum(rules.points(c) for c in rules.deck) == 120


def test_rules_defaults_match_rules_md():
    assert Rules().to_dict() == {"target": 4, "capote": "all_tricks", "tie": "nothing",
                                 "first_lead": "right_of_dealer", "renuncia": "auto",
                                 "forced_trump": False, "pente": False, "rolha": False,
                                 "ten_for_seven": False}
    assert Rules.from_dict({}) == Rules() == Rules.from_dict(None)


def test_every_variant_value_is_accepted_and_round_trips():
    for name, values in VARIANTS.items():
        for v in values:
            r = Rules.from_dict({name: v})
            assert getattr(r, name) == v
            assert Rules.from_dict(r.to_dict()) == r


@pytest.mark.parametrize("data,msg", [
    ({"capote": "bandeira"}, "rules.capote: unknown value 'bandeira'"),
    ({"tie": None}, "rules.tie"),
    ({"pente": "yes"}, "rules.pente: expected true or false"),
    ({"target": 0}, "rules.target"),
    ({"target": True}, "rules.target"),
    ({"trunfo": 1}, "unknown variant 'trunfo'"),
])
def test_bad_rules_are_clear_errors(data, msg):
    with pytest.raises(RulesError, match=msg):
        Rules.from_dict(data)


def test_rules_from_dict_reuses_values_but_never_confuses_types():
    assert Rules.from_dict({"target": 5}) is Rules.from_dict({"target": 5})
    assert Rules.from_dict({"pente": True}).pente is True
    assert Rules.from_dict({"target": 1}).target == 1
    with pytest.raises(RulesError, match="rules.target"):
        Rules.from_dict({"target": True})
    with pytest.raises(RulesError, match="rules.capote"):
        Rules.from_dict({"capote": ["all_tricks"]})
