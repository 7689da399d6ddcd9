"""What a player reads (issue 27 item 10): `log` prints every event in words, never its raw name; the `end`
summary names the reduced, replaced and wounded units and the terrain kept; an entitlement left unused
(the 3.44 and 3.45 results) is said when `next` leaves its step, as ruling R3 says of CP at 2.3."""
from __future__ import annotations

import re

import pytest

from conftest import ROOT, Campaign, cli_run
from events.types import REGISTRY


def test_every_event_type_has_its_own_words():
    source = (ROOT / "projections" / "words.py").read_text(encoding="utf-8")
    missing = [t for t in sorted(REGISTRY) if f'etype == "{t}"' not in source and f'"{t}"' not in source]
    assert missing == []


@pytest.fixture
def at_end(tmp_path):
    db = str(tmp_path / "c.plcg")
    c = Campaign(db, plan={1: {"buy": [("axis", "I1"), ("allied", "I1")]}})
    c.advance(1, "2.9")
    c.close()
    return db


def test_log_says_where_a_unit_stands_at_the_end_in_words(at_end):
    r = cli_run(at_end, "position", "axis", "I1-1.2", "L4")
    assert r.code == 0 and "unit_positioned" not in r.out
    log = cli_run(at_end, "log").out
    assert "Axis I1-1.2 stands in L4 at the firefight's end (2.9)" in log
    assert not re.search(r"\d+ ff\d+ +\S+ +[a-z]+_[a-z_]+$", log, re.M)  # no line is a bare event name


def test_the_end_summary_names_reduced_replaced_wounded_units_and_the_terrain(at_end):
    r = cli_run(at_end, "end", "--turn", "5", "--cvp-lost", "axis=4", "--cvp-lost", "allied=6",
                "--reduced", "axis:I1-1.1", "--replaced", "axis:I1-1.3", "--wounded", "allied:I1-1.L1",
                "--terrain", "I5=rubble")
    assert r.code == 0, r.err
    for said in ("reduced: Axis I1-1.1 to 2-4-7", "replaced (A19.13): Axis I1-1.3 to 4-4-7",
                 "wounded: Allied I1-1.L1", "terrain kept (CG5): rubble in I5"):
        assert said in r.out, (said, r.out)


def test_next_says_the_34x_results_left_unused(tmp_path):
    db = str(tmp_path / "c.plcg")
    c = Campaign(db, plan={1: {"buy": [("axis", "I1"), ("allied", "I1")]}})
    c.advance(1, "3.44")
    c.close()
    for args in (("promote", "axis", "--dice", "1"), ("promote", "allied", "--dice", "6"),
                 ("harden", "axis", "I1-1.1")):
        assert cli_run(db, *args).code == 0
    r = cli_run(db, "next")  # Axis: 4 MMC allowed, 1 hardened, 2 squads left who could
    assert r.code == 0
    assert "left unused (3.44): axis could have Battle Hardened 2 more MMC (the dr allowed 4, 1 hardened)" in r.out
    assert "allied" not in r.out.split("left unused", 1)[1]  # the Allies' 0 MMC: nothing to say
    for args in (("leaders", "axis", "--dice", "1"), ("leaders", "allied", "--dice", "6")):
        assert cli_run(db, *args).code == 0
    r = cli_run(db, "next")
    assert "left unused (3.45): axis could have hardened or generated 1 more leader(s) (the dr allowed 2)" in r.out


def _at_3_44_with_a_gun(tmp_path, allied_buys):
    db = str(tmp_path / "c.plcg")
    c = Campaign(db, plan={1: {"buy": [("axis", "I1"), *[("allied", rg) for rg in allied_buys]]}})
    c.advance(1, "3.44")
    crew = next(u.id for u in c.state().side_units("allied") if u.kind == "crew")
    for args in (("promote", "axis", "--dice", "6"), ("promote", "allied", "--dice", "1")):
        assert cli_run(db, *args).code == 0
    allowed = c.state().reph.promotions["allied"]
    c.close()
    assert allowed >= 2
    return db, crew, allowed


def test_a_lone_crews_unused_promotion_is_said_at_next(tmp_path):
    # rules revision 3 (switch mmc_crews): a crew is an MMC for 3.44 (ASL A1.1), so its unused promotion is lost
    db, crew, allowed = _at_3_44_with_a_gun(tmp_path, ["G1"])
    r = cli_run(db, "next")
    assert r.code == 0, r.err
    said = f"left unused (3.44): allied could have Battle Hardened 1 more MMC (the dr allowed {allowed}, 0 hardened)"
    assert said in r.out


def test_a_hardened_crew_counts_as_a_promotion_used(tmp_path):
    db, crew, allowed = _at_3_44_with_a_gun(tmp_path, ["I1", "G1"])  # three squads and the crew
    assert cli_run(db, "harden", "allied", crew).code == 0
    r = cli_run(db, "next")
    assert r.code == 0, r.err
    said = f"allied could have Battle Hardened {allowed - 1} more MMC (the dr allowed {allowed}, 1 hardened)"
    assert said in r.out
