"""Start-up by design (issue 36 item 2): a command imports what it uses. `plcg status` on a campaign without
keys builds only its own click command and imports no cryptography, no command handler (cg/commands/), no
audit, report or web page, and no other command's read model; a write imports the one command module it
runs. Behaviour, not time: each probe runs `plcg` in a fresh interpreter and lists what it imported (the
bench measures the time)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import cli_run

ROOT = Path(__file__).resolve().parent.parent
PROBE = """
import json, sys
sys.path.insert(0, sys.argv[1])
import cli
try:
    cli.main(args=sys.argv[3:], prog_name="plcg")
except SystemExit as e:
    code = e.code
types = sys.modules.get("events.types")
specs = sys.modules["cg.specs"]
print(json.dumps({"modules": sorted(sys.modules), "built": sorted(cli.main.commands), "code": code,
                  "events": None if types is None else sorted(types._BUILT), "declared": len(types.REGISTRY) if types else 0,
                  "args": sorted(s.name for s in specs.SPECS if "args_class" in vars(s)),
                  "counter tables": sorted(sys.modules["cg.counters"].TABLES._built)}),
      file=open(sys.argv[2], "w"))
"""
# what no read of the state needs: the handlers and what a write takes (cg/app/writer.py), the audit (and cattrs),
# the reports and their text tables, the web page, play by email's transport and keyed operations, the map's
# geometry and control (the sample card's status reads no hex), and the other commands' read models
NOT_FOR_A_READ = ("cryptography", "cg.commands", "events.convert", "cattrs", "cg.app.audit", "projections.aar",
                  "projections.web", "starlette", "events.bundle", "cg.app.sync", "cg.app.medium", "cg.app.demo",
                  "projections.maps", "projections.oob", "projections.purchases", "projections.roster",
                  "projections.digest", "projections.logview", "projections.dicecheck", "projections.dicestats",
                  "projections.transfer", "projections.cardview", "projections.recorded", "projections.tables",
                  "cg.app.writer", "cg.crypto", "cg.hexgrid", "cg.boards", "cg.control", "cg.app.receiving")
# the standard library's modules no command starts with (issue 36 item 2): secrets (random, base64: events/osrandom.py
# draws the nonces and the dice), shutil (bz2, lzma: only receiving a bundle copies a file), fractions (decimal)
NO_COMMAND = ("secrets", "random", "base64", "shutil", "bz2", "lzma", "fractions", "decimal", "string")


def _probe(tmp_path: Path, *args: str) -> dict:
    out = tmp_path / "probe.json"
    r = subprocess.run([sys.executable, "-c", PROBE, str(ROOT), str(out), *args], capture_output=True, text=True,
                       cwd=tmp_path)
    assert out.exists(), r.stderr
    return json.loads(out.read_text())


def _loaded(found: dict, names) -> list[str]:
    return sorted(m for m in found["modules"] for n in names if m == n or m.startswith(n + "."))


def _campaign(tmp_path: Path) -> str:
    path = str(tmp_path / "c.plcg")
    assert cli_run(path, "new", "--card", "sample", "--seed", "1").code == 0
    return path


def _at_head(tmp_path: Path) -> str:
    """A campaign whose snapshot is at its head (`replay` refreshes it): `status` folds no tail."""
    path = _campaign(tmp_path)
    assert cli_run(path, "weather").code == 0
    assert cli_run(path, "replay").code == 0
    return path


# what reading the state from a snapshot at the head needs none of: the event classes (a fold of a tail
# builds them: the module events.types is read, the store's registry of type names, but no class is built,
# `found["events"]`), what leaving a step records (it builds events) and the step machine
NOT_FROM_A_SNAPSHOT = ("events.convert", "cg.steps.leaving", "cg.machine", "transitions",
                       "importlib.resources", "tempfile")  # the last two: reading a shipped card file (`new`)


def test_status_builds_only_its_command_and_imports_only_what_it_reads(tmp_path):
    path = _campaign(tmp_path)
    found = _probe(tmp_path, "--db", path, "status")
    assert found["code"] == 0
    assert found["built"] == ["status"]  # the one invoked: no other command, nor the groups written by hand
    # the typed argument classes of the commands it lists (2.2 owes `weather`, and offers nothing), no other
    assert found["args"] == ["weather"]
    assert _loaded(found, NOT_FOR_A_READ + NO_COMMAND) == []
    assert found["counter tables"] == []  # no unit's counter is looked up: no nationality's table built
    assert "projections.status" in found["modules"]  # the probe saw the command run


def test_head_imports_no_read_model_at_all(tmp_path):
    path = _campaign(tmp_path)
    found = _probe(tmp_path, "--db", path, "head")
    assert found["code"] == 0
    assert found["built"] == ["head"]
    assert found["args"] == []  # no typed argument class either
    assert _loaded(found, NOT_FOR_A_READ) == []


def test_a_write_imports_the_one_command_module_it_runs(tmp_path):
    path = _campaign(tmp_path)
    found = _probe(tmp_path, "--db", path, "weather")  # the sample card gives the CP: 2.2 comes first
    assert found["code"] == 0
    assert found["built"] == ["weather"]
    handlers = {m for m in found["modules"] if m.startswith("cg.commands.")}
    # the command's own module (2.2 weather: purchase.py), the decision's plumbing (base, play by email's
    # decide_all and the undo it may run) and nothing of the other steps
    assert handlers == {"cg.commands.base", "cg.commands.purchase", "cg.commands.pbem", "cg.commands.undo"}
    assert found["args"] == ["weather"]  # its typed arguments carry click's values to the stored command
    assert _loaded(found, ("cryptography", "cg.app.audit", "projections.aar", "projections.web")) == []
    # its events' payloads made without cattrs (events/payload.py), nor the standard library's idle weight
    assert _loaded(found, ("cattrs", "events.convert", "cg.app.receiving", *NO_COMMAND)) == []


def test_the_layer_walk_sees_what_a_command_imports_when_it_runs():
    """cli.USES names the modules a command imports when it runs (importlib): tests/test_layers.py reads them as
    cli's imports, so they are held to the layers as an import statement is."""
    import cli
    from tests.test_layers import graph

    assert set(cli.USES.values()) <= graph()["cli"]


def test_status_and_head_from_a_snapshot_at_the_head_build_no_event_class(tmp_path):
    path = _at_head(tmp_path)
    for command in ("status", "head"):
        found = _probe(tmp_path, "--db", path, command)
        assert found["code"] == 0
        assert _loaded(found, NOT_FROM_A_SNAPSHOT + NOT_FOR_A_READ) == [], command
        assert found["events"] == [], command  # no event class built
    assert "cg.state" in found["modules"]  # the probe saw a state read


def test_each_steps_on_leave_names_a_function_of_cg_steps_leaving():
    """A step names what leaving it records (cg/steps/leaving.py) by name: every name given is one there, and
    every function there is named by a step."""
    from cg.steps import STEPS, leaving

    named = {s.on_leave for s in STEPS if s.on_leave}
    assert named == {"redeployment", "consequences", "regrouping", "heroes", "san"}
    assert all(callable(getattr(leaving, n)) for n in named)


def test_status_with_a_tail_builds_only_the_event_classes_of_its_tail(tmp_path):
    """The event classes are built when first asked for: a fold of the tail after the snapshot builds those of
    its types, not all of them."""
    path = _at_head(tmp_path)
    assert cli_run(path, "next").code == 0  # one step_left after the snapshot
    found = _probe(tmp_path, "--db", path, "status")
    assert found["code"] == 0
    assert found["events"] == ["step_left"]
    assert _loaded(found, NOT_FOR_A_READ) == []


def test_a_write_builds_the_event_classes_it_writes_not_every_one(tmp_path):
    path = _at_head(tmp_path)
    assert cli_run(path, "next").code == 0  # 2.3: purchases
    found = _probe(tmp_path, "--db", path, "buy", "axis", "I1")
    assert found["code"] == 0
    assert "rg_bought" in found["events"]
    assert "weather_set" not in found["events"] and "cg_ended" not in found["events"]  # other steps' events
    assert len(found["events"]) < found["declared"]


def test_every_module_kept_out_exists():
    """A keep-out list that names a module moved away checks nothing: each project module named is one."""
    import importlib.util

    for name in NOT_FOR_A_READ + NOT_FROM_A_SNAPSHOT:
        if name.split(".")[0] in ("cg", "events", "projections"):
            assert importlib.util.find_spec(name) is not None, name


def test_the_start_ups_objects_are_frozen_and_the_collector_runs_in_the_command(tmp_path):
    """`import cli` as the program runs it (no test runner): what the start-up made is in the permanent
    generation (no collection walks it, the last one at exit included), and the collector is on again for
    the command."""
    probe = ("import gc, json, sys; sys.path.insert(0, sys.argv[1]); import cli;"
             " print(json.dumps([gc.get_freeze_count(), gc.isenabled(), len(gc.get_objects())]))")
    r = subprocess.run([sys.executable, "-c", probe, str(ROOT)], capture_output=True, text=True, cwd=tmp_path)
    frozen, enabled, young = json.loads(r.stdout)
    assert enabled
    assert frozen > 10 * young  # the modules' objects frozen; only what was made after them is walked


def test_the_ledgers_draws_are_the_secrets_modules_on_the_same_bytes(monkeypatch):
    """events/osrandom.py draws as secrets does (which plcg no longer imports at start-up): fed the same bytes
    from the operating system, the same hex strings and the same dice, a byte that gives 6 or 7 drawn again."""
    import random
    import secrets

    from events import osrandom

    def feed(stream):
        data = iter(stream)
        return lambda n: bytes(next(data) for _ in range(n))

    stream = [0xFF, 0xC0, 0x60, 0x00, 0xE0, 0x20, 0xA0, 0x7F, 0x12, 0x34, 0x56, 0x78]  # top 3 bits: 7 6 3 0 7 1 5 3
    for draw in (lambda m: m.randbelow(6), lambda m: m.randbelow(256), lambda m: m.randbelow(1000),
                 lambda m: m.token_hex(4)):
        monkeypatch.setattr(osrandom.os, "urandom", feed(stream))
        ours = [draw(osrandom) for _ in range(3)]
        monkeypatch.setattr(random, "_urandom", feed(stream))
        monkeypatch.setattr(secrets, "token_bytes", feed(stream))
        assert ours == [draw(secrets) for _ in range(3)]
    monkeypatch.setattr(osrandom.os, "urandom", feed(stream))
    assert [osrandom.randbelow(6) + 1 for _ in range(3)] == [4, 1, 2]  # 7 and 6 drawn again; then 3, 0, (7), 1


def test_no_converter_makes_attrs_parse_a_builtins_signature(tmp_path):
    """attrs reads a field converter's signature; a builtin's (`tuple`) is parsed from its text through tokenize,
    whose pattern costs ~0.2x `python -c pass` to compile: every typed argument class and the map's grid use
    events.records.as_tuple, so a command compiles no tokenize pattern."""
    probe = ("import sys; sys.path.insert(0, sys.argv[1]); import cli, tokenize; from cg import hexgrid, specs;"
             " [s.args_class for s in specs.SPECS]; hexgrid.Grid(('A', 'B'), 3);"
             " print(tokenize._compile.cache_info().currsize)")
    r = subprocess.run([sys.executable, "-c", probe, str(ROOT)], capture_output=True, text=True, cwd=tmp_path)
    assert r.stdout.strip() == "0", r.stderr


def test_a_group_written_by_hand_is_built_when_invoked_and_listed_in_the_help(tmp_path):
    """`plcg card` and `plcg keys` (groups, written by hand in cli.py) are built, as every command is, only when
    invoked: `card check` builds `card` alone; `plcg --help` lists both."""
    card = ROOT / "cg" / "cards" / "sample.toml"
    found = _probe(tmp_path, "card", "check", str(card))
    assert found["code"] == 0 and found["built"] == ["card"]
    listed = subprocess.run([sys.executable, "-c", "import sys, cli; sys.argv[0] = 'plcg'; cli.main()", "--help"],
                            capture_output=True, text=True, cwd=ROOT)
    assert listed.returncode == 0
    names = {line.split()[0] for line in listed.stdout.splitlines() if line.startswith("  ") and line.split()}
    assert {"card", "keys", "status"} <= names


@pytest.mark.parametrize("typed, meant", [("statu", "status"), ("cardx", "card"), ("keyz", "keys"), ("redeplo", "redeploy")])
def test_a_misspelt_command_is_told_the_command_it_is_close_to(tmp_path, typed, meant):
    """Every command is built only when invoked, and click suggests from the commands built: a name no command has
    builds them all first (an error's path), so `plcg statu` still names `status` among the commands it may mean."""
    run = f"import sys; sys.path.insert(0, {str(ROOT)!r}); import cli; sys.argv[0] = 'plcg'; cli.main()"
    r = subprocess.run([sys.executable, "-c", run, typed], capture_output=True, text=True, cwd=tmp_path)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr.startswith(f"plcg: No such command '{typed}'.") and r.stderr.count("\n") == 1
    suggested = r.stderr.split("Did you mean", 1)[1].split("?")[0]  # " 'status'" or " one of: 'setup', 'status'"
    assert f"'{meant}'" in suggested


def test_the_spec_of_a_group_gives_the_group_written_by_hand(tmp_path):
    """`spec_command` of `card` or `keys` (a spec with group=True) is the group cli.py writes by hand, with its
    commands, in a fresh process where nothing has built it yet."""
    run = (f"import sys; sys.path.insert(0, {str(ROOT)!r}); import cli; from cg import specs\n"
           "print({n: sorted(cli.spec_command(specs.BY_NAME[n]).commands) for n in ('card', 'keys')})")
    r = subprocess.run([sys.executable, "-c", run], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "{'card': ['check', 'show'], 'keys': ['new']}"
