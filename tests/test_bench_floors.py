"""The bench's floors (issue 36 item 4: bench/floor_*.py) do the work they stand for on a sound campaign
file and fail (a non-zero exit) on a copy damaged with sqlite3: a floor that read nothing, or checked
nothing, would pass the damaged copy. The write floor's rows pass `plcg audit`. No timing here: that is
the bench's (python -m bench.run)."""
from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import cli_run

from bench import synth
from bench.floor_write import rows_after
from bench.run import _setup_commands

BENCH = Path(__file__).resolve().parent.parent / "bench"

# floor -> a damage it must find: an UPDATE of the copy
DAMAGES = {
    "rows": "UPDATE events SET command = '{\"name\": ' WHERE seq = (SELECT max(seq) FROM events WHERE command IS NOT NULL)",
    "payloads": "UPDATE events SET payload = '{\"side\": ' WHERE seq = 7",
    "chain": "UPDATE events SET payload = json_set(payload, '$.cp', 99) WHERE seq = 7",
    "status": "UPDATE snapshot SET state = substr(state, 1, length(state) - 3) || X'202020'",
    "write": "UPDATE snapshot SET state = substr(state, 1, length(state) - 3) || X'202020'",
}


@pytest.fixture(scope="module")
def campaign(tmp_path_factory) -> Path:
    """A small synthetic campaign (bench/synth.py: two firefights, left at 2.6), its snapshot at the head."""
    path = tmp_path_factory.mktemp("floors") / "campaign.plcg"
    synth.build(str(path), firefights=2, units_per_side=40)
    assert cli_run(path, "replay").code == 0
    return path


@pytest.fixture(scope="module")
def setup_rows(campaign, tmp_path_factory) -> Path:
    """The rows `plcg setup` writes on a copy of the campaign, as the write floor takes them."""
    work = tmp_path_factory.mktemp("rows")
    copy = work / "given.plcg"
    shutil.copyfile(campaign, copy)
    head = _head(copy)
    cmd = _setup_commands(str(copy), 1, seed="floors")[0]
    r = cli_run(copy, "setup", cmd["side"], cmd["unit"], cmd["hex"])
    assert r.code == 0, r.err
    out = work / "rows.json"
    out.write_text(json.dumps(rows_after(str(copy), head)))
    return out


def _head(path) -> int:
    con = sqlite3.connect(path)
    try:
        return con.execute("SELECT max(seq) FROM events").fetchone()[0]
    finally:
        con.close()


def _floor(name: str, path: Path, *extra) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(BENCH / f"floor_{name}.py"), str(path), *map(str, extra)],
                          capture_output=True, text=True)


@pytest.mark.parametrize("name", sorted(DAMAGES))
def test_a_floor_passes_a_sound_file_and_fails_on_a_damaged_copy(name, campaign, setup_rows, tmp_path):
    extra = (setup_rows,) if name == "write" else ()
    sound, damaged = tmp_path / "sound.plcg", tmp_path / "damaged.plcg"
    shutil.copyfile(campaign, sound)
    shutil.copyfile(campaign, damaged)
    ok = _floor(name, sound, *extra)
    assert ok.returncode == 0, ok.stderr
    con = sqlite3.connect(damaged)
    with con:
        assert con.execute(DAMAGES[name]).rowcount == 1
    con.close()
    bad = _floor(name, damaged, *extra)
    assert bad.returncode != 0, (name, bad.stdout)
    if name == "write":  # refused before a row is written
        assert _head(damaged) == _head(campaign)


def test_the_rows_the_write_floor_appends_pass_the_audit(campaign, setup_rows, tmp_path):
    copy = tmp_path / "written.plcg"
    shutil.copyfile(campaign, copy)
    before = _head(copy)
    r = _floor("write", copy, setup_rows)
    assert r.returncode == 0, r.stderr
    given = json.loads(setup_rows.read_text())
    assert _head(copy) == before + len(given) and rows_after(str(copy), before) == given
    audit = cli_run(copy, "audit", "--json")
    assert audit.code == 0, audit.out
    assert json.loads(audit.out)["findings"] == []


_MODULES = "import sys; exec(open({path!r}).read()); print(' '.join(sorted(sys.modules)))"


def _modules_after(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=BENCH.parent).stdout
    return set(out.splitlines()[-1].split())


def test_the_stack_floor_is_a_lower_bound_of_every_command_s_start_up():
    """bench/floor_stack.py stands for what `plcg` pays before its own modules: everything it imports, `import
    cli` imports too (a module the floor loads and the commands no longer do would make it overstate the
    floor), and it loads no module of the ledger's."""
    floor = _modules_after(_MODULES.format(path=str(BENCH / "floor_stack.py")))
    cli = _modules_after("import sys, cli; print(' '.join(sorted(sys.modules)))")
    assert {"orjson", "sqlite3", "hashlib", "click", "attrs"} <= floor
    assert floor - cli == set()
    assert not {m for m in floor if m.split(".")[0] in ("cg", "events", "projections", "cli")}


def test_the_plain_interpreter_runs_the_ledger_as_the_venv_does_without_its_pth_files(campaign, tmp_path):
    """bench/targets.plain_python: the start-up as a normal install has it (no editable install's .pth files run by
    `site`). It reaches the venv's libraries and the ledger, and `plcg status` gives what the venv's gives; its
    `sys.path` holds the libraries' directory once, by the path line, and none of what this venv's .pth files add."""
    from bench import targets

    py = targets.plain_python(tmp_path)
    if py is None:  # the tests run on a Python that is no venv: it is the plain one itself
        assert sys.prefix == sys.base_prefix
        return
    env = {k: v for k, v in __import__("os").environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(BENCH.parent)
    probe = ("import sys, json, orjson, click, attrs; print(json.dumps({'prefix': sys.prefix, 'path': sys.path,"
             " 'modules': sorted(sys.modules)}))")
    got = json.loads(subprocess.run([py, "-c", probe], capture_output=True, text=True, check=True, env=env).stdout)
    assert got["prefix"] != sys.prefix
    lib = __import__("sysconfig").get_paths()["purelib"]
    assert got["path"].count(lib) == 1
    ours = json.loads(subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                                     env=env).stdout)
    assert not [p for p in ours["path"] if p not in got["path"] and p != lib and p.startswith(sys.prefix)]
    if targets.editable_pth():  # the finder an editable install's .pth imports at every start: here, not there
        assert [m for m in ours["modules"] if m.startswith("__editable__")]
        assert not [m for m in got["modules"] if m.startswith("__editable__")]
    same = [subprocess.run(argv, capture_output=True, text=True, env=env, cwd=tmp_path)
            for argv in (targets.plcg(campaign, "status"), targets.plcg(campaign, "status", py=py))]
    assert [r.returncode for r in same] == [0, 0] and same[0].stdout == same[1].stdout and same[0].stdout


def test_firefights_ended_counts_the_results_that_stand(campaign, tmp_path):
    """The signed row compares the two games by the firefights each played to the end (bench/targets.firefights_ended):
    the campaign's firefight_ended rows, less one an undo took back."""
    from bench import targets
    from cg.app.ledger import Ledger

    copy = tmp_path / "c.plcg"
    shutil.copyfile(campaign, copy)
    played = [f for f in Ledger(str(copy)).state().firefights if f.turn is not None]
    assert targets.firefights_ended(copy) == len(played) >= 1
    con = sqlite3.connect(copy)
    last = con.execute("SELECT max(seq) FROM events WHERE type = 'firefight_ended'").fetchone()[0]
    con.close()
    r = cli_run(copy, "undo", "--to", str(last - 1), "--reason", "test")
    assert r.code == 0, r.err
    assert targets.firefights_ended(copy) == len(played) - 1
    assert len([f for f in Ledger(str(copy)).state().firefights if f.turn is not None]) == len(played) - 1
    r = cli_run(copy, "undo", "--reason", "the undo was the mistake")  # a revert of the revert: restored
    assert r.code == 0, r.err
    assert len([f for f in Ledger(str(copy)).state().firefights if f.turn is not None]) == len(played)
    assert targets.firefights_ended(copy) == len(played)


def test_a_plain_venv_left_by_another_python_is_made_again(tmp_path):
    """bench/out/plain-venv is kept between runs: one whose interpreter is not this Python (another version, or
    broken) is made again rather than measured."""
    from bench import targets

    if sys.prefix == sys.base_prefix:
        assert targets.plain_python(tmp_path) is None
        return
    fake = tmp_path / "plain-venv" / "bin" / "python"
    fake.parent.mkdir(parents=True)
    fake.write_text("#!/bin/sh\necho '2.7.18 (default)'\necho /nowhere\n")
    fake.chmod(0o755)
    py = targets.plain_python(tmp_path)
    out = subprocess.run([py, "-c", "import sys, orjson; print(sys.version)"], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == sys.version
