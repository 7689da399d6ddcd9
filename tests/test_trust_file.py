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
