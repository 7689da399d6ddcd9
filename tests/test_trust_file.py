"""Nothing bends, round three (issue 25, items 1-5 and 15-20): the audit compares everything, the output
paths and the faults are hostile. Each test is an attack an adversary (or a full disk, a closed pipe, a
kill) makes, and what the ledger does about it; the README's promises say which holds and what only a
witness or the other copy can catch.
"""
from __future__ import annotations

import json
import os
import sqlite3

import orjson
import pytest

from conftest import Campaign, cli_run
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
    rechain(p, "UPDATE events SET payload = json_set(payload, '$.roll.source', 'typed', '$.unit.name', '10-2')"
               " WHERE type = 'leader_rolled'")
    r = cli_run(p, "audit")
    assert r.code == 1
    assert f"FINDING seq {seq}" in r.out and "roll.source recorded 'typed', the command gives 'ledger'" in r.out
    assert "unit recorded" in r.out and "10-2" in r.out
    log = workdir / "log.jsonl"
    log.write_text(cli_run(p, "export", "--format", "jsonl").out)
    imp = cli_run(str(workdir / "imported.plcg"), "import", str(log))
    assert imp.code != 0 and not os.path.exists(workdir / "imported.plcg")


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
    rows = [list(r) for r in s.rows_for_audit()]
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
