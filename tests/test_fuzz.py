"""Fuzzing (the issue's item 6): the CG Card loader and the JSON Lines importer, for a bounded time.

hypothesis throws mutated cards (structure: keys dropped, values of every type swapped in, unknown
keys; text: bytes cut, doubled, replaced) and mutated exported logs (lines dropped, doubled, swapped,
cut short, edited anywhere, garbage) at them. The only outcomes allowed: the input is accepted, or
it is refused as bad input (BadInput, exit 2). Anything else (another exception, another exit code)
is a crash. What is accepted must be right: an accepted card round-trips and starts a campaign that
audits clean; an accepted log is the original log, or a prefix of it that ends on a whole command.

PLCG_FUZZ_EXAMPLES scales the number of examples (default 150 per test; CI keeps the default).
"""
from __future__ import annotations

import copy
import datetime
import os
import shutil
import tempfile
import tomllib
from pathlib import Path

import orjson
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from helpers.campaigns import ROOT, template

import cli
from cg.card import card_to_dict
from cg.card_schema import load_card, parse_card
from events.errors import BadInput
from cg.app.ledger import Ledger
from cg.app.audit import run_audit
from projections.digest import digest

EXAMPLES = int(os.environ.get("PLCG_FUZZ_EXAMPLES", "150"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.filter_too_much])
CLI_FUZZ = settings(FUZZ, max_examples=max(10, EXAMPLES // 5))

SAMPLE_TEXT = (Path(ROOT) / "cg" / "cards" / "sample.toml").read_text(encoding="utf-8")
SAMPLE = tomllib.loads(SAMPLE_TEXT)


# ---- values of every kind TOML can hold (and a few it cannot) ------------------------------------------

scalars = (st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.integers(-3, 120)
           | st.floats(allow_nan=True) | st.text(max_size=12) | st.sampled_from(["", "axis", "allied", "A-P", "C3",
                                                                               "Z99", "1944-07-14", "day", "night",
                                                                               "low", "high", "I1", "3x 4-6-7"])
           | st.dates() | st.datetimes() | st.times())
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=8)


def _paths(obj, prefix=()):
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _paths(v, prefix + (i,))


CARD_PATHS = [p for p in _paths(SAMPLE) if p]


def _parent(obj, path):
    for k in path[:-1]:
        obj = obj[k]
    return obj


@st.composite
def mutated_cards(draw):
    data = copy.deepcopy(SAMPLE)
    for _ in range(draw(st.integers(1, 4))):
        path = draw(st.sampled_from(CARD_PATHS))
        try:
            parent = _parent(data, path)
            parent[path[-1]]
        except (KeyError, IndexError, TypeError):
            continue
        op = draw(st.sampled_from(["replace", "delete", "unknown key", "wrap", "double"]))
        if op == "replace":
            parent[path[-1]] = draw(values)
        elif op == "delete":
            del parent[path[-1]]
        elif op == "unknown key" and isinstance(parent, dict):
            parent[draw(st.text(min_size=1, max_size=8))] = draw(values)
        elif op == "wrap":
            parent[path[-1]] = [parent[path[-1]]]
        elif op == "double" and isinstance(parent, list):
            parent.insert(path[-1], copy.deepcopy(parent[path[-1]]))
    return data


@st.composite
def mutated_texts(draw, text: str):
    """Text cut, doubled, replaced or filled with garbage at random places; sometimes raw bytes."""
    data = text.encode()
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(data)))
        j = draw(st.integers(i, min(len(data), i + 200)))
        op = draw(st.sampled_from(["cut", "double", "replace", "insert", "truncate"]))
        if op == "cut":
            data = data[:i] + data[j:]
        elif op == "double":
            data = data[:j] + data[i:j] + data[j:]
        elif op == "replace":
            data = data[:i] + draw(st.binary(min_size=1, max_size=8)) + data[j:]
        elif op == "insert":
            data = data[:i] + draw(st.sampled_from([b"=", b"[", b"]]", b"\"", b"\n", b"[[sides.axis.rg]]\n",
                                                    b"\xff\xfe", b"\x00", b"id = \"I1\"\n", b"{", b"#"])) + data[i:]
        else:
            data = data[:i]
    return data


# ---- the card loader -------------------------------------------------------------------------------------

@FUZZ
@given(mutated_cards())
def test_fuzzed_card_structures_are_accepted_or_bad_input_never_a_crash(data):
    try:
        card = parse_card(data, source="fuzz")
    except BadInput as e:
        event("refused")
        assert str(e).startswith("card fuzz has") and e.problems
        assert all(isinstance(p, str) and isinstance(w, str) for p, w in e.problems)
        return
    event("accepted")
    assert parse_card(card_to_dict(card)) == card  # what is accepted round-trips


@FUZZ
@given(mutated_texts(SAMPLE_TEXT))
def test_fuzzed_card_files_are_accepted_or_bad_input_never_a_crash(data):
    d = tempfile.mkdtemp(prefix="plcg-fuzz-card-")
    try:
        path = os.path.join(d, "card.toml")
        Path(path).write_bytes(data)
        try:
            card = load_card(path)
        except BadInput as e:
            assert str(e).strip()
            return
        assert parse_card(card_to_dict(card)) == card
    finally:
        shutil.rmtree(d)


@CLI_FUZZ
@given(mutated_texts(SAMPLE_TEXT))
def test_plcg_new_with_a_fuzzed_card_exits_0_or_2_and_an_accepted_card_makes_a_sound_campaign(data):
    from click.testing import CliRunner

    d = tempfile.mkdtemp(prefix="plcg-fuzz-new-")
    try:
        card = os.path.join(d, "card.toml")
        db = os.path.join(d, "c.plcg")
        Path(card).write_bytes(data)
        r = CliRunner().invoke(cli.main, ["--db", db, "new", "--card", card, "--seed", "fuzz"])
        assert r.exit_code in (0, 2), (r.exit_code, r.stderr, r.exception)
        assert r.stderr.startswith("plcg: ") if r.exit_code else r.stderr == ""
        if r.exit_code == 2:
            assert not os.path.exists(db)
            return
        for args in (["status", "--json"], ["next"], ["audit"]):
            r = CliRunner().invoke(cli.main, ["--db", db, *args])
            assert r.exit_code in (0, 3), (args, r.exit_code, r.stderr, r.exception)
    finally:
        shutil.rmtree(d)


# ---- the JSON Lines importer -----------------------------------------------------------------------------

_BASE: dict = {}


def base() -> dict:
    """The exported log of a campaign through its first RePh, with its events and digests by prefix."""
    if not _BASE:
        from projections.aar import export

        led = Ledger(template("3.44"))
        try:
            text = export(led, "jsonl")
            rows = list(led.store.read())
            _BASE.update(text=text, lines=text.splitlines(), hashes=[r.hash for r in rows],
                         batches=[r.batch for r in rows])
        finally:
            led.close()
    return _BASE


def _edit(obj, draw):
    """Set one value anywhere in a parsed line to something else."""
    paths = [p for p in _paths(obj) if p]
    path = draw(st.sampled_from(paths))
    parent = _parent(obj, path)
    parent[path[-1]] = draw(values.map(_jsonable))
    return obj


def _jsonable(v):
    if isinstance(v, (datetime.date, datetime.time, datetime.datetime)):
        return v.isoformat()
    if isinstance(v, float) and v != v:
        return None
    if isinstance(v, list):
        return [_jsonable(x) for x in v]
    if isinstance(v, dict):
        return {k: _jsonable(x) for k, x in v.items()}
    return v


@st.composite
def mutated_logs(draw):
    lines = list(base()["lines"])
    for _ in range(draw(st.integers(1, 3))):
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(["drop", "double", "swap", "edit", "edit", "edit", "char", "garbage", "prefix",
                                   "reorder keys", "spaces"]))
        if op == "drop":
            del lines[i]
        elif op == "double":
            lines.insert(i, lines[i])
        elif op == "swap" and i + 1 < len(lines):
            lines[i], lines[i + 1] = lines[i + 1], lines[i]
        elif op == "edit":
            try:
                lines[i] = orjson.dumps(_edit(orjson.loads(lines[i]), draw)).decode()
            except (orjson.JSONDecodeError, orjson.JSONEncodeError):
                pass
        elif op == "char" and lines[i]:
            j = draw(st.integers(0, len(lines[i]) - 1))
            lines[i] = lines[i][:j] + draw(st.characters()) + lines[i][j + 1:]
        elif op == "garbage":
            lines.insert(i, draw(st.text(max_size=40)))
        elif op == "prefix":
            lines = lines[:i]
        elif op == "reorder keys":  # the same event written another way: still the same event
            try:
                obj = orjson.loads(lines[i])
                lines[i] = orjson.dumps(dict(reversed(list(obj.items())))).decode()
            except orjson.JSONDecodeError:
                pass
        elif op == "spaces":
            lines[i] = " " + lines[i].replace(",", ", ") + " "
    text = "\n".join(lines) + draw(st.sampled_from(["\n", "", "\n\n", "\r\n"]))
    data = text.encode("utf-8", "surrogatepass")
    if draw(st.integers(0, 9)) == 0:  # cut anywhere, even inside a character
        data = data[: draw(st.integers(0, len(data)))]
    return data


def _check_import(data: bytes, run) -> None:
    """run(file, db) imports; accepted means: the original log, or a prefix of it ending on a whole batch."""
    b = base()
    d = tempfile.mkdtemp(prefix="plcg-fuzz-import-")
    try:
        log = os.path.join(d, "log.jsonl")
        db = os.path.join(d, "c.plcg")
        Path(log).write_bytes(data)
        accepted = run(log, db)
        event("accepted" if accepted else "refused")
        if not accepted:
            assert os.listdir(d) == ["log.jsonl"], f"a refused import left {os.listdir(d)}"
            return
        led = Ledger(db)
        try:
            rows = list(led.store.read())
            n = len(rows)
            assert n >= 1 and [r.hash for r in rows] == b["hashes"][:n], "the import accepted an altered log"
            assert n == len(b["hashes"]) or b["batches"][n] == n + 1, f"the import kept half of batch {b['batches'][n]}"
            assert run_audit(led)["findings"] == []
            original = Ledger(template("3.44"))
            try:
                assert digest(led.state(use_snapshot=False)) == digest(original.state(at=n))
            finally:
                original.close()
        finally:
            led.close()
    finally:
        shutil.rmtree(d)


def _import_api(log: str, db: str) -> bool:
    from projections.transfer import import_jsonl

    try:
        n = import_jsonl(log, db)
    except BadInput as e:
        assert str(e).strip() and "\n" not in str(e).strip()
        assert not os.path.exists(db)
        return False
    assert isinstance(n, int) and n >= 1
    return True


def _import_cli(log: str, db: str) -> bool:
    from click.testing import CliRunner

    r = CliRunner().invoke(cli.main, ["--db", db, "import", log])
    assert r.exit_code in (0, 2), (r.exit_code, r.stderr, r.exception)
    if r.exit_code == 2:
        assert r.stdout == "" and r.stderr.startswith("plcg: ") and len(r.stderr.strip().splitlines()) == 1
        return False
    return True


@FUZZ
@given(mutated_logs())
def test_fuzzed_json_lines_imports_are_the_original_or_bad_input_never_a_crash(data):
    _check_import(data, _import_api)


@FUZZ
@given(st.binary(max_size=2000) | st.text(max_size=400).map(lambda s: s.encode("utf-8", "surrogatepass")))
def test_random_bytes_imported_are_bad_input_never_a_crash(data):
    _check_import(data, _import_api)


@CLI_FUZZ
@given(mutated_logs())
def test_plcg_import_of_a_fuzzed_log_exits_0_or_2(data):
    _check_import(data, _import_cli)
