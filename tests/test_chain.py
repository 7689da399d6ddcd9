"""events/chain.py: the hash chain checked row by row, the fast way (the stored texts spliced into the
record) and the original way (the record as parsed) agreeing on every row; the audit's single pass
reports what verify_chain reports."""
from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cg.app.demo import play
from cg.app.ledger import Ledger
from events.chain import ChainCheck, hashed_bytes
from events.codec import GENESIS, chain_hash, chain_record, dumps, loads
from events.store import COLUMNS, NewEvent, Store
from cg.app.audit import run_audit

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**63, 2**63 - 1) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(seq=st.integers(1, 2**62), batch=st.integers(1, 2**62), type_=st.text(), version=st.integers(0, 99),
       ff=st.integers(0, 999), step=st.text(), payload=st.dictionaries(st.text(max_size=8), json_values, max_size=5),
       recorded=st.text(), command=st.none() | st.dictionaries(st.text(max_size=8), json_values, max_size=5),
       link=st.text(min_size=1))
def test_the_spliced_record_is_what_chain_hash_hashes(seq, batch, type_, version, ff, step, payload, recorded,
                                                       command, link):
    text, command_text = dumps(payload), None if command is None else dumps(command)
    data = hashed_bytes(link, seq, batch, type_, version, ff, step, text, recorded, command_text)
    record = chain_record(seq, batch, type_, version, ff, step, loads(text), recorded,
                          None if command_text is None else loads(command_text))
    assert hashlib.sha256(data).hexdigest() == chain_hash(link, record)


@pytest.mark.parametrize("column, value", [("seq", 1.0), ("batch", "1"), ("version", True), ("firefight", None),
                                           ("step", 3), ("type", b"x"), ("recorded", None), ("payload", b"{}"),
                                           ("command", 1), ("link", None)])
def test_a_column_the_splice_does_not_handle_goes_the_original_way(column, value):
    args = {"link": GENESIS, "seq": 1, "batch": 1, "type": "t", "version": 1, "firefight": 1, "step": "2.1",
            "payload": "{}", "recorded": "2024-01-01T00:00:00Z", "command": None}
    assert hashed_bytes(*args.values()) is not None
    args[column] = value
    assert hashed_bytes(*args.values()) is None


# ---- a file tampered with ----------------------------------------------------------------------

def _filled(path: str) -> None:
    with Store.create(path, {"card": "c"}) as s:
        seq = 0
        for n in range(6):
            out = s.append(seq, [NewEvent(type="Thing", version=1, payload={"i": n, "é": "ü\n", "k": [n, n / 2]},
                                          firefight=1, step="2.1")], command={"name": "x", "n": n})
            seq = out[-1].seq


def _rehash(path: str, seq: int, spliced: bool) -> None:
    """Recompute row seq's hash over its contents as stored: as a forger who knows the chain would
    (the record as parsed), or over the stored texts as they stand (`spliced`)."""
    c = sqlite3.connect(path)
    r = dict(zip(COLUMNS, c.execute(f"SELECT {', '.join(COLUMNS)} FROM events WHERE seq = ?", (seq,)).fetchone()))
    if spliced:
        h = hashlib.sha256(hashed_bytes(r["prev_hash"], r["seq"], r["batch"], r["type"], r["version"],
                                        r["firefight"], r["step"], r["payload"], r["recorded"],
                                        r["command"])).hexdigest()
    else:
        h = chain_hash(r["prev_hash"], chain_record(r["seq"], r["batch"], r["type"], r["version"], r["firefight"],
                                                    r["step"], loads(r["payload"]), r["recorded"],
                                                    None if r["command"] is None else loads(r["command"])))
    c.execute("UPDATE events SET hash = ? WHERE seq = ?", (h, seq))
    c.commit()
    c.close()


def _respell(path: str, seq: int, column: str) -> None:
    """The same JSON value in another spelling (json's spaces and ASCII escapes): not canonical."""
    c = sqlite3.connect(path)
    text = c.execute(f"SELECT {column} FROM events WHERE seq = ?", (seq,)).fetchone()[0]
    c.execute(f"UPDATE events SET {column} = ? WHERE seq = ?", (json.dumps(loads(text)), seq))
    c.commit()
    c.close()


def _original_way(path: str) -> list[tuple[int, str]]:
    """verify_chain as it was: every row parsed, its record hashed, then its texts re-serialised."""
    problems = []
    with Store.open(path) as s:
        check = ChainCheck.of(s)
        for row in (r for c in s.read_rows() for r in c):
            seq, batch, type_, version, ff, step, payload, recorded, command, link, h = row
            before = len(check.problems)
            check._check_parsed(seq, batch, type_, version, ff, step, payload, recorded, command, link, h)
            problems += check.problems[before:]
    return problems


@pytest.mark.parametrize("column", ["payload", "command"])
@pytest.mark.parametrize("spliced", [False, True])
def test_a_non_canonical_text_is_reported_however_its_hash_was_made(tmp_path, column, spliced):
    path = str(tmp_path / "c.plcg")
    _filled(path)
    _respell(path, 3, column)
    _rehash(path, 3, spliced)
    with Store.open(path) as s:
        found = s.verify_chain()
    what = "its hash does not match its contents" if spliced else "its JSON is not in canonical form"
    assert found[0] == (3, f"row 3 was edited: {what}")  # as the original way says
    assert found[:1] == _original_way(path)
    # respelled, the value hashes as it did: only a hash over the new spelling breaks the next link
    assert [seq for seq, _ in found] == ([3, 4] if spliced else [3])


def test_an_untouched_file_is_proven_the_fast_way(tmp_path, monkeypatch):
    path = str(tmp_path / "c.plcg")
    _filled(path)

    def slow(*a, **k):
        raise AssertionError("a well-formed row took the slow way")

    monkeypatch.setattr(ChainCheck, "_check_parsed", slow)
    with Store.open(path) as s:
        assert s.verify_chain() == []


@pytest.fixture(scope="module")
def campaign(tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("chain") / "c.plcg")
    play(path, echo=lambda s: None)
    return path


def test_the_audit_reports_the_chain_as_verify_chain_does(campaign, tmp_path):
    db = str(tmp_path / "t.plcg")
    shutil.copyfile(campaign, db)
    _respell(db, 10, "payload")
    _rehash(db, 10, spliced=True)
    _respell(db, 20, "command")
    _rehash(db, 20, spliced=False)
    c = sqlite3.connect(db)
    c.execute("UPDATE events SET recorded = 'edited' WHERE seq = 30")
    c.execute("DELETE FROM events WHERE seq = 40")
    c.commit()
    c.close()
    with Store.open(db) as s:
        expected = s.verify_chain()
    assert {10, 20, 30, 40} <= {seq for seq, _ in expected}
    led = Ledger(db)
    try:
        report = run_audit(led)
    finally:
        led.close()
    assert [(f["seq"], f["what"]) for f in report["findings"] if f["rule"] == "chain"] == expected
