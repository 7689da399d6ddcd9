"""Rules revision 2, 3.43-3.45 with the counter table (ruling R34): hardening changes the counter (`--to`
only where the table lacks it), an Elite MMC turns Fanatic, 3.43 needs a Hero or a heroic leader."""
from __future__ import annotations

import json

from conftest import Campaign, cli_run, rows

PLAN = {1: {"buy": [("axis", "I1"), ("allied", "I1")], "dice": {"leader": "2,2", "promote": "1"},
            "end": {"cvp_lost": {"axis": 0, "allied": 30}}}}


def oob(path, side) -> dict:
    return {u["unit"]: u for u in json.loads(cli_run(path, "oob", side, "--json").out)}


def at_3_43(tmp_path, hero=(), revision=None):
    db = tmp_path / "c.plcg"
    extra = ["--rules-revision", str(revision)] if revision else []
    assert cli_run(db, "new", "--card", "sample", "--seed", "h", *extra).code == 0
    c = Campaign.attach(db, plan=PLAN)
    c.advance(1, "2.9")
    c.run("end", turn=5, cvp_lost={"axis": 0, "allied": 30}, hero=list(hero))
    c.advance(1, "3.43")
    return c


def test_3_43_needs_a_hero_or_a_heroic_leader(tmp_path):
    c = at_3_43(tmp_path)
    before = rows(c.path)
    for unit in ("I1-1.1", "I1-1.L1"):
        r = cli_run(c.path, "harden", "axis", unit)
        assert r.code == 3 and "3.43" in r.err, r.err
    assert rows(c.path) == before
    c.close()


def test_3_43_a_heroic_leader_hardens_by_the_table_and_a_hero_combines_once(tmp_path):
    c = at_3_43(tmp_path, hero=["axis:I1-1.L1", "axis:I1-1.2"])
    r = cli_run(c.path, "harden", "axis", "I1-1.L1")
    assert r.code == 0, r.err
    r = cli_run(c.path, "harden", "axis", "I1-1.1")  # combines with the Hero of I1-1.2
    assert r.code == 0, r.err
    axis = oob(c.path, "axis")
    assert axis["I1-1.L1"]["name"] == "9-2" and "hero" not in axis["I1-1.L1"]["flags"]
    assert axis["I1-1.1"]["name"] == "4-6-8" and "hero" not in axis["I1-1.2"]["flags"]
    r = cli_run(c.path, "harden", "axis", "I1-1.3")  # no Hero left
    assert r.code == 3 and "3.43" in r.err
    assert cli_run(c.path, "audit").code == 0
    c.close()


def test_3_44_by_the_table_to_only_where_it_lacks_and_elite_turns_fanatic(tmp_path):
    c = at_3_43(tmp_path)
    c.advance(1, "3.44")
    assert cli_run(c.path, "promote", "axis", "--dice", "1").code == 0
    assert cli_run(c.path, "promote", "allied", "--dice", "1").code == 0
    r = cli_run(c.path, "harden", "axis", "I1-1.1", "--to", "5-4-8")
    assert r.code == 3 and "4-6-8" in r.err and "R34" in r.err  # the table knows: --to may not differ
    assert cli_run(c.path, "harden", "axis", "I1-1.1").code == 0
    assert oob(c.path, "axis")["I1-1.1"]["name"] == "4-6-8"
    st = c.state()
    allied_mmc = next(u for u in st.units.values() if u.side == "allied" and u.kind == "squad")
    # American 6-6-7 of a 1st Line RG: the card's class wins over the table's Elite (rules revision 3), so it
    # does not turn Fanatic; the table has no higher counter for it: asked for (ruling R34)
    r = cli_run(c.path, "harden", "allied", allied_mmc.id)
    assert r.code == 2 and "--to" in r.err, r.err
    assert cli_run(c.path, "harden", "allied", allied_mmc.id, "--to", "7-4-7").code == 0
    row = oob(c.path, "allied")[allied_mmc.id]
    assert row["name"] == "7-4-7" and "fanatic" not in row["flags"]
    c.close()


def test_revision_1_hardening_kept_the_counter_and_needed_no_hero(tmp_path):
    c = at_3_43(tmp_path, revision=1)
    assert cli_run(c.path, "harden", "axis", "I1-1.1").code == 0
    assert oob(c.path, "axis")["I1-1.1"]["name"] == "4-6-7"
    c.close()


def test_the_aar_shows_every_changed_counter(tmp_path):
    c = at_3_43(tmp_path, hero=["axis:I1-1.L1"])
    assert cli_run(c.path, "harden", "axis", "I1-1.L1").code == 0
    c.close()
    db = tmp_path / "c.plcg"
    r = cli_run(db, "export", "--format", "md")
    assert r.code == 0, r.err
    line = next(x for x in r.out.splitlines() if "Counters changed:" in x)
    assert "I1-1.L1 Hero (3.43)" in line and "I1-1.L1 now 9-2 (Battle Hardening, 3.43)" in line
