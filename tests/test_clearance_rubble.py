"""Rules revision 2, 3.52: an Eliminated result removes rubble (PL's table, ruling R38); the Original-6
Casualty Reduction only against a Known minefield or Panji."""
from __future__ import annotations

from cg.items import Kept
from conftest import Campaign, cli_run, started_at

PLAN = {1: {"buy": [("axis", "I1"), ("allied", "I1")],
            "end": {"cvp_lost": {"axis": 1, "allied": 1},
                    "terrain": ["M7=rubble", "L5=ap_mine", "M6=known_minefield"]}}}


def at_3_52(tmp_path, revision=None):
    return started_at(tmp_path / "c.plcg", 1, "3.52", PLAN, "cl", revision)


def test_rubble_cleared_is_gone_and_cr_only_vs_a_known_minefield(tmp_path):
    c = at_3_52(tmp_path)
    r = cli_run(c.path, "clear", "axis", "M7", "rubble", "--dice", "1")
    assert r.code == 0, r.err
    assert Kept("rubble") not in c.state().ground.terrain.get("M7", [])
    r = cli_run(c.path, "clear", "axis", "L5", "mines", "--dice", "6")  # hidden A-P mines: no CR
    assert r.code == 0 and "Casualty Reduction" not in r.out, r.out
    r = cli_run(c.path, "clear", "axis", "M6", "mines", "--dice", "6")  # a Known minefield: CR
    assert r.code == 0 and "Casualty Reduction" in r.out, r.out
    c.close()


def test_revision_1_left_a_trailbreak_and_reduced_vs_any_mines(tmp_path):
    c = at_3_52(tmp_path, revision=1)
    assert cli_run(c.path, "clear", "axis", "M7", "rubble", "--dice", "1").code == 0
    assert c.state().ground.terrain["M7"] == [Kept("rubble"), Kept("trailbreak")]
    r = cli_run(c.path, "clear", "axis", "L5", "mines", "--dice", "6")
    assert r.code == 0 and "Casualty Reduction" in r.out
    c.close()


def test_1_4_new_rubble_becomes_strategic_terrain_that_can_be_controlled(tmp_path):
    plan = {1: {"buy": [("axis", "I1"), ("allied", "I1")],
                "end": {"cvp_lost": {"axis": 1, "allied": 1}, "terrain": ["F2=rubble"]}},
            2: {"attack": ["axis"]}}
    for revision, code in ((None, 0), (1, 3)):
        db = tmp_path / f"r{revision}.plcg"
        extra = ["--rules-revision", str(revision)] if revision else []
        assert cli_run(db, "new", "--card", "sample", "--seed", "st", *extra).code == 0
        c = Campaign.attach(db, plan=plan)
        c.advance(2, "2.9")
        r = cli_run(db, "end", "--turn", "4", "--cvp-lost", "axis=1", "--cvp-lost", "allied=1", "--control", "axis=F2")
        assert r.code == code, (revision, r.err)
        if code == 0:
            hc = c.state().map_control().hexes["F2"]
            assert hc.cthc == "axis"  # a controlled Strategic Terrain hex heads its own CTHC
        c.close()


def test_1_4_an_emplaced_gun_makes_its_hex_strategic_terrain_also_one_bought_after_the_map_was_read(tmp_path):
    # the Guns are found through an index of them (cg/state.py), kept while no unit is added: a state
    # whose map was read before the Gun was bought, folded on in place as replay and the audit do, must
    # not hide it once it is set up
    from cg.evolve import evolve

    c = Campaign(tmp_path / "g.plcg", seed="gun")
    c.advance(1, "2.3")
    folded = c.state().copy()
    before = folded.strategic()
    c.run("buy", side="axis", rg="G1", mode="on-map")
    c.advance(1, "2.6")
    st = c.state()
    mc = st.map_control()
    hx = next(h for h in mc.hexes if h not in before and mc.situation(h, "axis") == "friendly_mlr")
    gun = next(u for u in st.units.values() if u.side == "axis" and u.kind == "gun")
    assert hx not in st.strategic()
    crew = next(u for u in st.units.values() if u.side == "axis" and u.purchase == gun.purchase and u.kind == "crew")
    c.run("setup", side="axis", unit=crew.id, hex=hx)  # 2.37: the Gun sets up with a unit of its RG
    c.run("setup", side="axis", unit=gun.id, hex=hx)
    assert hx in c.state().strategic()
    assert folded.strategic() == before  # read again before the purchase is folded into it
    for seq, batch, etype, p in list(c.led.records()):
        if seq > folded.seq:
            evolve(folded, etype, p, seq, batch)
            folded.strategic()  # read after every event, as deciding each command does
    assert hx in folded.strategic() and folded.strategic() == c.state().strategic()
    c.advance(1, "2.9")
    r = cli_run(c.path, "end", "--turn", "4", "--cvp-lost", "axis=1", "--cvp-lost", "allied=1", "--control", f"axis={hx}")
    assert r.code == 0, r.err
    c.close()


def test_1_4_rubble_folded_into_a_state_whose_map_was_read_makes_its_hex_strategic(tmp_path):
    # strategic() keeps the terrain's verdict until a fold handler changes some terrain (cg/state.py)
    from cg.evolve import evolve

    c = Campaign(tmp_path / "r.plcg", seed="rubble",
                 plan={1: {"end": {"cvp_lost": {"axis": 1, "allied": 1}, "terrain": ["F2=rubble"]}}})
    c.advance(1, "2.9")
    folded = c.state().copy()
    assert "F2" not in folded.strategic()
    c.advance(1, "3.1")
    for seq, batch, etype, p in list(c.led.records()):
        if seq > folded.seq:
            evolve(folded, etype, p, seq, batch)
            folded.strategic()
    assert "F2" in folded.strategic() and folded.strategic() == c.state().strategic()
    c.close()
