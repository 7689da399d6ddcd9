"""3.45: "Created Leaders must be placed with non-Isolated MMC on map or enter as reinforcements":
`plcg leader SIDE --generated --hex HEX` places one (rules revision 2, switch generated_leader_placed),
`oob` shows it there; a side with no recorded hexes is taken at its word (ruling R33)."""
from __future__ import annotations

import json

from conftest import Campaign, cli_run, rows

PLAN = {1: {"buy": [("allied", "I1"), ("allied", "I2")]}}


def oob(path, side) -> dict:
    r = cli_run(path, "oob", side, "--json")
    assert r.code == 0, r.err
    return {u["unit"]: u for u in json.loads(r.out)}


def at_3_45(tmp_path, name="c.plcg", revision=None, positions=True, gun=False):
    """Allied lost both leaders of I1 and I2 (3.45: may generate one); with positions, squad A stands in
    the Allied MLR and squad B, left Isolated by a failed 3.216 redeployment, in Uncontrolled Terrain."""
    db = tmp_path / name
    extra = ["--rules-revision", str(revision)] if revision else []
    assert cli_run(db, "new", "--card", "sample", "--seed", "gl", *extra).code == 0
    plan = {ff: dict(p) for ff, p in PLAN.items()}
    if gun:  # and a 57mm AT Gun with its crew
        plan[1]["buy"] = [*plan[1]["buy"], ("allied", "G1")]
    c = Campaign.attach(db, plan=plan)
    c.advance(1, "2.9")
    st = c.state()
    mc, grid = st.map_control(), st.grid()
    leaders = sorted(u.id for u in st.side_units("allied") if u.kind == "leader")
    a, b = sorted(u.id for u in st.side_units("allied") if u.kind == "squad")[:2]
    home = next(h for h in grid.hexes() if mc.situation(h, "allied") == "friendly_mlr" and not mc.hexes[h].strategic)
    out = next(h for h in grid.hexes()  # far enough from the MLR that 6,6 leaves the squad there
               if mc.situation(h, "allied") == "uncontrolled" and not mc.inside_or_adjacent_mlr(h, "allied"))
    end = ["end", "--turn", "5", "--cvp-lost", "axis=20", "--cvp-lost", "allied=5",
           *[a for x in leaders for a in ("--lost", f"allied:{x}")]]
    if positions:
        end += ["--position", f"allied:{a}={home}", "--position", f"allied:{b}={out}"]
    if gun:  # the crew alone in another hex of the Allied MLR
        crew = next(u.id for u in st.side_units("allied") if u.kind == "crew")
        alone = next(h for h in grid.hexes() if h != home and mc.situation(h, "allied") == "friendly_mlr"
                     and not mc.hexes[h].strategic)
        end += ["--position", f"allied:{crew}={alone}"]
    assert cli_run(db, *end).code == 0
    if positions:
        c.advance(1, "3.2")
        c.run("option", option="A")
        to = min((h for h, hc in mc.hexes.items() if hc.cthc == "allied"), key=lambda h: grid.distance(out, h))
        assert cli_run(db, "redeploy", "allied", b, "--to", to, "--dice", "6,6").code == 0  # remains: Isolated
        assert oob(db, "allied")[b]["flags"][:1] == ["isolated"]
    c.advance(1, "3.45")
    assert cli_run(db, "leaders", "allied", "--dice", "1").code == 0
    assert c.state().reph.may_generate["allied"] == 1
    return c, home, out


def generate(c, hx):
    return cli_run(c.path, "leader", "allied", "--generated", "--hex", hx, "--dice", "3,4")


def test_a_generated_leader_is_placed_with_a_non_isolated_mmc_and_oob_shows_its_hex(tmp_path):
    c, home, out = at_3_45(tmp_path)
    st = c.state()
    empty = next(h for h in st.grid().hexes() if h not in (home, out)
                 and not any(u.hex == h for u in st.side_units("allied")))
    before = rows(c.path)
    for hx, why in ((empty, "no allied MMC"), (out, "Isolated")):
        r = generate(c, hx)
        assert r.code == 3 and "[rule 3.45]" in r.err and why in r.err, r.err
        assert rows(c.path) == before
    r = generate(c, home)
    assert r.code == 0, r.err
    assert f"placed in {home}" in r.out
    [new] = [u for u in oob(c.path, "allied").values() if u["unit"].startswith("L1.")]
    assert new["kind"] == "leader" and new["hex"] == home and new["where"] == f"on map {home}"
    c.close()


def test_without_hex_the_leader_enters_as_a_reinforcement(tmp_path):
    c, _home, _out = at_3_45(tmp_path)
    r = cli_run(c.path, "leader", "allied", "--generated", "--dice", "3,4")
    assert r.code == 0, r.err
    [new] = [u for u in oob(c.path, "allied").values() if u["unit"].startswith("L1.")]
    assert new["hex"] is None and "off map" in new["where"]
    assert "hex" not in c.last("leader_rolled")  # stored as before --hex existed
    c.close()


def test_a_side_with_no_recorded_hexes_is_taken_at_its_word(tmp_path):
    c, _home, out = at_3_45(tmp_path, positions=False)
    r = generate(c, out)  # ruling R33: the ledger cannot tell where the MMC stand
    assert r.code == 0, r.err
    [new] = [u for u in oob(c.path, "allied").values() if u["unit"].startswith("L1.")]
    assert new["hex"] == out
    c.close()


def test_revision_1_records_the_hex_as_typed(tmp_path):
    c, _home, out = at_3_45(tmp_path, revision=1)
    r = generate(c, out)  # revision 1: no 3.45 placement check, the Isolated hex is taken as typed
    assert r.code == 0, r.err
    [new] = [u for u in oob(c.path, "allied").values() if u["unit"].startswith("L1.")]
    assert new["hex"] == out
    assert c.last("leader_rolled")["hex"] == out
    c.close()


def test_hex_is_for_a_generated_leader_only(tmp_path):
    db = tmp_path / "h.plcg"
    assert cli_run(db, "new", "--card", "sample").code == 0
    before = rows(db)
    r = cli_run(db, "leader", "allied", "I1", "--hex", "B5")
    assert r.code == 2 and "--generated" in r.err and r.err.count("\n") == 1
    assert rows(db) == before


def test_a_crew_is_an_mmc_a_generated_leader_may_be_placed_with(tmp_path):
    # ASL A1.1: squads, half-squads and crews are MMC (3.45: "placed with non-Isolated MMC on map")
    c, home, out = at_3_45(tmp_path, gun=True)
    st = c.state()
    crew = next(u for u in st.side_units("allied") if u.kind == "crew")
    assert not any(u.hex == crew.hex for u in st.side_units("allied") if u.kind in ("squad", "hs"))
    r = generate(c, crew.hex)
    assert r.code == 0, r.err
    placed = [u for u in oob(c.path, "allied").values() if u.get("hex") == crew.hex and u["unit"] != crew.id]
    assert placed, oob(c.path, "allied")
