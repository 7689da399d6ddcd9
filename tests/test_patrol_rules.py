"""Rules revision 3, issue 24 items 9-12 and the leader ranks (rulings R29, R52, R55, R56): 2.72 the
patrol's units within 10 hexes of each other and one patrol at a time, 2.73 no water mission hex, 2.74
Inexperienced/Elite from the counter too, a leader or hero Reduced is wounded, a 9-1 may lead a patrol
unless the card ranks it otherwise. Driven through the command line; revision 2 keeps its decisions."""
from __future__ import annotations

import json

from conftest import Campaign, cli_run, owed_at
from test_setup_and_redeployment_rules import refused


def new(tmp_path, plan, revision=None, name="c.plcg", card="sample", seed="pat"):
    db = tmp_path / name
    extra = ["--rules-revision", str(revision)] if revision else []
    r = cli_run(db, "new", "--card", card, "--seed", seed, *extra)
    assert r.code == 0, r.err
    return Campaign.attach(db, plan=plan)


def patrol(path, units, leader, hx, *extra):
    return cli_run(path, "patrol", "axis", "--type", "recon", "--units", units, "--leader", leader, "--hex", hx,
                   *extra, "--json")


PLAN = {1: {"buy": [("axis", "I1", "on-map"), ("allied", "I1")], "patrols": [("axis", 1)]}}


# ---- item 9: 2.72 within 10 hexes of each other; one patrol at a time; 2.73 Accessible to Infantry -------

def _far_east(tmp_path, revision=None, name="c.plcg"):
    c = new(tmp_path, PLAN, revision, name)
    c.advance(1, "2.6")
    for uid, hx in (("I1-1.1", "P9"), ("I1-1.L1", "P9"), ("I1-1.2", "O9")):
        assert cli_run(c.path, "setup", "axis", uid, hx).code == 0
    c.advance(1, "2.7")
    return c


def test_2_72_the_units_are_within_10_hexes_of_each_other_not_of_the_mission_hex(tmp_path):
    c = _far_east(tmp_path)  # E3 is 5 hexes from the Axis MLR (2.73), 12 from P9
    r = patrol(c.path, "I1-1.1,I1-1.2", "I1-1.L1", "E3", "--dice", "2,2")
    assert r.code == 0, r.err
    c.close()
    old = _far_east(tmp_path, revision=2, name="old.plcg")
    refused(old.path, "patrol", "axis", "--type", "recon", "--units", "I1-1.1,I1-1.2", "--leader", "I1-1.L1",
            "--hex", "E3", "--dice", "2,2", rule="2.72")
    old.close()


def _two_patrols(tmp_path, variant, revision=None, name="c.plcg"):
    card = variant(campaign={"patrols_per_reph": 2})
    plan = {1: {"buy": [("axis", "I1", "on-map"), ("allied", "I1")], "patrols": [("axis", 2)]}}
    c = new(tmp_path, plan, revision, name, card=card)
    c.advance(1, "2.7")
    r = patrol(c.path, "I1-1.1", "I1-1.L1", "I5", "--dice", "2,2")  # conducts its mission, owes its Return
    assert r.code == 0, r.err
    return c


def test_2_72_a_leader_leads_one_patrol_at_a_time(tmp_path, variant):
    c = _two_patrols(tmp_path, variant)
    err = refused(c.path, "patrol", "axis", "--type", "recon", "--units", "I1-1.2", "--leader", "I1-1.L1",
                  "--hex", "I5", "--dice", "2,2", rule="2.72")
    assert "I1-1.L1" in err and "Return" in err
    assert cli_run(c.path, "patrol-return", "axis", "1", "--dice", "1,1").code == 0
    r = patrol(c.path, "I1-1.2", "I1-1.L1", "I5", "--dice", "2,2")  # back: it may go again
    assert r.code == 0, r.err
    assert cli_run(c.path, "audit").code == 0
    c.close()
    old = _two_patrols(tmp_path, variant, revision=2, name="old.plcg")
    assert patrol(old.path, "I1-1.2", "I1-1.L1", "I5", "--dice", "2,2").code == 0
    old.close()


def test_2_73_a_water_hex_is_no_mission_hex(tmp_path):
    c = new(tmp_path, PLAN)
    c.advance(1, "2.7")
    err = refused(c.path, "patrol", "axis", "--type", "recon", "--units", "I1-1.1", "--leader", "I1-1.L1",
                  "--hex", "H4", "--dice", "2,2", rule="2.73")
    assert "R56" in err
    c.close()
    old = new(tmp_path, PLAN, revision=2, name="old.plcg")
    old.advance(1, "2.7")
    assert patrol(old.path, "I1-1.1", "I1-1.L1", "H4", "--dice", "2,2").code == 0
    old.close()


# ---- item 10: 2.74 Inexperienced / Elite from the counter as well as the RG (ruling R55) ---------------

def _conscripts(tmp_path, variant, revision=None, name="c.plcg"):
    card = variant(axis_rg={"I1": {"units": ["3x 4-3-6", "1x LMG"]}})  # a 1st Line RG of Conscript counters
    c = new(tmp_path, PLAN, revision, name, card=card)
    c.advance(1, "2.7")
    return c


def test_2_74_a_conscript_counter_is_inexperienced_whatever_its_rgs_quality(tmp_path, variant):
    c = _conscripts(tmp_path, variant)
    r = patrol(c.path, "I1-1.1", "I1-1.L1", "I5", "--inexperienced", "1", "--dice", "2,2")
    assert r.code == 0, r.err
    drm = {d["reason"]: d["value"] for d in json.loads(r.out)[0]["roll"]["drm"]}
    assert drm.get("Inexperienced") == 1, drm
    c.close()
    old = _conscripts(tmp_path, variant, revision=2, name="old.plcg")
    err = refused(old.path, "patrol", "axis", "--type", "recon", "--units", "I1-1.1", "--leader", "I1-1.L1",
                  "--hex", "I5", "--inexperienced", "1", "--dice", "2,2", rule="R33")
    assert "the OB gives 0" in err
    old.close()


def test_2_74_an_elite_counter_in_a_first_line_rg_is_not_elite(tmp_path):
    # the sample's American 6-6-7 is Elite in the counter table, its RG (I1) 1st Line: no Elite -1 (ruling R55)
    plan = {1: {"buy": [("axis", "I1"), ("allied", "I1", "on-map")], "patrols": [("allied", 1)]}}
    c = new(tmp_path, plan)
    c.advance(1, "2.7")
    leader = next(u.id for u in c.state().side_units("allied") if u.kind == "leader")
    r = cli_run(c.path, "patrol", "allied", "--type", "recon", "--units", "I1-1.1", "--leader", leader,
                "--hex", "E5", "--dice", "2,2", "--json")
    assert r.code == 0, r.err
    assert "Elite" not in {d["reason"] for d in json.loads(r.out)[0]["roll"]["drm"]}
    c.close()


# ---- item 12: ruling R29, a leader struck by Reduced is wounded (A15/A17), as `end --reduced` does --------

def _leader_struck(tmp_path, revision=None, name="c.plcg"):
    c = new(tmp_path, PLAN, revision, name, seed="smc4")  # its Random Selection drs pick the leader
    c.advance(1, "2.7")
    r = patrol(c.path, "I1-1.1", "I1-1.L1", "I5", "--dice", "5,5")  # 10 - 1 recon + 2 day = 11: Reduced*
    assert r.code == 0, r.err
    assert json.loads(r.out)[0]["roll"]["outcome"] == "reduced"
    units = {u["unit"]: u for u in json.loads(cli_run(c.path, "oob", "axis", "--json").out)}
    return c, units["I1-1.L1"]


def test_r29_a_reduced_patrol_leader_is_wounded_not_eliminated(tmp_path):
    c, leader = _leader_struck(tmp_path)
    assert leader["status"] == "available" and "wounded" in leader["flags"], leader
    assert c.state().ff.cvp_lost["axis"] == 0  # a wound costs no CVP (A26.2)
    assert cli_run(c.path, "audit").code == 0
    c.close()
    old, leader = _leader_struck(tmp_path, revision=2, name="old.plcg")
    assert leader["status"] == "eliminated"
    old.close()


# ---- the leader ranks (ruling R52): a 9-1 leads a patrol unless the card ranks it above Lieutenant ------

def _a_9_1_patrols(tmp_path, card="sample", revision=None, name="c.plcg"):
    plan = {1: {**PLAN[1], "dice": {"leader": "2,2"}}}  # 2.361: DR 4, a 9-1
    c = new(tmp_path, plan, revision, name, card=card)
    c.advance(1, "2.7")
    assert c.state().unit("I1-1.L1", "axis").name == "9-1"
    return c


def test_r52_a_9_1_leads_a_patrol_unless_the_card_says_it_is_a_captain(tmp_path):
    c = _a_9_1_patrols(tmp_path)
    r = patrol(c.path, "I1-1.1", "I1-1.L1", "I5", "--dice", "2,2")
    assert r.code == 0, r.err
    c.close()
    from conftest import load_sample, to_toml

    data = load_sample()
    data["counters"] = {"german": {"9-1": {"rank": "Captain"}}}
    card = tmp_path / "ranked.toml"
    card.write_text(to_toml(data) + "\n", encoding="utf-8")
    ranked = _a_9_1_patrols(tmp_path, card=str(card), name="ranked.plcg")
    err = refused(ranked.path, "patrol", "axis", "--type", "recon", "--units", "I1-1.1", "--leader", "I1-1.L1",
                  "--hex", "I5", "--dice", "2,2", rule="2.72")
    assert "Captain" in err and "R52" in err
    ranked.close()
    old = _a_9_1_patrols(tmp_path, revision=2, name="old.plcg")  # revision 2's convention: a 9-1 is a Captain
    refused(old.path, "patrol", "axis", "--type", "recon", "--units", "I1-1.1", "--leader", "I1-1.L1",
            "--hex", "I5", "--dice", "2,2", rule="2.72")
    old.close()


# ---- item 11: ruling R1's exceptions, the 2.74 "beyond" DRMs (not a defect: README R1 now lists them) -----

def test_r1_the_2_74_sw_pp_and_distance_drms_count_what_lies_beyond(tmp_path):
    c = new(tmp_path, PLAN)
    c.advance(1, "2.7")
    # the LMG is 1 PP: nothing beyond 1; F5 is 4 hexes from the Axis MLR: 1 hex beyond 3, +1 (FRU)
    lmg = next(u.id for u in c.state().side_units("axis") if u.kind == "sw")
    assert c.state().map_control().distance_to_mlr("F5", "axis") == 4
    r = patrol(c.path, f"I1-1.1,{lmg}", "I1-1.L1", "F5", "--dice", "2,2")
    assert r.code == 0, r.err
    drm = {d["reason"]: d["value"] for d in json.loads(r.out)[0]["roll"]["drm"]}
    assert not any(k.startswith("SW PP") for k in drm), drm
    assert drm["mission hex 4 hexes from friendly MLR"] == 1, drm
    c.close()


def test_2_72_units_more_than_10_hexes_apart_do_not_patrol_together(tmp_path, variant):
    card = variant(map={"columns": "A-Z"})  # the Axis MLR now reaches from L4 to the east edge, column Z
    c = new(tmp_path, PLAN, card=card)
    c.advance(1, "2.6")
    for uid, hx in (("I1-1.1", "L5"), ("I1-1.L1", "L5"), ("I1-1.2", "Z5")):
        assert cli_run(c.path, "setup", "axis", uid, hx).code == 0
    c.advance(1, "2.7")
    err = refused(c.path, "patrol", "axis", "--type", "recon", "--units", "I1-1.1,I1-1.2", "--leader", "I1-1.L1",
                  "--hex", "I5", "--dice", "2,2", rule="2.72")
    assert "14 hexes apart" in err, err
    assert patrol(c.path, "I1-1.1", "I1-1.L1", "I5", "--dice", "2,2").code == 0
    c.close()


# ---- the harness's list of what each step owes, in the rules' words (tests/conftest.py owed_at): this file's steps ----


def _patrols(camp, st, live) -> list[str]:
    """2.7: each patrol bought sent or given up; 2.74: each patrol that returns makes its Return DR."""
    missing = []
    for side in ("axis", "allied"):
        bought = sum(r.payload["count"] for r in live if r.type == "patrols_bought" and r.payload["side"] == side)
        done = {r.payload["patrol"] for r in live
                if r.type in ("patrol_resolved", "patrol_given_up") and r.payload["side"] == side}
        missing += [f"{side} patrol {n} (2.7)" for n in range(1, bought + 1) if n not in done]
        returned = {r.payload["patrol"] for r in live if r.type == "patrol_returned" and r.payload["side"] == side}
        missing += [f"{side} patrol {r.payload['patrol']} Return DR (2.74)" for r in live
                    if r.type == "patrol_resolved" and r.payload["side"] == side and r.payload["returns"]
                    and r.payload["patrol"] not in returned]
    return missing


owed_at("2.7",
        "Patrols: each patrol bought sent (2.71-2.73) or given up; each that returns, its Return DR (2.74)",
        [_patrols])
