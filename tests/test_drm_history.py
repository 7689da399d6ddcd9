"""Issue 3: every DRM is derived from the campaign's own history. Each test builds the history that
triggers a DRM through commands (never by poking the state), rolls with given dice, and checks the
recorded DRM list, the final and the table's result against the rules' numbers."""
from __future__ import annotations

import orjson
import pytest

from conftest import Campaign, cli_run, rows


def drm(payload: dict) -> list[tuple[str, int]]:
    """The recorded DRM list of an event's roll as (rule, value)."""
    return [(d["rule"], d["value"]) for d in payload["roll"]["drm"]]


def reasons(payload: dict) -> str:
    return " | ".join(d["reason"] for d in payload["roll"]["drm"])


def rolled(c: Campaign, name: str, **kw) -> dict:
    """Run one rolling command and return its event's payload."""
    stored = c.run(name, **kw)
    rolls = [s for s in stored if isinstance(s.payload.get("roll"), dict)]
    assert len(rolls) == 1
    return rolls[0].payload


def check_roll(p: dict, dice, drms, final, outcome, table):
    r = p["roll"]
    assert r["dice"] == list(dice)
    assert drm(p) == drms
    assert r["final"] == final == sum(dice) + sum(v for _, v in drms)
    assert r["outcome"] == outcome
    assert r["table"] == table
    assert r["manual"] is True


# ---- 2.12 CP Replenishment -----------------------------------------------------------------------

LOW = [((1, 1), 16), ((1, 2), 15), ((2, 2), 14), ((2, 3), 13), ((3, 3), 12), ((3, 4), 12), ((4, 4), 12),
       ((4, 5), 11), ((5, 5), 10), ((5, 6), 9), ((6, 6), 8)]


@pytest.fixture(scope="module")
def at_2_1_of_ff2(module_workdir):
    """The sample CG at 2.1 of firefight 2 with nothing that gives a 2.12 DRM: the Initial Firefight's
    attacker was assigned (ruling R2) and neither side lost CVP."""
    d = module_workdir
    c = Campaign(d / "cp.plcg", plan={1: {"end": {"cvp_lost": {"axis": 9, "allied": 0}}}})
    c.advance(2, "2.1")
    c.close()
    return c.path


@pytest.mark.parametrize("dice,cp", LOW)
def test_2_12_low_column_without_drm(at_2_1_of_ff2, workdir, dice, cp):
    """e.g. `cp axis --dice 1,1` on Low with no DRM: final 2 -> 16 CP (9 CVP lost: no full 10)."""
    from conftest import copy_db

    path = copy_db(at_2_1_of_ff2, str(workdir / "c.plcg"))
    before = orjson.loads(cli_run(path, "status", "--json").out)["sides"]["axis"]["cp"]
    r = cli_run(path, "cp", "axis", "--dice", f"{dice[0]},{dice[1]}", "--json")
    assert r.code == 0, r.err
    out = orjson.loads(r.out)
    roll = out[0]["roll"]
    assert roll["drm"] == [] and roll["final"] == sum(dice) and roll["outcome"] == cp and roll["table"] == "2.12"
    after = orjson.loads(cli_run(path, "status", "--json").out)["sides"]["axis"]["cp"]
    assert after == before + cp  # added to the CP left from before (2.1)
    line = orjson.loads(cli_run(path, "log", "--json").out.splitlines()[-1])  # cli-contract.md, log --json
    assert (line["type"], line["side"], line["step"], line["firefight"]) == ("cp_replenished", "axis", "2.1", 2)
    assert {k: line["roll"][k] for k in ("dice", "drm", "final", "table", "outcome")} == {
        "dice": list(dice), "drm": [], "final": sum(dice), "table": "2.12", "outcome": cp}


def test_2_12_the_assigned_initial_attacker_gets_no_attack_option_drm(campaign):
    """Ruling R2: the allied side attacked in the Initial Firefight by the card, not by buying."""
    c = campaign()
    c.advance(2, "2.1")
    p = rolled(c, "cp", side="allied", dice="3,4")
    check_roll(p, (3, 4), [], 7, 12, "2.12")
    assert p["gained"] == 12 and p["total"] == 18 + 12


def test_2_12_plus_one_for_an_attack_option_bought_last_firefight(campaign):
    c = campaign(plan={2: {"attack": ["axis"]}})
    c.advance(3, "2.1")
    p = rolled(c, "cp", side="axis", dice="4,4")
    check_roll(p, (4, 4), [("2.12", +1)], 9, 11, "2.12")
    assert "Attack Option" in reasons(p) and "firefight 2" in reasons(p)
    q = rolled(c, "cp", side="allied", dice="4,4")
    check_roll(q, (4, 4), [], 8, 12, "2.12")
    # only the previous firefight counts: firefight 3 goes Idle, and firefight 4's 2.1 has no +1
    c.advance(4, "2.1")
    p = rolled(c, "cp", side="axis", dice="4,4")
    check_roll(p, (4, 4), [], 8, 12, "2.12")


def test_2_12_minus_one_per_full_ten_cvp_lost_including_reph_losses(campaign):
    """Ruling R4: 15 CVP in the firefight + 6 in the RePh (3.11) = 21 -> -2; 9 CVP -> none."""
    c = campaign(plan={1: {"end": {"cvp_lost": {"axis": 15, "allied": 9}}}})
    c.advance(1, "3.1")
    c.run("casualties", side="axis", cvp=6)
    c.advance(2, "2.1")
    p = rolled(c, "cp", side="axis", dice="3,4")
    check_roll(p, (3, 4), [("2.12", -2)], 5, 13, "2.12")
    assert "21 CVP" in reasons(p)
    q = rolled(c, "cp", side="allied", dice="3,4")
    check_roll(q, (3, 4), [], 7, 12, "2.12")


def test_2_12_twenty_three_cvp_is_minus_two(campaign):
    c = campaign(plan={1: {"end": {"cvp_lost": {"axis": 23, "allied": 10}}}})
    c.advance(2, "2.1")
    check_roll(rolled(c, "cp", side="axis", dice="1,1"), (1, 1), [("2.12", -2)], 0, 16, "2.12")
    check_roll(rolled(c, "cp", side="allied", dice="6,6"), (6, 6), [("2.12", -1)], 11, 9, "2.12")


def test_2_12_card_hist_cp_drm(variant, workdir):
    card = variant(axis={"cp_drm": -2}, allied={"cp_drm": 1})
    path = str(workdir / "hist.plcg")
    r = cli_run(path, "new", "--card", card, "--seed", "hist")
    assert r.code == 0, r.err
    c = Campaign.attach(path)
    c.advance(2, "2.1")
    p = rolled(c, "cp", side="axis", dice="2,3")
    check_roll(p, (2, 3), [("2.12", -2)], 3, 15, "2.12")
    assert "HIST/CP" in reasons(p)
    check_roll(rolled(c, "cp", side="allied", dice="5,6"), (5, 6), [("2.12", +1)], 12, 8, "2.12")
    c.close()


def test_2_12_drms_are_cumulative(campaign, variant):
    """Card +1, Attack Option +1, 20 CVP lost -2: dice 3,4 -> final 7 -> 12 CP."""
    c = campaign(card=variant(axis={"cp_drm": 1}),
                 plan={2: {"attack": ["axis"], "end": {"cvp_lost": {"axis": 20, "allied": 3}}}})
    c.advance(3, "2.1")
    p = rolled(c, "cp", side="axis", dice="3,4")
    check_roll(p, (3, 4), [("2.12", +1), ("2.12", +1), ("2.12", -2)], 7, 12, "2.12")


def test_2_12_mid_and_high_columns(campaign, variant):
    for intensity, cp in (("mid", 20), ("high", 29)):
        c = campaign(card=variant(campaign={"intensity": intensity}))
        c.advance(2, "2.1")
        check_roll(rolled(c, "cp", side="axis", dice="3,4"), (3, 4), [], 7, cp, "2.12")


def test_2_1_card_provided_cp_take_no_roll(campaign, variant):
    """2.1 EXC: where the card provides the CP there is no DR (and dice are bad input)."""
    c = campaign(card=variant(axis={"cp_provided": [7, 9]}))
    c.advance(2, "2.1")
    c.close()
    before = rows(c.path)
    assert cli_run(c.path, "cp", "axis", "--dice", "3,4").code == 2
    assert rows(c.path) == before
    r = cli_run(c.path, "cp", "axis", "--json")
    assert r.code == 0, r.err
    import cli

    led = cli.Ledger(c.path)
    p = [p for _, _, t, p in led.records() if t == "cp_replenished"][-1]
    led.close()
    assert p["roll"] is None and p["gained"] == 7 and p["total"] == 16 + 7


# ---- 2.351 OBA ammunition ------------------------------------------------------------------------

def test_2_351_card_oba_drm_and_no_attack_drm_for_the_initial_attacker(campaign):
    """Axis OBA DRM +1, Allied -1 (sample card); the Initial Firefight has no Attack Option (R2)."""
    c = campaign()
    c.advance(1, "2.3")
    c.run("buy", side="axis", rg="O1")
    c.run("buy", side="allied", rg="O1")
    c.run("buy", side="allied", rg="O1")
    p = rolled(c, "oba", side="axis", rg="O1", dice="1,2")
    check_roll(p, (1, 2), [("2.351", +1)], 4, "plentiful", "2.351")
    assert "OBA DRM" in reasons(p)
    # rules revision 2 (R32): the Allies' purchase numbers count on their own: their O1s are O1-1 and O1-2
    check_roll(rolled(c, "oba", side="allied", rg="O1-1", dice="6,6"), (6, 6), [("2.351", -1)], 11, "scarce",
               "2.351")
    check_roll(rolled(c, "oba", side="allied", rg="O1-2", dice="3,3"), (3, 3), [("2.351", -1)], 5, "normal",
               "2.351")
    st = c.state()
    assert [st.purchase(i, s).oba for s, i in (("axis", "O1-1"), ("allied", "O1-1"), ("allied", "O1-2"))] == \
        ["plentiful", "scarce", "normal"]


def test_2_351_minus_one_once_the_attack_option_is_bought_before_the_dr(campaign):
    """Ruling R14: the Attack Option bought before the OBA DR gives -1."""
    c = campaign()
    c.advance(2, "2.3")
    c.run("attack", side="axis")
    c.run("buy", side="axis", rg="O1")
    p = rolled(c, "oba", side="axis", rg="O1", dice="2,2")
    check_roll(p, (2, 2), [("2.351", +1), ("2.351", -1)], 4, "plentiful", "2.351")
    assert "Attack Option" in reasons(p)


def test_2_351_an_attack_option_bought_after_the_dr_reads_it_again_with_its_minus_one(campaign):
    """Ruling R14 revised (rules revision 3): the -1 goes with the purchase in this 2.3, not with the order;
    the roll stays as rolled (revision 2 changed nothing: tests/test_reph_rules.py)."""
    c = campaign()
    c.advance(2, "2.3")
    c.run("buy", side="axis", rg="O1")
    p = rolled(c, "oba", side="axis", rg="O1", dice="2,2")
    check_roll(p, (2, 2), [("2.351", +1)], 5, "normal", "2.351")
    c.run("attack", side="axis")
    assert c.state().purchase("O1-1", "axis").oba == "plentiful"
    assert c.last("oba_rolled") == p


def test_2_351_card_historical_drm(campaign, variant):
    c = campaign(card=variant(axis={"historical_drm": 2}))
    c.advance(1, "2.3")
    c.run("buy", side="axis", rg="O1")
    p = rolled(c, "oba", side="axis", rg="O1", dice="4,4")
    check_roll(p, (4, 4), [("2.351", +1), ("2.351", +2)], 11, "scarce", "2.351")
    assert "Historical" in reasons(p)


# ---- 2.361 leaders and 2.362 limits ----------------------------------------------------------------

def test_2_361_card_leader_and_historical_drm(campaign, variant):
    c = campaign(card=variant(axis={"leader_drm": 1, "historical_drm": -2}))
    c.advance(1, "2.3")
    c.run("buy", side="axis", rg="I1")
    p = rolled(c, "leader", side="axis", rg="I1", dice="4,3")
    check_roll(p, (4, 3), [("2.361", +1), ("2.361", -2)], 6, "8-1", "2.361")
    assert p["unit"]["name"] == "8-1"
    assert c.state().unit(p["unit"]["id"], "axis").kind == "leader"


def test_2_361_no_drm_by_default(campaign):
    c = campaign()
    c.advance(1, "2.3")
    c.run("buy", side="axis", rg="I1")
    check_roll(rolled(c, "leader", side="axis", rg="I1", dice="4,3"), (4, 3), [], 7, "8-0", "2.361")


def test_2_361_legacy_drm_where_the_card_switches_it_on(campaign, variant):
    """Legacy drm: -1 pre-'45 German, +0 US (not listed), +1 all others."""
    c = campaign(card=variant(campaign={"legacy_leader_drm": True}, allied={"nationality": "russian"}))
    c.advance(1, "2.3")
    c.run("buy", side="axis", rg="I1")
    c.run("buy", side="allied", rg="I1")
    p = rolled(c, "leader", side="axis", rg="I1", dice="4,3")
    check_roll(p, (4, 3), [("2.361", -1)], 6, "8-1", "2.361")
    assert "legacy" in reasons(p) and "1944" in reasons(p)
    check_roll(rolled(c, "leader", side="allied", rg="I1", dice="4,4"), (4, 4), [("2.361", +1)], 9, "7-0", "2.361")
    us = campaign(card=variant(campaign={"legacy_leader_drm": True}))
    us.advance(1, "2.3")
    us.run("buy", side="allied", rg="I1")
    check_roll(rolled(us, "leader", side="allied", rg="I1", dice="4,3"), (4, 3), [], 7, "8-0", "2.361")


def test_2_361_legacy_drm_for_1945_germans(campaign, variant):
    c = campaign(card=variant(campaign={"legacy_leader_drm": True},
                              firefights=[{"date": "1945-03-01", "time": "day"}, {"date": "1945-03-02",
                                                                                  "time": "day"}]))
    c.advance(1, "2.3")
    c.run("buy", side="axis", rg="I1")
    check_roll(rolled(c, "leader", side="axis", rg="I1", dice="4,3"), (4, 3), [("2.361", +1)], 8, "8-0", "2.361")


def test_2_362_demotion_at_the_initial_firefight(campaign):
    """One each of the two best types (10-2, 9-2) per side; an excess roll becomes the best type free
    below it (ruling R9). The table's own result is kept in `rolled`."""
    c = campaign()
    c.advance(1, "2.3")
    for _ in range(3):
        c.run("buy", side="axis", rg="I1")
    c.run("buy", side="allied", rg="I1")
    first = rolled(c, "leader", side="axis", rg="I1-1", dice="1,1")
    assert (first["roll"]["outcome"], first["roll"]["rolled"], first["unit"]["name"]) == ("10-2", None, "10-2")
    second = rolled(c, "leader", side="axis", rg="I1-2", dice="1,1")
    assert (second["roll"]["outcome"], second["roll"]["rolled"], second["unit"]["name"]) == ("9-2", "10-2", "9-2")
    assert second["roll"]["final"] == 2 and second["roll"]["row"] == "<2"
    third = rolled(c, "leader", side="axis", rg="I1-3", dice="1,2")
    assert (third["roll"]["outcome"], third["roll"]["rolled"]) == ("9-1", "9-2")
    # the limit is per side: the Allies still get their 10-2
    other = rolled(c, "leader", side="allied", rg="I1", dice="1,1")
    assert (other["roll"]["outcome"], other["roll"]["rolled"]) == ("10-2", None)
    names = sorted(u.name for u in c.state().side_units("axis") if u.kind == "leader")
    assert names == ["10-2", "9-1", "9-2"]


def test_2_362_armor_leaders_have_their_own_limit(campaign):
    c = campaign()
    c.advance(1, "2.3")
    c.run("buy", side="axis", rg="I1")
    c.run("buy", side="axis", rg="A1")
    assert rolled(c, "leader", side="axis", rg="I1", dice="1,1")["roll"]["outcome"] == "10-2"
    armor = rolled(c, "leader", side="axis", rg="A1", dice="1,1")
    assert (armor["roll"]["outcome"], armor["roll"]["rolled"]) == ("10-2", None)


def test_2_362_does_not_apply_after_the_initial_firefight(campaign):
    c = campaign()
    c.advance(1, "2.3")
    c.run("buy", side="axis", rg="I1")
    assert rolled(c, "leader", side="axis", rg="I1", dice="1,1")["roll"]["outcome"] == "10-2"
    c.advance(2, "2.3")
    c.run("buy", side="axis", rg="I1")
    again = rolled(c, "leader", side="axis", rg="I1", dice="1,1")
    assert (again["roll"]["outcome"], again["roll"]["rolled"]) == ("10-2", None)


# ---- 3.44 / 3.45 ---------------------------------------------------------------------------------

def test_3_44_won_and_per_full_twenty_cvp_amassed(campaign):
    """Allied amassed 45 CVP (= Axis CVP lost) and won: -1 won, -2 for 45 CVP -> dr 4 gives final 1: 3 MMC."""
    c = campaign(plan={1: {"end": {"cvp_lost": {"axis": 45, "allied": 10}}}})
    c.advance(1, "3.44")
    assert c.last("firefight_ended")["winner"] == "allied"
    p = rolled(c, "promote", side="allied", dice="4")
    check_roll(p, (4,), [("3.44", -1), ("3.44", -2)], 1, 3, "3.44")
    assert "won" in reasons(p) and "45 CVP amassed" in reasons(p)
    q = rolled(c, "promote", side="axis", dice="4")
    check_roll(q, (4,), [], 4, 1, "3.44")


def test_3_44_reph_losses_count_as_amassed(campaign):
    """Ruling R4: 15 CVP in the firefight + 6 lost in the RePh = 21 amassed by the enemy -> -1."""
    c = campaign(plan={1: {"end": {"cvp_lost": {"axis": 10, "allied": 15}}}})
    c.advance(1, "3.1")
    c.run("casualties", side="allied", cvp=6)
    c.advance(1, "3.44")
    p = rolled(c, "promote", side="axis", dice="2")
    check_roll(p, (2,), [("3.44", -1), ("3.44", -1)], 0, 4, "3.44")
    assert "21 CVP amassed" in reasons(p)


def test_3_44_card_and_historical_drm(campaign, variant):
    c = campaign(card=variant(allied={"promotion_drm": 2, "historical_drm": -1}))
    c.advance(1, "3.44")  # 0-0 CVP: the defender (Axis) wins the tie (1.31)
    p = rolled(c, "promote", side="allied", dice="3")
    check_roll(p, (3,), [("3.44", +2), ("3.44", -1)], 4, 1, "3.44")


def test_3_45_is_a_second_dr_plus_two_without_the_cvp_drm(campaign):
    c = campaign(plan={1: {"end": {"cvp_lost": {"axis": 45, "allied": 10}}}})
    c.advance(1, "3.45")
    p = rolled(c, "leaders", side="allied", dice="2")
    check_roll(p, (2,), [("3.45", +2), ("3.44", -1)], 3, 2, "3.45")
    assert "CVP" not in reasons(p)


def test_3_45_the_rules_worked_example(campaign, variant):
    """3.45 EX: American dr 3, +2, -2 Historical, -1 won: final 2 -> "2"; with 2 leaders lost in the
    firefight the side may Generate one (one fewer than lost) and harden one other."""
    c = campaign(card=variant(allied={"historical_drm": -2}), plan={1: {"buy": [("allied", "I1"), ("allied", "I2")]}})
    c.advance(1, "2.9")
    leaders = sorted(u.id for u in c.state().side_units("allied") if u.kind == "leader")
    assert len(leaders) == 2
    c.run("end", turn=6, cvp_lost={"axis": 20, "allied": 5}, lost=[f"allied:{x}" for x in leaders])
    c.advance(1, "3.45")
    p = rolled(c, "leaders", side="allied", dice="3")
    check_roll(p, (3,), [("3.45", +2), ("3.44", -1), ("3.44", -2)], 2, 2, "3.45")
    assert p["may_generate"] == 1
    g = rolled(c, "leader", side="allied", generated=True, dice="3,4")
    assert g["generated"] is True and g["purchase"] is None
    assert drm(g) == [("2.361", -2)] and g["roll"]["outcome"] == "8-1"  # the current CG Firefight DRM
    c.close()
    r = cli_run(c.path, "leader", "allied", "--generated", "--dice", "3,4")
    assert r.code == 3 and "[rule 3.45]" in r.err


# ---- 3.47 ELR ------------------------------------------------------------------------------------

def test_3_47_drm_and_the_ruling_r6_worked_example(campaign):
    """Firefights 1 and 2 played: +1 after 1, +2 after 2; firefight 3 Idle; firefight 4 played: +1.
    -1 won; -2 per Elite and -1 per 1st Line infantry platoon bought for it; +2 Attack Option bought
    for it (none for the Initial Firefight's assigned attacker, R2)."""
    plan = {
        1: {"buy": [("axis", "I1"), ("axis", "I2"), ("allied", "I1"), ("allied", "I4")],
            "end": {"cvp_lost": {"axis": 5, "allied": 10}}},
        2: {"attack": ["axis"], "end": {"cvp_lost": {"axis": 10, "allied": 5}}},
        4: {"attack": ["allied"]},
    }
    c = campaign(plan=plan)
    c.advance(1, "3.47")
    assert c.last("firefight_ended")["winner"] == "axis"
    p = rolled(c, "elr", side="axis", dice="2,2")
    check_roll(p, (2, 2), [("3.47", -1), ("3.47", -2), ("3.47", -1), ("3.47", +1)], 1, 4, "3.47")
    assert (p["before"], p["after"]) == (3, 4)
    # the Allied Initial attacker: its 1st Line platoon counts, its Elite section (I4) is no platoon
    q = rolled(c, "elr", side="allied", dice="6,6")
    check_roll(q, (6, 6), [("3.47", -1), ("3.47", +1)], 12, 4, "3.47")
    assert "Attack Option" not in reasons(q)

    c.advance(2, "3.47")
    p = rolled(c, "elr", side="axis", dice="5,5")
    check_roll(p, (5, 5), [("3.47", +2), ("3.47", +2)], 14, 3, "3.47")  # attack option, R6: 2 firefights
    assert (p["before"], p["after"]) == (4, 3)
    assert "Attack Option" in reasons(p) and "Elite" not in reasons(p)
    q = rolled(c, "elr", side="allied", dice="3,4")
    check_roll(q, (3, 4), [("3.47", -1), ("3.47", +2)], 8, 4, "3.47")

    c.advance(4, "3.47")
    assert c.state().firefights[2].type == "idle"
    assert len(c.events("elr_rolled")) == 4  # the Idle firefight 3 has no 3.47
    q = rolled(c, "elr", side="allied", dice="3,4")
    check_roll(q, (3, 4), [("3.47", +2), ("3.47", +1)], 10, 4, "3.47")
    assert "ruling R6" in reasons(q)
    p = rolled(c, "elr", side="axis", dice="3,4")
    check_roll(p, (3, 4), [("3.47", -1), ("3.47", +1)], 7, 3, "3.47")  # 0-0: the defender wins (1.31)


def test_3_47_elr_5_is_never_regained(campaign, variant):
    """Ruling R13: at 5 an increase keeps 5, a decrease gives 4, and 4 never climbs back to 5.
    The card's Historical DRM (-3) applies to every roll."""
    c = campaign(card=variant(axis={"elr": 5, "historical_drm": -3}),
                 plan={2: {"attack": ["axis"]}, 3: {"attack": ["allied"]}})
    c.advance(1, "3.47")
    p = rolled(c, "elr", side="axis", dice="1,1")
    check_roll(p, (1, 1), [("3.47", -1), ("3.47", +1), ("3.47", -3)], -1, 5, "3.47")
    assert (p["before"], p["after"]) == (5, 5)
    c.advance(2, "3.47")
    p = rolled(c, "elr", side="axis", dice="6,6")
    check_roll(p, (6, 6), [("3.47", +2), ("3.47", +2), ("3.47", -3)], 13, 4, "3.47")
    assert (p["before"], p["after"]) == (5, 4)
    c.advance(3, "3.47")
    p = rolled(c, "elr", side="axis", dice="1,1")
    check_roll(p, (1, 1), [("3.47", -1), ("3.47", +3), ("3.47", -3)], 1, 4, "3.47")
    assert (p["before"], p["after"]) == (4, 4)
    c.close()
    assert orjson.loads(cli_run(c.path, "status", "--json").out)["sides"]["axis"]["elr"] == 4


def test_3_47_elr_never_below_zero(campaign, variant):
    c = campaign(card=variant(axis={"elr": 0}), plan={1: {"end": {"cvp_lost": {"axis": 3, "allied": 0}}}})
    c.advance(1, "3.47")
    p = rolled(c, "elr", side="axis", dice="6,6")
    check_roll(p, (6, 6), [("3.47", +1)], 13, 0, "3.47")


# ---- 3.41 and 3.51 -------------------------------------------------------------------------------

def test_3_41_disease_with_the_cards_fsr_and_historical_drm(campaign, variant):
    c = campaign(card=variant(campaign={"disease": True}, axis={"historical_drm": 1}))
    c.advance(1, "3.41")
    p = rolled(c, "disease", side="axis", dice="3")
    check_roll(p, (3,), [("3.41", +1)], 4, 2, "3.41")  # 4-6: 2 squads
    q = rolled(c, "disease", side="allied", dice="3")
    check_roll(q, (3,), [], 3, 1, "3.41")  # <3 (3 or less): 1 squad
    c.close()
    r = cli_run(c.path, "next")
    assert r.code == 0 and "now at step 3.42" in r.out  # both drs made: 3.41 owes nothing more


def test_3_51_san_is_brought_into_2_to_4(campaign, variant):
    c = campaign(card=variant(axis={"san": 1}, allied={"san": 6}))
    c.advance(1, "3.51")
    c.next()
    adj = {p["side"]: (p["before"], p["after"]) for p in c.events("san_adjusted")}
    assert adj == {"axis": (1, 2), "allied": (6, 4)}
    st = c.state()
    assert (st.sides["axis"].san, st.sides["allied"].san) == (2, 4)
    c2 = campaign()  # the sample's SAN 3 and 2 are inside 2..4 and stay
    c2.advance(1, "3.51")
    c2.next()
    assert {p["side"]: (p["before"], p["after"]) for p in c2.events("san_adjusted")} == {
        "axis": (3, 3), "allied": (2, 2)}
