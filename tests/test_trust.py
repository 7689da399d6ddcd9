"""A file its keeper cannot bend (issue 15): each attack an adversary holding the campaign file makes
with nothing but Python's sqlite3, and what the ledger does about it. Rulings R31 (dice), R41 (the
schemas the ledger trusts), R42 (witnesses); the README's promises say which attack is caught by the
file's own structure and which only by a witness taken before it.
"""
from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time

import orjson
import pytest

from conftest import ROOT, Campaign, cli_run, copy_db
from helpers.sandbox import rechain

PLCG = [sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv.pop(1)); import cli; cli.main()", str(ROOT)]


def _at_purchase(path, seed):
    """A campaign at 2.3 of the Initial Firefight with the axis I1 bought (its leader DR owed)."""
    c = Campaign(path, seed=seed)
    c.advance(1, "2.3")
    c.run("buy", side="axis", rg="I1")
    return c


def _rows(path) -> list[tuple]:
    c = sqlite3.connect(path)
    try:
        return c.execute("SELECT seq, type, payload, command, hash FROM events ORDER BY seq").fetchall()
    finally:
        c.close()


def _last(path, etype) -> tuple:
    return [r for r in _rows(path) if r[1] == etype][-1]


# ---- 1. dice nobody can foresee (ruling R31) ----------------------------------------------------------

def test_without_seed_the_ledgers_dice_are_not_a_function_of_the_log(workdir):
    """The attack: the seed was in the log, so the next ledger roll could be computed and steered onto a
    leader DR. Now the same command on copies of one file rolls differently: nothing in it foretells them."""
    c = _at_purchase(workdir / "base.plcg", seed=None)
    c.close()
    start = orjson.loads(_rows(str(workdir / "base.plcg"))[0][2])
    assert start["dice"] == "ledger" and start["seed"] == ""
    dice = set()
    for i in range(10):
        p = copy_db(str(workdir / "base.plcg"), str(workdir / f"copy{i}.plcg"))
        r = cli_run(p, "leader", "axis", "I1")
        assert r.code == 0, r.err
        dice.add(tuple(orjson.loads(_last(p, "leader_rolled")[2])["roll"]["dice"]))
    assert len(dice) > 1  # ten equal DRs from the OS source: 36**-9


def test_a_seeded_campaign_rolls_the_same_and_says_it_is_predictable(workdir):
    c = _at_purchase(workdir / "s.plcg", seed="solo")
    c.close()
    p = str(workdir / "s.plcg")
    for i in range(2):
        q = copy_db(p, str(workdir / f"s{i}.plcg"))
        assert cli_run(q, "leader", "axis", "I1").code == 0
    a, b = (orjson.loads(_last(str(workdir / f"s{i}.plcg"), "leader_rolled")[2])["roll"] for i in range(2))
    assert a["dice"] == b["dice"] and a["source"] == "seeded"
    q = str(workdir / "s0.plcg")
    assert "dice: seeded (predictable)" in cli_run(q, "status").out
    assert "seeded (predictable)" in cli_run(q, "audit").out
    assert "seeded (predictable)" in cli_run(q, "export", "--format", "md").out
    assert json.loads(cli_run(q, "status", "--json").out)["dice"] == "seeded"


def test_every_roll_records_its_source_and_the_audit_decides_ledger_rolls_again(workdir):
    c = _at_purchase(workdir / "l.plcg", seed=None)
    c.run("leader", side="axis", rg="I1")
    c.close()
    p = str(workdir / "l.plcg")
    seq, _t, payload, command, _h = _last(p, "leader_rolled")
    roll = orjson.loads(payload)["roll"]
    assert roll["source"] == "ledger"
    assert orjson.loads(command)["ledger_dice"] == [roll["dice"]]
    line = [json.loads(x) for x in cli_run(p, "log", "--json").out.splitlines() if f'"seq":{seq},' in x][0]
    assert line["roll"]["source"] == "ledger"
    r = cli_run(p, "audit", "--json")
    assert r.code == 0, r.out
    assert json.loads(r.out)["dice"]["rolls"] == {"ledger": {"axis": 1}}
    assert "ledger (unforeseeable)" in cli_run(p, "status").out
    # the dice edited in the payload alone (chain recomputed) no longer follow from the command
    bad = [7 - d for d in roll["dice"]]
    rechain(p, ("UPDATE events SET payload = json_set(payload, '$.roll.dice', json(?)) WHERE seq = ?",
                (json.dumps(bad), seq)))
    r = cli_run(p, "audit")
    assert r.code == 1 and f"seq {seq}" in r.out and "ledger's dice recorded with the command" in r.out


def test_ledger_dice_out_of_range_in_the_command_are_a_finding(workdir):
    c = _at_purchase(workdir / "l.plcg", seed=None)
    c.run("leader", side="axis", rg="I1")
    c.close()
    p = str(workdir / "l.plcg")
    seq = _last(p, "leader_rolled")[0]
    rechain(p, ("UPDATE events SET command = json_set(command, '$.ledger_dice', json('[[7,6]]')),"
                " payload = json_set(payload, '$.roll.dice', json('[7,6]')) WHERE seq = ?", (seq,)))
    r = cli_run(p, "audit")
    assert r.code == 1 and "not 2 die/dice of 1-6" in r.out


def test_typed_rolls_and_rerolls_after_undos_are_counted_by_source_and_side(workdir):
    c = _at_purchase(workdir / "l.plcg", seed=None)
    c.run("leader", side="axis", rg="I1")
    c.run("undo", reason="misread the table")
    c.run("leader", side="axis", rg="I1", dice="6,6")
    c.close()
    rep = json.loads(cli_run(str(workdir / "l.plcg"), "audit", "--json").out)
    assert rep["dice"]["rolls"] == {"ledger": {"axis": 1}, "typed": {"axis": 1}}
    assert rep["dice"]["rerolls"] == {"typed": {"axis": 1}}
    out = cli_run(str(workdir / "l.plcg"), "audit").out
    assert "made again after an undo: typed axis 1" in out


def test_dice_policy_no_typed_refuses_typed_dice_with_exit_3(workdir):
    p = str(workdir / "n.plcg")
    r = cli_run(p, "new", "--card", "sample", "--dice-policy", "no-typed")
    assert r.code == 0, r.err
    c = Campaign.attach(p)
    c.advance(1, "2.3")
    c.run("buy", side="axis", rg="I1")
    c.close()
    before = _rows(p)
    r = cli_run(p, "leader", "axis", "I1", "--dice", "6,6")
    assert r.code == 3 and "dice-policy" in r.err and _rows(p) == before
    assert cli_run(p, "leader", "axis", "I1").code == 0
    assert cli_run(p, "new", "--card", "sample", "--dice-policy", "whatever").code == 2


def test_an_old_seeded_log_derives_its_sources_and_audits_as_before(tmp_path):
    p = str(tmp_path / "old.plcg")
    shutil.copyfile(ROOT / "tests" / "fixtures" / "campaign-v0.1.plcg", p)
    lines = [json.loads(x) for x in cli_run(p, "log", "--json").out.splitlines()]
    sources = {x["roll"]["source"] for x in lines if "roll" in x}
    assert sources and sources <= {"seeded", "typed"}
    r = cli_run(p, "audit", "--json")
    assert r.code == 0 and json.loads(r.out)["dice"]["roller"] == "seeded"
    raw = [orjson.loads(x[2]) for x in _rows(p)]
    assert not any("source" in (x.get("roll") or {}) for x in raw)  # the stored bytes are untouched (R32)


# ---- 2. witnesses ------------------------------------------------------------------------------------

def test_head_prints_a_witness_and_end_of_new_too(workdir):
    p = str(workdir / "w.plcg")
    r = cli_run(p, "new", "--card", "sample", "--seed", "x")
    seq, h = _rows(p)[-1][0], _rows(p)[-1][4]
    assert f"head witness {seq}:{h[:16]}" in r.out
    assert cli_run(p, "head").out.strip() == f"{seq}:{h[:16]}"
    assert json.loads(cli_run(p, "head", "--json").out) == {"seq": seq, "hash": h[:16]}
    assert cli_run(p, "audit", "--witness", f"{seq}:{h[:16]}").code == 0
    assert cli_run(p, "audit", "--witness", "1:xyz").code == 2


def test_end_prints_the_head_witness(workdir):
    c = Campaign(workdir / "e.plcg", seed=None)
    c.advance(1, "2.9")
    c.close()
    p = str(workdir / "e.plcg")
    r = cli_run(p, "end", "--turn", "5", "--cvp-lost", "axis=3", "--cvp-lost", "allied=4")
    assert r.code == 0
    assert f"head witness {cli_run(p, 'head').out.strip()}" in r.out


def test_a_cut_tail_is_caught_only_by_a_witness_taken_before(workdir):
    c = _at_purchase(workdir / "c.plcg", seed=None)
    c.run("leader", side="axis", rg="I1")
    c.close()
    p = str(workdir / "c.plcg")
    witness = cli_run(p, "head").out.strip()
    seq = int(witness.split(":")[0])
    cut = sqlite3.connect(p)  # the losing roll and the snapshot go; the chain before them is intact
    cut.execute("DELETE FROM events WHERE seq >= (SELECT batch FROM events WHERE seq = ?)", (seq,))
    cut.execute("DELETE FROM snapshot")
    cut.commit()
    cut.close()
    assert cli_run(p, "audit").code == 0  # what one file alone cannot tell (README)
    r = cli_run(p, "audit", "--witness", witness)
    assert r.code == 1 and "[witness]" in r.out and "cut" in r.out


def test_a_forgery_with_the_chain_recomputed_is_caught_by_an_earlier_witness(workdir):
    c = _at_purchase(workdir / "f.plcg", seed=None)
    c.run("leader", side="axis", rg="I1")
    c.run("next")
    c.close()
    p = str(workdir / "f.plcg")
    witness = cli_run(p, "head").out.strip()
    seq, _t, payload, _c, _h = _last(p, "leader_rolled")
    roll = orjson.loads(payload)["roll"]
    # the 2.361 DR rewritten lower (a better leader), command and payload alike
    forged = [1 if roll["dice"][0] != 1 else 2, roll["dice"][1]]
    final = roll["final"] - roll["dice"][0] + forged[0]
    rechain(p, ("UPDATE events SET command = json_set(command, '$.ledger_dice', json(?)),"
                " payload = json_set(payload, '$.roll.dice', json(?), '$.roll.final', ?) WHERE seq = ?",
                (json.dumps([forged]), json.dumps(forged), final, seq)))
    assert _last(p, "leader_rolled")[4] != _h
    r = cli_run(p, "audit", "--witness", witness)
    assert r.code == 1 and "rewritten" in r.out


# ---- 3. the store trusts nothing it did not write -------------------------------------------------------

@pytest.mark.parametrize("sql", [
    "CREATE TRIGGER eat AFTER INSERT ON events WHEN new.type = 'leader_rolled'"
    " BEGIN DELETE FROM events WHERE seq = new.seq; END",
    "CREATE VIEW v AS SELECT * FROM events",
    "ALTER TABLE events ADD COLUMN note TEXT",
    "CREATE TABLE extra (x)",
    "CREATE INDEX by_type ON events (type)",
])
def test_a_file_with_a_schema_no_release_wrote_is_refused_before_anything_is_written(workdir, sql):
    c = _at_purchase(workdir / "t.plcg", seed=None)
    c.close()
    p = str(workdir / "t.plcg")
    db = sqlite3.connect(p)
    db.execute(sql)
    db.commit()
    db.close()
    before = _rows(p)
    r = cli_run(p, "leader", "axis", "I1")
    assert r.code == 2 and "no plcg release writes" in r.err, (r.code, r.err)
    assert _rows(p) == before
    assert cli_run(p, "status").code == 2


def _edit_snapshot_cp(p: str, cp: int) -> None:
    """A naive hand edit of the stored snapshot: the axis CP in its JSON."""
    db = sqlite3.connect(p)
    (blob,) = db.execute("SELECT state FROM snapshot").fetchone()
    blob = bytes(blob)
    at = blob.index(b"{")
    data = orjson.loads(blob[at:])
    data["state"]["sides"]["axis"]["cp"] = cp
    db.execute("UPDATE snapshot SET state = ?", (blob[:at] + orjson.dumps(data),))
    db.commit()
    db.close()


def test_a_hand_edited_snapshot_is_ignored_and_buys_nothing(workdir):
    c = Campaign(workdir / "s.plcg", seed=None)
    c.advance(1, "2.3")
    c.close()
    p = str(workdir / "s.plcg")
    cli_run(p, "replay")  # the snapshot at the head
    cp = json.loads(cli_run(p, "status", "--json").out)["sides"]["axis"]["cp"]
    _edit_snapshot_cp(p, 99)
    assert json.loads(cli_run(p, "status", "--json").out)["sides"]["axis"]["cp"] == cp
    bought = 0
    for rg in ("I1", "I2", "I3", "I4", "HW1", "G1", "G2", "A1", "V1", "O1"):
        if cli_run(p, "buy", "axis", rg).code == 0:
            bought += 1
    spent = [orjson.loads(r[2]) for r in _rows(p) if r[1] == "rg_bought"]
    assert sum(x["cost"] for x in spent) <= cp and bought == len(spent)
    assert cli_run(p, "audit").code == 0
    # the snapshot was rebuilt: sealed again, and loaded
    from cg import snapshot

    db = sqlite3.connect(p)
    assert snapshot.unseal(bytes(db.execute("SELECT state FROM snapshot").fetchone()[0])) is not None
    db.close()


def _damaged_purchase(workdir, payload_sql: str) -> tuple[str, int]:
    """A campaign whose rg_bought row's payload is set to payload_sql by hand, its snapshot gone."""
    c = _at_purchase(workdir / "r.plcg", seed=None)
    c.close()
    p = str(workdir / "r.plcg")
    seq = _last(p, "rg_bought")[0]
    db = sqlite3.connect(p)
    db.execute(f"UPDATE events SET payload = {payload_sql} WHERE seq = ?", (seq,))
    db.execute("DELETE FROM snapshot")
    db.commit()
    db.close()
    return p, seq


@pytest.mark.parametrize("args", [("status",), ("log",), ("roster",), ("export", "--format", "md"),
                                  ("oob", "axis"), ("next",)])
def test_a_row_edited_against_its_schema_is_exit_2_naming_its_seq(workdir, args):
    p, seq = _damaged_purchase(workdir, "'{\"side\": \"axis\"}'")
    r = cli_run(p, *args)
    assert r.code == 2 and f"row {seq}" in r.err, (r.code, r.err)
    a = cli_run(p, "audit")
    assert a.code == 1 and f"seq {seq}" in a.out


# ---- 4. a whole file after every command -----------------------------------------------------------------

def test_the_file_alone_holds_every_returned_command_while_a_reader_holds_it_open(workdir, tmp_path):
    c = _at_purchase(workdir / "o.plcg", seed=None)
    c.close()
    p = str(workdir / "o.plcg")
    reader = sqlite3.connect(p)
    reader.execute("SELECT count(*) FROM events").fetchall()
    try:
        assert cli_run(p, "leader", "axis", "I1").code == 0
        alone = tmp_path / "mailed.plcg"
        shutil.copyfile(p, alone)  # the .plcg alone, as players mail it
        assert _rows(str(alone)) == _rows(p)
        assert _last(str(alone), "leader_rolled")
    finally:
        reader.close()
    assert not os.path.exists(p + "-wal") and not os.path.exists(p + "-shm")


def test_new_killed_at_any_moment_leaves_nothing_or_a_whole_campaign(tmp_path):
    rng = random.Random(15)
    for i in range(12):
        p = str(tmp_path / f"k{i}.plcg")
        child = subprocess.Popen([*PLCG, "--db", p, "new", "--card", "sample"], cwd=str(tmp_path),
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.05, 0.6))
        child.send_signal(signal.SIGKILL)
        child.wait()
        if os.path.exists(p):
            assert cli_run(p, "status").code == 0  # whole
        else:
            assert cli_run(p, "new", "--card", "sample").code == 0  # nothing blocks it
        assert cli_run(p, "audit").code == 0
    assert not [n for n in os.listdir(tmp_path) if ".new-" in n or n.endswith(("-wal", "-shm", "-journal"))]


@pytest.mark.parametrize("kind", ["new", "import"])
def test_what_a_killed_new_or_import_left_is_gone_after_the_next_run(workdir, tmp_path, kind):
    src = _at_purchase(workdir / "src.plcg", seed=None)
    src.run("leader", side="axis", rg="I1")  # a ledger roll: imported and audited with its recorded dice
    src.close()
    log = tmp_path / "log.jsonl"
    log.write_text(cli_run(str(workdir / "src.plcg"), "export", "--format", "jsonl").out)
    p = str(tmp_path / "camp.plcg")
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stray = tmp_path / f".camp.plcg.{kind}-{dead.pid}-0123abcd"
    stray.write_bytes(b"half a campaign")
    r = cli_run(p, "new", "--card", "sample") if kind == "new" else cli_run(p, "import", str(log))
    assert r.code == 0, r.err
    assert not stray.exists()


# ---- 5. exit codes and output hold --------------------------------------------------------------------

def test_a_closed_pipe_never_turns_a_finding_into_exit_0(workdir):
    c = _at_purchase(workdir / "a.plcg", seed=None)
    c.close()
    p = str(workdir / "a.plcg")
    db = sqlite3.connect(p)
    db.execute("UPDATE events SET payload = json_set(payload, '$.cost', 1) WHERE type = 'rg_bought'")
    db.commit()
    db.close()
    cmd = " ".join(f"'{x}'" for x in [*PLCG, "--db", p, "audit"]) + " | true; exit ${PIPESTATUS[0]}"
    for _ in range(3):
        assert subprocess.run(["bash", "-c", cmd]).returncode == 1


def test_markdown_exports_escape_html_a_player_typed(workdir):
    c = _at_purchase(workdir / "h.plcg", seed=None)
    c.run("leader", side="axis", rg="I1")
    c.run("undo", reason="<img src=x onerror=alert(1)> & <script>alert(2)</script>")
    c.close()
    md = cli_run(str(workdir / "h.plcg"), "export", "--format", "md").out
    # CommonMark: a "<" before a letter, "/", "!" or "?" opens HTML unless backslash-escaped (issue 38: no
    # entities; the text reads the same raw and rendered)
    assert "\\<img src=x onerror=alert(1)> & \\<script>alert(2)\\</script>" in md
    assert re.search(r"(?<!\\)<[A-Za-z/!?]", md) is None


def test_import_applies_the_command_lines_text_checks(workdir, tmp_path):
    c = _at_purchase(workdir / "i.plcg", seed=None)
    c.run("leader", side="axis", rg="I1")
    c.run("undo", reason="fine")
    c.close()
    p = str(workdir / "i.plcg")
    rechain(p, "UPDATE events SET command = json_set(command, '$.reason', 'two' || char(10) || 'lines'),"
               " payload = json_set(payload, '$.reason', 'two' || char(10) || 'lines') WHERE type = 'reverted'")
    log = tmp_path / "log.jsonl"
    log.write_text(cli_run(p, "export", "--format", "jsonl").out)
    r = cli_run(str(tmp_path / "new.plcg"), "import", str(log))
    assert r.code == 2 and "control characters" in r.err
    assert not os.path.exists(tmp_path / "new.plcg")


def test_import_refuses_a_200_mb_line_without_reading_it_whole(tmp_path):
    big = tmp_path / "big.jsonl"
    with open(big, "wb") as fh:
        fh.write(b'{"seq": 1, "x": "')
        chunk = b"x" * 2**20
        for _ in range(200):
            fh.write(chunk)
        fh.write(b'"}\n')
    # the peak resident memory of this process (VmHWM: ru_maxrss would carry pytest's over the exec)
    code = ("import re, sys; sys.path.insert(0, sys.argv[1]); import cli\n"
            "try:\n    cli.main(['--db', sys.argv[3], 'import', sys.argv[2]])\n"
            "except SystemExit as e:\n"
            "    print(e.code, re.search(r'VmHWM:\\s*(\\d+)', open('/proc/self/status').read()).group(1))")
    out = subprocess.run([sys.executable, "-c", code, str(ROOT), str(big), str(tmp_path / "c.plcg")],
                         capture_output=True, text=True)
    exit_code, rss_kb = out.stdout.split()
    assert exit_code == "2" and "longer than" in out.stderr
    assert int(rss_kb) < 100 * 1024
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".c.plcg")]


def test_a_command_cut_off_mid_commit_is_rolled_back_never_read_half_written(workdir):
    """Rollback journal: a writer killed inside its commit leaves a hot journal and part of its pages in
    the file. A read command must see the last commit, never the half-written command."""
    c = Campaign(workdir / "h.plcg", seed="x")
    c.advance(1, "2.3")
    c.close()
    p = str(workdir / "h.plcg")
    before = _rows(p)
    code = ("import os, sqlite3, sys\n"
            "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
            "c.execute('PRAGMA cache_size=1')\n"  # spill uncommitted pages into the file
            "c.execute('BEGIN IMMEDIATE')\n"
            "for i in range(2000):\n"
            "    c.execute(\"UPDATE events SET payload = payload || ' ' WHERE seq = 2\")\n"
            "    c.execute('INSERT INTO meta VALUES (?, ?)', ('k%d' % i, 'x' * 500))\n"
            "os._exit(0)\n")  # killed: no commit, no rollback
    subprocess.run([sys.executable, "-c", code, p], check=True)
    assert os.path.getsize(p + "-journal") > 0
    r = cli_run(p, "log", "--json")
    assert r.code == 0, r.err
    assert len(r.out.splitlines()) == len(before)
    assert _rows(p) == before and not os.path.exists(p + "-journal")
    assert cli_run(p, "audit").code == 0


@pytest.mark.parametrize("value", ["CAST(x'7b22ff22' AS TEXT)", "x'00ff'", "42"])
def test_a_row_sqlite_cannot_give_as_text_is_exit_2_naming_its_seq_and_an_audit_finding(workdir, value):
    p, seq = _damaged_purchase(workdir, value)
    for args in (("status",), ("log",), ("roster",)):
        r = cli_run(p, *args)
        assert r.code == 2 and f"row {seq}" in r.err, (args, r.code, r.err)
    a = cli_run(p, "audit")
    assert a.code == 1 and f"FINDING seq {seq}" in a.out, a.out


@pytest.mark.parametrize("etype, audit_code", [("7", 1), ("x'00ff'", 1), ("'no_such_event'", 2)])
def test_a_row_whose_type_was_edited_names_its_seq(workdir, etype, audit_code):
    """An event type stored as a number or a blob no release wrote: every reader names the row (exit 2) and
    the audit makes it a finding (exit 1). An unknown event name may be a newer plcg's: exit 2 naming the
    row, for the audit too (upgrade plcg), never a crash."""
    c = _at_purchase(workdir / "t.plcg", seed=None)
    c.close()
    p = str(workdir / "t.plcg")
    seq = _last(p, "rg_bought")[0]
    db = sqlite3.connect(p)
    db.execute(f"UPDATE events SET type = {etype} WHERE seq = ?", (seq,))
    db.execute("DELETE FROM snapshot")
    db.commit()
    db.close()
    for args in (("status",), ("roster",), ("next",)):
        r = cli_run(p, *args)
        assert r.code == 2 and f"row {seq}" in r.err, (args, r.code, r.err)
    a = cli_run(p, "audit")
    assert a.code == audit_code, (a.code, a.out, a.err)
    assert f"seq {seq}" in a.out if audit_code == 1 else f"row {seq}" in a.err
