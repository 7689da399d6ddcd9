"""Issue 35 item 4, ruling R22 revised: Dummy Minefields, priced by the CG Card.

2.38 prices a Dummy Minefield "As per F.7B", a text PL 2.5 does not print: a card that allows them states their
FP price (`fortifications.dummy_minefield_fp`, `card check` checks it), `fortify SIDE dummy_minefield` then buys
one at that price within the card's limit, placed and kept as the real minefields are, and the other side reads it
as a Known Minefield (map text, JSON and SVG, the log's words, the Purchase Record) until the CG's end; a card that
is silent refuses them, naming the key. Everything is played through the command line."""
from __future__ import annotations

import json

import pytest

from conftest import cli_run, load_sample

PRICE = 3  # the FP price the test card states
FORTS = {"known_minefield": 8, "dummy_minefield": 2, "dummy_minefield_fp": PRICE, "foxhole": 6}


def _ok(path, *args: str) -> str:
    r = cli_run(path, *args)
    assert r.code == 0, (args, r.out + r.err)
    return r.out


def _rows(path) -> bytes:
    with open(path, "rb") as fh:
        return fh.read()


def _at_2_3(workdir, card: str, name: str) -> str:
    """Firefight 1 at 2.3, the Axis holding the FP of its F1 (bought here)."""
    path = str(workdir / f"{name}.plcg")
    _ok(path, "new", "--card", card, "--seed", "dm")
    _ok(path, "weather")
    _ok(path, "next")
    _ok(path, "buy", "axis", "F1")
    return path


def _fp_of_f1() -> int:
    return next(rg["fp"] for rg in load_sample()["sides"]["axis"]["rg"] if rg["id"] == "F1")


@pytest.fixture
def priced(workdir, variant):
    return variant(campaign={"fortifications": FORTS})


def test_a_card_silent_on_dummy_minefields_refuses_them_naming_the_key(workdir):
    path = _at_2_3(workdir, "sample", "silent")
    before = _rows(path)
    r = cli_run(path, "fortify", "axis", "dummy_minefield", "--hex", "M4")
    assert r.code == 3, r.out + r.err
    assert "fortifications.dummy_minefield_fp" in r.err and "F.7B" in r.err and "[rule 2.38]" in r.err
    assert _rows(path) == before


@pytest.mark.parametrize("forts, where, said", [
    ({"dummy_minefield": 2}, "campaign.fortifications.dummy_minefield", "dummy_minefield_fp"),
    ({"dummy_minefield": 2, "dummy_minefield_fp": 0}, "campaign.fortifications.dummy_minefield_fp",
     "must be 1 or more, not 0"),
    ({"dummy_minefield": 2, "dummy_minefield_fp": "two"}, "campaign.fortifications.dummy_minefield_fp",
     "must be an integer"),
    ({"foxhole": 2, "dummy_minefield_fp": 2}, "campaign.fortifications.dummy_minefield_fp", "dummy_minefield = N"),
])
def test_card_check_names_a_dummy_minefield_price_that_is_missing_or_wrong(variant, forts, where, said):
    card = variant(campaign={"fortifications": forts})
    r = cli_run("unused.plcg", "card", "check", card)
    assert r.code == 2, r.out + r.err
    line = next(x for x in r.err.splitlines() if x.strip().startswith(where + ":"))
    assert said in line, line


def test_a_side_of_a_card_may_price_its_own_dummy_minefields(variant):
    card = variant(axis={"fortifications": {"dummy_minefield": 1, "dummy_minefield_fp": 2}})
    assert cli_run("unused.plcg", "card", "check", card).code == 0
    card = variant(axis={"fortifications": {"dummy_minefield": 1}})
    r = cli_run("unused.plcg", "card", "check", card)
    assert r.code == 2 and "sides.axis.fortifications.dummy_minefield: " in r.err, r.err


def test_a_priced_card_sells_dummy_minefields_at_its_price_within_its_limit(workdir, priced):
    path = _at_2_3(workdir, priced, "priced")
    fp = _fp_of_f1()
    out = _ok(path, "fortify", "axis", "dummy_minefield", "--hex", "M4")
    assert f"spent {PRICE} FP on dummy minefield in M4, {fp - PRICE} FP left" in out
    _ok(path, "fortify", "axis", "dummy_minefield")  # placed at 2.6
    before = _rows(path)
    r = cli_run(path, "fortify", "axis", "dummy_minefield", "--hex", "L5")
    assert r.code == 3 and "2 of the CG's 2 Dummy Minefield" in r.err, r.out + r.err  # the card's limit
    assert _rows(path) == before
    r = cli_run(path, "fortify", "axis", "dummy_minefield", "--factors", "2")
    assert r.code == 2 and "--factors" in r.err, r.err  # one counter, no strength
    forts = json.loads(_ok(path, "purchases", "axis", "--json"))["fortifications"]
    assert [(f["kind"], f["hex"], f["cost"]) for f in forts] == [
        ("dummy_minefield", "M4", PRICE), ("dummy_minefield", None, PRICE)]
    r = cli_run(path, "fortify", "axis", "dummy_minefield", "--hex", "C3")  # 2.38: inside the friendly MLR only
    assert r.code == 3 and "MLR" in r.err, r.err


def _seen_by_the_allies(path) -> dict:
    return {
        "text": _ok(path, "map", "--as", "allied"),
        "json": _ok(path, "map", "--as", "allied", "--json"),
        "svg": _ok(path, "map", "--as", "allied", "--svg", "-"),
        "log": _ok(path, "log", "--as", "allied"),
        "log json": _ok(path, "log", "--as", "allied", "--json"),
        "purchases": _ok(path, "purchases", "axis", "--as", "allied", "--reveal", "--json"),
    }


def test_the_other_side_sees_a_dummy_minefield_as_a_known_minefield_until_the_cg_ends(workdir, priced):
    path = _at_2_3(workdir, priced, "seen")
    _ok(path, "fortify", "axis", "dummy_minefield", "--hex", "M4")
    _ok(path, "fortify", "axis", "known_minefield", "--factors", "2", "--hex", "M6")
    seen = _seen_by_the_allies(path)
    for what, text in seen.items():
        assert "dummy" not in text.lower(), what
    hexes = json.loads(seen["json"])["hexes"]
    assert hexes["M4"]["terrain"] == hexes["M6"]["terrain"] == ["known_minefield:axis"]  # one look, no factors
    assert "M4: Known Minefield (Axis)" in seen["text"] and "M6: Known Minefield (Axis)" in seen["text"]
    assert "Axis bought a Known Minefield in M4" in seen["log"]
    # the owner sees what it bought
    axis = json.loads(_ok(path, "map", "--as", "axis", "--json"))["hexes"]
    assert axis["M4"]["terrain"] == ["dummy_minefield:axis"] and axis["M6"]["terrain"] == ["known_minefield:axis:2"]
    assert "dummy minefield in M4" in _ok(path, "log", "--as", "axis")
    # the CG's end reveals it to everyone, and the AAR tells it
    _ok(path, "concede", "axis")
    ended = json.loads(_ok(path, "map", "--as", "allied", "--json"))["hexes"]
    assert ended["M4"]["terrain"] == ["dummy_minefield:axis"]
    assert "dummy minefield in M4" in _ok(path, "log", "--as", "allied")
    assert "dummy minefield" in _ok(path, "export", "--format", "md").lower()


def test_a_dummy_minefield_bought_without_a_hex_is_placed_at_setup_and_kept_disguised(workdir, priced):
    path = _at_2_3(workdir, priced, "placed")
    _ok(path, "fortify", "axis", "dummy_minefield")
    _ok(path, "next")
    _ok(path, "determine")
    _ok(path, "next")
    assert json.loads(_ok(path, "status", "--json"))["step"] == "2.6"
    out = _ok(path, "fortify", "axis", "dummy_minefield", "--hex", "M4")
    assert "placed dummy minefield in M4" in out
    assert json.loads(_ok(path, "map", "--json"))["hexes"]["M4"]["terrain"] == ["dummy_minefield:axis"]
    allied = json.loads(_ok(path, "map", "--as", "allied", "--json"))["hexes"]
    assert allied["M4"]["terrain"] == ["known_minefield:axis"]
    assert "placed Known Minefield in M4" in _ok(path, "log", "--as", "allied")
    assert cli_run(path, "audit").code == 0


def test_a_dummy_minefield_the_firefight_end_records_reads_as_a_known_minefield_to_the_other_side(workdir, priced):
    path = _at_2_3(workdir, priced, "ended")
    _ok(path, "next")
    _ok(path, "determine")
    for _ in range(4):
        _ok(path, "next")
    _ok(path, "end", "--turn", "5", "--cvp-lost", "axis=0", "--cvp-lost", "allied=0",
        "--terrain", "M4=dummy_minefield:axis")
    allied = _ok(path, "log", "--as", "allied")
    assert "dummy" not in allied.lower() and "Known Minefield (Axis) in M4" in allied
    assert "dummy minefield (Axis) in M4" in _ok(path, "log", "--as", "axis")
    assert "dummy" not in _ok(path, "map", "--as", "allied").lower()


def test_by_email_the_other_copy_reads_a_dummy_minefield_as_a_known_minefield_by_its_key(workdir, priced):
    """Play by email, secrets sealed: the Axis buys a Dummy Minefield at 2.3 (sealed), 2.6 reveals the purchase to
    the Allied copy, whose player (its key: the default viewer) reads a Known Minefield in the map, the log and the
    Axis Purchase Record; the Axis copy reads its dummy."""
    from helpers.pbem import Game

    g = Game(workdir, card=priced)
    g.play_to(1, "2.3")
    g.do("axis", "buy", "axis", "F1")
    g.do("axis", "fortify", "axis", "dummy_minefield", "--hex", "M4")
    g.play_to(1, "2.7")
    g.send(g.holder)
    allied = json.loads(g.cli("allied", "map", "--json").out)["hexes"]["M4"]["terrain"]
    assert allied == ["known_minefield:axis"]
    for args in (("map",), ("log",), ("log", "--json"), ("purchases", "axis", "--json")):
        r = g.cli("allied", *args)
        assert r.code == 0 and "dummy" not in r.out.lower(), (args, r.err)
    forts = json.loads(g.cli("allied", "purchases", "axis", "--json").out)["fortifications"]
    assert [(f["kind"], f["hex"]) for f in forts] == [("known_minefield", "M4")]
    assert json.loads(g.cli("axis", "map", "--json").out)["hexes"]["M4"]["terrain"] == ["dummy_minefield:axis"]
    assert "dummy minefield in M4" in g.cli("axis", "log").out


def test_card_show_says_the_dummy_minefield_price(priced):
    out = _ok("unused.plcg", "card", "show", priced)
    assert f"a dummy minefield costs {PRICE} FP (ruling R22)" in out and "dummy_minefield_fp" not in out
