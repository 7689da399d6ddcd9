"""Shared helpers for the campaign-level tests: a campaign factory driving the real commands.

`Campaign` wraps the Python API (`cli.Ledger`): `camp.run("cp", side="axis", dice="3,4")` decides and
appends one command; `camp.advance(firefight, step, plan)` plays the campaign forward, one command at
a time, until it stands at that step. On the way it does what each step owes (`cg.steps.pending`)
with fixed dice (DEFAULT_DICE, or the plan's), and the plan's purchases and results:

    plan = {1: {"buy": [("axis", "I1")], "end": {"cvp_lost": {"axis": 12, "allied": 3}}},
            2: {"attack": ["axis"], "dice": {"cp": "1,1", "elr": {"axis": "6,6"}}}}

A later firefight whose plan buys no Attack Option is Idle (2.41). `cli_run(path, *args)` runs the real
click command line (exit code, stdout, stderr). `card_variant(tmp_path, **changes)` writes a changed copy
of the shipped sample card for `new --card PATH`.
"""
from __future__ import annotations

import copy
import os
import shutil
import sqlite3
import sys
import tempfile
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from click.testing import CliRunner  # noqa: E402

import cli  # noqa: E402
from cg.steps import STEPS, pending  # noqa: E402
from cg.units import PRESENT, Status  # noqa: E402

SAMPLE = ROOT / "cg" / "cards" / "sample.toml"

# the dice the factory gives each owed roll unless the plan says otherwise
DEFAULT_DICE = {
    "cp": "3,4", "leader": "3,4", "oba": "3,4", "patrol-return": "3,4", "elr": "3,4",
    "promote": "3", "leaders": "3", "disease": "3", "evacuate": "3", "shock": "3", "repair": "3",
    "recall": "3",
}
STEP_IDS = tuple(s.id for s in STEPS if s.id != "end")  # the steps `status` shows, in order


class Campaign:
    """One campaign file driven through the Python API."""

    def __init__(self, path, card: str = "sample", seed: str = "tests", plan: dict | None = None):
        self.path = str(path)
        self.led = cli.Ledger.create(self.path, str(card), seed, None)
        self.plan = plan or {}
        self._acted: set = set()
        self.visited: list[tuple[int, str]] = []  # (firefight, step) in the order stood at
        self._note()

    @classmethod
    def attach(cls, path, plan: dict | None = None) -> "Campaign":
        """Drive a campaign file made elsewhere (e.g. by `plcg new` on the command line)."""
        c = cls.__new__(cls)
        c.path = str(path)
        c.led = cli.Ledger(c.path, write=True)
        c.plan = plan or {}
        c._acted = set()
        c.visited = []
        c._note()
        return c

    # ---- reading ----
    def state(self):
        return self.led.state()

    @property
    def step(self) -> str:
        return self.state().step

    @property
    def firefight(self) -> int:
        return self.state().firefight

    def rows(self) -> int:
        return rows(self.path)

    def events(self, etype: str | None = None) -> list[dict]:
        """Payloads of the events in force (undone ones left out), oldest first."""
        from cg.evolve import reverted_seqs

        recs = list(self.led.records())
        undone = reverted_seqs(recs)
        return [p for s, _b, t, p in recs if s not in undone and (etype is None or t == etype)]

    def types_in(self, firefight: int) -> list[str]:
        """Types of the events recorded while the campaign stood in `firefight` (the log's column)."""
        return [r.type for r in self.led.store.read() if r.firefight == firefight]

    def last(self, etype: str) -> dict:
        found = self.events(etype)
        assert found, f"no {etype} event in the log"
        return found[-1]

    # ---- writing ----
    def run(self, name: str, **kw) -> list:
        stored = self.led.run({"name": name, **kw})
        self._note()
        return stored

    def next(self) -> list:
        return self.run("next")

    def _note(self) -> None:
        st = self.led.state()
        key = (st.firefight, st.step)
        if not self.visited or self.visited[-1] != key:
            self.visited.append(key)

    def close(self) -> None:
        self.led.close()

    # ---- playing forward ----
    def advance(self, firefight: int, step: str, plan: dict | None = None, limit: int = 400) -> "Campaign":
        """Play on until the campaign stands at `step` of `firefight` (not acting there yet)."""
        if plan:
            for ff, p in plan.items():
                self.plan.setdefault(ff, {}).update(p)
        for _ in range(limit):
            st = self.state()
            if (st.firefight, st.step) == (firefight, step):
                return self
            if st.ended:
                raise AssertionError(f"the CG ended before firefight {firefight} step {step}")
            key = (st.firefight, st.step)
            if key not in self._acted:
                self._acted.add(key)
                self._act(st)
                continue
            owed = pending(st)
            if owed:
                self.run(**self._resolve(st, owed[0]))
            else:
                self._leave()
        raise AssertionError(f"did not reach firefight {firefight} step {step} in {limit} commands")

    def finish_step(self) -> list:
        """Do what the current step owes (with the plan's dice) and leave it with `next`."""
        st = self.state()
        key = (st.firefight, st.step)
        if key not in self._acted:
            self._acted.add(key)
            self._act(st)
        for _ in range(50):
            st = self.state()
            owed = pending(st)
            if not owed:
                return self._leave()
            self.run(**self._resolve(st, owed[0]))
        raise AssertionError("the step kept owing")

    def _leave(self) -> list:
        """`next` once the step is done by the rules' own list (OWED_BY_THE_RULES), not by `pending()`
        alone: an obligation the production code forgot fails the test that walks past it."""
        st = self.state()
        missing = owed_by_the_rules(self, st)
        assert not missing, (f"firefight {st.firefight} step {st.step}: pending() is empty but the rules "
                             f"still owe {missing}")
        return self.next()

    def _p(self, ff: int) -> dict:
        return self.plan.get(ff, {})

    def dice_for(self, ff: int, name: str, side: str | None):
        d = self._p(ff).get("dice", {}).get(name, DEFAULT_DICE.get(name))
        if isinstance(d, dict):
            d = d.get(side, DEFAULT_DICE.get(name))
        return d

    def _act(self, st) -> None:
        """The plan's own choices at a step, made once when the campaign first stands there."""
        p = self._p(st.firefight)
        if st.step == "2.3":
            for side, n in p.get("patrols", []):
                self.run("patrols", side=side, count=n)
            for side in p.get("attack", []):
                self.run("attack", side=side)
            for item in p.get("buy", []):
                side, rg = item[0], item[1]
                mode = item[2] if len(item) > 2 else "entry"
                self.run("buy", side=side, rg=rg, mode=mode)
            for f in p.get("fortify", []):
                self.run("fortify", **f)
        elif st.step == "2.4" and "determine" in p:
            self.run("determine", **p["determine"])
        elif st.step == "3.1":
            for side, cvp in p.get("casualties", []):
                self.run("casualties", side=side, cvp=cvp)

    def _resolve(self, st, owed: dict) -> dict:
        c = owed["command"]
        if owed["runnable"]:
            cmd = dict(owed["args"])
            d = self.dice_for(st.firefight, cmd["name"], cmd.get("side"))
            if d is not None and cmd["name"] not in ("determine", "weather"):
                cmd["dice"] = d
            return cmd
        if c.startswith("plcg night"):
            return {"name": "night", "text": "Half Moon, NVR 2"}
        if c.startswith("plcg option"):
            return {"name": "option", "option": self._p(st.firefight).get("option", "A")}
        if c.startswith("plcg end"):
            end = {"turn": 5, "cvp_lost": {"axis": 0, "allied": 0}}
            end.update(self._p(st.firefight).get("end", {}))
            return {"name": "end", **end}
        if c.startswith("plcg patrol "):
            return {"name": "patrol", "side": c.split()[2], "give_up": "not sent (test plan)"}
        raise AssertionError(f"the test plan does not say how to do: {c}")


# What each step owes by the PL 2.5 sequence (../shared/docs/pl25-sequence.md), every step, in the rules'
# terms, written apart from the steps' own `owes` (cg/steps/) so that the walker checks them:
# step -> (what the rules have the players record there, [what is owed]). What is owed is an event type
# (event type, per side?, rule), or a check (campaign, state, the firefight's live records) -> what is missing.
# A step whose list is empty owes the players nothing: what it does, `next` records by itself, or what it
# accepts is the players' choice. Each step's entry is declared in the test file of its rules, `owed_at(...)`
# (a new step's in its own test file), and every such file is imported below, whichever tests run;
# tests/test_owed_by_the_rules.py checks that every step has one.
OWED_BY_THE_RULES: dict[str, tuple[str, list]] = {}
_DECLARED_IN: dict[str, str] = {}  # step -> the test file that declares its entry


def owed_at(step: str, words: str, owed: list) -> None:
    """A step's entry of the harness's list (OWED_BY_THE_RULES): the rules' words for what is recorded there,
    and what is owed, declared in the test file of the step's rules (once: a second file declaring it fails;
    the same file imported again under another name declares it again)."""
    where = sys._getframe(1).f_code.co_filename
    assert _DECLARED_IN.setdefault(step, where) == where, f"step {step}: declared in {_DECLARED_IN[step]} and {where}"
    OWED_BY_THE_RULES[step] = (words, owed)


def _declare_the_steps_entries() -> None:
    """Import each test file that declares a step's entry (a line that begins `owed_at(`): the walker needs every
    step's, whichever test files run. Under the name pytest gives a test file of this folder, so each is one
    module, imported once."""
    import importlib

    for path in sorted(Path(__file__).resolve().parent.glob("test_*.py")):
        if "\nowed_at(" in path.read_text(encoding="utf-8"):
            importlib.import_module(path.stem)


def _ended(live) -> dict:
    found = [r.payload for r in live if r.type == "firefight_ended"]
    return found[-1] if found else {}


def _present(st, side: str, uid: str) -> bool:
    u = st.unit(uid, side)
    return u is not None and u.status in PRESENT


def _per_unit(key: str, etype: str, unit_key: str, rule: str, what: str, still=_present):
    """Each unit the firefight's end lists under `key` (still in play) owes its `etype` record."""
    def check(camp, st, live) -> list[str]:
        done = {(r.payload["side"], r.payload[unit_key]) for r in live if r.type == etype}
        listed = [(u["side"], u["unit"]) for u in _ended(live).get(key, ())]  # SideUnit's stored form
        return [f"{what} for {side} {uid} ({rule})" for side, uid in listed
                if (side, uid) not in done and still(st, side, uid)]
    return check


def _not_japanese_present(st, side: str, uid: str) -> bool:
    return st.card.sides[side].nationality.lower() != "japanese" and _present(st, side, uid)


def _still_recalled(st, side: str, uid: str) -> bool:
    u = st.unit(uid, side)
    return u is not None and u.status == Status.RECALLED


def owed_by_the_rules(camp: "Campaign", st) -> list[str]:
    """What the rules make compulsory at the campaign's step and the log of this firefight lacks
    (OWED_BY_THE_RULES)."""
    if st.ended or st.idle and st.step in ("3.44", "3.45", "3.47"):
        return []
    recs = [r for r in camp.led.store.read() if r.firefight == st.firefight]
    from cg.evolve import reverted_seqs

    undone = reverted_seqs(list(camp.led.records()))
    live = [r for r in recs if r.seq not in undone]
    missing = []
    for owed in OWED_BY_THE_RULES[st.step][1]:
        if callable(owed):
            missing += owed(camp, st, live)
            continue
        etype, per_side, rule = owed
        found = [r for r in live if r.type == etype and r.step == st.step]
        for side in (("axis", "allied") if per_side else (None,)):
            if not any(side is None or r.payload.get("side") == side for r in found):
                missing.append(f"{etype}{' ' + side if side else ''} ({rule})")
    return missing


def rows(path: str) -> int:
    """Events in the campaign file (read straight from SQLite)."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return con.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    finally:
        con.close()


def copy_db(src: str, dst: str) -> str:
    """A consistent copy of a campaign file (SQLite backup API: WAL content included)."""
    a = sqlite3.connect(f"file:{src}?mode=ro", uri=True)
    b = sqlite3.connect(dst)
    try:
        a.backup(b)
    finally:
        a.close()
        b.close()
    return dst


# ---- the command line ------------------------------------------------------------------------------

class CliResult:
    def __init__(self, r):
        self.code = r.exit_code
        self.out = r.stdout
        self.err = r.stderr
        self.exception = r.exception


def started_at(db, firefight: int, step: str, plan: dict, seed: str, revision: int | None = None) -> "Campaign":
    """A new sample campaign at `db` (with `seed`, under `revision` where given) played to `step` of `firefight`."""
    extra = ["--rules-revision", str(revision)] if revision else []
    assert cli_run(db, "new", "--card", "sample", "--seed", seed, *extra).code == 0
    c = Campaign.attach(db, plan=plan)
    c.advance(firefight, step)
    return c


def cli_run(path: str, *args: str) -> CliResult:
    r = CliRunner().invoke(cli.main, ["--db", str(path), *[str(a) for a in args]])
    return CliResult(r)


# ---- CG Card variants ------------------------------------------------------------------------------

def load_sample() -> dict:
    with open(SAMPLE, "rb") as fh:
        return tomllib.load(fh)


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_toml_key(k)} = {_toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"cannot write {v!r} as TOML")


def _toml_key(k: str) -> str:
    return k if k.replace("_", "").replace("-", "").isalnum() and k.isascii() else _toml_value(k)


def _is_tables(v) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)


def to_toml(data: dict, prefix: str = "") -> str:
    """A small TOML writer for card dicts: tables, arrays of tables, inline tables for leaf dicts."""
    out: list[str] = []
    tables = []
    for k, v in data.items():
        nested = isinstance(v, dict) and (prefix == "" or any(isinstance(x, dict) or _is_tables(x)
                                                              for x in v.values()))
        if nested or _is_tables(v):
            tables.append((k, v))
        else:
            out.append(f"{_toml_key(k)} = {_toml_value(v)}")
    for k, v in tables:
        name = f"{prefix}.{_toml_key(k)}" if prefix else _toml_key(k)
        if _is_tables(v):
            for item in v:
                out.append(f"\n[[{name}]]")
                out.append(to_toml(item, name))
        else:
            out.append(f"\n[{name}]")
            out.append(to_toml(v, name))
    return "\n".join(x for x in out if x != "")


def card_variant(directory, name: str = "variant", *, campaign=None, axis=None, allied=None,
                 firefights=None, axis_rg=None, allied_rg=None, map=None) -> str:
    """Write the sample card with changed keys to DIRECTORY/NAME.toml; return its path.

    axis_rg / allied_rg: {rg id: {key: value}} changes to the RG table."""
    data = copy.deepcopy(load_sample())
    data["campaign"].update(campaign or {})
    data["sides"]["axis"].update(axis or {})
    data["sides"]["allied"].update(allied or {})
    data["map"].update(map or {})
    if firefights is not None:
        data["firefights"] = firefights
    for side, changes in (("axis", axis_rg), ("allied", allied_rg)):
        for rg in data["sides"][side]["rg"]:
            rg.update((changes or {}).get(rg["id"], {}))
    path = Path(directory) / f"{name}.toml"
    path.write_text(to_toml(data) + "\n", encoding="utf-8")
    return str(path)


def ff_list(n: int, times: tuple[str, ...] = ()) -> list[dict]:
    """n firefights, one a day (the sample's dates are not needed)."""
    return [{"date": f"1944-07-{10 + i:02d}", "time": (times[i] if i < len(times) else "day")}
            for i in range(n)]


# ---- fixtures ----------------------------------------------------------------------------------------

def _scratch(fallback: Path):
    """A fresh directory for campaign files: in RAM (/dev/shm) where there is one, since every append
    is an fsync'ed SQLite transaction (synchronous=FULL), else `fallback`. Yields it, then removes it."""
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield fallback
        return
    d = Path(tempfile.mkdtemp(prefix="plcg-tests-", dir=shm))
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def workdir(tmp_path):
    """Where a test keeps its campaign files."""
    yield from _scratch(tmp_path)


@pytest.fixture(scope="module")
def module_workdir(tmp_path_factory):
    """Where a module-scoped fixture keeps its campaign files."""
    yield from _scratch(tmp_path_factory.mktemp("campaigns"))


@pytest.fixture
def campaign(workdir):
    """Factory: campaign(card="sample", seed="tests", plan=None) -> an open Campaign at 2.2."""
    made: list[Campaign] = []

    def make(card: str = "sample", seed: str = "tests", plan: dict | None = None, name: str = "c") -> Campaign:
        c = Campaign(workdir / f"{name}{len(made)}.plcg", card=card, seed=seed, plan=plan)
        made.append(c)
        return c

    yield make
    for c in made:
        c.close()


@pytest.fixture
def r1(tmp_path):
    """A copy of the whole demo campaign written by the last revision-1 tree (tests/fixtures/campaign-r1.plcg),
    to read and to write."""
    path = tmp_path / "r1.plcg"
    shutil.copy(Path(__file__).resolve().parent / "fixtures" / "campaign-r1.plcg", path)
    return path


@pytest.fixture
def variant(workdir):
    """Factory: variant(**changes) -> path of a changed sample card (see card_variant)."""
    n = [0]

    def make(**changes) -> str:
        n[0] += 1
        return card_variant(workdir, f"variant{n[0]}", **changes)

    return make


_declare_the_steps_entries()  # last: the test files it imports read this module's names
