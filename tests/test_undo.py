"""Undo (issue 5): at every step kind of a whole campaign, undoing a command gives back the state
before its events, undoing the undo restores them, and the log keeps every line."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

import cli
from cg.app.demo import play
from events.errors import Refused
from projections.digest import canonical_state


def _key(led):
    return canonical_state(led.state(use_snapshot=False))


def test_undo_and_redo_every_command_of_a_whole_campaign(tmp_path):
    kinds = set()
    crossed = []

    def around(led, cmd, run):
        before = _key(led)
        stored = run(cmd)
        after = _key(led)
        rows = led.store.head()[0]
        try:
            led.run({"name": "undo", "reason": f"test {cmd['name']}"})
        except Refused as e:  # only the commencement guard may refuse, and --force passes it
            assert e.rule == "2.8"
            crossed.append(cmd["name"])
            led.run({"name": "undo", "reason": f"test {cmd['name']}", "force": True})
        assert _key(led) == before, f"undo of {cmd} did not restore the state"
        led.run({"name": "undo", "reason": "redo"})
        assert _key(led) == after, f"undo of the undo of {cmd} did not restore it"
        assert led.store.head()[0] == rows + 2  # nothing deleted: two reverts appended
        kinds.add(stored[0].type)
        return stored

    play(str(tmp_path / "u.plcg"), echo=lambda s: None, around=around)
    # every kind of step command the demo makes was undone and redone
    assert {"cp_replenished", "rg_bought", "leader_rolled", "firefight_determined", "firefight_ended",
            "elr_rolled", "promotion_rolled", "step_left", "patrol_resolved"} <= kinds
    assert crossed == ["next"] * len(crossed) and crossed  # leaving 2.8 is the commencement


def test_undo_to_seq_and_the_commencement_guard(tmp_path):
    path = str(tmp_path / "c.plcg")
    play(path, echo=lambda s: None)
    led = cli.Ledger(path, write=True)
    try:
        head = led.store.head()[0]
        with pytest.raises(Refused) as e:
            led.run({"name": "undo", "to": 5, "reason": "start again"})
        assert e.value.rule == "2.8"
        assert led.store.head()[0] == head  # nothing written
        led.run({"name": "undo", "to": 5, "reason": "start again", "force": True})
        st = led.state()
        assert (st.firefight, st.step) == (1, "2.3")
        log = [r for r in led.store.read()]
        assert log[-1].type == "reverted" and log[-1].payload["force"] is True
        assert len(log) == head + 1  # the log never loses a line
    finally:
        led.close()


def test_undo_is_marked_in_the_log_and_listed_by_the_audit(tmp_path):
    db = str(tmp_path / "l.plcg")
    r = CliRunner()
    assert r.invoke(cli.main, ["--db", db, "new", "--card", "sample", "--seed", "x"]).exit_code == 0
    for args in (["weather"], ["next"], ["buy", "axis", "I1"], ["leader", "axis", "I1"]):
        assert r.invoke(cli.main, ["--db", db, *args]).exit_code == 0
    first = r.invoke(cli.main, ["--db", db, "log", "--json"]).output.splitlines()[-1]
    assert r.invoke(cli.main, ["--db", db, "undo", "--reason", "did not like the leader"]).exit_code == 0
    res = r.invoke(cli.main, ["--db", db, "leader", "axis", "I1"])
    assert res.exit_code == 0
    import json

    lines = [json.loads(x) for x in r.invoke(cli.main, ["--db", db, "log", "--json"]).output.splitlines()]
    assert [x["reverted"] for x in lines if x["type"] == "leader_rolled"] == [True, False]
    assert json.loads(first)["seq"] == lines[4]["seq"]
    audit = r.invoke(cli.main, ["--db", db, "audit", "--json"])
    assert audit.exit_code == 0  # undos are notes, not findings
    notes = json.loads(audit.output)["notes"]
    assert any("did not like the leader" in n["what"] for n in notes)
    assert any("made again after the undo" in n["what"] for n in notes)


def test_undo_needs_a_reason_and_something_to_undo(tmp_path):
    db = str(tmp_path / "n.plcg")
    r = CliRunner()
    r.invoke(cli.main, ["--db", db, "new", "--card", "sample"])
    res = r.invoke(cli.main, ["--db", db, "undo", "--reason", " "])
    assert res.exit_code == 2
    res = r.invoke(cli.main, ["--db", db, "undo", "--reason", "x"])
    assert res.exit_code == 3 and "nothing to undo" in res.output


def test_undo_to_keeps_what_earlier_undos_took_back(tmp_path):
    """undo --to takes back every event in force after SEQ; a revert inside that range stays, so
    what it undid stays undone (it is not restored by reverting the revert)."""
    db = str(tmp_path / "t.plcg")
    led = cli.Ledger.create(db, "sample", "t", None)
    try:
        led.run({"name": "weather"})
        mark = led.store.head()[0]
        led.run({"name": "next"})
        led.run({"name": "buy", "side": "axis", "rg": "I1"})
        led.run({"name": "buy", "side": "axis", "rg": "HW1"})
        led.run({"name": "undo", "reason": "not the MGs"})
        assert [p.rg for p in led.state().purchases.values()] == ["I1"]
        led.run({"name": "undo", "to": mark, "reason": "start the purchases again"})
        st = led.state()
        assert (st.step, list(st.purchases)) == ("2.2", [])
        assert st.sides["axis"].cp == st.card.sides["axis"].initial_cp
    finally:
        led.close()


def test_undoing_a_redo_across_a_commencement_needs_force(tmp_path):
    """Undo --to N --force across 2.8, undo that (the redo), then undo the redo: the last one takes
    the commenced firefight out of force again, so it needs --force as the first did."""
    path = str(tmp_path / "r.plcg")
    play(path, echo=lambda s: None)
    led = cli.Ledger(path, write=True)
    try:
        led.run({"name": "undo", "to": 5, "reason": "start again", "force": True})
        assert (led.state().firefight, led.state().step) == (1, "2.3")
        led.run({"name": "undo", "reason": "no, keep it"})  # the redo: the campaign is back
        back = _key(led)
        head = led.store.head()
        with pytest.raises(Refused) as e:
            led.run({"name": "undo", "reason": "start again after all"})
        assert e.value.rule == "2.8"
        assert led.store.head() == head and _key(led) == back  # nothing written
        led.run({"name": "undo", "reason": "start again after all", "force": True})
        st = led.state()
        assert (st.firefight, st.step) == (1, "2.3")
        assert next(iter(led.store.read(since=head[0]))).payload["force"] is True
    finally:
        led.close()


def test_undoing_an_undo_that_crossed_needs_no_force(tmp_path):
    """Taking back a forced undo puts the firefight back in force: that crosses nothing."""
    path = str(tmp_path / "s.plcg")
    play(path, echo=lambda s: None)
    led = cli.Ledger(path, write=True)
    try:
        before = _key(led)
        led.run({"name": "undo", "to": 5, "reason": "start again", "force": True})
        stored = led.run({"name": "undo", "reason": "no, keep it"})
        assert stored[0].payload["force"] is False and _key(led) == before
    finally:
        led.close()


def test_an_undo_folded_on_from_an_older_snapshot_keeps_an_earlier_undo_in_force(tmp_path):
    """An undo folds on from the stored snapshot only where nothing whose force differs from the snapshot's
    lies at or before it. A received bundle's undo leaves an older snapshot in place (play by email); here
    the older snapshot is put back by hand as such a bundle leaves it. Before the fix the next undo folded
    on from it with the earlier undo measured against the whole log, not the snapshot: the command that
    undo took back came back into force, and the audit found the stored snapshot differing from a replay."""
    import json
    import sqlite3

    from conftest import cli_run

    db = str(tmp_path / "c.plcg")
    assert cli_run(db, "new", "--card", "sample", "--seed", "older").code == 0
    for args in (["weather"], ["next"], ["buy", "axis", "I1"], ["buy", "allied", "I1"]):
        assert cli_run(db, *args).code == 0
    assert cli_run(db, "replay").code == 0  # the snapshot at the head: both purchases in force
    con = sqlite3.connect(db)
    older = con.execute("SELECT seq, hash, state FROM snapshot").fetchone()
    older_cold = con.execute("SELECT token, state FROM snapshot_cold").fetchone()
    con.close()
    assert cli_run(db, "undo", "--reason", "not that platoon").code == 0  # takes back the Allied I1
    assert cli_run(db, "buy", "allied", "I2").code == 0
    con = sqlite3.connect(db)
    with con:
        con.execute("UPDATE snapshot SET seq = ?, hash = ?, state = ?", older)
        con.execute("UPDATE snapshot_cold SET token = ?, state = ?", older_cold)
    con.close()
    assert cli_run(db, "undo", "--reason", "nor that one").code == 0  # takes back the I2, folds on
    oob = json.loads(cli_run(db, "oob", "allied", "--json").out)
    assert not any(u["unit"].startswith(("I1-", "I2-")) for u in oob), oob
    r = cli_run(db, "audit")
    assert r.code == 0, r.out[-400:]
