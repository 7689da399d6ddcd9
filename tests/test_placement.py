"""Rules revision 2: 2.32 setup inside the friendly MLR (the Initial Firefight too), 2.33 the leaders of a
Reserve RG keep its 7 hexes, 3.211/R28 one redeployment between two firefights."""
from __future__ import annotations

from conftest import Campaign, cli_run, rows


def new(tmp_path, plan, revision=None, name="c.plcg"):
    db = tmp_path / name
    extra = ["--rules-revision", str(revision)] if revision else []
    assert cli_run(db, "new", "--card", "sample", "--seed", "p", *extra).code == 0
    return Campaign.attach(db, plan=plan)


def test_2_32_no_setup_in_the_enemys_cthc_even_in_the_initial_firefight(tmp_path):
    c = new(tmp_path, {1: {"buy": [("axis", "I1", "on-map"), ("allied", "I1")]}})
    c.advance(1, "2.6")
    before = rows(c.path)
    r = cli_run(c.path, "setup", "axis", "I1-1.1", "D3")  # the Allied-held strategic hex
    assert r.code == 3 and "2.32" in r.err
    assert rows(c.path) == before
    assert cli_run(c.path, "setup", "axis", "I1-1.1", "M5").code == 0
    c.close()
    old = new(tmp_path, {1: {"buy": [("axis", "I1", "on-map"), ("allied", "I1")]}}, revision=1, name="old.plcg")
    old.advance(1, "2.6")
    assert cli_run(old.path, "setup", "axis", "I1-1.1", "D3").code == 0  # as revision 1 allowed it
    old.close()


def test_2_33_a_reserve_rgs_leader_keeps_its_7_hexes(tmp_path):
    plan = {1: {"buy": [("axis", "I1"), ("allied", "I1")], "end": {"cvp_lost": {"axis": 1, "allied": 1},
                                                                   "control": ["allied=I5"]}},
            2: {"attack": ["axis"], "buy": [("axis", "I3", "reserve")]}}
    c = new(tmp_path, plan)
    c.advance(2, "2.6")
    st = c.state()
    i3 = next(p for p in st.purchases.values() if p.rg == "I3")
    leader = next(u for u in st.units.values() if u.purchase == i3.id and u.kind == "leader")
    assert leader.status == "available"  # a leader DR's leader: not marked In Reserve by itself
    assert cli_run(c.path, "setup", "allied", "I1-1.1", "D3").code == 0  # the Defender sets up first (R51)
    before = rows(c.path)
    r = cli_run(c.path, "setup", "axis", leader.id, "L4")  # 3 hexes from the Allied-held I5
    assert r.code == 3 and "2.33" in r.err, r.err
    assert rows(c.path) == before
    c.close()


def test_r28_a_unit_redeployed_at_3_2_does_not_redeploy_again_at_2_5(tmp_path):
    plan = {1: {"buy": [("axis", "I1"), ("allied", "I1")]}, 2: {"attack": ["axis"]}}
    c = new(tmp_path, plan)
    c.advance(1, "2.9")
    c.run("end", turn=5, cvp_lost={"axis": 1, "allied": 1}, position=["axis:I1-1.1=D4"])
    c.advance(1, "3.2")
    c.run("option", option="A")
    assert cli_run(c.path, "redeploy", "axis", "I1-1.1", "--to", "M5", "--dice", "1,2").code == 0
    c.advance(2, "2.5")
    before = rows(c.path)
    r = cli_run(c.path, "redeploy", "axis", "I1-1.1", "--to", "L5", "--dice", "1,2")
    assert r.code == 3 and "R28" in r.err
    assert rows(c.path) == before
    assert cli_run(c.path, "redeploy", "allied", "--done").code == 0  # the Defender first (ruling R85)
    assert cli_run(c.path, "redeploy", "axis", "I1-1.2", "--to", "L5", "--dice", "1,2").code == 0
    c.close()


def test_3_214_redeploys_to_the_nearest_friendly_cthc_only(tmp_path):
    plan = {1: {"buy": [("axis", "I1"), ("allied", "I1")]}}
    c = new(tmp_path, plan)
    c.advance(1, "2.9")
    # the Axis takes E8 (a second Axis CTHC, near D4) and one of its squads ends at D4, in the Allied MLR
    c.run("end", turn=5, cvp_lost={"axis": 1, "allied": 1}, control=["axis=E8"], position=["axis:I1-1.1=D4"])
    c.advance(1, "3.2")
    c.run("option", option="A")
    from cg.rules import nearest_cthc

    st = c.state()
    near = nearest_cthc(st, st.unit("I1-1.1", "axis"))
    assert "E8" in near and "M5" not in near
    before = rows(c.path)
    r = cli_run(c.path, "redeploy", "axis", "I1-1.1", "--to", "M5", "--dice", "1,2")
    assert r.code == 3 and "nearest" in r.err, r.err
    assert rows(c.path) == before
    assert cli_run(c.path, "redeploy", "axis", "I1-1.1", "--to", "E8", "--dice", "1,2").code == 0
    c.close()


def test_2_38_fortifications_inside_the_mlr_and_hip_only_when_bought(tmp_path):
    c = new(tmp_path, {1: {"buy": [("allied", "I1")]}})
    c.advance(1, "2.3")
    c.run("buy", side="axis", rg="I1", mode="on-map")
    c.run("buy", side="axis", rg="F1")
    before = rows(c.path)
    r = cli_run(c.path, "fortify", "axis", "foxhole", "--hex", "D4", "--capacity", "1")  # in the Allied MLR
    assert r.code == 3 and "2.38" in r.err, r.err
    r = cli_run(c.path, "fortify", "axis", "hip", "--unit", "I1-1.4")  # the LMG hides with its possessor
    assert r.code == 3 and "possessor" in r.err
    assert rows(c.path) == before
    assert cli_run(c.path, "fortify", "axis", "foxhole", "--hex", "M6", "--capacity", "1").code == 0
    r = cli_run(c.path, "fortify", "axis", "hip", "--unit", "I1-1.2")
    assert r.code == 3 and "10%" in r.err  # 3 squads by day: 10%, fractions dropped, is none (ruling R1)
    c.run("leader", side="axis", rg="I1-1", dice="3,4")
    assert cli_run(c.path, "fortify", "axis", "hip", "--unit", "I1-1.L1").code == 0  # an SMC hides
    c.advance(1, "2.6")
    r = cli_run(c.path, "setup", "axis", "I1-1.1", "M5", "--hip")
    assert r.code == 3 and "HIP" in r.err
    assert cli_run(c.path, "setup", "axis", "I1-1.1", "M5").code == 0  # 2.37: its leader sets up with it
    assert cli_run(c.path, "setup", "axis", "I1-1.L1", "M5", "--hip").code == 0
    c.close()


def test_2_5_option_a_defender_first_and_only_to_another_cthc(tmp_path):
    plan = {1: {"buy": [("axis", "I1", "on-map"), ("allied", "I1", "on-map")]}, 2: {"attack": ["axis"]}}
    c = new(tmp_path, plan)
    c.advance(1, "2.6")
    assert cli_run(c.path, "setup", "axis", "I1-1.2", "M5").code == 0  # the Axis sets up first (R51)
    assert cli_run(c.path, "setup", "allied", "I1-1.1", "D3").code == 0
    c.advance(1, "3.2")
    c.run("option", option="A")
    c.advance(2, "2.5")
    before = rows(c.path)
    r = cli_run(c.path, "redeploy", "allied", "I1-1.1", "--to", "C4", "--dice", "1,2")  # C3/D3: one CTHC
    assert r.code == 3 and "another" in r.err, r.err
    assert rows(c.path) == before
    assert cli_run(c.path, "redeploy", "allied", "I1-1.1", "--to", "E8", "--dice", "1,2").code == 0  # the Defender
    assert cli_run(c.path, "redeploy", "axis", "I1-1.1", "--to", "M5", "--dice", "1,2").code == 0  # the Attacker
    r = cli_run(c.path, "redeploy", "allied", "I1-1.2", "--to", "E8", "--dice", "1,2")
    assert r.code == 3 and "Defender" in r.err and "first" in r.err
    c.close()


def test_2_38_note_9_a_cave_complex_needs_four_caves(tmp_path):
    c = new(tmp_path, {1: {"buy": [("allied", "I1")]}})
    c.advance(1, "2.3")
    for _ in range(3):
        c.run("buy", side="axis", rg="F1")
    for _ in range(2):  # 30 FP buy two caves at 15
        assert cli_run(c.path, "fortify", "axis", "cave", "--hex", "M6").code == 0
    r = cli_run(c.path, "fortify", "axis", "cave_complex")
    assert r.code == 3 and "four" in r.err and "2.38" in r.err
    c.close()


def test_2_6_the_side_setting_up_first_sets_up_before_the_other(tmp_path):
    c = new(tmp_path, {1: {"buy": [("axis", "I1", "on-map"), ("allied", "I1", "on-map")]}})
    c.advance(1, "2.6")
    assert c.state().ff.setup_first == "axis"  # the card's Initial ATTACKER is the Allies (ruling R2)
    assert cli_run(c.path, "setup", "axis", "I1-1.1", "M5").code == 0
    assert cli_run(c.path, "setup", "allied", "I1-1.1", "D3").code == 0
    before = rows(c.path)
    r = cli_run(c.path, "setup", "axis", "I1-1.2", "M5")
    assert r.code == 3 and "sets up first" in r.err
    assert rows(c.path) == before
    c.close()
