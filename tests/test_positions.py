"""Where units stand at firefight end (contract: `plcg position`, `end --position`) and what `end` records
of the units in play (`--hero`, `--reduced`, `--replaced`, `--captured`, `--exited`): the OB shows it,
3.212 reads it."""
from __future__ import annotations

import json

import pytest

from conftest import Campaign, cli_run, rows

PLAN = {1: {"buy": [("axis", "I1"), ("allied", "I1")]}}


@pytest.fixture
def at_end(tmp_path):
    """A campaign at 2.9 of the Initial Firefight; each side holds an I1 (I1-1 both: revision 2)."""
    c = Campaign(tmp_path / "c.plcg", plan=PLAN)
    c.advance(1, "2.9")
    yield c
    c.close()


def oob(path, side) -> dict:
    r = cli_run(path, "oob", side, "--json")
    assert r.code == 0, r.err
    return {u["unit"]: u for u in json.loads(r.out)}


def owed_redeployments(path) -> list[str]:
    r = cli_run(path, "status", "--json")
    return [p["command"] for p in json.loads(r.out)["pending"] if p["command"].startswith("plcg redeploy")]


def test_position_records_the_end_hex_and_3_212_reads_it(at_end):
    c = at_end
    r = cli_run(c.path, "position", "axis", "I1-1.1", "D4", "--concealed")  # next to the Allied-held D3
    assert r.code == 0, r.err
    axis, allied = oob(c.path, "axis"), oob(c.path, "allied")
    assert axis["I1-1.1"]["hex"] == "D4" and "concealed" in axis["I1-1.1"]["flags"]
    assert allied["I1-1.1"]["hex"] is None  # the Allies' own I1-1.1 is another unit
    c.run("end", turn=5, cvp_lost={"axis": 2, "allied": 3})
    c.advance(1, "3.2")
    c.run("option", option="A")
    # the squad that ended in the Allied MLR owes a 3.214 redeployment; units with no hex owe none
    assert owed_redeployments(c.path) == ["plcg redeploy axis I1-1.1 --to HEX"]


def test_end_position_is_the_same_record_and_is_checked_before_anything_is_written(at_end):
    c = at_end
    before = rows(c.path)
    for bad, words in ((["--position", "axis:I1-1.1"], "SIDE:UNIT=HEX"),
                       (["--position", "axis:I1-1.1=Z99"], "not a hex"),
                       (["--position", "axis:I9-9.9=D4"], "unknown axis unit")):
        r = cli_run(c.path, "end", "--turn", "5", "--cvp-lost", "axis=0", "--cvp-lost", "allied=0", *bad)
        assert r.code == 2 and words in r.err, (bad, r.err)
    assert rows(c.path) == before
    r = cli_run(c.path, "end", "--turn", "5", "--cvp-lost", "axis=0", "--cvp-lost", "allied=0",
                "--position", "axis:I1-1.2=E4", "--position", "allied:I1-1.2=E7")
    assert r.code == 0, r.err
    assert oob(c.path, "axis")["I1-1.2"]["hex"] == "E4" and oob(c.path, "allied")["I1-1.2"]["hex"] == "E7"
    r = cli_run(c.path, "audit")
    assert r.code == 0, r.out


def test_position_belongs_to_2_9(tmp_path):
    c = Campaign(tmp_path / "c.plcg", plan=PLAN)
    c.advance(1, "2.7")
    r = cli_run(c.path, "position", "axis", "I1-1.1", "D4")
    assert r.code == 3 and "2.9" in r.err
    c.close()


def test_end_records_what_happened_to_units_in_play(at_end):
    c = at_end
    r = cli_run(c.path, "end", "--turn", "5", "--cvp-lost", "axis=4", "--cvp-lost", "allied=2",
                "--reduced", "axis:I1-1.1", "--replaced", "axis:I1-1.2", "--captured", "allied:I1-1.1",
                "--exited", "allied:I1-1.2", "--hero", "axis:I1-1.L1")
    assert r.code == 0, r.err
    axis, allied = oob(c.path, "axis"), oob(c.path, "allied")
    assert (axis["I1-1.1"]["name"], axis["I1-1.1"]["kind"]) == ("2-4-7", "hs")  # German 4-6-7's HS (R34 table)
    assert axis["I1-1.2"]["name"] == "4-4-7"  # its ELR replacement (A19.13)
    assert "hero" in axis["I1-1.L1"]["flags"]
    assert allied["I1-1.1"]["status"] == "captured"
    assert "exited" in allied["I1-1.2"]["flags"] and allied["I1-1.2"]["status"] == "available"
    # 3.45 counts the captured unit among the firefight's losses
    assert ["allied", "I1-1.1"] in c.state().ff.lost
    assert cli_run(c.path, "audit").code == 0


def test_a_counter_the_table_lacks_is_asked_for(at_end):
    c = at_end
    before = rows(c.path)
    st = c.state()
    leader = next(u.id for u in st.units.values() if u.side == "allied" and u.kind == "leader")
    r = cli_run(c.path, "end", "--turn", "5", "--cvp-lost", "axis=0", "--cvp-lost", "allied=0",
                "--replaced", "axis:I1-1.4")  # the LMG
    assert r.code == 3 and "A19.13" in r.err
    assert rows(c.path) == before
    r = cli_run(c.path, "end", "--turn", "5", "--cvp-lost", "axis=0", "--cvp-lost", "allied=0",
                "--reduced", f"allied:{leader}", "--replaced", "allied:I1-1.3=5-5-7")
    assert r.code == 0, r.err
    allied = oob(c.path, "allied")
    assert "wounded" in allied[leader]["flags"] and allied["I1-1.3"]["name"] == "5-5-7"


def test_redeployment_results_reach_the_unit_and_outside_the_mlr_hip_is_lost(at_end, tmp_path):
    """Revision 2: 3.21 Reduced / Replaced change the counter (table, R34); 3.214 HIP and concealment lost."""
    c = at_end
    r = cli_run(c.path, "end", "--turn", "5", "--cvp-lost", "axis=1", "--cvp-lost", "allied=1",
                "--position", "axis:I1-1.1=D4", "--position", "axis:I1-1.2=D4")
    assert r.code == 0, r.err
    assert cli_run(c.path, "position", "axis", "I1-1.1", "D4", "--hip", "--concealed").code == 0  # until next
    assert {"hip", "concealed"} <= set(oob(c.path, "axis")["I1-1.1"]["flags"])
    c.advance(1, "3.2")
    c.run("option", option="A")
    st = c.state()
    st_u = st.unit("I1-1.1", "axis")
    assert st_u.hex == "D4"
    # D4 is in the Allied MLR: +2 (3.214); 4+5 = 9 + 2 = 11: Redeploys, Reduced
    r = cli_run(c.path, "redeploy", "axis", "I1-1.1", "--to", "M5", "--dice", "4,5")
    assert r.code == 0, r.err
    assert "now a 2-4-7" in r.out
    # 3+5 = 8 + 2 = 10: Redeploys, Replaced: the German 4-6-7 is replaced by a 4-4-7 (A19.13)
    r = cli_run(c.path, "redeploy", "axis", "I1-1.2", "--to", "M5", "--dice", "3,5")
    assert r.code == 0, r.err
    axis = oob(c.path, "axis")
    assert (axis["I1-1.1"]["name"], axis["I1-1.1"]["kind"], axis["I1-1.1"]["hex"]) == ("2-4-7", "hs", "M5")
    assert not {"hip", "concealed"} & set(axis["I1-1.1"]["flags"])  # lost in the enemy MLR (3.214)
    assert (axis["I1-1.2"]["name"], axis["I1-1.2"]["kind"]) == ("4-4-7", "squad")
    assert cli_run(c.path, "audit").code == 0


def test_revision_1_redeployment_left_the_counter_as_it_was(tmp_path):
    db = tmp_path / "r1.plcg"
    assert cli_run(db, "new", "--card", "sample", "--rules-revision", "1").code == 0
    c = Campaign.attach(db, plan=PLAN)
    c.advance(1, "2.6")
    assert cli_run(db, "setup", "axis", "I1-1.1", "M5").code == 0
    c.advance(1, "2.9")
    c.run("end", turn=5, cvp_lost={"axis": 1, "allied": 1}, control=["allied=M5"])
    c.advance(1, "3.2")
    c.run("option", option="A")
    owed = owed_redeployments(db)
    assert owed and owed[0].startswith("plcg redeploy axis I1-1.1")
    r = cli_run(db, "redeploy", "axis", "I1-1.1", "--to", "N7", "--dice", "4,5")
    assert r.code == 0, r.err
    assert oob(db, "axis")["I1-1.1"]["name"] == "4-6-7"
    c.close()


def test_end_refuses_one_hex_for_both_sides(at_end):
    c = at_end
    before = rows(c.path)
    r = cli_run(c.path, "end", "--turn", "5", "--cvp-lost", "axis=0", "--cvp-lost", "allied=0",
                "--control", "axis=I5", "--control", "allied=I5")
    assert r.code == 2 and "both sides" in r.err
    assert rows(c.path) == before


def test_a_unit_left_isolated_has_ammunition_shortage_for_the_next_firefight_only(at_end):
    c = at_end
    st = c.state()
    mc = st.map_control()
    spot = next(h for h in sorted(mc.hexes, key=st.grid().index) if mc.situation(h, "axis") == "uncontrolled")
    assert cli_run(c.path, "end", "--turn", "5", "--cvp-lost", "axis=1", "--cvp-lost", "allied=1",
                   "--position", f"axis:I1-1.1={spot}").code == 0
    c.advance(1, "3.2")
    c.run("option", option="A")
    to = min((h for h, hc in mc.hexes.items() if hc.cthc == "axis"), key=lambda h: st.grid().distance(spot, h))
    r = cli_run(c.path, "redeploy", "axis", "I1-1.1", "--to", to, "--dice", "6,6")  # remains: Isolated (3.216)
    assert r.code == 0, r.err
    flags = oob(c.path, "axis")["I1-1.1"]["flags"]
    assert "isolated" in flags and "Ammunition Shortage" in flags
    c.plan[2] = {"attack": ["axis"]}
    c.advance(2, "2.9")
    c.run("end", turn=5, cvp_lost={"axis": 0, "allied": 0})
    assert "Ammunition Shortage" not in oob(c.path, "axis")["I1-1.1"]["flags"]


def test_a_unit_exits_only_along_a_friendly_map_edge(at_end):
    """CG8: off the map only from a hex along a Friendly Map Edge (the Allies' is the west edge, column A
    on the sample card), judged on the unit's end position; nothing written when refused."""
    c = at_end
    before = rows(c.path)
    r = cli_run(c.path, "end", "--turn", "5", "--cvp-lost", "axis=0", "--cvp-lost", "allied=0",
                "--position", "allied:I1-1.2=E7", "--exited", "allied:I1-1.2")
    assert r.code == 3 and "CG8" in r.err and "E7" in r.err, r.err
    assert rows(c.path) == before
    r = cli_run(c.path, "end", "--turn", "5", "--cvp-lost", "axis=0", "--cvp-lost", "allied=0",
                "--position", "allied:I1-1.2=A5", "--exited", "allied:I1-1.2")
    assert r.code == 0, r.err
    assert "exited" in oob(c.path, "allied")["I1-1.2"]["flags"]
