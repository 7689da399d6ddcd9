"""The counter table (R34 of shared/docs/rulings.md) against the facts it was built from.

Each table row names its source: VASL = the VASL module's squad pieces (their ELR/BH and SQ/HS layers,
vasl-developers/vasl dist/buildFile.xml); A25.1/A25.11/A19.11/A19.12/C9.2 = the ASLRB as published on
aslerb.com; PPT = VASL's SuppWTable.xml PortageCost; CONV = the convention chosen in cg/counters.py
where no public source exists (leader ranks); UNIFORM = a PP the PP table gives alike for every
nationality it lists, taken for the ones it omits.
"""
from __future__ import annotations

import tomllib
from pathlib import Path

import attrs
import pytest

from cg import counters as k
from cg.counters import Counter

ROOT = Path(__file__).resolve().parents[1]

# --- MMC: (nationality, squad, HS, ELR replacement, Battle Hardening, class, source) --------------
SQUADS = [
    ("german", "4-6-8", "2-4-8", "4-6-7", None, "elite", "VASL; A25.1 4-6-8 chain"),
    ("german", "4-6-7", "2-4-7", "4-4-7", "4-6-8", "first_line", "VASL"),
    ("german", "4-4-7", "2-3-7", "4-3-6", "4-6-7", "second_line", "VASL; A15.3 next higher class"),
    ("german", "4-3-6", "2-3-6", None, "4-4-7", "conscript", "VASL; A19.12 foot of chain"),
    ("german", "5-4-8", "2-3-8", "4-4-7", None, "elite", "VASL; A25.1 5-4-8 chain"),
    ("german", "8-3-8", "3-3-8", None, None, "elite", "VASL (no ELR chain)"),
    ("german", "6-5-8", "3-4-8", None, None, "elite", "VASL; A25.11 SS Elite"),
    ("american", "6-6-7", "3-4-7", "6-6-6", None, "elite", "VASL"),
    ("american", "6-6-6", "3-4-6", "5-4-6", "6-6-7", "first_line", "VASL"),
    ("american", "5-4-6", "2-3-6", "5-3-6", "6-6-6", "second_line", "VASL"),
    ("american", "5-3-6", "2-2-6", None, "5-4-6", "green", "VASL"),
    ("american", "4-4-7", "2-3-7", "3-3-6", None, "second_line", "VASL (top of chain: ask)"),
    ("american", "3-3-6", "1-2-6", None, "4-4-7", "green", "VASL"),
    ("american", "7-4-7", "3-3-7", None, None, "elite", "VASL (no ELR chain)"),
    ("american", "7-6-8", "3-4-8", None, None, None, "VASL US Marines: HS only"),
    ("british", "4-5-8", "2-4-8", "4-5-7", None, "elite", "VASL"),
    ("british", "4-5-7", "2-4-7", "4-4-7", "4-5-8", "first_line", "VASL"),
    ("british", "4-4-7", "2-3-7", "4-3-6", "4-5-7", "second_line", "VASL"),
    ("british", "4-3-6", "2-2-6", None, "4-4-7", "green", "VASL"),
    ("british", "6-4-8", "3-3-8", None, None, "elite", "VASL (no ELR chain)"),
    ("russian", "6-2-8", "3-2-8", "5-2-7", None, "elite", "VASL"),
    ("russian", "5-2-7", "2-2-7", "4-2-6", "6-2-8", "first_line", "VASL"),
    ("russian", "4-5-8", "2-4-8", "4-4-7", None, "elite", "VASL"),
    ("russian", "4-4-7", "2-3-7", "4-2-6", "4-5-8", "first_line", "VASL"),
    ("russian", "4-2-6", "2-2-6", None, None, "conscript", "VASL: 5-2-7 or 4-4-7, a tie: ask"),
    ("japanese", "4-4-8", "2-3-8", "4-4-7", None, "elite", "VASL"),
    ("japanese", "4-4-7", "2-3-7", "3-4-7", "4-4-8", "first_line", "VASL"),
    ("japanese", "3-4-7", "1-3-7", "3-3-6", "4-4-7", "second_line", "VASL"),
    ("japanese", "3-3-6", "1-2-6", None, "3-4-7", "conscript", "VASL"),
    ("finnish", "6-4-8", "2-4-8", "5-3-8", None, "first_line", "VASL (top of chain: ask)"),
    ("finnish", "5-3-8", "2-3-8", None, "6-4-8", "green", "VASL"),
    ("finnish", "5-4-8", "2-3-8", "4-4-7", None, "first_line", "VASL 6.7.0"),
    ("finnish", "4-4-7", "2-3-7", "4-3-7", "5-4-8", "second_line", "VASL 6.7.0"),
    ("finnish", "4-3-7", "2-2-7", None, "4-4-7", "conscript", "VASL 6.7.0"),
    ("finnish", "8-3-8", "3-3-8", None, None, "elite", "VASL (no ELR chain)"),
    ("italian", "4-4-7", "2-4-7", "3-4-6", None, "elite", "VASL 6.7.0"),
    ("italian", "3-4-6", "1-3-6", "3-3-6", "4-4-7", "first_line", "VASL 6.7.0"),
    ("italian", "3-3-6", "1-2-6", None, None, "conscript", "VASL: 3-4-6 or 3-4-7, a tie: ask"),
    ("italian", "3-4-7", "1-3-7", "3-3-6", "4-4-7", "first_line", "VASL 6.7.0 BH macro to 4-4-7"),
]


@pytest.mark.parametrize("nat,name,hs,replaced,hardened,klass,source", SQUADS)
def test_squad_rows(nat, name, hs, replaced, hardened, klass, source):
    c = k.lookup(nat, name)
    assert c == Counter(name=name, kind="squad", hs=hs, replaced=replaced, hardened=hardened, klass=klass)
    assert (k.half_squad(nat, name), k.replacement(nat, name), k.hardened(nat, name)) == (hs, replaced, hardened)


# --- HS: (nationality, HS, ELR replacement, Battle Hardening, class, source) ------------------------
HALF_SQUADS = [
    ("german", "2-4-8", "2-4-7", None, "elite", "VASL"),
    ("german", "2-4-7", "2-3-7", "2-4-8", "first_line", "VASL"),
    ("german", "2-3-7", "2-3-6", "2-4-7", "second_line", "VASL; A15.3 next higher class, not 2-3-8"),
    ("german", "2-3-6", None, "2-3-7", "conscript", "VASL"),
    ("german", "2-3-8", "2-3-7", None, "elite", "VASL 5-4-8 chain"),
    ("german", "3-3-8", None, None, "elite", "VASL"),
    ("american", "3-4-6", "2-3-6", "3-4-7", "first_line", "VASL"),
    ("american", "1-2-6", None, "2-3-7", "green", "VASL: the HS, not the 1-2-6 vehicle crew"),
    ("british", "2-2-6", None, "2-3-7", "green", "VASL"),
    ("russian", "3-2-8", "2-2-7", None, "elite", "VASL"),
    ("russian", "2-2-6", None, None, "conscript", "VASL: 2-2-7 or 2-3-7, a tie: ask"),
    ("japanese", "1-3-7", "1-2-6", "2-3-7", "second_line", "VASL"),
    ("finnish", "2-3-8", None, None, None, "VASL: 1st Line (5-4-8) and Green (5-3-8): ask"),
    ("finnish", "2-3-7", "2-2-7", "2-3-8", "second_line", "VASL 6.7.0"),
    ("italian", "1-3-7", "1-2-6", "2-4-7", "first_line", "VASL 6.7.0 BH macro"),
    ("italian", "1-2-6", None, None, "conscript", "VASL: 1-3-6 or 1-3-7, a tie: ask"),
]


@pytest.mark.parametrize("nat,name,replaced,hardened,klass,source", HALF_SQUADS)
def test_half_squad_rows(nat, name, replaced, hardened, klass, source):
    assert k.lookup(nat, name) == Counter(name=name, kind="half_squad", replaced=replaced,
                                          hardened=hardened, klass=klass)


@pytest.mark.parametrize("start,steps", [("4-6-8", 3), ("5-4-8", 2)])
def test_a25_1_german_elite_replacements_to_inexperienced(start, steps):
    """A25.1: a 4-6-8 needs three ELR Replacements to become Inexperienced, a 5-4-8 two."""
    name, n = start, 0
    while k.lookup("german", name).klass not in ("green", "conscript"):
        name, n = k.replacement("german", name), n + 1
    assert (name, n) == ("4-3-6", steps)


def _mmcs():
    for nat, table in k.TABLES.items():
        for c in table.values():
            if c.kind in ("squad", "half_squad"):
                yield nat, c


@pytest.mark.parametrize("nat,c", list(_mmcs()), ids=lambda v: getattr(v, "name", v))
def test_every_mmc_link_names_a_counter_of_the_right_kind_and_class(nat, c):
    table = k.TABLES[nat]
    if c.kind == "squad":
        assert table[c.hs].kind == "half_squad" and table[c.hs].klass in (c.klass, None)
    else:
        assert c.hs is None
    rank = {"elite": 3, "first_line": 2, "second_line": 1, "green": 0, "conscript": 0}
    if c.replaced:
        other = table[c.replaced]
        assert other.kind == c.kind
        assert other.klass is None or rank[other.klass] < rank[c.klass]
    if c.hardened:
        other = table[c.hardened]
        assert other.kind == c.kind
        assert other.klass is None or rank[other.klass] > rank[c.klass]


# --- Battle Hardening with R34 -----------------------------------------------------------------------
@pytest.mark.parametrize("nat,name,expected", [
    ("german", "4-6-8", ("4-6-8", True)),  # Elite: the counter stays, Fanatic
    ("german", "2-4-8", ("2-4-8", True)),
    ("german", "8-3-8", ("8-3-8", True)),
    ("american", "3-3-7 HS", ("3-3-7 HS", True)),
    ("german", "4-6-7", ("4-6-8", False)),
    ("german", "2-3-7", ("2-4-7", False)),
    ("russian", "4-2-6", (None, False)),  # a tie: ask
    ("finnish", "6-4-8", (None, False)),  # non-Elite top of its chain: ask
    ("german", "9-1", ("9-2", False)),  # leaders step up their chain
    ("german", "10-3", (None, False)),
    ("german", "2-2-8", (None, False)),  # crews
    ("german", "LMG", (None, False)),
    ("german", "9-9-9", (None, False)),  # unknown counter
    ("french", "4-6-7", (None, False)),  # unknown nationality
])
def test_harden(nat, name, expected):
    assert k.harden(nat, name) == expected


def test_fanatic_flag_is_for_elite_mmc_only():
    assert k.lookup("german", "4-6-8").fanatic_on_hardening
    assert not k.lookup("german", "4-6-7").fanatic_on_hardening
    assert not Counter(name="x", kind="crew", klass="elite").fanatic_on_hardening


# --- Crews (A19.11: never Replaced) --------------------------------------------------------------
CREWS = [
    ("german", "2-2-8"), ("german", "1-2-7"), ("american", "2-2-7"), ("american", "2-2-8"),
    ("british", "2-2-8"), ("british", "1-2-7"), ("russian", "2-2-8"), ("russian", "1-2-7"),
    ("japanese", "2-2-8"), ("japanese", "1-2-7"), ("finnish", "2-2-8"), ("finnish", "1-2-7"),
    ("italian", "2-2-7"),
]


@pytest.mark.parametrize("nat,name", CREWS)
def test_crews_are_crews_under_both_spellings(nat, name):
    for written in (name, f"{name} crew", f"2x {name} crew"):
        c = k.lookup(nat, written)
        assert (c.kind, c.replaced, c.hardened, c.hs) == ("crew", None, None, None), written


@pytest.mark.parametrize("nat", ["american", "italian"])
def test_a_name_shared_by_hs_and_crew_is_the_hs_bare_and_the_crew_spelled_out(nat):
    assert k.lookup(nat, "1-2-6").kind == "half_squad"
    assert k.lookup(nat, "1-2-6 crew").kind == "crew"


def test_hs_spelled_as_the_cards_do():
    c = k.lookup("american", "2x 3-3-7 HS")
    assert (c.name, c.kind, c.klass) == ("3-3-7 HS", "half_squad", "elite")
    assert k.lookup("german", "2-4-7 HS").replaced == "2-3-7"


def test_hs_equivalents_r26():
    assert dict(k.HS_EQUIVALENT) == {"squad": 2, "half_squad": 1, "crew": 1}


# --- SW PP: (nationality, SW, PP, source) --------------------------------------------------------
SW_PP = [
    ("german", "LMG", 1, "PPT geLMG"), ("german", "MMG", 3, "PPT geMMG"), ("german", "HMG", 4, "PPT geHMG"),
    ("german", "FT", 1, "PPT geFT"), ("german", "DC", 1, "PPT geDCH"), ("german", "PSK", 1, "PPT gePSK"),
    ("german", "ATR", 1, "PPT geATR"), ("german", "Radio", 1, "PPT geRAD"),
    ("german", "Field Phone", 0, "PPT gePHONE"), ("german", "dm 81* MTR", 5, "C9.2"),
    ("american", "MMG", 3, "PPT amMMG"), ("american", "HMG", 5, "PPT amHMG"),
    ("american", ".50-cal", 5, "PPT amHMG50"), ("american", ".50cal", 5, "PPT amHMG50"),
    ("american", "BAZ43", 1, "PPT amBAZ43"), ("american", "BAZ 44", 1, "PPT amBAZ44"),
    ("american", "BAZ45", 1, "PPT amBAZ45"), ("american", "FT", 1, "PPT amFT"),
    ("american", "LMG", 1, "UNIFORM"),
    ("british", "LMG", 1, "PPT brLMG"), ("british", "MMG", 4, "PPT brMMG"), ("british", "HMG", 5, "PPT brHMG"),
    ("british", "MMG(a)", 3, "PPT brMMGa"), ("british", "PIAT", 1, "PPT brPIAT"),
    ("british", "ATR", 1, "PPT brATR"), ("british", "dm 76* MTR", 5, "C9.2"),
    ("russian", "LMG", 1, "PPT ruLMG"), ("russian", "MMG", 5, "PPT ruMMG"), ("russian", "HMG", 5, "PPT ruHMG"),
    ("russian", "ATR", 1, "PPT ruATR"), ("russian", "MOL-P", 2, "PPT ruMOLP"), ("russian", "dm 82* MTR", 5, "C9.2"),
    ("japanese", "LMG", 1, "PPT jaLMG"), ("japanese", "MMG", 3, "PPT jaMMG"), ("japanese", "HMG", 4, "PPT jamHMG"),
    ("japanese", "DC", 1, "UNIFORM"),
    ("finnish", "LMG", 1, "UNIFORM"), ("finnish", "FT", 1, "UNIFORM"),
    ("italian", "LMG", 1, "UNIFORM"), ("italian", "DC", 1, "UNIFORM"),
    ("italian", "MMG", None, "not known: differs by nationality"),
    ("finnish", "HMG", None, "not known"), ("german", "50* MTR", None, "light mortar: not trusted"),
]


@pytest.mark.parametrize("nat,name,pp,source", SW_PP)
def test_sw_pp(nat, name, pp, source):
    assert k.pp(nat, name) == pp
    if pp is not None:
        assert k.lookup(nat, name).kind == "sw"


def test_bar_is_no_counter():
    assert k.lookup("american", "BAR") is None


# --- Leaders -------------------------------------------------------------------------------------
LEADER_FORMS = [
    ("6+1", 1), ("7+1", 1), ("7+2", 2), ("8+1", 1), ("9+1", 1), ("7-0", 0), ("8-0", 0), ("9-0", 0),
    ("10-0", 0), ("8-1", -1), ("9-1", -1), ("10-1", -1), ("9-2", -2), ("10-2", -2), ("10-3", -3),
    (" 9-1 ", -1),
]


@pytest.mark.parametrize("name,modifier", LEADER_FORMS)
def test_leader_modifier_from_the_name(name, modifier):
    assert k.leader_modifier(name) == modifier


@pytest.mark.parametrize("name", ["4-6-7", "2-2-8", "LMG", "", "9-", "-1", "+1", "9--1", "9-12", "9-1 AL",
                                  "100-1", "9 - 1", None, 91])
def test_leader_modifier_of_other_names_is_none(name):
    assert k.leader_modifier(name) is None


def test_every_table_leader_carries_its_names_modifier():
    for table in k.TABLES.values():
        for c in table.values():
            if c.kind in ("leader", "commissar"):
                assert c.leadership == k.leader_modifier(c.name), c


def test_a_leader_of_any_nationality_is_known_by_its_modifier():
    assert k.lookup("french", "9-1") == Counter(name="9-1", kind="leader", leadership=-1)
    assert k.lookup("german", "7+1") == Counter(name="7+1", kind="leader", leadership=1)  # no table entry
    assert k.lookup("french", "4-6-7") is None


# (nationality, leader, rank, ELR replacement, Battle Hardening, source)
LEADERS = [
    ("german", "6+1", "Corporal", None, "7-0", "CONV; VASL chain; A19.12 6+1 Disrupts"),
    ("german", "7-0", "Sergeant", "6+1", "8-0", "CONV; VASL"),
    ("german", "8-0", "Lieutenant", "7-0", "8-1", "CONV; VASL"),
    ("german", "8-1", "Lieutenant", "8-0", "9-1", "CONV; VASL"),
    ("german", "9-1", "Captain", "8-1", "9-2", "CONV; VASL"),
    ("german", "9-2", "Major", "9-1", "10-2", "CONV; VASL"),
    ("german", "10-2", "Lieutenant Colonel", "9-2", "10-3", "CONV; VASL"),
    ("german", "10-3", "Lieutenant Colonel", "10-2", None, "CONV; VASL"),
    ("american", "8-0", "Lieutenant", "7-0", "8-1", "CONV; VASL"),
    ("british", "6+1", "Corporal", None, "7-0", "CONV; VASL"),
    ("russian", "9-1", "Captain", "8-1", "9-2", "CONV; VASL"),
    ("italian", "7-0", "Sergeant", "6+1", "8-0", "CONV; VASL"),
    ("japanese", "8+1", "Sergeant", None, "8-0", "CONV; VASL; Japanese leaders never Replaced"),
    ("japanese", "9-0", "Lieutenant", None, "9-1", "CONV; VASL"),
    ("japanese", "10-0", "Major", None, "10-1", "CONV; VASL"),
    ("japanese", "10-2", "Lieutenant Colonel", None, None, "CONV; VASL"),
    ("finnish", "8-0", "Sergeant", None, "9-0", "CONV; VASL foot of the Finnish chain"),
    ("finnish", "9-0", "Lieutenant", "8-0", "9-1", "CONV; VASL"),
    ("finnish", "9-1", "Captain", "9-0", "10-0", "CONV; VASL"),
    ("finnish", "10-1", "Lieutenant Colonel", "10-0", None, "CONV; VASL"),
]


@pytest.mark.parametrize("nat,name,rank,replaced,hardened,source", LEADERS)
def test_leader_rows(nat, name, rank, replaced, hardened, source):
    c = k.lookup(nat, name)
    assert (c.kind, c.rank, c.replaced, c.hardened) == ("leader", rank, replaced, hardened)
    assert k.leader_rank(nat, name) == rank


@pytest.mark.parametrize("nat,name,may", [
    ("german", "6+1", True), ("german", "7-0", True), ("german", "8-1", True), ("german", "9-1", False),
    ("german", "10-3", False), ("japanese", "8+1", True), ("japanese", "9-1", False),
    ("finnish", "9-0", True), ("russian", "9-0", None),  # a Commissar: no rank, ask
    ("french", "8-0", None), ("german", "4-6-7", None),
])
def test_may_lead_patrol_2_72(nat, name, may):
    assert k.may_lead_patrol(nat, name) is may


def test_commissars_are_never_replaced_a19_11():
    for name, up in [("10-0", None), ("9-0", "10-0"), ("8+1", "9-0")]:
        c = k.lookup("russian", name)
        assert (c.kind, c.replaced, c.hardened, c.rank) == ("commissar", None, up, None)


@pytest.mark.parametrize("nat,column", [("german", "general"), ("russian", "general"),
                                        ("japanese", "japanese"), ("finnish", "finnish")])
def test_ranks_follow_the_2_361_column(nat, column):
    """CONV: every leader the 2.361 column can give has a rank, never better down the column."""
    from cg import tables
    order = tables.leader_order(column)
    ranks = [k.leader_rank(nat, name) for name in order]
    assert None not in ranks
    idx = [k.RANKS.index(r) for r in ranks]
    assert idx == sorted(idx, reverse=True)


# --- Nationalities and names ---------------------------------------------------------------------
@pytest.mark.parametrize("alias,nat", [
    ("us", "american"), ("USA", "american"), ("U.S.", "american"), ("Americans", "american"),
    ("soviet", "russian"), ("USSR", "russian"), ("uk", "british"), ("Commonwealth", "british"),
    ("finns", "finnish"), ("Japan", "japanese"), ("italy", "italian"), (" German ", "german"),
])
def test_aliases(alias, nat):
    assert k.nationality(alias) == nat
    assert k.lookup(alias, "9-1") == k.lookup(nat, "9-1")
    assert k.lookup(alias, "LMG") == k.lookup(nat, "LMG")


@pytest.mark.parametrize("name", ["french", "", None, "chinese"])
def test_unknown_nationality(name):
    assert k.nationality(name) is None


@pytest.mark.parametrize("unit,expected", [
    ("3x 4-6-7", (3, "4-6-7")), ("1x LMG", (1, "LMG")), ("2-2-8", (1, "2-2-8")), ("9-1", (1, "9-1")),
    ("12X BAZ 44", (12, "BAZ 44")), ("2x 3-3-7 HS", (2, "3-3-7 HS")), (" 1x 2-2-8 crew ", (1, "2-2-8 crew")),
    ("x 4-6-7", (1, "x 4-6-7")), ("3x", (1, "3x")),
])
def test_split_count(unit, expected):
    assert k.split_count(unit) == expected


def test_lookup_takes_off_the_count_and_nothing_else():
    assert k.lookup("german", "3x 4-6-7") == k.lookup("german", "4-6-7")
    for name in ("4-6-7 squad", "4-6-7sq", "4-6-7 Esq", "lmg", "3 x 4-6-7"):
        assert k.lookup("german", name) is None, name


def test_shipped_cards_infantry_counters_are_in_the_table():
    cards = sorted((ROOT / "cg" / "cards").glob("*.toml"))
    assert cards
    for path in cards:
        card = tomllib.loads(path.read_text())
        for side in card.get("sides", {}).values():
            nat = side.get("nationality")
            for rg in side.get("rg", []) + side.get("ob", []):
                for unit in rg.get("units", []):
                    if rg.get("kind") in ("infantry", "heavy_weapons") or unit.endswith(("crew", "Radio")):
                        c = k.lookup(nat, unit)
                        assert c is not None and c.kind in ("squad", "half_squad", "crew", "sw"), (path.name, unit)


def test_table_is_read_only_and_counters_frozen():
    with pytest.raises(TypeError):
        k.GERMAN["4-6-7"] = Counter(name="4-6-7")
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        k.GERMAN["4-6-7"].hs = "x"
    with pytest.raises(ValueError):
        Counter(name="x", kind="tank")
    with pytest.raises(ValueError):
        Counter(name="x", klass="veteran")
    assert k.TABLES["german"] is k.GERMAN and set(k.TABLES) == set(k.NATIONALITIES)


# --- Card overrides ------------------------------------------------------------------------------
def test_override_replaces_fields_and_keeps_the_rest():
    ov = {"4-6-7": {"hs": "2-4-7x", "hardened": "5-4-8"}}
    c = k.lookup("german", "4-6-7", ov)
    assert (c.hs, c.hardened, c.replaced, c.klass, c.kind) == ("2-4-7x", "5-4-8", "4-4-7", "first_line", "squad")
    assert k.half_squad("german", "4-6-7", ov) == "2-4-7x"
    assert k.harden("german", "4-6-7", ov) == ("5-4-8", False)
    assert k.lookup("german", "4-6-7").hs == "2-4-7"  # the table itself is untouched


def test_override_adds_counters():
    ov = {"Pz IVH": {"kind": "afv"}, "6-5-7": {"kind": "squad", "hs": "3-3-7", "replaced": "4-4-7"},
          "MG 08": {"kind": "sw", "pp": 5}}
    assert k.lookup("german", "2x Pz IVH", ov) == Counter(name="Pz IVH", kind="afv")
    assert k.replacement("german", "6-5-7", ov) == "4-4-7"
    assert k.pp("german", "MG 08", ov) == 5
    assert k.lookup("german", "Pz IVH") is None
    assert k.lookup("french", "Pz IVH", ov).kind == "afv"  # any nationality takes overrides


def test_override_leader_rank_and_leadership():
    ov = {"8-1": {"leadership": -1, "rank": "Sergeant"}, "7+1": {"rank": "Corporal"}}
    assert k.leader_rank("german", "8-1", ov) == "Sergeant"
    assert k.lookup("german", "8-1", ov).leadership == -1
    assert k.lookup("german", "7+1", ov) == Counter(name="7+1", kind="leader", leadership=1, rank="Corporal")
    assert k.may_lead_patrol("german", "9-1", {"9-1": {"rank": "Lieutenant"}}) is True


def test_lookup_refuses_a_malformed_override():
    with pytest.raises(ValueError, match=r"counters\.german\.4-6-7\.hs: must be text"):
        k.lookup("german", "4-6-7", {"4-6-7": {"hs": 5}})
    assert k.lookup("german", "4-6-8", {"4-6-7": {"hs": 5}}).hs == "2-4-8"  # only the counter asked


def test_overrides_for_gathers_every_alias_of_a_nationality():
    card = {"usa": {"6-6-7": {"hs": "a"}}, "american": {"7-4-7": {"hs": "b"}}, "german": {"x": {}}}
    assert k.overrides_for(card, "US") == {"6-6-7": {"hs": "a"}, "7-4-7": {"hs": "b"}}
    assert k.overrides_for(card, "french") == {}
    assert k.overrides_for(None, "german") == {}


# --- validate_overrides messages -----------------------------------------------------------------
@pytest.mark.parametrize("mapping,problems", [
    ({"german": {"4-6-7": {"hs": "2-4-7", "replaced": "4-4-7", "hardened": "4-6-8"}}}, []),
    ({"german": {"8-1": {"leadership": -1, "rank": "Lieutenant"}, "Pz IVH": {"kind": "afv"}}}, []),
    ({"german": {"LMG": {"pp": 0}}}, []),
    (None, []),
    ({}, []),
    ({"german": {"4-6-7": {"hs": 5}}}, ["counters.german.4-6-7.hs: must be text"]),
    ({"german": {"4-6-7": {"squad": "x"}}},
     ["counters.german.4-6-7.squad: unknown key (allowed: hs, replaced, hardened, pp, rank, leadership, kind)"]),
    ({"german": {"LMG": {"pp": "1"}}}, ["counters.german.LMG.pp: must be a whole number"]),
    ({"german": {"LMG": {"pp": True}}}, ["counters.german.LMG.pp: must be a whole number"]),
    ({"german": {"LMG": {"pp": -1}}}, ["counters.german.LMG.pp: must be 0 or more"]),
    ({"german": {"8-1": {"leadership": 1.0}}}, ["counters.german.8-1.leadership: must be a whole number"]),
    ({"german": {"Pz IVH": {"kind": "tank"}}}, [
        ("counters.german.\"Pz IVH\".kind: 'tank' is not a kind (squad, half_squad, crew, leader, commissar, "
         "hero, sw, gun, afv, vehicle, aircraft, fortification, other)")]),
    ({"german": {"8-1": {"rank": "General"}}}, [
        ("counters.german.8-1.rank: 'General' is not a rank (Corporal, Sergeant, Lieutenant, Captain, Major, "
         "Lieutenant Colonel, Colonel)")]),
    ({"german": {"4-6-7": {"hs": " "}}}, ["counters.german.4-6-7.hs: must not be empty"]),
    ({"german": {"4-6-7": "2-4-7"}},
     ["counters.german.4-6-7: must be a table (keys: hs, replaced, hardened, pp, rank, leadership, kind)"]),
    ({"german": {"3x 4-6-7": {"hs": "2-4-7"}}},
     ["counters.german.\"3x 4-6-7\": a counter name, without a count (not '3x 4-6-7')"]),
    ({"german": {"": {}}}, ["counters.german.\"\": a counter name must not be empty"]),
    ({"german": ["4-6-7"]}, ["counters.german: must be a table of counters"]),
    (["german"], ["counters: must be a table of nationalities"]),
    ({"usa": {}, "American": {}}, ["counters.American: same nationality as counters.usa"]),
    ({"german": {"4-6-7": {"hs": 1, "pp": "x"}, ".50-cal": {"pp": None}}}, [
        "counters.german.4-6-7.hs: must be text", "counters.german.4-6-7.pp: must be a whole number",
        "counters.german.\".50-cal\".pp: must be a whole number"]),
])
def test_validate_overrides(mapping, problems):
    assert k.validate_overrides(mapping) == problems
