"""`plcg export --format jsonl` and `plcg import FILE`: the log travels as JSON Lines and comes back
as the same campaign (same rows, same hashes, same replay digest), or not at all."""
from __future__ import annotations

import os

import orjson
import pytest

import cli
from cg.app.demo import play
from conftest import Campaign, cli_run
from events.codec import GENESIS, chain_hash, dumps
from events.store import Store
from cg.app.audit import run_audit
from projections.digest import digest
from projections.transfer import KEYS, import_jsonl


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    d = tmp_path_factory.mktemp("transfer")
    path = str(d / "demo.plcg")
    play(path, echo=lambda _line: None)
    out = d / "demo.jsonl"
    r = cli_run(path, "export", "--format", "jsonl", "-o", str(out))
    assert r.code == 0, r.err
    return {"path": path, "jsonl": str(out), "text": out.read_text(encoding="utf-8")}


def _rows(path: str) -> list:
    with Store.open(path) as s:
        return list(s.read())


def _digest(path: str) -> str:
    led = cli.Ledger(path)
    try:
        return digest(led.state(use_snapshot=False))["digest"]
    finally:
        led.close()


def _lines(text: str) -> list[dict]:
    return [orjson.loads(x) for x in text.splitlines()]


def _write(path, lines: list) -> str:
    """Lines as given: dicts are written canonically, str as they are."""
    with open(path, "w", encoding="utf-8") as fh:
        for x in lines:
            fh.write((x if isinstance(x, str) else dumps(x)) + "\n")
    return str(path)


def _files(directory) -> set[str]:
    return set(os.listdir(directory))


# ---- export ------------------------------------------------------------------------------------------

def test_export_is_one_canonical_object_per_event_with_every_hashed_column(demo):
    rows = _rows(demo["path"])
    lines = demo["text"].splitlines()
    assert len(lines) == len(rows) > 100
    for line, r in zip(lines, rows):
        obj = orjson.loads(line)
        assert tuple(sorted(obj)) == tuple(sorted(KEYS))
        assert dumps(obj) == line  # canonical: sorted keys, no spaces
        assert (obj["seq"], obj["batch"], obj["type"], obj["hash"], obj["payload"], obj["command"]) == \
               (r.seq, r.batch, r.type, r.hash, r.payload, r.command)
    # the chain can be checked from the file alone
    prev = GENESIS
    for obj in _lines(demo["text"]):
        record = {k: obj[k] for k in KEYS if k != "hash"}
        assert chain_hash(prev, record) == obj["hash"]
        prev = obj["hash"]


# ---- import: the same campaign -----------------------------------------------------------------------

def test_import_of_an_export_gives_the_same_rows_hashes_and_digest(demo, tmp_path):
    new = str(tmp_path / "copy.plcg")
    r = cli_run(new, "import", demo["jsonl"])
    assert r.code == 0, r.err
    assert f"imported {len(_rows(demo['path']))} events" in r.out
    assert _rows(new) == _rows(demo["path"])  # every column, the hash included
    assert _digest(new) == _digest(demo["path"])
    led = cli.Ledger(new)
    try:
        assert run_audit(led)["findings"] == []
    finally:
        led.close()
    # and it exports to the very same bytes
    r = cli_run(new, "export", "--format", "jsonl")
    assert r.code == 0 and r.out == demo["text"]
    # nothing else left in the directory
    assert _files(tmp_path) <= {"copy.plcg", "copy.plcg-wal", "copy.plcg-shm"}
    # and the imported campaign goes on like the original: replay agrees
    r1, r2 = cli_run(new, "replay", "--json"), cli_run(demo["path"], "replay", "--json")
    assert r1.code == r2.code == 0 and orjson.loads(r1.out)["digest"] == orjson.loads(r2.out)["digest"]


def test_import_keeps_undos_and_the_campaign_can_go_on(tmp_path):
    c = Campaign(tmp_path / "u.plcg", seed="transfer", plan={1: {"buy": [("axis", "I1"), ("allied", "I2")]}})
    try:
        c.advance(1, "2.4")
        c.run("undo", reason="meant to buy more")
        c.run("buy", side="axis", rg="HW1", mode="entry")
    finally:
        c.close()
    exported = tmp_path / "u.jsonl"
    assert cli_run(c.path, "export", "--format", "jsonl", "-o", str(exported)).code == 0
    new = str(tmp_path / "v.plcg")
    n = import_jsonl(str(exported), new)
    assert n == len(_rows(c.path))
    assert _rows(new) == _rows(c.path)
    assert _digest(new) == _digest(c.path)
    assert any(r.type == "reverted" for r in _rows(new))
    # the imported file is a working campaign: the next command is appended and chains on
    r = cli_run(new, "buy", "allied", "HW1")
    assert r.code == 0, r.err
    assert cli_run(new, "audit").code == 0


# ---- import: refused, nothing written ----------------------------------------------------------------

def _refused(tmp_path, source: str, expect: str) -> str:
    target = tmp_path / "target" / "new.plcg"
    target.parent.mkdir(exist_ok=True)
    r = cli_run(str(target), "import", source)
    assert r.code == 2, (r.code, r.out, r.err)
    lines = r.err.strip().splitlines()
    assert len(lines) == 1, r.err
    assert expect in lines[0], lines[0]
    assert "Traceback" not in r.err
    assert _files(target.parent) == set(), _files(target.parent)  # no db, no half-made file
    return lines[0]


def _roll_line(lines: list[dict]) -> int:
    """Index of the first line whose payload holds a roll of two dice."""
    return next(i for i, o in enumerate(lines) if isinstance(o["payload"].get("roll"), dict)
                and len(o["payload"]["roll"]["dice"]) == 2)


def test_a_changed_die_is_refused_as_an_altered_log(demo, tmp_path):
    lines = _lines(demo["text"])
    i = _roll_line(lines)
    roll = lines[i]["payload"]["roll"]
    roll["dice"][0] = 1 if roll["dice"][0] != 1 else 2
    src = _write(tmp_path / "tampered.jsonl", lines)
    msg = _refused(tmp_path, src, f"line {i + 1} (seq {lines[i]['seq']}): hash does not match — the log was altered")
    assert msg.startswith("plcg: ")


def test_a_forged_log_with_every_hash_recomputed_is_refused_by_the_audit(demo, tmp_path):
    lines = _lines(demo["text"])
    i = _roll_line(lines)
    roll = lines[i]["payload"]["roll"]
    roll["dice"] = [6, 6] if roll["dice"] != [6, 6] else [1, 1]
    prev = GENESIS
    for o in lines:  # a forger who knows the chain recomputes every hash
        o["hash"] = chain_hash(prev, {k: o[k] for k in KEYS if k != "hash"})
        prev = o["hash"]
    src = _write(tmp_path / "forged.jsonl", lines)
    _refused(tmp_path, src, "audit finding at seq")


def test_importing_over_an_existing_file_is_refused_and_leaves_it_alone(demo, tmp_path):
    target = tmp_path / "there.plcg"
    target.write_bytes(b"precious")
    r = cli_run(str(target), "import", demo["jsonl"])
    assert r.code == 2 and "exists" in r.err and len(r.err.strip().splitlines()) == 1
    assert target.read_bytes() == b"precious"
    assert _files(tmp_path) == {"there.plcg"}


@pytest.mark.parametrize("case", ["truncated", "garbage", "duplicate", "missing", "out_of_order", "empty",
                                  "blank_only", "not_an_object", "missing_key", "bad_batch", "not_utf8",
                                  "no_start", "no_file"])
def test_malformed_files_are_refused_naming_the_line(demo, tmp_path, case):
    text = demo["text"]
    raw = text.splitlines()
    src = tmp_path / f"{case}.jsonl"
    if case == "truncated":  # the copy stopped mid-line
        src.write_text("\n".join(raw[:-1]) + "\n" + raw[-1][: len(raw[-1]) // 2], encoding="utf-8")
        expect = f"line {len(raw)}: truncated"
    elif case == "garbage":
        src.write_text("\n".join(raw[:10] + ["hello, world"] + raw[10:]) + "\n", encoding="utf-8")
        expect = "line 11: not JSON"
    elif case == "duplicate":
        src.write_text("\n".join(raw[:20] + [raw[19]] + raw[20:]) + "\n", encoding="utf-8")
        expect = "line 21: seq 20 again (line 20 holds it)"
    elif case == "missing":
        src.write_text("\n".join(raw[:30] + raw[31:]) + "\n", encoding="utf-8")
        expect = "line 31: seq 32 after seq 30 (seq 31 missing)"
    elif case == "out_of_order":
        src.write_text("\n".join(raw[:40] + [raw[41], raw[40]] + raw[42:]) + "\n", encoding="utf-8")
        expect = "line 41: seq 42 after seq 40 (seq 41 missing)"
    elif case == "empty":
        src.write_text("", encoding="utf-8")
        expect = "is empty"
    elif case == "blank_only":
        src.write_text("\n\n  \n", encoding="utf-8")
        expect = "is empty"
    elif case == "not_an_object":
        src.write_text("\n".join(raw[:5] + ["[1, 2, 3]"] + raw[5:]) + "\n", encoding="utf-8")
        expect = "line 6: not a JSON object"
    elif case == "missing_key":
        obj = orjson.loads(raw[7])
        del obj["hash"]
        src.write_text("\n".join(raw[:7] + [dumps(obj)] + raw[8:]) + "\n", encoding="utf-8")
        expect = "line 8: missing hash"
    elif case == "bad_batch":
        lines = _lines(text)
        j = next(k for k in range(1, len(lines)) if lines[k]["batch"] != lines[k]["seq"])
        lines[j]["batch"] = lines[j]["seq"] + 5
        _write(src, lines)
        expect = f"line {j + 1} (seq {lines[j]['seq']}): batch"
    elif case == "not_utf8":
        src.write_bytes(text.encode()[:200] + b"\xff\xfe" + text.encode()[200:])
        expect = "line 1: not UTF-8"
    elif case == "no_start":
        src.write_text("\n".join(raw[1:]) + "\n", encoding="utf-8")
        expect = "line 1: seq 2 after seq 0 (seq 1 missing)"
    else:  # no_file
        src = tmp_path / "nowhere.jsonl"
        expect = "no such file"
    msg = _refused(tmp_path, str(src), expect)
    if case not in ("empty", "blank_only", "no_file"):  # a file with lines names the line at fault
        assert "line" in msg
