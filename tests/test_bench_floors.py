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
