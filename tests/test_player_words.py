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

    game = Letters(tmp_path)
    game.play((2, "2.1"))
    for side in ("axis", "allied"):
        r = game.cli(side, "log")
        lines = [x for x in r.out.splitlines() if "Redeployment Option" in x]
        assert len(lines) == 1 and lines[0].endswith("Allied chose Redeployment Option A for the CG, both sides (3.2)"), lines


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
    assert r.out.strip() == f"wrote the After Action Report (Markdown) to {out} ({size} bytes)" or \
        re.fullmatch(rf"wrote the After Action Report \(Markdown\) to {re.escape(str(out))} \({round(size / 1024)} KB\)",
                     r.out.strip())


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
