"""Issue 2: the paths through a campaign (pl25-sequence.md): the Initial Firefight's entry at 2.2,
later firefights at 2.1, the Idle Firefight's short RePh, the Dual Attack drs, CG end after the last
card firefight's RePh (ruling R16) and on concession; `status --json` as cli-contract.md lists it."""
from __future__ import annotations

import orjson
import pytest

from events.errors import Refused
from conftest import Campaign, cli_run, ff_list, rows

FULL_RePh = ["3.1", "3.2", "3.3", "3.41", "3.42", "3.43", "3.44", "3.45", "3.46", "3.461", "3.47", "3.51", "3.52"]
INITIAL_PATH = ["2.2", "2.3", "2.4", "2.6", "2.7", "2.8", "2.9"] + FULL_RePh
PLAYED_PATH = ["2.1", "2.2", "2.3", "2.4", "2.5", "2.6", "2.7", "2.8", "2.9"] + FULL_RePh
IDLE_PATH = ["2.1", "2.2", "2.3", "2.4", "3.41", "3.46", "3.461", "3.52"]


def steps_of(camp: Campaign, ff: int) -> list[str]:
    return [s for f, s in camp.visited if f == ff]


def status(path) -> dict:
    r = cli_run(path, "status", "--json")
    assert r.code == 0, r.err
    return orjson.loads(r.out)


def check_status_shape(d: dict) -> None:
    """cli-contract.md, status --json keys."""
    for key, kind in (("firefight", int), ("step", str), ("step_name", str), ("initial", bool), ("idle", bool),
                      ("ended", bool), ("pending", list), ("sides", dict)):
        assert isinstance(d[key], kind), key
    assert d["firefight"] >= 1
    assert d["type"] in (None, "axis_assault", "allied_assault", "dual", "idle")
    assert d["attacker"] in (None, "axis", "allied")
    assert set(d["sides"]) == {"axis", "allied"}
    for s in d["sides"].values():
        for key in ("cp", "elr", "san"):
            assert isinstance(s[key], int) and not isinstance(s[key], bool)
        assert isinstance(s["attack_option"], bool)
    for p in d["pending"]:
        assert set(p) >= {"command", "rule", "what", "runnable"}


# ---- the Initial Firefight -----------------------------------------------------------------------

def test_the_initial_firefight_enters_at_2_2_and_skips_2_5(campaign):
    c = campaign(plan={1: {"buy": [("allied", "I1")]}})
    d = status(c.path)
    check_status_shape(d)
    assert (d["firefight"], d["step"], d["step_name"]) == (1, "2.2", "At Start Weather")
    assert d["initial"] is True and d["idle"] is False and d["ended"] is False
    assert d["type"] is None and d["attacker"] is None
    assert d["sides"]["axis"]["cp"] == 16 and d["sides"]["allied"]["cp"] == 18  # the card's initial CP
    c.advance(2, "2.1")
    assert steps_of(c, 1) == INITIAL_PATH  # no 2.1 (the card's CP), no 2.5 (not Initial only)
    left = [(p["step"], p["to"]) for p in c.events("step_left")]
    assert ("2.4", "2.6") in left and all(s != "2.1" and t not in ("2.1", "2.5") for s, t in left[:-1])
    assert c.events("cp_replenished") == []
    w = c.last("weather_set")
    assert w["text"] == "clear"  # 2.2: the card's at-start weather


def test_the_initial_firefight_has_the_cards_attacker_and_is_never_idle(campaign):
    c = campaign()
    c.advance(1, "2.3")
    c.close()
    before = rows(c.path)
    r = cli_run(c.path, "attack", "allied")
    assert r.code == 3 and "ruling R2" in r.err and "(step 2.3)" in r.err
    assert rows(c.path) == before
    assert cli_run(c.path, "next").code == 0
    r = cli_run(c.path, "determine", "--dice", "2")
    assert r.code == 2  # no dice: the card assigns the attacker (2.4)
    r = cli_run(c.path, "determine")
    assert r.code == 0, r.err
    d = status(c.path)
    check_status_shape(d)
    assert d["type"] == "allied_assault" and d["attacker"] == "allied" and d["idle"] is False
    import cli

    led = cli.Ledger(c.path)
    det = [p for _, _, t, p in led.records() if t == "firefight_determined"][-1]
    led.close()
    assert (det["setup_first"], det["move_first"]) == ("axis", "allied")  # 2.41 Allied Assault


# ---- later firefights: 2.1, and the whole sequence ----------------------------------------------

def test_a_later_firefight_starts_at_2_1_and_shows_every_step(campaign):
    c = campaign(plan={2: {"attack": ["axis"]}})
    c.advance(3, "2.1")
    assert steps_of(c, 2) == PLAYED_PATH
    assert steps_of(c, 3) == ["2.1"]
    st = c.state()
    assert st.firefights[1].type == "axis_assault" and st.firefights[1].attacker == "axis"
    assert [p["side"] for p in c.events("cp_replenished")] == ["axis", "allied"]  # firefight 2's 2.1 only
    d = status(c.path)
    assert (d["firefight"], d["step"], d["initial"]) == (3, "2.1", False)
    assert [p["command"] for p in d["pending"]] == ["plcg cp axis", "plcg cp allied"]


# ---- the Idle Firefight --------------------------------------------------------------------------

def test_the_idle_firefight_path_loses_patrols_and_air_support(campaign):
    plan = {2: {"patrols": [("allied", 1)], "buy": [("allied", "AS1"), ("axis", "I3")]}}
    c = campaign(plan=plan)
    c.advance(2, "2.4")
    st = c.state()
    allied_cp, axis_cp = st.sides["allied"].cp, st.sides["axis"].cp
    assert st.sides["allied"].patrols == 1
    c.run("determine")
    d = status(c.path)
    check_status_shape(d)
    assert d["type"] == "idle" and d["idle"] is True and d["attacker"] is None
    assert d["sides"]["allied"]["patrols"] == 0
    det = c.last("firefight_determined")
    assert det["type"] == "idle" and det["setup_first"] is None and det["move_first"] is None
    assert "allied: 1 patrol(s)" in det["lost"] and "allied: Air Support AS1-1" in det["lost"]
    st = c.state()
    assert {st.unit(u, "allied").status for u in st.purchase("AS1-1", "allied").units} == {"eliminated"}
    assert st.purchase("AS1-1", "allied").lost_idle
    # ruling R11: nothing else of its purchases is lost, and the CP spent stay spent
    i3 = next(p for p in st.purchases.values() if p.rg == "I3")
    assert {st.unit(u, i3.side).status for u in i3.units} == {"available"}
    assert (st.sides["allied"].cp, st.sides["axis"].cp) == (allied_cp, axis_cp)
    c.advance(3, "2.1")
    assert steps_of(c, 2) == IDLE_PATH  # 2.4 -> 3.41 -> 3.46 -> 3.461 -> 3.52 -> 2.1
    recorded = set(c.types_in(2))
    assert not recorded & {"firefight_ended", "promotion_rolled", "leaders_rolled", "elr_rolled", "san_adjusted",
                           "tvp_awarded", "patrol_resolved", "redeployed"}
    assert len(c.events("elr_rolled")) == 2 and len(c.events("promotion_rolled")) == 2  # firefight 1's only
    assert len(c.events("firefight_ended")) == 1


def test_commands_of_the_steps_an_idle_firefight_skips_are_refused(campaign):
    c = campaign()
    c.advance(2, "3.41")
    assert c.state().idle
    c.close()
    for args, rule in ((["promote", "axis", "--dice", "3"], "3.44"), (["elr", "axis", "--dice", "3,4"], "3.47"),
                       (["end", "--turn", "3", "--cvp-lost", "axis=1", "--cvp-lost", "allied=1"], "2.9")):
        r = cli_run(c.path, *args)
        assert r.code == 3 and f"[rule {rule}]" in r.err and "(step 3.41)" in r.err
    for to in ("3.46", "3.461", "3.52", "2.1"):
        r = cli_run(c.path, "next")
        assert r.code == 0 and f"now at step {to}" in r.out, r.out


# ---- the Dual Attack -----------------------------------------------------------------------------

@pytest.mark.parametrize("setup_dr,move_dr,setup_first,move_first", [
    (1, 6, "axis", "allied"), (3, 4, "axis", "allied"), (4, 3, "allied", "axis"), (6, 1, "allied", "axis"),
    (2, 2, "axis", "axis"), (5, 5, "allied", "allied"),
])
def test_dual_attack_drs_1_to_3_give_the_axis(campaign, setup_dr, move_dr, setup_first, move_first):
    c = campaign(plan={2: {"attack": ["axis", "allied"]}})
    c.advance(2, "2.4")
    c.close()
    d = status(c.path)
    assert d["sides"]["axis"]["attack_option"] and d["sides"]["allied"]["attack_option"]
    # rules revision 2: determine makes the setup dr; the moves-first dr comes after all setup (2.6)
    r = cli_run(c.path, "determine", "--dice", str(setup_dr), "--move-dice", str(move_dr))
    assert r.code == 2 and "moves-first" in r.err
    r = cli_run(c.path, "determine", "--dice", str(setup_dr), "--json")
    assert r.code == 0, r.err
    out = orjson.loads(r.out)
    assert [e["type"] for e in out] == ["firefight_determined"]
    assert f"dr {setup_dr}: " in out[0]["summary"]  # determine prints its dr
    d = status(c.path)
    assert d["type"] == "dual" and d["attacker"] is None
    assert cli_run(c.path, "moves-first", "--dice", str(move_dr)).code == 3  # 2.6 comes first
    c = Campaign.attach(c.path)
    c.advance(2, "2.6")
    assert [p["command"] for p in status(c.path)["pending"]] == ["plcg moves-first"]
    r = cli_run(c.path, "moves-first", "--dice", str(move_dr))
    assert r.code == 0 and f"dr {move_dr}" in r.out, r.out + r.err
    assert cli_run(c.path, "moves-first", "--dice", str(move_dr)).code == 3  # made once
    c.close()
    import cli

    led = cli.Ledger(c.path)
    p = [p for _, _, t, p in led.records() if t == "firefight_determined"][-1]
    m = [p for _, _, t, p in led.records() if t == "moves_first_rolled"][-1]
    led.close()
    assert (p["setup_first"], m["move_first"]) == (setup_first, move_first)
    assert [x["dice"] for x in p["rolls"] + [m["roll"]]] == [[setup_dr], [move_dr]]
    assert [x["outcome"] for x in p["rolls"] + [m["roll"]]] == [setup_first, move_first]
    assert [x["table"] for x in p["rolls"] + [m["roll"]]] == ["2.41", "2.41"]


def test_dual_attack_tie_goes_to_the_side_that_moved_second(campaign):
    """Ruling R5: in a Dual Attack by day the side moving second counts as the defender (the sample card's
    firefight 3; its firefight 2 is at night, where a tie is a draw: R5 revised, 2.421)."""
    c = campaign(plan={3: {"attack": ["axis", "allied"], "determine": {"dice": "5"}, "dice": {"moves-first": "2"},
                           "end": {"cvp_lost": {"axis": 6, "allied": 6}}}})
    c.advance(3, "3.1")
    e = c.last("firefight_ended")
    assert c.state().firefights[2].time == "day"
    assert c.state().firefights[2].move_first == "axis"
    assert e["winner"] == "allied" and e["winner_rule"] == "R5"


def test_determine_takes_dice_only_for_a_dual_attack(campaign):
    c = campaign(plan={2: {"attack": ["axis"]}})
    c.advance(2, "2.4")
    c.close()
    before = rows(c.path)
    r = cli_run(c.path, "determine", "--dice", "2", "--move-dice", "3")
    assert r.code == 2 and "Dual Attack" in r.err
    assert rows(c.path) == before
    assert cli_run(c.path, "determine").code == 0
    assert status(c.path)["type"] == "axis_assault"


# ---- CG end --------------------------------------------------------------------------------------

def test_the_cg_ends_after_the_last_firefights_reph(campaign, variant):
    """Ruling R16: the last card firefight still has its RePh; `next` from its 3.52 ends the CG."""
    card = variant(firefights=ff_list(2))
    c = campaign(card=card, plan={2: {"attack": ["allied"], "end": {"cvp_lost": {"axis": 9, "allied": 4}}}})
    c.advance(2, "2.9")
    c.finish_step()
    assert c.state().step == "3.1" and not c.state().ended  # the firefight's end is not the CG's
    c.advance(2, "3.52")
    assert steps_of(c, 2) == PLAYED_PATH
    assert len(c.events("elr_rolled")) == 4  # the last RePh's 3.47 was made
    c.close()
    r = cli_run(c.path, "next")
    assert r.code == 0 and "the CG has ended" in r.out
    d = status(c.path)
    check_status_shape(d)
    assert d["ended"] is True and d["step"] == "end" and d["pending"] == []
    import cli

    led = cli.Ledger(c.path)
    ended = [p for _, _, t, p in led.records() if t == "cg_ended"]
    led.close()
    assert [e["reason"] for e in ended] == ["last firefight"]
    assert_everything_refused(c.path)


def test_an_idle_last_firefight_ends_the_cg_after_its_3_52(campaign, variant):
    c = campaign(card=variant(firefights=ff_list(2)))
    c.advance(2, "3.52")
    assert steps_of(c, 2) == IDLE_PATH
    c.next()
    assert c.state().ended and c.state().end_reason == "last firefight"


def assert_everything_refused(path):
    before = rows(path)
    for args in (["next"], ["concede", "axis"], ["cp", "axis", "--dice", "3,4"], ["elr", "axis", "--dice", "3,4"],
                 ["buy", "axis", "I1"], ["weather"], ["determine"], ["clear", "axis", "M6", "wire", "--dice", "2"]):
        r = cli_run(path, *args)
        assert r.code == 3, (args, r.code, r.err)
        assert "[rule 1.3]" in r.err and "(step end)" in r.err, r.err
    # input is still checked first
    assert cli_run(path, "cp", "axis", "--dice", "9,9").code == 2
    assert rows(path) == before


@pytest.mark.parametrize("ff,step", [(1, "2.2"), (1, "2.4"), (1, "2.9"), (1, "3.47"), (2, "2.1"), (2, "3.52")])
def test_concession_at_any_step_ends_the_cg(campaign, ff, step):
    c = campaign(plan={1: {"buy": [("axis", "I1")]}})
    c.advance(ff, step)
    c.close()
    before = rows(c.path)
    assert cli_run(c.path, "concede", "martians").code == 2
    assert rows(c.path) == before
    r = cli_run(c.path, "concede", "axis")
    assert r.code == 0, r.err
    assert "the CG has ended" in r.out
    import re

    seqs = [int(x) for x in re.findall(r"^\[(\d+)\]", r.out, re.M)]
    assert len(seqs) == 3 and seqs == sorted(seqs)  # conceded, the step left, cg_ended: in seq order
    d = status(c.path)
    assert d["ended"] is True and d["step"] == "end" and d["pending"] == []
    import cli

    led = cli.Ledger(c.path)
    st = led.state()
    ended = [p for _, _, t, p in led.records() if t == "cg_ended"]
    led.close()
    assert st.end_reason == "concession" and st.conceded_by == "axis"
    assert ended == [{"reason": "concession", "winner": "allied", "tvp": {"axis": st.sides["axis"].tvp_total,
                                                                           "allied": st.sides["allied"].tvp_total}}]
    assert_everything_refused(c.path)


def test_status_json_follows_the_campaign(campaign):
    c = campaign(plan={2: {"attack": ["axis"]}})
    c.advance(2, "2.4")
    d = status(c.path)
    check_status_shape(d)
    assert (d["firefight"], d["step"], d["initial"], d["type"]) == (2, "2.4", False, None)
    assert d["sides"]["axis"]["attack_option"] is True and d["sides"]["allied"]["attack_option"] is False
    st = c.state()
    assert d["sides"]["axis"]["cp"] == st.sides["axis"].cp
    assert d["sides"]["axis"]["elr"] == st.sides["axis"].elr and d["sides"]["allied"]["san"] == st.sides["allied"].san
    c.run("determine")
    d = status(c.path)
    assert (d["type"], d["attacker"]) == ("axis_assault", "axis")
    # firefight 2 is a night firefight on the card: 2.42 is owed, and it is the players' to state
    assert d["pending"] == [{"command": "plcg night TEXT", "rule": "2.42",
                             "what": "night conditions from the CG Card's night rules", "runnable": False}]


@pytest.mark.parametrize("dice,result", [("3,3", "passed"), ("4,4", "eliminated")])
def test_encircled_1tc_takes_the_morale_its_counter_shows(campaign, dice, result):
    """3.17 in the contract's form, `plcg encircled SIDE UNIT [--dice W,C]`: a 4-6-7 tests on morale
    7; the 1TC adds +1, so 3,3 (7) passes and 4,4 (9) eliminates. status offers it runnable."""
    c = campaign(plan={1: {"buy": [("axis", "I1")], "end": {"encircled": ["axis:I1-1.1"]}}})
    c.advance(1, "3.1")
    c.close()
    owed = [p for p in status(c.path)["pending"] if p["rule"] == "3.17"]
    assert [(p["command"], p["runnable"]) for p in owed] == [("plcg encircled axis I1-1.1", True)]
    r = cli_run(c.path, "encircled", "axis", "I1-1.1", "--dice", dice, "--json")
    assert r.code == 0, r.err
    roll = orjson.loads(r.out)[0]["roll"]
    assert (roll["final"], roll["outcome"]) == (sum(map(int, dice.split(","))) + 1, result)


def test_night_conditions_only_for_a_night_firefight(campaign):
    """2.42 sets the Night Conditions of a night firefight; a day one has none to set."""
    c = campaign(plan={1: {"buy": [("axis", "I1")]}})
    c.advance(1, "2.4")
    c.run("determine")
    assert c.state().ff.time == "day"
    before = c.rows()
    with pytest.raises(Refused) as e:
        c.run("night", text="NVR 3")
    assert e.value.rule == "2.42" and c.rows() == before


def test_redeployment_at_3_2_waits_for_the_option(campaign):
    """3.2: the Redeployment Option is chosen first, then units redeploy (3.21 on)."""
    c = campaign(plan={1: {"buy": [("axis", "I1")]}})
    c.advance(1, "3.2")
    assert c.state().option is None
    with pytest.raises(Refused) as e:
        c.run("redeploy", side="axis", unit="I1-1.1", to="C4")
    assert e.value.rule == "3.2" and "Option" in str(e.value)
