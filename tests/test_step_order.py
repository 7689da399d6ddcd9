"""Issue 2: the step order is enforced at every step, through the real command line.

One campaign is played through the Initial Firefight and a played second firefight (so 2.1 and 2.5
are shown too); a copy of its file is kept at every step it stands at. At each step every step command
that does not belong there is given, with valid input: each exits 3 naming the current step and a rule
number, and writes nothing. `plcg next` refuses while the step owes something and lists it; `status
--json` shows the same list. Bad input exits 2 even where the step would also refuse.
"""
from __future__ import annotations

import re
import shlex

import pytest

from cg.commands import HANDLERS, STEPS_OF
from cg.steps import pending
from conftest import STEP_IDS, Campaign, cli_run, copy_db, owed_at, rows

import cli

# what each step command is, with valid input, and the steps it belongs to (cli-contract.md, Step
# commands). UNIT/LEADER name real counters of the campaign below (the Axis' first I1 purchase).
SQUAD, LEADER = "I1-1.1", "I1-1.L1"
COMMANDS = {
    "cp": (["cp", "axis", "--dice", "3,4"], {"2.1"}),
    "weather": (["weather"], {"2.2"}),
    "buy": (["buy", "axis", "I3"], {"2.3"}),
    "patrols": (["patrols", "axis", "1"], {"2.3"}),
    "attack": (["attack", "axis"], {"2.3"}),
    "oba": (["oba", "axis", "O1", "--dice", "3,4"], {"2.3"}),
    "leader": (["leader", "axis", "I1", "--dice", "3,4"], {"2.3"}),
    "leader --generated": (["leader", "axis", "--generated", "--dice", "3,4"], {"3.45"}),
    "fortify": (["fortify", "axis", "sangar"], {"2.3", "2.6"}),  # 2.6: places one bought without a hex (rev. 3)
    "determine": (["determine"], {"2.4"}),
    "moves-first": (["moves-first", "--dice", "3"], {"2.6"}),
    "night": (["night", "Half Moon, NVR 2"], {"2.4"}),
    "redeploy": (["redeploy", "axis", SQUAD, "--to", "M5", "--dice", "3,4"], {"2.5", "3.2"}),
    "option": (["option", "A"], {"3.2"}),
    "setup": (["setup", "axis", SQUAD, "M5"], {"2.6"}),
    "patrol": (["patrol", "axis", "--type", "recon", "--units", SQUAD, "--leader", LEADER, "--hex", "K5",
                "--dice", "3,4"], {"2.7"}),
    "patrol-return": (["patrol-return", "axis", "1", "--dice", "3,4"], {"2.7"}),
    "end": (["end", "--turn", "5", "--cvp-lost", "axis=3", "--cvp-lost", "allied=4"], {"2.9"}),
    "position": (["position", "axis", SQUAD, "M5"], {"2.9"}),
    "casualties": (["casualties", "axis", "--cvp", "2"], {"3.1", "3.2", "3.3", "3.52"}),  # 3.52: --reduced (rev. 3)
    "encircled": (["encircled", "axis", SQUAD, "--morale", "7", "--dice", "3,4"], {"3.1"}),
    "shock": (["shock", "axis", SQUAD, "--dice", "3"], {"3.1"}),
    "evacuate": (["evacuate", "axis", LEADER, "--dice", "3"], {"3.3"}),
    "disease": (["disease", "axis", "--dice", "3"], {"3.41"}),
    "promote": (["promote", "axis", "--dice", "3"], {"3.44"}),
    "leaders": (["leaders", "axis", "--dice", "3"], {"3.45"}),
    "harden": (["harden", "axis", SQUAD], {"3.43", "3.44", "3.45"}),
    "repair": (["repair", "axis", "I1-1.4", "--kind", "malfunction", "--dice", "3"], {"3.46"}),  # its LMG
    "recall": (["recall", "axis", SQUAD, "--dice", "3"], {"3.461"}),
    "elr": (["elr", "axis", "--dice", "3,4"], {"3.47"}),
    "clear": (["clear", "axis", "M6", "wire", "--dice", "3"], {"3.52"}),
    "rubble": (["rubble", "M4", "--kia", "2", "--dice", "3"], {"2.9", "3.3"}),
    "flame": (["flame", "M4", "--kindling", "7", "--dice", "3,4"], {"2.9", "3.3"}),
}
NAMES_A_UNIT = {"position", "redeploy", "setup", "patrol", "encircled", "shock", "evacuate", "recall", "harden", "repair"}

PLAN = {
    1: {"buy": [("axis", "I1"), ("allied", "I1")], "end": {"cvp_lost": {"axis": 4, "allied": 6}}},
    2: {"attack": ["axis"], "end": {"cvp_lost": {"axis": 7, "allied": 2}}},
}


@pytest.fixture(scope="module")
def at_step(module_workdir):
    """{step id: a campaign file standing at that step}: 2.2 of the Initial Firefight, every other
    step in firefight 2 (where the Axis I1 platoon and its leader exist)."""
    d = module_workdir
    c = Campaign(d / "drive.plcg", seed="order", plan=PLAN)
    out = {"2.2": copy_db(c.path, str(d / "s2.2.plcg"))}
    for step in STEP_IDS:
        if step == "2.2":
            continue
        c.advance(2, step)
        out[step] = copy_db(c.path, str(d / f"s{step}.plcg"))
    c.close()
    return out


def test_the_table_covers_every_step_command():
    """Every command the ledger knows is in the table, allowed at exactly the contract's steps."""
    table = {name.split()[0] for name in COMMANDS}
    from cg.pbem import OWN  # play by email's own commands (sign, answer, reveal, confirm, reject): any step

    assert set(HANDLERS) - {"next", "concede", "rules-upgrade"} - set(OWN) == table  # "*": any step
    assert all(STEPS_OF[name] == ("*",) for name in OWN)
    for name, (_, steps) in COMMANDS.items():
        if name.startswith("leader"):
            continue
        assert set(STEPS_OF[name]) == steps, name
    assert set(STEPS_OF["leader"]) == {"2.3", "3.45"}
    assert STEPS_OF["next"] == ("*",) and STEPS_OF["concede"] == ("*",)


def test_the_campaign_stands_at_every_step(at_step):
    assert set(at_step) == set(STEP_IDS)
    for step, path in at_step.items():
        led = cli.Ledger(path)
        st = led.state()
        led.close()
        assert st.step == step
        assert st.firefight == (1 if step == "2.2" else 2)


WRONG = [(step, name) for step in STEP_IDS for name, (_, steps) in COMMANDS.items() if step not in steps]


@pytest.mark.parametrize("step,name", WRONG, ids=[f"{s}-{n}" for s, n in WRONG])
def test_a_command_at_a_wrong_step_is_refused_and_writes_nothing(at_step, step, name):
    path = at_step[step]
    args, steps = COMMANDS[name]
    before = rows(path)
    r = cli_run(path, *args)
    if step == "2.2" and name in NAMES_A_UNIT:
        # no counter exists before the first purchase: an unknown unit is bad input, checked first
        assert r.code == 2, r.err
        assert "unknown axis unit" in r.err
    else:
        assert r.code == 3, (r.code, r.err)
        assert f"(step {step})" in r.err
        m = re.search(r"\[rule ([0-9.]+)\]", r.err)
        assert m and m.group(1) in steps, r.err  # the rule: the step the command belongs to
        assert step in r.err.split("[rule")[0]  # the words name the current step too
    assert r.err.startswith("plcg: ") and "Traceback" not in r.err
    assert r.out == ""
    assert rows(path) == before


# ---- what a step owes: `next` refuses and lists it; status --json shows the same ------------------

OWING = ("2.1", "2.2", "2.4", "2.9", "3.44", "3.45", "3.47")


@pytest.mark.parametrize("step", OWING)
def test_next_refuses_while_the_step_owes_and_lists_what(at_step, step, workdir):
    path = copy_db(at_step[step], str(workdir / "n.plcg"))
    status = cli_run(path, "status", "--json")
    assert status.code == 0
    import orjson

    owed = orjson.loads(status.out)["pending"]
    assert owed, f"step {step} should owe something on arrival"
    before = rows(path)
    r = cli_run(path, "next")
    assert r.code == 3
    assert f"(step {step})" in r.err
    assert f"[rule {owed[0]['rule']}]" in r.err
    for o in owed:
        assert o["what"] in r.err and o["command"] in r.err
    assert rows(path) == before


def test_pending_in_status_json_is_the_step_machines_list(at_step):
    import orjson

    seen_runnable = seen_choice = 0
    for step, path in at_step.items():
        d = orjson.loads(cli_run(path, "status", "--json").out)
        led = cli.Ledger(path)
        expected = pending(led.state())
        led.close()
        assert d["pending"] == expected, step
        for o in d["pending"]:
            assert set(o) == {"command", "rule", "what", "runnable"} | ({"args"} if o["runnable"] else set())
            assert o["command"].startswith("plcg ") and isinstance(o["runnable"], bool)
            if o["runnable"]:  # the extension: the same command as the dict the ledger runs
                assert o["args"]["name"] == o["command"].split()[1]
            assert re.fullmatch(r"\d\.\d+", o["rule"])
            seen_runnable += o["runnable"]
            seen_choice += not o["runnable"]
    assert seen_runnable and seen_choice


@pytest.mark.parametrize("step", OWING)
def test_a_runnable_pending_command_runs_as_written(at_step, step, workdir):
    """`runnable: true` means the command as listed runs: each one clears its own line of `pending`."""
    import orjson

    path = copy_db(at_step[step], str(workdir / "r.plcg"))
    owed = orjson.loads(cli_run(path, "status", "--json").out)["pending"]
    runnable = [o for o in owed if o["runnable"]]
    assert bool(runnable) == (step != "2.9")  # 2.9's `end` needs the players' figures: listed, not runnable
    for o in runnable:
        r = cli_run(path, *shlex.split(o["command"])[1:])
        assert r.code == 0, (o, r.err)
        left = orjson.loads(cli_run(path, "status", "--json").out)["pending"]
        assert o not in left
    if step == "2.9":
        assert [o["runnable"] for o in owed] == [False]  # the result is the players' to state
        assert owed[0]["command"].startswith("plcg end --turn N")


def test_next_after_the_owed_commands_leaves_the_step(at_step, workdir):
    path = copy_db(at_step["3.47"], str(workdir / "e.plcg"))
    assert cli_run(path, "elr", "axis", "--dice", "3,4").code == 0
    r = cli_run(path, "next")
    assert r.code == 3 and "allied ELR Loss/Gain DR" in r.err and "axis ELR" not in r.err
    assert cli_run(path, "elr", "allied", "--dice", "3,4").code == 0
    r = cli_run(path, "next")
    assert r.code == 0 and "now at step 3.51" in r.out


def test_the_purchase_step_owes_each_leader_and_oba_dr(workdir):
    c = Campaign(workdir / "p.plcg")
    c.advance(1, "2.3")
    c.run("buy", side="axis", rg="I1")
    c.run("buy", side="axis", rg="O1")
    c.close()
    r = cli_run(c.path, "next")
    assert r.code == 3
    assert "axis leader DR for I1-1" in r.err and "axis OBA ammunition DR for O1-1" in r.err
    assert "[rule 2.36]" in r.err and "(step 2.3)" in r.err
    assert cli_run(c.path, "leader", "axis", "I1-1", "--dice", "3,4").code == 0
    assert cli_run(c.path, "oba", "axis", "O1", "--dice", "3,4").code == 0
    assert cli_run(c.path, "next").code == 0


def test_a_step_owing_nothing_is_left_with_next(at_step, workdir):
    for step in ("2.5", "2.6", "2.8", "3.42", "3.43", "3.51", "3.52"):
        path = copy_db(at_step[step], str(workdir / f"x{step}.plcg"))
        import orjson

        assert orjson.loads(cli_run(path, "status", "--json").out)["pending"] == []
        r = cli_run(path, "next")
        assert r.code == 0, (step, r.err)
        assert rows(path) > rows(at_step[step])


# ---- input is checked before the rules ----------------------------------------------------------

BAD = [
    ("3.47", ["cp", "axis", "--dice", "7,1"], "1-6"),
    ("3.47", ["cp", "martians", "--dice", "3,4"], "unknown side"),
    ("3.47", ["buy", "axis", "ZZ9"], "unknown axis RG"),
    ("3.1", ["determine", "--dice", "0"], "1-6"),
    ("2.2", ["elr", "axis", "--dice", "3"], "two dice"),
    ("2.1", ["promote", "axis", "--dice", "3,4"], "one die"),
    ("2.1", ["clear", "axis", "Z99", "wire"], "not a hex"),
    ("2.3", ["clear", "axis", "M6", "moat"], "item"),
    ("3.52", ["patrols", "axis", "0"], "--count"),
    ("3.1", ["end", "--turn", "5", "--cvp-lost", "axis=3"], "allied=N"),
    ("3.52", ["fortify", "axis", "moat"], "unknown fortification"),
    ("2.1", ["setup", "axis", "NOPE", "M5"], "unknown axis unit"),
    ("3.47", ["redeploy", "axis", SQUAD, "--to", "Z99"], "not a hex"),
    ("3.1", ["leader", "axis", "I1", "--dice", "1,1,1"], "two dice"),
    ("2.3", ["repair", "axis", "I1-1.4", "--kind", "broken"], "--kind"),
    ("2.6", ["option", "C"], "A or B"),
    ("2.7", ["buy", "axis", "I3", "--mode", "sideways"], "--mode"),
    ("3.3", ["shock", "axis", SQUAD, "--dice", "7"], "1-6"),
    # at the right step, where the rules would refuse too: still exit 2
    ("3.41", ["disease", "axis", "--dice", "9"], "1-6"),  # the card has no Disease FSR (rule refusal)
    ("2.3", ["attack", "nobody"], "unknown side"),
    ("3.47", ["elr", "axis", "--dice", "3,x"], "--dice"),
    ("3.47", ["oba", "axis", "ZZZ", "--dice", "3,4"], "unknown axis RG or purchase"),
    ("2.2", ["leader", "axis", "ZZZ", "--dice", "3,4"], "unknown axis RG or purchase"),
    ("3.1", ["leader", "allied", "I1-2", "--dice", "3,4"], "unknown allied RG or purchase"),  # no allied I1-2
    ("2.3", ["oba", "axis", "O1", "--dice", "3"], "two dice"),
]


@pytest.mark.parametrize("step,args,words", BAD, ids=[f"{s}-{a[0]}-{w}" for s, a, w in BAD])
def test_bad_input_exits_2_before_the_step_is_checked(at_step, step, args, words):
    path = at_step[step]
    before = rows(path)
    r = cli_run(path, *args)
    assert r.code == 2, (r.code, r.err)
    assert words in r.err
    assert "Traceback" not in r.err and r.out == ""
    assert rows(path) == before


def test_the_rule_refusal_behind_the_bad_input_is_real(at_step):
    """The same commands with good input are refused by the step or rule (exit 3)."""
    assert cli_run(at_step["3.47"], "cp", "axis", "--dice", "6,1").code == 3
    assert cli_run(at_step["3.41"], "disease", "axis", "--dice", "4").code == 3
    assert cli_run(at_step["3.1"], "determine").code == 3


# ---- the harness's list of what each step owes, in the rules' words (tests/conftest.py owed_at): this file's steps ----


def _drs_of_purchases(camp, st, live) -> list[str]:
    """2.36: a leader DR per leader DR of each RG bought (its card's `leader_drs`); 2.35: an ammunition DR
    per OBA module bought."""
    missing = []
    for b in [r.payload for r in live if r.type == "rg_bought"]:
        rg = st.card.sides[b["side"]].rg_by_id(b["rg"])
        want = rg.leader_drs if rg is not None else 0
        got = sum(1 for r in live if r.type == "leader_rolled" and r.payload.get("purchase") == b["purchase"])
        if got < want:
            missing.append(f"{b['side']} leader DR for {b['purchase']} ({got} of {want}, 2.36)")
        if rg is not None and rg.kind == "oba" and not any(
                r.type == "oba_rolled" and r.payload.get("purchase") == b["purchase"] for r in live):
            missing.append(f"{b['side']} OBA ammunition DR for {b['purchase']} (2.35)")
    return missing


owed_at("2.1",
        "CP Replenishment: each side's DR on the card's intensity column (2.11, 2.12)",
        [("cp_replenished", True, "2.1")])


owed_at("2.3",
        "Purchasing Reinforcements: a leader DR per platoon (2.36), an ammunition DR per OBA module (2.35);"
        " what is bought is the players' choice",
        [_drs_of_purchases])


owed_at("2.8",
        "Firefight Commencement: the firefight is played",
        [])


owed_at("2.9",
        "CG Firefight End: the turn, CVP lost, control, casualties and terrain kept (2.9, CG5)",
        [("firefight_ended", False, "2.9")])
