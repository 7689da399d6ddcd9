"""Issue 14, "done means": a campaign on the sample card with positions, patrols, redeployments and
hardening replays to the same digest, audits clean, and its AAR shows every changed counter."""
from __future__ import annotations

import json

from conftest import Campaign, cli_run

PLAN = {1: {"buy": [("axis", "I1", "on-map"), ("allied", "I1", "on-map")], "patrols": [("axis", 1)], "dice": {"leader": "3,4"}},
        2: {"attack": ["allied"]}}


def test_a_campaign_with_positions_patrols_redeployments_and_hardening(tmp_path):
    c = Campaign(tmp_path / "c.plcg", seed="whole", plan=PLAN)
    c.advance(1, "2.6")
    assert cli_run(c.path, "setup", "axis", "I1-1.1", "M5").code == 0
    assert cli_run(c.path, "setup", "allied", "I1-1.1", "D3").code == 0
    c.advance(1, "2.7")
    r = cli_run(c.path, "patrol", "axis", "--type", "recon", "--units", "I1-1.2", "--leader", "I1-1.L1", "--hex", "I5",
                "--dice", "4,4")
    assert r.code == 0, r.err
    assert c.state().reph.patrols_to_return["axis"] == {1}  # 8 - 1 recon + 2 day = 9: compromised, it returns
    assert cli_run(c.path, "patrol-return", "axis", "1", "--dice", "1,1").code == 0
    c.advance(1, "2.9")
    r = cli_run(c.path, "end", "--turn", "5", "--cvp-lost", "axis=2", "--cvp-lost", "allied=3",
                "--position", "axis:I1-1.1=D4", "--hero", "axis:I1-1.L1", "--reduced", "allied:I1-1.2")
    assert r.code == 0, r.err
    c.advance(1, "3.2")
    c.run("option", option="A")
    from cg.rules import nearest_cthc

    st = c.state()
    to = min(nearest_cthc(st, st.unit("I1-1.1", "axis")), key=st.grid().index)
    r = cli_run(c.path, "redeploy", "axis", "I1-1.1", "--to", to, "--dice", "4,5")  # 11: Redeploys, Reduced
    assert r.code == 0 and "now a 2-4-7" in r.out, r.out + r.err
    c.advance(1, "3.43")
    assert cli_run(c.path, "harden", "axis", "I1-1.L1").code == 0
    c.advance(2, "2.3")
    led = c.led
    from projections.digest import digest

    assert digest(led.state(use_snapshot=False)) == digest(led.state())
    c.close()
    one = json.loads(cli_run(c.path, "replay", "--json").out)["digest"]
    assert json.loads(cli_run(c.path, "replay", "--json").out)["digest"] == one
    r = cli_run(c.path, "audit", "--json")
    assert r.code == 0 and json.loads(r.out)["findings"] == []
    md = cli_run(c.path, "export", "--format", "md").out
    line = next(x for x in md.splitlines() if "Counters changed:" in x)
    from cg import counters

    hs = counters.half_squad("american", "6-6-7")  # the counter table's (ruling R34)
    for words in (f"Allied I1-1.2 now {hs} (Casualty Reduction, 2.9)", "Axis I1-1.L1 Hero (3.43)",
                  "Axis I1-1.1 now 2-4-7 (Redeployment, 3.21)", "Axis I1-1.L1 now 8-1 (Battle Hardening, 3.43)"):
        assert words in line, (words, line)
    oob = {u["unit"]: u for u in json.loads(cli_run(c.path, "oob", "axis", "--json").out)}
    assert (oob["I1-1.1"]["name"], oob["I1-1.1"]["hex"]) == ("2-4-7", to) and oob["I1-1.L1"]["name"] == "8-1"
