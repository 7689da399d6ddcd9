"""Nothing bends, round three (issue 25, items 1-5 and 15-20): the audit compares everything, the output
paths and the faults are hostile. Each test is an attack an adversary (or a full disk, a closed pipe, a
kill) makes, and what the ledger does about it; the README's promises say which holds and what only a
witness or the other copy can catch.
"""
from __future__ import annotations

import json
import os
import random
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import time

import orjson
import pytest

from conftest import ROOT, Campaign, cli_run
from helpers.sandbox import rechain


def _with_leader(path, dice=None) -> str:
    """A campaign at 2.3 of the Initial Firefight with the axis I1 bought and its leader DR made
    (by the ledger, or with the dice typed)."""
    c = Campaign(path, seed=None)
    c.advance(1, "2.3")
    c.run("buy", side="axis", rg="I1")
    c.run("leader", side="axis", rg="I1", **({"dice": dice} if dice else {}))
    c.close()
    return str(path)


def _payload(p: str, etype: str) -> tuple[int, dict]:
    db = sqlite3.connect(p)
    try:
        seq, text = db.execute("SELECT seq, payload FROM events WHERE type = ? ORDER BY seq DESC", (etype,)).fetchone()
    finally:
        db.close()
    return seq, orjson.loads(text)


# ---- 1. the audit compares every field, naming it ---------------------------------------------------------

def test_a_ledger_roll_relabelled_typed_with_a_better_leader_is_a_finding_naming_both_fields(workdir):
    """The roll still says what the ledger rolled; its source says `typed` and the leader it gave is a
    10-2: the audit used to stop comparing once the roll differed (and excuse the leader as following
    from it). Every difference is a finding with its field; the export is refused by import too."""
    p = _with_leader(workdir / "a.plcg")
    seq, before = _payload(p, "leader_rolled")
    assert before["roll"]["source"] == "ledger"
    # the ledger's own dice (no seed) give a 10-2 one time in 36: then the relabelled leader must be another
    better = "10-2" if before["unit"]["name"] != "10-2" else "10-3"
    rechain(p, ("UPDATE events SET payload = json_set(payload, '$.roll.source', 'typed', '$.unit.name', ?)"
                " WHERE type = 'leader_rolled'", (better,)))
    r = cli_run(p, "audit")
    assert r.code == 1
    assert f"FINDING seq {seq}" in r.out and "roll.source recorded 'typed', the command gives 'ledger'" in r.out
    assert "unit recorded" in r.out and better in r.out
    log = workdir / "log.jsonl"
    log.write_text(cli_run(p, "export", "--format", "jsonl").out)
    imp = cli_run(str(workdir / "imported.plcg"), "import", str(log))
    assert imp.code == 2 and "audit finding" in imp.err and not os.path.exists(workdir / "imported.plcg")


def test_a_cp_roll_relabelled_typed_with_20_cp_more_is_a_finding_and_its_export_is_refused(workdir):
    """The issue's attack: the 2.12 CP DR of the ledger relabelled `typed`, `gained` and `total` raised by
    20, the chain recomputed. The audit was clean and import took the export."""
    c = Campaign(workdir / "cp.plcg", seed=None)
    c.advance(2, "2.1")
    c.run("cp", side="axis")
    c.close()
    p = str(workdir / "cp.plcg")
    seq, honest = _payload(p, "cp_replenished")
    assert honest["roll"]["source"] == "ledger"
    rechain(p, "UPDATE events SET payload = json_set(payload, '$.roll.source', 'typed',"
               " '$.gained', json_extract(payload, '$.gained') + 20, '$.total', json_extract(payload, '$.total') + 20)"
               f" WHERE seq = {seq}")
    r = cli_run(p, "audit")
    assert r.code == 1 and "roll.source recorded 'typed', the command gives 'ledger'" in r.out
    assert f"gained recorded {honest['gained'] + 20}, the rules give {honest['gained']}" in r.out
    assert f"total recorded {honest['total'] + 20}, the rules give {honest['total']}" in r.out
    log = workdir / "log.jsonl"
    log.write_text(cli_run(p, "export", "--format", "jsonl").out)
    imp = cli_run(str(workdir / "imported.plcg"), "import", str(log))
    assert imp.code == 2 and f"audit finding at seq {seq}" in imp.err
    assert not os.path.exists(workdir / "imported.plcg")


def test_a_typed_roll_relabelled_a_ledger_one_is_a_finding(workdir):
    """`--dice 3,4` recorded, then `source: ledger, manual: false` written into the event alone: the
    roll's source must agree with the stored command (which holds the typed dice)."""
    p = _with_leader(workdir / "t.plcg", dice="3,4")
    assert "[dice given]" in cli_run(p, "log").out
    seq, _ = _payload(p, "leader_rolled")
    rechain(p, "UPDATE events SET payload = json_set(payload, '$.roll.source', 'ledger', '$.roll.manual', json('false'))"
               " WHERE type = 'leader_rolled'")
    r = cli_run(p, "audit")
    assert r.code == 1 and f"FINDING seq {seq}" in r.out
    assert "roll.source recorded 'ledger', the command gives 'typed'" in r.out
    assert "roll.manual recorded False, the command gives True" in r.out


def test_a_field_beside_a_changed_roll_is_named_even_where_it_follows_from_a_roll(workdir):
    """The dice edited (a finding) and the leader raised far beyond what even those dice give: both named."""
    p = _with_leader(workdir / "d.plcg", dice="3,4")
    rechain(p, "UPDATE events SET payload = json_set(payload, '$.roll.dice', json('[1,1]'), '$.roll.final', 2,"
               " '$.unit.name', '10-3') WHERE type = 'leader_rolled'")
    out = cli_run(p, "audit").out
    assert "dice [1, 1] differ from the dice the command gave [3, 4]" in out
    assert "unit recorded" in out and "10-3" in out


# ---- 2. an index the audit has not verified --------------------------------------------------------------

def _empty_reverts_index(p: str) -> None:
    """The reverts index rebuilt to hold nothing, and its SQL text put back: the schema check (ruling
    R41) sees the text it knows, the index's entries are not the table's."""
    db = sqlite3.connect(p)
    db.execute("DROP INDEX events_reverted")
    db.execute("CREATE INDEX events_reverted ON events (seq) WHERE type = 'nothing'")
    db.execute("PRAGMA writable_schema=ON")
    db.execute("UPDATE sqlite_master SET sql = ? WHERE name = 'events_reverted'",
               ("CREATE INDEX events_reverted ON events (seq) WHERE type = 'reverted'",))
    db.execute("DELETE FROM snapshot")
    db.commit()
    db.close()


def test_a_reverts_index_corrupted_below_the_schema_is_an_audit_finding(workdir):
    c = Campaign(workdir / "u.plcg", seed=None)
    c.advance(1, "2.3")
    c.run("buy", side="axis", rg="I1")
    c.run("undo", reason="misclick")
    c.close()
    p = str(workdir / "u.plcg")
    assert "(undone)" in cli_run(p, "log").out
    _empty_reverts_index(p)
    r = cli_run(p, "audit")
    assert r.code == 1, r.out
    assert "[integrity]" in r.out and "events_reverted" in r.out
    j = json.loads(cli_run(p, "audit", "--json").out)
    assert any(f["rule"] == "integrity" for f in j["findings"])


# ---- 3. the stored snapshot against a replay ----------------------------------------------------------------

def _forge_snapshot(p: str, **sides) -> None:
    """The stored snapshot edited (axis ELR, SAN, CP) and its digest recomputed: it loads."""
    from cg import snapshot

    db = sqlite3.connect(p)
    (blob,) = db.execute("SELECT state FROM snapshot").fetchone()
    body = snapshot.unseal(bytes(blob))
    assert body is not None
    data = orjson.loads(body)
    axis = data["state"]["sides"]["axis"]
    for k, v in sides.items():
        axis[k] = v
    db.execute("UPDATE snapshot SET state = ?", (snapshot.seal(orjson.dumps(data)),))
    db.commit()
    db.close()


def test_a_forged_snapshot_with_its_digest_recomputed_is_an_audit_finding(workdir):
    c = Campaign(workdir / "s.plcg", seed=None)
    c.advance(1, "2.3")
    c.close()
    p = str(workdir / "s.plcg")
    assert cli_run(p, "replay").code == 0  # the snapshot at the head
    assert cli_run(p, "audit").code == 0
    honest = json.loads(cli_run(p, "status", "--json").out)["sides"]["axis"]
    _forge_snapshot(p, elr=5, san=0, cp=1)
    forged = json.loads(cli_run(p, "status", "--json").out)["sides"]["axis"]
    assert (forged["elr"], forged["san"], forged["cp"]) == (5, 0, 1)  # status starts from it
    r = cli_run(p, "audit")
    assert r.code == 1
    assert "[snapshot]" in r.out and f"axis elr 5 (the log gives {honest['elr']})" in r.out
    assert f"axis cp 1 (the log gives {honest['cp']})" in r.out
    assert cli_run(p, "replay").code == 0  # rebuilt from the log: clean again
    assert cli_run(p, "audit").code == 0


def _forge_shape(p: str, change) -> None:
    """The stored snapshot's body changed by `change(state)` and its digest recomputed."""
    from cg import snapshot

    db = sqlite3.connect(p)
    (blob,) = db.execute("SELECT state FROM snapshot").fetchone()
    data = orjson.loads(snapshot.unseal(bytes(blob)))
    change(data["state"])
    db.execute("UPDATE snapshot SET state = ?", (snapshot.seal(orjson.dumps(data)),))
    db.commit()
    db.close()


def _undeclared_key(state):
    state["fortifications"] = [{"side": "axis", "kind": "foxhole", "hex": None, "cost": 1, "detail": {},
                                "unit": None, "firefight": 1, "opened_by": "allied"}]


def _long_unit_row(state):
    state["units"][0] = [*state["units"][0], "extra"]


@pytest.mark.parametrize("change", [_undeclared_key, _long_unit_row], ids=["undeclared-key", "long-unit-row"])
def test_a_forged_snapshot_this_code_would_not_write_is_ignored_not_a_crash(workdir, change):
    # a snapshot whose digest was recomputed over a body the typed state cannot be built from (a record with
    # a key it does not declare, a unit row of another length): the readers fold the log instead, as for a
    # failed digest, and never stop on an internal error
    c = Campaign(workdir / "s.plcg", seed=None, plan={1: {"buy": [("axis", "I1")]}})
    c.advance(1, "2.6")
    c.close()
    p = str(workdir / "s.plcg")
    assert cli_run(p, "replay").code == 0  # the snapshot at the head
    honest = cli_run(p, "status", "--json").out
    _forge_shape(p, change)
    r = cli_run(p, "status", "--json")
    assert r.code == 0 and r.out == honest, r.err
    assert cli_run(p, "roster").code == 0 and cli_run(p, "audit").code == 0
    assert cli_run(p, "replay").code == 0 and cli_run(p, "status", "--json").out == honest


def test_a_forged_settled_part_this_code_would_not_write_is_ignored_not_a_crash(r1):
    # the same for the snapshot's cold part (the settled units, loaded when first asked for): its digest and
    # the hot part's name for it both recomputed over a unit row of another length
    import hashlib

    from cg import snapshot

    p = str(r1)
    assert cli_run(p, "replay").code == 0
    honest = cli_run(p, "roster").out
    db = sqlite3.connect(p)
    (cold,) = db.execute("SELECT state FROM snapshot_cold").fetchone()
    data = orjson.loads(bytes(cold))
    assert data["units"], "the demo's settled units are in the cold part"
    data["units"][0] = [*data["units"][0], "extra"]
    blob = orjson.dumps(data)
    token = hashlib.sha256(blob).hexdigest()[:16]
    (hot,) = db.execute("SELECT state FROM snapshot").fetchone()
    body = orjson.loads(snapshot.unseal(bytes(hot)))
    body["cold"] = token
    db.execute("UPDATE snapshot SET state = ?", (snapshot.seal(orjson.dumps(body)),))
    db.execute("UPDATE snapshot_cold SET token = ?, state = ?", (token, blob))
    db.commit()
    db.close()
    r = cli_run(p, "roster")
    assert r.code == 0 and r.out == honest, r.err


# ---- 4 and 17. output paths -------------------------------------------------------------------------------

def _at_purchase(path) -> str:
    c = Campaign(path, seed=None)
    c.advance(1, "2.3")
    c.close()
    return str(path)


def _bytes(p) -> bytes:
    with open(p, "rb") as fh:
        return fh.read()


def test_export_onto_the_campaign_itself_is_refused_and_the_campaign_stays(workdir):
    p = _at_purchase(workdir / "c.plcg")
    before = _bytes(p)
    for fmt in ("jsonl", "md", "html"):
        r = cli_run(p, "export", "--format", fmt, "-o", p)
        assert r.code == 2 and "is the campaign file" in r.err and len(r.err.splitlines()) == 1, r.err
    assert _bytes(p) == before and cli_run(p, "audit").code == 0
    os.symlink(p, workdir / "alias.plcg")  # the campaign under another name: still the campaign
    os.link(p, workdir / "hard.plcg")
    for other in ("alias.plcg", "hard.plcg"):
        r = cli_run(p, "export", "--format", "md", "-o", workdir / other)
        assert r.code == 2, (other, r.err)
    assert _bytes(p) == before


def test_output_never_goes_through_a_symlink_a_fifo_or_a_device(workdir):
    """A symlink committed to the shared folder (pointing at the victim's campaign or key), a FIFO, a
    device: refused with exit 2 and one line, the victim untouched; a new name and `-` work."""
    p = _at_purchase(workdir / "c.plcg")
    victim = workdir / "victim.txt"
    victim.write_text("the other player's file\n")
    os.symlink(victim, workdir / "shared.md")
    os.mkfifo(workdir / "pipe.md")
    for target, kind in ((workdir / "shared.md", "symbolic link"), (workdir / "pipe.md", "FIFO"),
                         ("/dev/null", "device")):
        for args in (("export", "--format", "md", "-o", target), ("map", "--svg", target),
                     ("keys", "new", "-o", target)):
            r = cli_run(p, *args)
            assert r.code == 2 and kind in r.err and len(r.err.splitlines()) == 1, (args, r.code, r.err)
    assert victim.read_text() == "the other player's file\n"
    assert os.path.islink(workdir / "shared.md") and os.path.exists(workdir / "pipe.md")
    # standard output by `-`, a new name by its name
    r = cli_run(p, "export", "--format", "jsonl", "-o", "-")
    assert r.code == 0 and r.out == cli_run(p, "export", "--format", "jsonl").out
    r = cli_run(p, "map", "--svg", "-")
    assert r.code == 0 and r.out.startswith("<svg")
    assert cli_run(p, "export", "--format", "md", "-o", workdir / "aar.md").code == 0
    assert (workdir / "aar.md").read_text().startswith("#")


def test_a_symlink_planted_at_the_old_temporary_name_is_not_written_through(workdir):
    """The temporary name was `.NAME.PID.tmp`, opened without O_EXCL: a symlink planted there (the PID is
    easy to guess) made the export write into the victim. Now a new name, created exclusively."""
    p = _at_purchase(workdir / "c.plcg")
    victim = workdir / "victim.key"
    victim.write_text("secret\n")
    os.symlink(victim, workdir / f".aar.md.{os.getpid()}.tmp")
    assert cli_run(p, "export", "--format", "md", "-o", workdir / "aar.md").code == 0
    assert victim.read_text() == "secret\n"
    assert not os.path.islink(workdir / "aar.md")


def test_output_onto_a_key_file_or_a_sqlite_file_is_refused(workdir):
    p = _at_purchase(workdir / "c.plcg")
    key = workdir / "me.key"
    assert cli_run(p, "keys", "new", "-o", key).code == 0
    before = _bytes(key)
    r = cli_run(p, "export", "--format", "md", "-o", key)
    assert r.code == 2 and "private key" in r.err
    other = workdir / "other.plcg"
    _at_purchase(other)
    r = cli_run(p, "export", "--format", "md", "-o", other)
    assert r.code == 2 and "SQLite" in r.err
    assert _bytes(key) == before and cli_run(str(other), "audit").code == 0


def test_bundle_onto_a_symlink_to_the_victims_key_is_refused_before_anything_is_signed(workdir):
    from helpers.pbem import Game

    g = Game(workdir, policy="any", sealed=False)
    g.do("axis", "weather")
    victim_key = g.key["allied"]
    before = _bytes(victim_key)
    link = workdir / "latest.bundle"
    os.symlink(victim_key, link)  # committed to the shared repository by the other player
    rows_before = _bytes(g.db["axis"])
    r = g.cli("axis", "bundle", "-o", str(link))
    assert r.code == 2 and "symbolic link" in r.err, r.err
    assert _bytes(victim_key) == before and _bytes(g.db["axis"]) == rows_before
    r = g.cli("axis", "bundle", "-o", g.key["axis"])  # its own key, by --key
    assert r.code == 2 and ("key" in r.err), r.err


# ---- 5. hostile input is bad input ------------------------------------------------------------------------

def test_json_nested_300_deep_in_an_import_is_bad_input(workdir):
    p = _at_purchase(workdir / "c.plcg")
    lines = cli_run(p, "export", "--format", "jsonl").out.splitlines()
    deep = "[" * 300 + "]" * 300
    for where in ("payload", "command"):
        obj = json.loads(lines[1])
        obj[where] = {"x": "DEEP"}
        f = workdir / f"deep-{where}.jsonl"
        f.write_text("\n".join([lines[0], json.dumps(obj).replace('"DEEP"', deep), *lines[2:]]) + "\n")
        r = cli_run(workdir / f"n-{where}.plcg", "import", f)
        assert r.code == 2 and "nested deeper" in r.err and len(r.err.splitlines()) == 1, r.err
        assert not os.path.exists(workdir / f"n-{where}.plcg")


def _bundle_of(p: str, first_payload: str) -> list[str]:
    """The campaign's rows as a bundle, row 1's payload replaced and every hash recomputed (as an
    adversary can: the chain has no key), with canonical JSON written by Python's json."""
    import hashlib

    from events.store import COLUMNS, Store

    s = Store.open(p)
    rows = [list(r) for c in s.read_rows() for r in c]
    s.close()
    rows[0][6] = first_payload
    prev = "0" * 64
    for r in rows:
        rec = {"seq": r[0], "batch": r[1], "type": r[2], "version": r[3], "firefight": r[4], "step": r[5],
               "payload": json.loads(r[6]), "recorded": r[7], "command": None if r[8] is None else json.loads(r[8])}
        text = json.dumps(rec, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        r[9] = prev
        r[10] = prev = hashlib.sha256(prev.encode() + b"\n" + text.encode()).hexdigest()
    head = {"plcg_bundle": 1, "campaign": rows[0][10], "since": 0, "rows": len(rows), "head": [rows[-1][0], rows[-1][10]]}
    return [json.dumps(head)] + [json.dumps(dict(zip(COLUMNS, r))) for r in rows]


@pytest.mark.parametrize("payload", ["[]", '{"card":' + "[" * 300 + "]" * 300 + "}"], ids=["a list", "300 deep"])
def test_a_bundle_with_a_wrong_shaped_or_deep_payload_is_bad_input(workdir, payload):
    p = _at_purchase(workdir / "c.plcg")
    f = workdir / "hostile.bundle"
    f.write_text("\n".join(_bundle_of(p, payload)) + "\n")
    r = cli_run(workdir / "copy.plcg", "receive", f)
    assert r.code == 2 and len(r.err.splitlines()) == 1, (r.code, r.err)
    assert "not a JSON object as plcg writes it" in r.err
    assert not [n for n in os.listdir(workdir) if n.startswith("copy.plcg")]


# ---- 15-18, 20. faults ---------------------------------------------------------------------------------

PLCG = [sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv.pop(1)); import cli; cli.main()", str(ROOT)]


def _fsize(limit: int):
    """A child's file size limit (ulimit -f): a write past it fails with EFBIG (Python ignores SIGXFSZ)."""
    def set_limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return set_limit


def _one_line_exit_2(r) -> None:
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert len(r.stderr.splitlines()) == 1 and r.stderr.startswith("plcg: "), r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("unbuffered", [False, True])
def test_output_to_a_full_disk_is_exit_2_with_one_line(workdir, unbuffered):
    """`log --json > file` on a full disk exited 0 with 8 KB of 63 KB written (PYTHONUNBUFFERED=1), and
    `export --format jsonl > file` exited 5. /dev/full answers every write with ENOSPC."""
    p = _at_purchase(workdir / "c.plcg")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    for args in (("log", "--json"), ("export", "--format", "jsonl"), ("status",), ("audit",)):
        with open("/dev/full", "w") as full:
            r = subprocess.run([*PLCG, "--db", p, *args], stdout=full, stderr=subprocess.PIPE, text=True, env=env)
        _one_line_exit_2(r)
        assert "cannot write the output" in r.stderr and "No space left" in r.stderr


def test_output_past_a_file_size_limit_is_exit_2_and_leaves_no_partial_file(workdir):
    """ulimit -f: standard output and -o files alike; an -o file is whole or not there at all."""
    p = _at_purchase(workdir / "c.plcg")
    with open(workdir / "out.jsonl", "w") as fh:
        r = subprocess.run([*PLCG, "--db", p, "export", "--format", "jsonl"], stdout=fh, stderr=subprocess.PIPE,
                           text=True, preexec_fn=_fsize(4096))
    _one_line_exit_2(r)
    for args, name in ((("export", "--format", "html", "-o"), "aar.html"), (("map", "--svg"), "map.svg"),
                       (("keys", "new", "-o"), "me.key")):
        r = subprocess.run([*PLCG, "--db", p, *args, str(workdir / name)], capture_output=True, text=True,
                           preexec_fn=_fsize(0 if name == "me.key" else 4096))
        _one_line_exit_2(r)
        assert not os.path.exists(workdir / name), name  # no empty key, no partial map or report
    assert sorted(os.listdir(workdir)) == ["c.plcg", "out.jsonl"]


def test_a_closed_pipe_is_exit_2_with_one_line_but_a_finding_stays_1(workdir):
    p = _at_purchase(workdir / "c.plcg")
    cmd = " ".join(f"'{x}'" for x in [*PLCG, "--db", p, "log"]) + " | (exec 0<&-; sleep 0.5); exit ${PIPESTATUS[0]}"
    r = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True)
    _one_line_exit_2(r)
    assert "closed the pipe" in r.stderr


def _blocked_on_its_pipe(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/wchan") as fh:
            return "pipe" in fh.read()
    except OSError:
        return False


@pytest.mark.parametrize("fmt", ["jsonl", "html", "log"])
def test_a_reader_whose_output_nobody_reads_keeps_no_writer_out(workdir, fmt):
    """`export | less` left at its first page held the file, and every writer failed after 5 s (exit 4).
    The reader's pipe is one page; nobody reads it until the writer has run."""
    import fcntl

    p = _at_purchase(workdir / "c.plcg")
    c = Campaign.attach(p)
    for _ in range(150):  # a log longer than the export's 64 kB pieces: written while still being read
        c.run("buy", side="axis", rg="I1")
        c.run("undo", reason="changed my mind")
    c.run("buy", side="axis", rg="I1")
    c.close()
    r_fd, w_fd = os.pipe()
    fcntl.fcntl(w_fd, 1031, 4096)  # F_SETPIPE_SZ: one page, far less than the export
    args = ("log",) if fmt == "log" else ("export", "--format", fmt)
    child = subprocess.Popen([*PLCG, "--db", p, *args], stdout=w_fd, stderr=subprocess.PIPE)
    os.close(w_fd)
    try:
        for _ in range(600):
            if _blocked_on_its_pipe(child.pid) or child.poll() is not None:
                break
            time.sleep(0.05)
        assert child.poll() is None, "the export finished before its pipe filled: make the campaign longer"
        w = subprocess.run([*PLCG, "--db", p, "leader", "axis", "I1"], capture_output=True, text=True, timeout=60)
        assert w.returncode == 0, (w.returncode, w.stderr)
    finally:
        with os.fdopen(r_fd, "rb") as fh:
            out = fh.read()
        child.wait(timeout=60)
    assert child.returncode == 0 and out


def test_a_first_release_wal_file_read_read_only_leaves_nothing_beside_it():
    """A WAL file read where it stays WAL (read-only to the reader, its folder writable) left -wal and -shm
    files (0444) that made every later write fail once the file was writable again."""
    import tempfile
    from pathlib import Path

    from helpers.sandbox import as_nobody

    top = Path(tempfile.mkdtemp(prefix="plcg-wal-"))
    os.chmod(top, 0o755)  # `nobody` reaches it
    folder = top / "shared"
    folder.mkdir()
    os.chmod(folder, 0o777)
    db = folder / "old.plcg"
    shutil.copyfile(ROOT / "tests" / "fixtures" / "campaign-v0.1.plcg", db)
    os.chmod(db, 0o444)

    def read(path):
        r = cli_run(path, "status", "--json")
        return r.code, r.out, r.err

    code, out, err = as_nobody(read, str(db))
    assert code == 0, err
    assert json.loads(out)["firefight"] >= 1
    assert sorted(os.listdir(folder)) == ["old.plcg"]
    os.chmod(db, 0o644)
    c = Campaign.attach(db)  # writable again: a write works (and switches it to the rollback journal)
    c.close()
    shutil.rmtree(top)


def test_sigint_is_one_line_and_130_never_a_traceback_or_1(workdir):
    """SIGINT during start-up printed a KeyboardInterrupt traceback, or exited 1 (the audit's finding
    code, from click's Abort). Sent once the process is inside plcg (its first imports done), at a
    random moment of a read, an audit or a write."""
    p = _at_purchase(workdir / "c.plcg")
    rng = random.Random(25)
    codes = set()
    written = []
    for i in range(12):
        args = (("status",), ("audit",), ("buy", "axis", "I1"))[i % 3]
        db = p
        if args[0] == "buy":  # each buy on its own copy: one that ended before the signal leaves the next valid
            db = workdir / f"buy-{i}.plcg"
            shutil.copyfile(p, db)
            written.append(db)
        child = subprocess.Popen([*PLCG, "--db", db, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                 text=True)
        for _ in range(400):  # until plcg's own start-up runs (orjson is its second import)
            try:
                with open(f"/proc/{child.pid}/maps") as fh:
                    if "orjson" in fh.read():
                        break
            except OSError:
                break
            time.sleep(0.005)
        time.sleep(rng.uniform(0, 0.25))
        child.send_signal(signal.SIGINT)
        err = child.communicate(timeout=60)[1]
        codes.add(child.returncode)
        # -2: the interpreter's teardown (after plcg is done) gives SIGINT its default action back, and the
        # signal ends the process as it ends any program: the shell sees 130 too, and nothing is printed
        assert child.returncode in (0, 130, -signal.SIGINT), (args, child.returncode, err)
        assert "Traceback" not in err and len(err.splitlines()) <= 1, err
        if child.returncode == 130:
            assert "interrupted" in err
    assert 130 in codes
    for db in (p, *written):
        assert cli_run(db, "audit").code == 0


def test_what_a_killed_export_left_is_removed_by_the_next(workdir):
    p = _at_purchase(workdir / "c.plcg")
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    strays = [workdir / f".aar.html.{dead.pid}.tmp", workdir / f".aar.html.out-{dead.pid}-0123abcd"]
    for s in strays:
        s.write_text("half a report")
    rng = random.Random(20)
    for _ in range(4):  # killed at random moments of the export
        child = subprocess.Popen([*PLCG, "--db", p, "export", "--format", "html", "-o", str(workdir / "aar.html")],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.1, 0.8))
        child.kill()
        child.wait()
    r = cli_run(p, "export", "--format", "html", "-o", workdir / "aar.html")
    assert r.code == 0, r.err
    assert sorted(os.listdir(workdir)) == ["aar.html", "c.plcg"]


def test_a_symlink_loop_and_a_dangling_link_are_named_as_such(workdir):
    os.symlink(workdir / "b.plcg", workdir / "a.plcg")
    os.symlink(workdir / "a.plcg", workdir / "b.plcg")
    os.symlink(workdir / "gone.plcg", workdir / "dangling.plcg")
    for args in (("status",), ("next",), ("new", "--card", "sample")):
        r = cli_run(workdir / "a.plcg", *args)
        assert r.code == 2 and "symbolic link in a loop" in r.err and len(r.err.splitlines()) == 1, (args, r.err)
        r = cli_run(workdir / "dangling.plcg", *args)
        assert r.code == 2 and "which does not exist" in r.err and "exists already" not in r.err, (args, r.err)
    assert not os.path.exists(workdir / "gone.plcg")


def test_two_copies_parting_name_a_file_copied_alone_after_a_kill(workdir):
    """Item 19: a file copied alone right after a kill can hold a command the original, opened with its
    hot journal, rolls back; the next command on the original writes another row at that seq. Here
    the copy holds `buy I1` (what the killed command wrote), the original `buy I2` at the same seq:
    `audit --against` names the case and which file is the campaign."""
    p = _at_purchase(workdir / "c.plcg")
    copy = str(workdir / "copied.plcg")
    shutil.copyfile(p, copy)
    assert cli_run(copy, "buy", "axis", "I1").code == 0
    assert cli_run(p, "buy", "axis", "I2").code == 0
    r = cli_run(p, "audit", "--against", copy)
    assert r.code == 1 and "copied alone right after a plcg process was killed" in r.out
    assert "the original, opened once with its -journal beside it, is the campaign" in r.out


def _rows_of(p) -> int:
    con = sqlite3.connect(p)
    try:
        return con.execute("SELECT count(*) FROM events").fetchone()[0]
    finally:
        con.close()


@pytest.mark.parametrize("medium", ["full disk", "closed pipe"])
def test_a_recorded_command_whose_words_cannot_be_written_is_a_warning_never_exit_2(workdir, medium):
    """Issue 37 F3: `undo | true` and `setup > /dev/full` exited 2, "nothing written", after the event was
    recorded: the player ran it again and reverted a second command. Now exit 0 and one warning line that
    says it was recorded; a command that wrote nothing keeps exit 2."""
    p = _at_purchase(workdir / "c.plcg")
    c = Campaign.attach(p)
    c.run("buy", side="axis", rg="I1")
    c.close()
    for args in (("undo", "--reason", "a slip"), ("buy", "axis", "I1")):
        before = _rows_of(p)
        if medium == "full disk":
            with open("/dev/full", "w") as full:
                r = subprocess.run([*PLCG, "--db", p, *args], stdout=full, stderr=subprocess.PIPE, text=True)
        else:
            cmd = " ".join(f"'{x}'" for x in [*PLCG, "--db", p, *args]) + " | (exec 0<&-; sleep 0.5); exit ${PIPESTATUS[0]}"
            r = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True)
        assert _rows_of(p) > before  # recorded
        assert r.returncode == 0, r.stderr
        assert len(r.stderr.splitlines()) == 1, r.stderr
        assert r.stderr.startswith("plcg: warning: cannot write the output")
        assert f"recorded, up to seq {_rows_of(p)}" in r.stderr
    with open("/dev/full", "w") as full:  # a read that fails writes nothing: exit 2 as before
        r = subprocess.run([*PLCG, "--db", p, "status"], stdout=full, stderr=subprocess.PIPE, text=True)
    _one_line_exit_2(r)


@pytest.mark.parametrize("command", ["sync", "setup"])
def test_sync_and_setup_to_a_full_disk_after_their_rows_are_recorded_are_a_warning_never_exit_2(workdir, command):
    """Issue 37 F3 (15 of 15): `sync` to a full disk exited 2, "nothing written", after it had taken the other
    player's bundle in (and `setup > /dev/full` after the setup was recorded): run again, the player's copy was
    already past it. Both are exit 0 and one warning line naming the seq recorded."""
    from helpers.pbem import Game

    g = Game(workdir, policy=None, sealed=False)
    g.play_to(1, "2.6", plan={(1, "2.3"): [("axis", ["buy", "axis", "I1", "--mode", "on-map"])]})
    if g.holder != "axis":
        g.send(g.holder)
    setup = ("setup", "axis", "I1-1.1", "M5")
    side, args = "axis", setup
    if command == "sync":  # the Axis setup sent through a folder; the Allied sync takes it in
        box = workdir / "box"
        box.mkdir()
        assert g.cli("axis", *setup).code == 0
        assert g.cli("axis", "sync", "--folder", str(box), "--send").code == 0
        side, args = "allied", ("sync", "--folder", str(box))
    p = g.db[side]
    before = _rows_of(p)
    with open("/dev/full", "w") as full:
        r = subprocess.run([*PLCG, "--db", p, "--key", g.key[side], *args], stdout=full, stderr=subprocess.PIPE,
                           text=True)
    assert _rows_of(p) > before  # recorded
    assert r.returncode == 0, r.stderr
    assert len(r.stderr.splitlines()) == 1 and r.stderr.startswith("plcg: warning: cannot write the output"), r.stderr
    assert f"recorded, up to seq {_rows_of(p)}" in r.stderr
