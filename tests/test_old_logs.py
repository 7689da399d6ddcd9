"""Old logs (the issue's item 5): a campaign written by this release stays readable by every later one.

tests/fixtures/campaign-v0.1.plcg was written by plcg 0.1.0 (tests/fixtures/README.md says how) and is
committed as written; these tests replay and audit it and compare with what 0.1.0 said about it.
Event classes carry a schema version; an older stored version is brought up to date by upcasters.
"""
from __future__ import annotations

import hashlib
import json
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from helpers.campaigns import ROOT
from helpers.sandbox import rechain

import cli
from events.errors import BadInput
from cg.app.ledger import Ledger
from cg.rules import CURRENT
from events import upcasters
from events.store import FORMAT
from events.types import REGISTRY
from events.versions import VERSIONS
from cg.app.audit import run_audit
from projections.digest import canonical_state, digest

FIXTURES = Path(__file__).parent / "fixtures"
OLD = sorted(FIXTURES.glob("campaign-*.plcg"))


@pytest.fixture
def v01(tmp_path) -> str:
    """A copy of the 0.1 fixture (opening a WAL-mode file makes side files: keep them out of git)."""
    dst = tmp_path / "campaign-v0.1.plcg"
    shutil.copyfile(FIXTURES / "campaign-v0.1.plcg", dst)
    return str(dst)


def expected(plcg: Path) -> dict:
    return json.loads(plcg.with_suffix(".digest").read_text(encoding="utf-8"))


def restrict(new, old, path: str = "state"):
    """`new` cut down to the fields `old` has: a later release may add state fields, never change one.
    A unit is stored as a row (Unit's fields in order): new fields are added at its end and cut here."""
    if isinstance(old, dict) and isinstance(new, dict):
        return {k: restrict(new[k], v, f"{path}.{k}") for k, v in old.items() if k in new}
    if path == "state.units[]" and isinstance(old, list) and isinstance(new, list):
        return new[:len(old)]
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        inner = f"{path}[]" if path == "state.units" else path
        return [restrict(n, o, inner) for n, o in zip(new, old)]
    return new


def differences(new, old, path: str = "state") -> list[str]:
    if isinstance(old, dict) and isinstance(new, dict):
        out = [f"{path}.{k}: gone" for k in old if k not in new]
        for k in old:
            if k in new:
                out += differences(new[k], old[k], f"{path}.{k}")
        return out
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [d for i, (n, o) in enumerate(zip(new, old)) for d in differences(n, o, f"{path}[{i}]")]
    return [] if new == old else [f"{path}: {str(old)[:80]} -> {str(new)[:80]}"]


def digest_as_recorded(st, want: dict) -> str:
    """The replay digest over the fields of the state the old release knew (its `state` in .digest)."""
    now = orjson.loads(canonical_state(st))
    cut = restrict(now, want["state"])
    return hashlib.sha256(orjson.dumps(cut, option=orjson.OPT_SORT_KEYS)).hexdigest()


def test_the_fixtures_are_committed_whole():
    assert {"campaign-v0.1.plcg", "campaign-r1.plcg"} <= {p.name for p in OLD}
    for p in OLD:
        assert p.with_suffix(".digest").is_file()
        assert not Path(str(p) + "-wal").exists(), "a fixture must hold its whole campaign, no WAL beside it"
        assert p.read_bytes()[:16] == b"SQLite format 3\0"


@pytest.mark.parametrize("plcg", OLD, ids=[p.name for p in OLD])
def test_every_old_campaign_file_replays_to_its_recorded_digest_and_audits_as_it_did(plcg, tmp_path):
    want = expected(plcg)
    path = str(tmp_path / plcg.name)
    shutil.copyfile(plcg, path)
    led = Ledger(path)
    try:
        assert led.store.head() == (want["events"], want["head_hash"])
        assert led.store.verify_chain() == []
        st = led.state(use_snapshot=False)
        replayed = digest(st)
        assert replayed["headline"] == want["headline"]
        assert digest_as_recorded(st, want) == want["digest"], differences(orjson.loads(canonical_state(st)),
                                                                          want["state"])
        assert digest(led.state()) == replayed  # the snapshot stored by the old release, or a refold
        report = run_audit(led)
        assert report["findings"] == want["audit"]["findings"] == []
        assert report["notes"] == want["audit"]["notes"]
        assert report["events"] == want["events"]
    finally:
        led.close()


def test_the_v0_1_campaign_through_the_command_line(v01):
    want = expected(FIXTURES / "campaign-v0.1.plcg")
    r = subprocess.run([sys.executable, "cli.py", "--db", v01, "replay", "--json"], cwd=ROOT, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["headline"] == want["headline"]
    r = subprocess.run([sys.executable, "cli.py", "--db", v01, "audit"], cwd=ROOT, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0 and "audit clean" in r.stdout, r.stdout + r.stderr


@pytest.mark.parametrize("argv", [["status"], ["log"], ["audit"], ["export", "--format", "md"]])
def test_a_read_command_leaves_nothing_beside_an_old_wal_file(v01, argv):
    """A file of the first release is in WAL mode: even a read-only connection used to leave -wal and
    -shm files beside it. Read commands switch it to the rollback journal once, content unchanged."""
    import os

    with open(v01, "rb") as fh:
        assert fh.read(20)[18:20] == b"\x02\x02"  # the fixture is WAL, as the first release wrote it
    r = subprocess.run([sys.executable, "cli.py", "--db", v01, *argv], cwd=ROOT, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert not os.path.exists(v01 + "-wal") and not os.path.exists(v01 + "-shm")
    r = subprocess.run([sys.executable, "cli.py", "--db", v01, "replay", "--json"], cwd=ROOT, capture_output=True,
                       text=True, timeout=60)
    assert json.loads(r.stdout)["headline"] == expected(FIXTURES / "campaign-v0.1.plcg")["headline"]
    assert not os.path.exists(v01 + "-wal") and not os.path.exists(v01 + "-shm")


_MODULES_AT_EXIT = """
import atexit, runpy, sys
atexit.register(lambda: sys.stderr.write("MODULES " + " ".join(sorted(sys.modules)) + "\\n"))
sys.argv = ["cli.py", *sys.argv[1:]]
runpy.run_path("cli.py", run_name="__main__")
"""


def test_status_on_a_first_release_file_upcasts_without_cattrs(v01):
    """The fixture's first event is a campaign_started v1: `status` upcasts it with the plain dict
    upcasters (events/upcasters.py), not through the cattrs converter: the fold builds its event classes
    from the upcast payloads without it (events/stored.py; issue 22 item 3: the fold takes the classes)."""
    conn = sqlite3.connect(v01)
    try:
        assert conn.execute("SELECT type, version FROM events WHERE seq = 1").fetchone() == ("campaign_started", 1)
    finally:
        conn.close()
    r = subprocess.run([sys.executable, "-c", _MODULES_AT_EXIT, "--db", v01, "status"], cwd=ROOT,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "firefight 3 of 6" in r.stdout
    modules = set(r.stderr.rsplit("MODULES ", 1)[1].split())
    assert "events.upcasters" in modules  # it did upcast
    assert not {m for m in modules if m == "cattrs" or m.startswith("cattrs.")}, "status imported cattrs"
    assert "events.convert" not in modules


def test_an_old_campaign_carries_on_under_this_release(v01):
    """The old file takes new commands: the next command appends to its chain and the audit stays clean."""
    led = Ledger(v01, write=True)
    try:
        st = led.state()
        assert (st.firefight, st.step) == (3, "2.3")
        led.run({"name": "next"})
        assert run_audit(led)["findings"] == []
    finally:
        led.close()


# ---- the first event records the product and rules version ----------------------------------------------

@pytest.mark.parametrize("source", ["fixture", "new"])
def test_the_first_event_records_the_product_and_rules_version(source, v01, tmp_path):
    path = v01
    if source == "new":
        path = str(tmp_path / "new.plcg")
        Ledger.create(path, "sample", "s", None).close()
    led = Ledger(path)
    try:
        first = next(led.store.read())
        meta = led.store.meta
    finally:
        led.close()
    # the fixture's first event is stored as 0.1.0 wrote it (v1); the upcaster gives it rules revision 1 (R32)
    assert (first.seq, first.type, first.version) == (1, "campaign_started",
                                                      VERSIONS["campaign_started"] if source == "new" else 1)
    p = upcasters.upcast(first.type, first.version, first.payload)
    assert p["rules_revision"] == (CURRENT if source == "new" else 1)
    assert p["product"] == "plcg" and p["rules"] == "Platoon Leader 2.5"
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", p["product_version"])
    if source == "new":
        assert p["product_version"] == cli.VERSION
    else:
        assert p["product_version"] == expected(FIXTURES / "campaign-v0.1.plcg")["product_version"] == "0.1.0"
    assert meta["product"] == "plcg" and meta["product_version"] == p["product_version"]
    assert int(meta["format"]) <= FORMAT


# ---- event versions and upcasters -----------------------------------------------------------------------

def test_every_event_class_carries_a_type_and_version_and_every_older_version_an_upcaster():
    assert REGISTRY and set(REGISTRY) == set(VERSIONS)
    for name, cls in REGISTRY.items():
        assert cls.TYPE == name
        assert isinstance(cls.VERSION, int) and cls.VERSION >= 1 and cls.VERSION == VERSIONS[name]
        for v in range(1, cls.VERSION):
            assert (name, v) in upcasters.UPCASTERS, f"{name} v{v} -> v{v + 1} has no upcaster"
    for (name, v) in upcasters.UPCASTERS:
        assert name in REGISTRY and v < REGISTRY[name].VERSION, f"upcaster for {name} v{v} upgrades nothing"


def test_upcast_applies_each_upcaster_in_turn_up_to_the_current_version(monkeypatch):
    cls = REGISTRY["weather_set"]
    monkeypatch.setattr(cls, "VERSION", 3)
    monkeypatch.setitem(VERSIONS, "weather_set", 3)
    monkeypatch.setitem(upcasters.UPCASTERS, ("weather_set", 1), lambda p: {"text": p["text"], "hist": ["v1"]})
    monkeypatch.setitem(upcasters.UPCASTERS, ("weather_set", 2), lambda p: {**p, "hist": p["hist"] + ["v2"]})
    assert upcasters.upcast("weather_set", 1, {"text": "rain"}) == {"text": "rain", "hist": ["v1", "v2"]}
    assert upcasters.upcast("weather_set", 2, {"text": "rain", "hist": []}) == {"text": "rain", "hist": ["v2"]}
    assert upcasters.upcast("weather_set", 3, {"text": "rain"}) == {"text": "rain"}


def test_a_newer_schema_reads_the_v0_1_log_through_its_upcaster(v01, monkeypatch):
    """Pretend the next release made weather_set v2 (a new field): the v1 event in the old file is
    upgraded on read, and the campaign replays to the same digest."""
    led = Ledger(v01)
    before = digest(led.state(use_snapshot=False))["digest"]
    led.close()
    monkeypatch.setattr(REGISTRY["weather_set"], "VERSION", 2)
    monkeypatch.setitem(VERSIONS, "weather_set", 2)
    monkeypatch.setitem(upcasters.UPCASTERS, ("weather_set", 1), lambda p: {**p, "source": "card"})
    led = Ledger(v01)
    try:
        weather = [p for _, _, t, p in led.records() if t == "weather_set"]
        assert weather and all(p["source"] == "card" for p in weather)
        assert digest(led.state(use_snapshot=False))["digest"] == before
    finally:
        led.close()


def _rewrite(path: str, sql: str, params=()) -> None:
    """Edit rows, then recompute the chain: the file as an older release would have written it."""
    rechain(path, (sql, params))


def test_an_older_event_version_is_upcast_for_replay_and_audit(v01, monkeypatch):
    """A test-only v0 of weather_set kept the weather under another key; its upcaster renames it.
    Replay gives the same campaign as the v1 log, and the audit, deciding the command again, agrees."""
    led = Ledger(v01)
    before = digest(led.state(use_snapshot=False))["digest"]
    findings = run_audit(led)["findings"]
    led.close()
    _rewrite(v01, "UPDATE events SET version = 0, payload = json_object('weather', json_extract(payload, '$.text'))"
                  " WHERE type = 'weather_set'")
    monkeypatch.setitem(upcasters.UPCASTERS, ("weather_set", 0), lambda p: {"text": p["weather"]})
    led = Ledger(v01)
    try:
        assert [(r[3], r[4]) for c in led.store.read_rows(columns=("seq", "batch", "type", "version", "payload"), parse=True)
                for r in c if r[2] == "weather_set"] == [(0, {"weather": "clear"})]
        assert digest(led.state(use_snapshot=False))["digest"] == before
        assert run_audit(led)["findings"] == findings
    finally:
        led.close()


def test_an_old_event_version_without_an_upcaster_is_bad_input_not_a_crash(v01):
    """A stored version older than any this release can upgrade: exit 2 naming it, never a traceback."""
    _rewrite(v01, "UPDATE events SET version = 0 WHERE type = 'weather_set'")
    led = Ledger(v01)
    try:
        with pytest.raises(BadInput, match="weather_set"):
            led.state()
    finally:
        led.close()
    from click.testing import CliRunner

    for args in (["status"], ["replay"], ["audit"]):
        r = CliRunner().invoke(cli.main, ["--db", v01, *args])
        assert r.exit_code == 2, (args, r.exit_code, r.stderr, r.exception)
        assert r.stderr.startswith("plcg: ") and "weather_set" in r.stderr
