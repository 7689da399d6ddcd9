"""Issue 38 item 5: the words a player reads, mended. Each through the command line: the 2.361 nationality
drm named by its rule and reason (not "legacy"), an unseeded campaign's first event, the Redeployment
Option's side, articles ("an allied CTHC"), `export -o`'s line, the demo's firefight headers."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from conftest import Campaign, cli_run

FIXTURES = Path(__file__).parent / "fixtures"


def _log(path) -> str:
    r = cli_run(path, "log")
    assert r.code == 0, r.err
    return r.out


def test_the_2_361_nationality_drm_is_said_by_its_rule_not_as_legacy(campaign, variant):
    c = campaign(card=variant(campaign={"legacy_leader_drm": True}, allied={"nationality": "russian"}))
    c.advance(1, "2.3")
    c.run("buy", side="axis", rg="I1")
    c.run("buy", side="allied", rg="I1")
    c.run("leader", side="axis", rg="I1", dice="4,3")
    c.run("leader", side="allied", rg="I1", dice="4,4")
    year = c.state().ff.date[:4]
    c.close()
    text = _log(c.path)
    assert "legacy" not in text
    assert f"-1 for a German side in {year} (2.361 nationality drm: pre-1945 German)" in text
    assert f"+1 for a Russian side in {year} (2.361 nationality drm: any other nationality)" in text


def test_an_unseeded_campaign_says_where_its_dice_come_from(workdir):
    path = workdir / "os.plcg"
    assert cli_run(path, "new", "--card", "sample").code == 0
    first = _log(path).splitlines()[0]
    assert "seed ''" not in first
    assert first.endswith("no seed: the ledger's dice come from the operating system's random source,"
                          " unforeseeable (ruling R31)")
    seeded = workdir / "seeded.plcg"
    assert cli_run(seeded, "new", "--card", "sample", "--seed", "abc").code == 0
    assert _log(seeded).splitlines()[0].endswith("seed 'abc'")


def test_the_redeployment_option_names_who_chose_it(tmp_path):
    from helpers.pace import Letters

    from cg.app.ledger import Ledger

    game = Letters(tmp_path)
    game.play((2, "2.1"))
    led = Ledger(game.db["axis"])
    try:  # who gave the `option` command, as the log stores it
        (chooser,) = [s.command["by"] for s in led.store.read() if s.type == "redeployment_option"]
    finally:
        led.close()
    for side in ("axis", "allied"):
        r = game.cli(side, "log")
        lines = [x for x in r.out.splitlines() if "Redeployment Option" in x]
        assert len(lines) == 1, lines
        assert lines[0].endswith(f"{chooser.title()} chose Redeployment Option A for the CG, both sides (3.2)"), lines


def test_the_redeployment_option_at_one_table_is_the_players(campaign):
    c = campaign()
    c.advance(1, "3.2")
    c.run("option", option="A")
    c.close()
    lines = [x for x in _log(c.path).splitlines() if "Redeployment Option" in x]
    assert [x.split("3.2  ", 1)[1] for x in lines] == ["the players chose Redeployment Option A for the CG, both sides (3.2)"]


def test_no_a_before_a_vowel_in_a_refusal(campaign):
    """3.52: "is not in a allied CTHC" was the refusal of a clearance outside the side's control."""
    c = campaign()
    c.advance(1, "3.52")
    mc = c.state().map_control()
    axis_only = next(h for h, x in sorted(mc.hexes.items()) if x.cthc == "axis" and "allied" not in x.mlr)
    c.close()
    r = cli_run(c.path, "clear", "allied", axis_only, "rubble", "--dice", "3")
    assert r.code == 3, r.err
    assert f"{axis_only} is not in an allied CTHC or MLR" in r.err


def test_export_to_a_file_says_what_it_wrote(workdir):
    path = workdir / "c.plcg"
    Campaign(path).close()
    out = workdir / "aar.md"
    r = cli_run(path, "export", "--format", "md", "-o", str(out))
    assert r.code == 0, r.err
    size = out.stat().st_size
    assert 1024 <= size < 1024 * 1024  # a fresh campaign's report: said in KB, rounded
    assert r.out.strip() == f"wrote the After Action Report (Markdown) to {out} ({round(size / 1024)} KB)"



def test_the_demo_heads_each_firefight_once(workdir):
    r = cli_run(workdir / "demo.plcg", "demo")
    assert r.code == 0, r.err
    heads = [x for x in r.out.splitlines() if x.startswith("--- firefight")]
    assert [int(x.split()[2]) for x in heads] == [1, 2, 3, 4, 5, 6]


def _leaders(path, side: str) -> list[str]:
    r = cli_run(path, "oob", side, "--json")
    assert r.code == 0, r.err
    return [u["unit"] for u in json.loads(r.out) if u["kind"] == "leader"]


def test_a_new_campaign_numbers_leaders_within_their_rg(campaign):
    c = campaign()
    c.advance(1, "2.3")
    for side in ("axis", "allied"):
        c.run("buy", side=side, rg="I1")
        c.run("buy", side=side, rg="I1")
    for side, pid in (("axis", "I1-1"), ("axis", "I1-2"), ("allied", "I1-1"), ("allied", "I1-2")):
        c.run("leader", side=side, rg=pid, dice="4,3")  # 7: an 8-0 on the general column, a leader each
    c.close()
    assert _leaders(c.path, "axis") == ["I1-1.L1", "I1-2.L1"]
    assert _leaders(c.path, "allied") == ["I1-1.L1", "I1-2.L1"]
    assert "Axis leader for I1-2" in _log(c.path)


def test_an_old_campaign_keeps_numbering_its_leaders_across_the_side(workdir):
    """campaign-v0.1 (plcg 0.1.0) numbered across both sides: I1-2.L2, I2-1.L3, I3-2.L5. Its ids stay, and
    a leader it rolls now goes on from them (its replay and audit decide as when it was written)."""
    path = workdir / "old.plcg"
    shutil.copy(FIXTURES / "campaign-v0.1.plcg", path)
    before = _leaders(path, "allied")
    assert before == ["I1-2.L2", "I2-1.L3", "I3-2.L5"]
    r = cli_run(path, "buy", "allied", "I1")
    assert r.code == 0, r.err
    pid = re.search(r"Allied bought I1 as (\S+) ", r.out).group(1)
    r = cli_run(path, "leader", "allied", pid, "--dice", "4,3")
    assert r.code == 0, r.err
    n = max(int(x.rsplit(".L", 1)[1]) for x in before + _leaders(path, "axis")) + 1
    assert _leaders(path, "allied") == before + [f"{pid}.L{n}"]
    assert cli_run(path, "audit").code == 0


# ---- `end` checks the CVP lost against the units it lists (A26.2 as ruling R39 values them) --------------

def _at_2_9(path, conventions=1):
    from cg.app.ledger import Ledger

    Ledger.create(str(path), "sample", "cvp", None, conventions=conventions).close()
    c = Campaign.attach(path, plan={1: {"buy": [("axis", "I1", "on-map"), ("axis", "A1", "on-map"),
                                                ("allied", "I1", "on-map")]}})
    c.advance(1, "2.9")
    st = c.state()
    units = {side: {u.kind: u for u in reversed(list(st.side_units(side)))} for side in ("axis", "allied")}
    c.close()
    return units


def test_end_refuses_fewer_cvp_than_the_units_it_lists_lost(workdir):
    path = workdir / "c.plcg"
    u = _at_2_9(path)
    squad, leader = u["axis"]["squad"], u["axis"]["leader"]
    lead = 1 + int(leader.name[-1]) if "-" in leader.name else 1  # a leader 1 plus its leadership (8-1: 2)
    before = rows_of(path)
    r = cli_run(path, "end", "--turn", "5", "--cvp-lost", "axis=2", "--cvp-lost", "allied=0",
                "--lost", f"axis:{squad.id}", "--lost", f"axis:{leader.id}")
    assert r.code == 3, r.out
    want = 2 + lead
    assert f"--cvp-lost axis=2 is less than the {want} CVP of the axis units it lists lost" in r.err
    assert f"{squad.id} {squad.name}: 2" in r.err and f"{leader.id} {leader.name}: {lead}" in r.err
    assert "[rule A26]" in r.err and "(step 2.9)" in r.err
    assert rows_of(path) == before  # nothing written
    reduced = u["allied"]["squad"]  # a squad reduced to its HS counts 1
    r = cli_run(path, "end", "--turn", "5", "--cvp-lost", f"axis={want}", "--cvp-lost", "allied=0",
                "--lost", f"axis:{squad.id}", "--lost", f"axis:{leader.id}", "--reduced", f"allied:{reduced.id}")
    assert r.code == 3 and "--cvp-lost allied=0 is less than the 1 CVP of the allied units" in r.err, r.err


def test_end_says_how_many_cvp_no_listed_unit_accounts_for(workdir):
    path = workdir / "c.plcg"
    u = _at_2_9(path)
    squad, gun = u["axis"]["squad"], u["axis"]["vehicle"]
    r = cli_run(path, "end", "--turn", "5", "--cvp-lost", "axis=8", "--cvp-lost", "allied=0",
                "--lost", f"axis:{squad.id}", "--lost", f"axis:{gun.id}")
    assert r.code == 0, r.err
    assert (f"Axis lost 8 CVP: the units listed account for 2 ({squad.id} {squad.name}: 2); 6 CVP no listed unit"
            f" accounts for; the ledger cannot price {gun.id} {gun.name} (A26.2 values vehicles and Guns by type,"
            " ruling R58)") in r.out
    assert "Allied lost" not in r.out  # nothing to say where the figures agree


def test_a_campaign_started_before_keeps_its_end_as_it_was(workdir):
    """No `conventions` in its first event (a campaign of an earlier release): its `end` is decided as then,
    so its log audits as it did."""
    path = workdir / "old.plcg"
    u = _at_2_9(path, conventions=None)
    r = cli_run(path, "end", "--turn", "5", "--cvp-lost", "axis=0", "--cvp-lost", "allied=0",
                "--lost", f"axis:{u['axis']['squad'].id}")
    assert r.code == 0, r.err
    assert "CVP no listed unit" not in r.out


def rows_of(path) -> int:
    import sqlite3

    db = sqlite3.connect(str(path))
    try:
        return db.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    finally:
        db.close()
