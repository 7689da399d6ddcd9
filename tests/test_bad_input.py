"""Bad input (the issue's item 3): every class of bad input, table-driven, through the real command line.

Each case runs `plcg` as a process (as a player does; one case drops root in a forked child instead)
and checks: the exit code (2 bad input, 3 a rule or the step order), nothing on stdout, one line on
stderr starting `plcg: ` (a card's problems follow as indented `path: what` lines), no traceback,
and every file in the directory byte-for-byte as it was: nothing written, nothing left behind.
"""
from __future__ import annotations

import os
import random
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from helpers.campaigns import ROOT, copy_template
from helpers.sandbox import as_nobody, rechain

from cg.app.ledger import Ledger

CLI = os.path.join(ROOT, "cli.py")
DISK_FULL = str(Path(__file__).parent / "helpers" / "plcg_disk_full.py")


# ---- what the directory holds ---------------------------------------------------------------------------

def tree(d: Path) -> dict[str, bytes]:
    """Every file under d and its bytes; SQLite's -shm index and an empty -wal are not content."""
    out = {}
    for p in sorted(d.rglob("*")):
        if p.is_file():
            name = str(p.relative_to(d))
            data = p.read_bytes()
            if name.endswith("-shm") or (name.endswith("-wal") and not data):
                continue
            out[name] = data
    return out


# ---- preparing files -------------------------------------------------------------------------------------




def export_lines(db: str) -> list[str]:
    from projections.aar import export

    led = Ledger(db)
    try:
        return export(led, "jsonl").splitlines(keepends=True)
    finally:
        led.close()


def write(path: Path, data) -> str:
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return str(path)


# ---- the table -----------------------------------------------------------------------------------------

class Case:
    def __init__(self, id, code, args, template="2.6", prepare=None, match=None, runner="plcg",
                 multiline=False, no_db=False):
        self.id, self.code, self.args, self.template = id, code, args, template
        self.prepare, self.match, self.runner, self.multiline, self.no_db = prepare, match, runner, multiline, no_db


def _sample_text() -> str:
    return (Path(ROOT) / "cg" / "cards" / "sample.toml").read_text(encoding="utf-8")


def _schema_card(d: Path, ctx) -> None:
    text = _sample_text().replace('intensity = "low"', 'intensity = 7').replace("rows = 10", 'rows = "ten"')
    ctx["card"] = write(d / "schema.toml", text)


def _truncated_card(d: Path, ctx) -> None:
    text = _sample_text()
    ctx["card"] = write(d / "cut.toml", text[: len(text) // 2])


def _jsonl(edit):
    def prepare(d: Path, ctx) -> None:
        lines = export_lines(ctx["db"])
        os.unlink(ctx["db"])  # import makes a new file: the target must not exist
        ctx["file"] = write(d / "log.jsonl", edit(lines))
    return prepare


def _edit_payload(lines):
    out = list(lines)
    out[3] = out[3].replace('"axis"', '"allied"', 1) if '"axis"' in out[3] else out[3].replace("2.", "3.", 1)
    return "".join(out)


def _replace_db(data):
    def prepare(d: Path, ctx) -> None:
        os.unlink(ctx["db"])
        write(Path(ctx["db"]), data)
    return prepare


def _plain_sqlite(d: Path, ctx) -> None:
    os.unlink(ctx["db"])
    c = sqlite3.connect(ctx["db"])
    c.execute("CREATE TABLE notes (t TEXT)")
    c.execute("INSERT INTO notes VALUES ('my shopping list')")
    c.commit()
    c.close()


def _db_is_export(d: Path, ctx) -> None:
    text = "".join(export_lines(ctx["db"]))
    os.unlink(ctx["db"])
    write(Path(ctx["db"]), text)


def _db_is_dir(d: Path, ctx) -> None:
    os.unlink(ctx["db"])
    os.mkdir(ctx["db"])


def _no_db(d: Path, ctx) -> None:
    os.unlink(ctx["db"])


def _sql(*statements, chain=True):
    def prepare(d: Path, ctx) -> None:
        if chain:
            rechain(ctx["db"], *statements)
        else:
            c = sqlite3.connect(ctx["db"])
            for s in statements:
                c.execute(s)
            c.commit()
            c.close()
    return prepare


LAST_STEP_LEFT = "(SELECT MAX(seq) FROM events WHERE type = 'step_left')"

CASES = [
    # unknown side
    Case("unknown side (setup)", 2, ["setup", "russian", "{allied_unit}", "C4"], match="side"),
    Case("unknown side (a rule would refuse too)", 2, ["cp", "russians"], match="side"),
    Case("unknown side (read command)", 2, ["oob", "prussian"], match="side"),
    Case("unknown winner side", 2, ["end", "--turn", "3", "--cvp-lost", "axis=1", "--cvp-lost", "allied=2",
                                    "--winner", "soviet"], match="side"),
    # unknown RG, unit
    Case("unknown RG id", 2, ["buy", "axis", "ZZ9"], template="2.3", match="RG"),
    Case("unknown RG id (wrong step too)", 2, ["buy", "axis", "ZZ9"], match="RG"),
    Case("unknown RG id of the other side", 2, ["oba", "allied", "NOPE-1"], template="2.3"),
    Case("unknown unit", 2, ["setup", "axis", "NOPE-1.1", "L4"], match="unit"),
    # bad hex
    Case("hex off the map", 2, ["setup", "allied", "{allied_unit}", "Z99"], match="hex"),
    Case("hex row 0", 2, ["setup", "allied", "{allied_unit}", "C0"], match="hex"),
    Case("hex backwards", 2, ["setup", "allied", "{allied_unit}", "4C"], match="hex"),
    Case("control hex off the map", 2, ["end", "--turn", "3", "--cvp-lost", "axis=1", "--cvp-lost", "allied=2",
                                        "--control", "allied=Q1"], match="hex"),
    # dice
    Case("die of 7", 2, ["cp", "axis", "--dice", "7,1"], match="dice"),
    Case("die of 0", 2, ["cp", "axis", "--dice", "0,3"], match="dice"),
    Case("negative die", 2, ["cp", "axis", "--dice", "-1,4"], match="dice"),
    Case("one die for a DR", 2, ["cp", "axis", "--dice", "3"], match="dice"),
    Case("three dice for a DR", 2, ["elr", "axis", "--dice", "1,2,3"], match="dice"),
    Case("two dice for a dr", 2, ["promote", "axis", "--dice", "3,4"], match="dice"),
    Case("dice that are not numbers", 2, ["elr", "axis", "--dice", "x,y"], match="dice"),
    Case("dice at the right step", 2, ["promote", "axis", "--dice", "9"], template="3.44", match="dice"),
    # numbers
    Case("patrol count not a number", 2, ["patrols", "axis", "lots"]),
    Case("turn 0", 2, ["end", "--turn", "0", "--cvp-lost", "axis=1", "--cvp-lost", "allied=1"], template="2.9",
         match="--turn 0: must be 1"),  # 0 is a value given, not a missing option
    Case("turn past 64 bits", 2, ["end", "--turn", "9" * 25, "--cvp-lost", "axis=1", "--cvp-lost", "allied=1"],
         template="2.9"),
    Case("CVP past 64 bits", 2, ["end", "--turn", "5", "--cvp-lost", "axis=" + "9" * 25, "--cvp-lost", "allied=1"],
         template="2.9", match="too large"),
    Case("patrol count past 64 bits", 2, ["patrols", "axis", "9" * 25], template="2.3"),
    Case("negative CVP", 2, ["end", "--turn", "5", "--cvp-lost", "axis=-3", "--cvp-lost", "allied=1"],
         template="2.9", match="--cvp-lost axis -3: must be 0 or more"),
    Case("CVP of an unknown side", 2, ["end", "--turn", "5", "--cvp-lost", "russia=3", "--cvp-lost", "allied=1"],
         template="2.9", match="russia"),
    # text
    Case("weather on two lines", 2, ["weather", "rain\nsnow"], template="2.2", match="one line"),
    Case("undo reason with a tab", 2, ["undo", "--reason", "a\tb"], match="one line"),
    # usage: one line, exit 2
    Case("missing option", 2, ["undo"], match="--reason"),
    Case("missing choice", 2, ["export"], match="jsonl, md, html"),
    Case("no such command", 2, ["bogus"], match="bogus"),
    Case("no such global option", 2, ["--bogus", "status"], match="--bogus"),
    Case("roster at seq 0", 2, ["roster", "--at", "0"], match="--at 0"),
    Case("roster past the log's end", 2, ["roster", "--at", "999999"], match="--at 999999"),
    Case("Redeployment Option C", 2, ["option", "C"], match="A or B"),
    # 3.46 repair: a unit of the side or an item flagged at 2.9, before any rule
    Case("repair of an unknown item", 2, ["repair", "axis", "NOPE", "--kind", "malfunction"], template="3.44",
         match="unknown axis unit"),
    Case("repair of an unknown item at the wrong step", 2, ["repair", "axis", "NOPE", "--kind", "malfunction"],
         template="2.2", match="unknown axis unit"),
    Case("repair of a squad", 2, ["repair", "axis", "{axis_unit}", "--kind", "immobilized"], template="3.44",
         match="weapon or vehicle"),
    Case("foxhole without a capacity", 2, ["fortify", "axis", "foxhole", "--hex", "L5"], template="2.3",
         match="--capacity is required"),
    Case("CVP for one side only", 2, ["end", "--turn", "5", "--cvp-lost", "axis=3"], template="2.9"),
    # refused by a rule or the step order (exit 3): the message names the rule and the step
    Case("buy at the setup step", 3, ["buy", "axis", "I1"], match=r"rule 2\.3.*step 2\.6"),
    Case("weather twice", 3, ["weather"], match="rule 2.2"),
    Case("attack option at the setup step", 3, ["attack", "axis"], match="step 2.6"),
    Case("more patrols than the intensity allows", 3, ["patrols", "axis", "5"], template="2.3", match="2.31"),
    Case("nothing to undo", 3, ["undo", "--reason", "oops"], template="2.2", match="undo"),
    Case("next while the result is owed", 3, ["next"], template="2.9", match="2.9"),
    # CG cards
    Case("card that is not TOML", 2, ["new", "--card", "{card}"], no_db=True, match="not valid TOML",
         prepare=lambda d, ctx: ctx.update(card=write(d / "bad.toml", "[campaign\nname = = 3\n"))),
    Case("card cut in half", 2, ["new", "--card", "{card}"], no_db=True, prepare=_truncated_card,
         multiline=True),
    Case("card breaking the schema", 2, ["new", "--card", "{card}"], no_db=True, prepare=_schema_card,
         multiline=True, match="problem"),
    Case("card that is binary", 2, ["new", "--card", "{card}"], no_db=True,
         prepare=lambda d, ctx: ctx.update(card=write(d / "card.toml", bytes(range(256)) * 4))),
    Case("card that does not exist", 2, ["new", "--card", "nowhere/card.toml"], no_db=True, match="card"),
    Case("card that is a directory", 2, ["new", "--card", "{tmp}"], no_db=True),
    Case("new over an existing campaign", 2, ["new", "--card", "sample"], match="exists"),
    # JSON Lines import
    Case("import: truncated line", 2, ["import", "{file}"], template="3.44", match="line",
         prepare=_jsonl(lambda ls: "".join(ls[:-1]) + ls[-1][: len(ls[-1]) // 2])),
    Case("import: garbage", 2, ["import", "{file}"], template="3.44",
         prepare=_jsonl(lambda ls: bytes(random.Random(1).randrange(256) for _ in range(3000)))),
    Case("import: garbage line in the middle", 2, ["import", "{file}"], template="3.44", match="line 5",
         prepare=_jsonl(lambda ls: "".join(ls[:4]) + "{this is not json}\n" + "".join(ls[4:]))),
    Case("import: duplicate line", 2, ["import", "{file}"], template="3.44", match="line",
         prepare=_jsonl(lambda ls: "".join(ls[:6] + [ls[5]] + ls[6:]))),
    Case("import: lines out of order", 2, ["import", "{file}"], template="3.44",
         prepare=_jsonl(lambda ls: "".join(ls[:3] + [ls[4], ls[3]] + ls[5:]))),
    Case("import: a line missing", 2, ["import", "{file}"], template="3.44",
         prepare=_jsonl(lambda ls: "".join(ls[:3] + ls[4:]))),
    Case("import: an edited payload", 2, ["import", "{file}"], template="3.44", prepare=_jsonl(_edit_payload)),
    Case("import: empty file", 2, ["import", "{file}"], template="3.44", prepare=_jsonl(lambda ls: "")),
    Case("import: a JSON array, not lines", 2, ["import", "{file}"], template="3.44",
         prepare=_jsonl(lambda ls: "[" + ",".join(x.strip() for x in ls) + "]\n")),
    Case("import: a missing file", 2, ["import", "{tmp}/nowhere.jsonl"], no_db=True),
    Case("import over an existing campaign", 2, ["import", "{file}"], template="3.44", match="exists",
         prepare=lambda d, ctx: ctx.update(file=write(d / "log.jsonl", "".join(export_lines(ctx["db"]))))),
    # a file that is not a campaign
    Case("not a campaign: text", 2, ["status"], prepare=_replace_db("turn 3: the Germans attack\n" * 50),
         match="not a plcg campaign"),
    Case("not a campaign: text, written to", 2, ["next"], prepare=_replace_db("turn 3\n" * 50)),
    Case("not a campaign: empty file", 2, ["status"], prepare=_replace_db(b"")),
    Case("not a campaign: empty file, written to", 2, ["setup", "allied", "X", "C4"], prepare=_replace_db(b"")),
    Case("not a campaign: another SQLite file", 2, ["status"], prepare=_plain_sqlite, match="not a plcg"),
    Case("not a campaign: another SQLite file, written to", 2, ["next"], prepare=_plain_sqlite),
    Case("not a campaign: a directory", 2, ["status"], prepare=_db_is_dir, match="directory"),
    Case("not a campaign: an exported log", 2, ["status"], template="3.44", prepare=_db_is_export),
    Case("not a campaign: damaged SQLite header", 2, ["status"],
         prepare=lambda d, ctx: write(Path(ctx["db"]), b"\0" * 100 + Path(ctx["db"]).read_bytes()[100:])),
    # a campaign file from a newer release
    Case("newer file format", 2, ["status"], prepare=_sql("UPDATE meta SET value = '99' WHERE key = 'format'",
                                                          chain=False), match="newer"),
    Case("newer file format, written to", 2, ["next"],
         prepare=_sql("UPDATE meta SET value = '99' WHERE key = 'format'", chain=False), match="newer"),
    Case("newer event version: status", 2, ["status"],
         prepare=_sql(f"UPDATE events SET version = 99 WHERE seq = {LAST_STEP_LEFT}"), match="upgrade"),
    Case("newer event version: replay", 2, ["replay"],
         prepare=_sql(f"UPDATE events SET version = 99 WHERE seq = {LAST_STEP_LEFT}"), match="upgrade"),
    Case("newer event version: audit", 2, ["audit"],
         prepare=_sql(f"UPDATE events SET version = 99 WHERE seq = {LAST_STEP_LEFT}"), match="upgrade"),
    Case("newer event version: a step command", 2, ["next"],
         prepare=_sql(f"UPDATE events SET version = 99 WHERE seq = {LAST_STEP_LEFT}"), match="upgrade"),
    Case("newer first event version", 2, ["status"],
         prepare=_sql("UPDATE events SET version = 99 WHERE seq = 1"), match="upgrade"),
    Case("unknown event type: status", 2, ["status"],
         prepare=_sql(f"UPDATE events SET type = 'hologram' WHERE seq = {LAST_STEP_LEFT}"), match="upgrade"),
    Case("unknown event type: audit", 2, ["audit"],
         prepare=_sql(f"UPDATE events SET type = 'hologram' WHERE seq = {LAST_STEP_LEFT}"), match="upgrade"),
    Case("unknown event type: a step command", 2, ["setup", "allied", "{allied_unit}", "C4"],
         prepare=_sql(f"UPDATE events SET type = 'hologram' WHERE seq = {LAST_STEP_LEFT}"), match="upgrade"),
    # missing and read-only files
    Case("missing file: status", 2, ["status"], prepare=_no_db, match="no campaign file"),
    Case("missing file: a step command", 2, ["next"], prepare=_no_db, match="no campaign file"),
    Case("missing file: audit", 2, ["audit"], prepare=_no_db),
    Case("missing directory", 2, ["--db", "{tmp}/nowhere/c.plcg", "status"], no_db=True),
    Case("missing directory: new", 2, ["--db", "{tmp}/nowhere/c.plcg", "new", "--card", "sample"], no_db=True),
    Case("read-only file: a step command", 2, ["next"], runner="nobody", match="cannot"),
    Case("read-only file: undo", 2, ["undo", "--reason", "oops"], runner="nobody", template="3.44",
         match="cannot"),
    # a full disk and other OS errors
    Case("full disk", 2, ["next"], runner="full disk", match="full"),
    Case("full disk: a step command", 2, ["setup", "axis", "{axis_unit}", "M5"], runner="full disk",
         match="full"),
    Case("OS error: file size limit", 2, ["next"], runner="fsize", match="cannot"),
    Case("OS error: export into a missing directory", 2, ["export", "--format", "md", "-o", "{tmp}/no/aar.md"],
         match="cannot write"),
]


# ---- running a case ------------------------------------------------------------------------------------

def _units(db: str) -> dict:
    led = Ledger(db)
    try:
        st = led.state()
    finally:
        led.close()
    out = {}
    for side in ("axis", "allied"):
        us = [u.id for u in st.units.values() if u.side == side and u.kind == "squad"]
        out[f"{side}_unit"] = us[0] if us else "NONE"
    return out


def _env() -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PLCG_DB"}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _process(argv: list[str], cwd: str, preexec=None) -> tuple[int, str, str]:
    r = subprocess.run([sys.executable, *argv], cwd=cwd, capture_output=True, text=True, timeout=120,
                       env=_env(), preexec_fn=preexec)
    return r.returncode, r.stdout, r.stderr


def _in_process(args: list[str]) -> tuple[int, str, str]:
    from click.testing import CliRunner

    import cli

    r = CliRunner().invoke(cli.main, args)
    err = r.stderr
    if r.exit_code not in (0, 1, 2, 3, 4):  # an exception the group did not map: show it
        err += f"\nTraceback: {r.exception!r}"
    return r.exit_code, r.stdout, err


def _as_nobody(args: list[str]) -> tuple[int, str, str]:
    """The command in a forked child that dropped root (root ignores file modes)."""
    if os.geteuid() == 0:
        _in_process(["--db", template_path("2.6"), "status"])  # import everything while still root

    def run(a):
        try:
            return _in_process(a)
        except BaseException as e:
            return (99, "", f"Traceback: {e!r}")

    return as_nobody(run, args)


def template_path(name: str) -> str:
    from helpers.campaigns import template

    return template(name)


def _try_tmpfs(d: Path) -> bool:
    """Mount a small tmpfs at d (root only); False where mounting is not allowed."""
    if os.geteuid() != 0 or not shutil.which("mount"):
        return False
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(d)], capture_output=True)
    return r.returncode == 0


def _fill(d: Path) -> None:
    fd = os.open(d / "filler", os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        while True:
            os.write(fd, b"\0" * 512)
    except OSError:
        pass
    finally:
        os.close(fd)


@pytest.fixture
def workdir():
    d = Path(tempfile.mkdtemp(prefix="plcg-bad-"))
    os.chmod(d, 0o755)  # `nobody` may reach it
    yield d
    for p in [d, *d.rglob("*")]:
        if p.is_dir():
            os.chmod(p, 0o755)
    shutil.rmtree(d)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_exits_2_or_3_with_one_line_and_leaves_every_file_as_it_was(case, workdir):
    d = workdir / "ro" if case.runner == "nobody" else workdir
    d.mkdir(exist_ok=True)
    os.chmod(d, 0o755)
    db = str(d / "c.plcg")
    copy_template(case.template, db)
    ctx = {"db": db, "tmp": str(d), **_units(db)}
    if case.no_db:
        os.unlink(db)
    if case.prepare:
        case.prepare(d, ctx)
    args = [a.format(**ctx) for a in case.args]
    if args[0] != "--db":
        args = ["--db", db, *args]
    mounted = reader = None
    if case.runner == "nobody":
        os.chmod(db, 0o444)
        os.chmod(d, 0o555)
    elif case.runner == "full disk":
        sub = d / "disk"
        sub.mkdir()
        if _try_tmpfs(sub):  # a real full disk: a small tmpfs filled up
            mounted = sub
            shutil.copyfile(db, sub / "c.plcg")
            os.unlink(db)
            db = str(sub / "c.plcg")
            args = [a.replace(str(d / "c.plcg"), db) for a in args]
            from events.store import Store

            reader = Store.open(db)  # a reader keeps SQLite's -shm index in place, as a player's would
            reader.head()
            _fill(sub)
    before = tree(d)
    try:
        if case.runner == "nobody":
            code, out, err = _as_nobody(args)
        elif case.runner == "full disk" and mounted is None:  # no mount allowed: SQLite told the disk is full
            code, out, err = _process([DISK_FULL, *args], str(d))
        elif case.runner == "fsize":  # the OS refuses to let any file grow past 4 kB (EFBIG)
            def limit():
                signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
                resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
            code, out, err = _process([CLI, *args], str(d), preexec=limit)
        else:
            code, out, err = _process([CLI, *args], str(d))
        after = tree(d)
    finally:
        if reader is not None:
            reader.close()
        if mounted is not None:
            subprocess.run(["umount", str(mounted)], check=False)
    assert "Traceback" not in err, err
    assert (code, case.id) == (case.code, case.id), f"exit {code}: {err.strip()}"
    assert out == "", f"stdout: {out!r}"
    lines = err.rstrip("\n").split("\n")
    assert lines[0].startswith("plcg: ") and len(lines[0]) > len("plcg: "), err
    if case.multiline:
        assert all(x.startswith("  ") and ": " in x for x in lines[1:]), err
    else:
        assert len(lines) == 1, f"{len(lines)} lines: {err}"
    if case.match:
        import re

        assert re.search(case.match, err), f"{case.match!r} not in {err!r}"
    assert after == before, "a file changed, appeared or vanished: " + ", ".join(
        sorted(k for k in set(after) | set(before) if after.get(k) != before.get(k)))


def test_every_bad_input_class_of_the_issue_has_a_case():
    """The issue's list, each class with at least one row in the table."""
    classes = ["unknown side", "unknown RG", "hex", "die", "dice", "card", "import: truncated", "import: garbage",
               "import: duplicate", "not a campaign", "newer", "read-only", "missing file", "full disk", "OS error"]
    ids = " | ".join(c.id for c in CASES)
    assert [c for c in classes if c not in ids] == []
    assert {c.code for c in CASES} == {2, 3}


@pytest.mark.parametrize("cmd", [
    {"name": "setup", "side": "axis", "unit": "{dead}", "hex": "Z99"},
    {"name": "redeploy", "side": "axis", "unit": "{dead}", "to": "4C"},
    {"name": "redeploy", "side": "axis", "unit": "{dead}", "dice": "9,9"},
    {"name": "patrol", "side": "axis", "type": "recon", "units": ["{dead}"], "hex": "C-1"},
], ids=["setup hex", "redeploy --to", "redeploy dice", "patrol hex"])
def test_bad_input_is_reported_as_such_before_a_rule_about_the_unit(cmd, tmp_path):
    """A malformed argument is bad input (exit 2) even when the unit it names is out of play, which
    alone would be refused by 3.11 (exit 3): the arguments are checked before any rule."""
    from events.errors import BadInput

    db = copy_template("3.44", str(tmp_path / "c.plcg"))
    led = Ledger(db, write=True)
    try:
        dead = next(u.id for u in led.state().units.values() if u.side == "axis" and u.status == "eliminated")
        cmd = {k: ([dead] if v == ["{dead}"] else dead if v == "{dead}" else v) for k, v in cmd.items()}
        head = led.store.head()
        with pytest.raises(BadInput):
            led.run(cmd)
        assert led.store.head() == head
    finally:
        led.close()
