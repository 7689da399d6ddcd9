"""`status` names what a step accepts beside what it owes (`options`, cli-contract.md), and `next` out of
2.3 says what CP each side carries over (ruling R3)."""
from __future__ import annotations

import json

import cli
from cg import tables
from cg.app.demo import play
from cg.options import options
from conftest import Campaign, cli_run, load_sample


def _status(path) -> dict:
    r = cli_run(path, "status", "--json")
    assert r.code == 0, r.err
    return json.loads(r.out)


def test_at_2_3_options_list_each_rg_with_its_cost_after_2_34_patrols_and_no_attack_at_the_initial(workdir):
    c = Campaign(workdir / "o.plcg")
    c.advance(1, "2.3")
    c.close()
    d = _status(c.path)
    card = load_sample()
    by_cmd = {o["command"]: o for o in d["options"]}
    for side in ("axis", "allied"):
        cp = d["sides"][side]["cp"]
        for rg in card["sides"][side]["rg"]:
            costs = {m: tables.setup_cost(rg["kind"], rg["id"], m, rg["cost"])[0] for m in tables.SETUP_MODES}
            if not tables.may_reserve(rg["id"]):
                costs.pop("reserve")
            costs = {m: c for m, c in costs.items() if c <= cp}
            item = by_cmd[f"plcg buy {side} {rg['id']}"]
            assert item["rule"] == "2.3" and item["side"] == side and item["rg"] == rg["id"]
            assert item["cost"] == costs  # 2.34: entering never changes the cost; on map and In Reserve do
            for mode, cost in costs.items():
                assert f"{cost} CP {mode}" in item["what"]
        assert (f"plcg patrols {side} N" in by_cmd) == (card["campaign"].get("patrols_per_reph", 1) != 0)
        assert f"plcg attack {side}" not in by_cmd  # ruling R2: the card assigns the Initial ATTACKER
    r = cli_run(c.path, "status")
    assert "you may also:" in r.out and "plcg buy axis I1 " in r.out


def test_an_rg_bought_up_to_its_max_or_too_dear_leaves_the_options(workdir):
    c = Campaign(workdir / "o.plcg")
    c.advance(1, "2.3")
    c.run("buy", side="axis", rg="I2", mode="entry")  # max 1
    st = c.state()
    cmds = [o["command"] for o in options(st)]
    assert not any(x.startswith("plcg buy axis I2") for x in cmds)
    assert any(x.startswith("plcg buy allied I2") for x in cmds)
    cp = st.sides["axis"].cp  # 16 - 7 = 9: the StuG Platoon (8 entering, 10 on map) still fits entering
    assert cp == 9
    [stug] = [o for o in options(st) if o["command"] == "plcg buy axis A1"]
    assert stug["cost"] == {"entry": 8, "reserve": 7}  # 10 on map is beyond the 9 CP left
    c.run("buy", side="axis", rg="A1", mode="entry")
    st = c.state()
    assert st.sides["axis"].cp == 1
    assert not any(o["command"].startswith("plcg buy axis") for o in options(st))  # nothing costs 1 CP
    c.close()


def test_the_attack_option_is_offered_after_the_initial_firefight_and_next_says_the_cp_carried_over(workdir):
    c = Campaign(workdir / "o.plcg", plan={2: {"attack": []}})
    c.advance(2, "2.3")
    st = c.state()
    c.close()
    d = _status(c.path)
    by_cmd = {o["command"]: o for o in d["options"]}
    for side in ("axis", "allied"):
        cost = st.card.sides[side].attack_cost
        assert by_cmd[f"plcg attack {side}"]["what"] == f"{side}: buy the Attack Option for {cost} CP (ruling R3)"
    r = cli_run(c.path, "next")
    assert r.code == 0, r.err
    line = [x for x in r.out.splitlines() if "carried over" in x]
    assert line == [f"[{st.seq + 1}] carried over, unspent (ruling R3): axis {st.sides['axis'].cp} CP, "
                    f"allied {st.sides['allied'].cp} CP"]


# the steps that accept an optional command (setup, redeploy, end/rubble/flame, casualties, harden, repair;
# 3.52's clear where there is something to clear, below)
OPTIONAL_AT = {"2.3", "2.5", "2.6", "2.9", "3.1", "3.2", "3.3", "3.43", "3.44", "3.45", "3.46"}


def test_status_json_carries_options_at_every_step_that_accepts_an_optional_command(tmp_path):
    """Play the whole demo; at every step it stands at, `options` is a list, and not empty where the step
    accepts an optional command."""
    seen: dict[str, int] = {}

    def around(led, cmd, run):
        st = led.state()
        opts = options(st)
        assert all({"command", "rule", "what"} <= set(o) for o in opts)
        if st.step in OPTIONAL_AT:
            assert opts, (st.firefight, st.step)
        seen[st.step] = seen.get(st.step, 0) + 1
        return run(cmd)

    play(str(tmp_path / "d.plcg"), echo=lambda _l: None, around=around)
    assert OPTIONAL_AT <= set(seen)
    d = _status(str(tmp_path / "d.plcg"))
    assert d["ended"] and d["options"] == []


def test_at_3_52_each_item_a_side_may_clear_is_offered_once_and_the_ledger_takes_it(workdir):
    plan = {1: {"end": {"cvp_lost": {"axis": 3, "allied": 3}, "terrain": ["L5=wire", "F5=wire"]}}}
    c = Campaign(workdir / "o.plcg", plan=plan)
    c.advance(1, "3.52")
    opts = [o for o in options(c.state()) if o["command"].startswith("plcg clear")]
    # each wire is offered to the side whose CTHC or MLR holds it (L5: next to the Axis church, L4)
    mc = c.state().map_control()
    want = sorted(f"plcg clear {side} {h} wire" for h in ("L5", "F5") for side in ("axis", "allied")
                  if mc.hexes[h].cthc == side or side in mc.hexes[h].mlr)
    assert sorted(o["command"] for o in opts) == want and "plcg clear axis L5 wire" in want
    _plcg, name, side, hx, item = opts[0]["command"].split()
    [ev] = c.run(name, side=side, hex=hx, item=item, dice="6")
    assert ev.type == "clearance_rolled"
    assert opts[0]["command"] not in [o["command"] for o in options(c.state())]  # one attempt per RePh
    c.close()


def test_at_2_9_position_is_offered_only_where_the_command_exists_and_end_until_it_is_recorded(workdir):
    c = Campaign(workdir / "o.plcg")
    c.advance(1, "2.9")
    st = c.state()
    with_position = [o["command"] for o in options(st, has_command=lambda name: True)]
    without = [o["command"] for o in options(st, has_command=lambda name: name != "position")]
    assert "plcg position axis UNIT HEX" in with_position and "plcg position allied UNIT HEX" in with_position
    assert not any(x.startswith("plcg position") for x in without)
    assert "plcg end --turn N --cvp-lost axis=N --cvp-lost allied=N" in without
    shown = [o["command"] for o in cli.status_dict(st)["options"]]
    assert any(x.startswith("plcg position") for x in shown) == ("position" in cli.main.list_commands(None))
    c.run("end", turn=5, cvp_lost={"axis": 3, "allied": 4})
    assert not any(o["command"].startswith("plcg end") for o in options(c.state()))
    c.close()
