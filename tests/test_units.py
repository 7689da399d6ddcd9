"""The unit vocabulary (cg/units.py, issue 22): one answer to "is this an MMC" (ASL A1.1: squads,
half-squads and crews) for 3.44 hardening, the 3.45 limit and 3.45 placement (rules revision 3, switch
mmc_crews), and no bare comparison of a kind or status word outside the vocabulary."""
from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from cg.units import MMC, PERSONNEL, Kind, Status
from conftest import Campaign, cli_run, rows

ROOT = Path(__file__).resolve().parents[1]
PLAN = {1: {"buy": [("allied", "I1"), ("allied", "I2"), ("allied", "G1")]}}


def test_the_questions_of_a1_1():
    assert MMC == {Kind.SQUAD, Kind.HALF_SQUAD, Kind.CREW}
    assert Kind.CREW.is_mmc and not Kind.LEADER.is_mmc and Kind.LEADER.is_smc
    assert PERSONNEL == MMC | {Kind.LEADER} and not Kind.SW.is_personnel
    assert [k.hs_equivalents for k in (Kind.SQUAD, Kind.HALF_SQUAD, Kind.CREW, Kind.LEADER)] == [2, 1, 1, 0]
    assert Kind("hs") is Kind.HALF_SQUAD and Status("on_map") == "on_map"  # the words the log stores


def _r39(u) -> int:
    """A26.2 as ruling R39 counts it: a squad 2 CVP, a leader 1 plus its leadership (9-2: 3, 8+1: 1)."""
    if u.kind == Kind.SQUAD:
        return 2
    sign, n = re.fullmatch(r"\d+([-+])(\d)", u.name).groups()
    return 1 + (int(n) if sign == "-" else 0)


def _only_a_crew_left(tmp_path, revision=None):
    """The Allies lose both leaders and all six squads of I1 and I2 at firefight 1's end; the 57mm Gun's
    crew is the only Allied MMC left (a roster-only campaign: no recorded hexes)."""
    db = tmp_path / "c.plcg"
    extra = ["--rules-revision", str(revision)] if revision else []
    assert cli_run(db, "new", "--card", "sample", "--seed", "crew", *extra).code == 0
    c = Campaign.attach(db, plan=PLAN)
    c.advance(1, "2.9")
    st = c.state()
    lost = [u.id for u in st.side_units("allied") if u.kind in (Kind.LEADER, Kind.SQUAD)]
    assert sum(1 for u in st.side_units("allied") if u.kind == Kind.LEADER) == 2
    cvp = sum(_r39(u) for u in st.side_units("allied") if u.id in lost)  # what `end` lists, valued (issue 38)
    end = ["end", "--turn", "5", "--cvp-lost", "axis=20", "--cvp-lost", f"allied={cvp}",
           *[a for x in lost for a in ("--lost", f"allied:{x}")]]
    r = cli_run(db, *end)
    assert r.code == 0, r.err
    crew = [u for u in c.state().side_units("allied") if u.kind == Kind.CREW]
    assert len(crew) == 1 and not [u for u in c.state().side_units("allied") if u.kind in (Kind.SQUAD, Kind.HALF_SQUAD)]
    return c, crew[0].id


def test_a_crew_is_an_mmc_for_the_3_45_limit(tmp_path):
    """3.45: leaders generated at most min(dr result, leaders lost - 1, MMC on board): two leaders lost and
    a crew left may generate one (revision 2 counted no crew: 0)."""
    c, _crew = _only_a_crew_left(tmp_path)
    c.advance(1, "3.45")
    r = cli_run(c.path, "leaders", "allied", "--dice", "1", "--json")
    assert r.code == 0, r.err
    assert c.state().reph.may_generate["allied"] == 1
    c.close()


def test_revision_2_left_the_crew_out_of_the_3_45_limit(tmp_path):
    c, _crew = _only_a_crew_left(tmp_path, revision=2)
    c.advance(1, "3.45")
    assert cli_run(c.path, "leaders", "allied", "--dice", "1").code == 0
    assert c.state().reph.may_generate["allied"] == 0
    c.close()


def _promoted(tmp_path, revision=None):
    c, crew = _only_a_crew_left(tmp_path, revision)
    c.advance(1, "3.44")
    r = cli_run(c.path, "promote", "allied", "--dice", "1", "--json")
    assert r.code == 0, r.err
    assert c.state().reph.promotions["allied"] >= 1
    return c, crew


def test_a_crew_battle_hardens_at_3_44(tmp_path):
    c, crew = _promoted(tmp_path)
    r = cli_run(c.path, "harden", "allied", crew, "--to", "2-2-8")
    assert r.code == 0, r.err
    oob = {u["unit"]: u for u in json.loads(cli_run(c.path, "oob", "allied", "--json").out)}
    assert oob[crew]["name"] == "2-2-8"
    c.close()


def test_revision_2_refused_the_crew_at_3_44(tmp_path):
    c, crew = _promoted(tmp_path, revision=2)
    before = rows(c.path)
    r = cli_run(c.path, "harden", "allied", crew, "--to", "2-2-8")
    assert r.code == 3 and "not an MMC" in r.err and "[rule 3.44]" in r.err, r.err
    assert rows(c.path) == before
    c.close()


# ---- no bare kind or status words outside the vocabulary ----------------------------------------------

WORDS = {m.value for m in Kind} | {m.value for m in Status}
ATTRS = {"kind", "status"}
CODE = [p for d in ("cg", "projections", "events") for p in sorted((ROOT / d).rglob("*.py"))] + [ROOT / "cli.py"]


def _bare(node) -> bool:
    return isinstance(node, ast.Constant) and node.value in WORDS


def _words(node, named=frozenset()) -> bool:
    """Vocabulary words written out: a string, a tuple/list/set of them (also inside `frozenset(...)`),
    or a module-level name bound to such a collection (`MMC = ("squad", "hs")`, issue 33 item 9)."""
    if _bare(node) or (isinstance(node, ast.Name) and node.id in named):
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("frozenset", "set", "tuple"):
        return any(_words(a) for a in node.args)
    return isinstance(node, (ast.Tuple, ast.List, ast.Set)) and any(_bare(e) for e in node.elts)


def _unit_attr(node) -> bool:
    """A unit's kind or status: `u.kind`, `getattr(u, "kind", None)`, or a name `kind` / `status` holding
    one (`unit_kind`'s answer)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr":
        return len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and node.args[1].value in ATTRS
    return (isinstance(node, ast.Attribute) and node.attr in ATTRS) or (isinstance(node, ast.Name) and node.id in ATTRS)


def _named_words(tree) -> frozenset:
    """The module-level names bound to a collection of vocabulary words."""
    return frozenset(t.id for node in tree.body if isinstance(node, ast.Assign) and _words(node.value)
                     and not _bare(node.value) for t in node.targets if isinstance(t, ast.Name))


def bare_comparisons(path: Path) -> list[str]:
    """`u.kind == "squad"`, `u.status in ("on_map", ...)`, `getattr(u, "kind", None) in MMC` with
    `MMC = ("squad", "hs")` and the like: a unit's kind or status compared with a word of the vocabulary
    written out as a string."""
    found = []
    tree = ast.parse(path.read_text(), str(path))
    named = _named_words(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_unit_attr(s) for s in sides) and any(_words(s, named) for s in sides):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}")
    return found


def _results(v) -> list:
    """The values an expression may give: a constant, either branch of `a if test else b`."""
    if isinstance(v, ast.IfExp):
        return _results(v.body) + _results(v.orelse)
    return [v]


def _a_word(v) -> bool:
    return any(isinstance(r, ast.Constant) and isinstance(r.value, str) for r in _results(v))


def bare_status_writes(path: Path) -> list[str]:
    """`u.status = "eliminated"`, `Unit(status="on_map" if hx else ...)`: a status set to a word written
    out as a string (a word missing from Status, "recombined" once, went unnoticed that way)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                pairs = zip(target.elts, node.value.elts) if isinstance(target, ast.Tuple) and isinstance(
                    node.value, ast.Tuple) else [(target, node.value)]
                if any(isinstance(t, ast.Attribute) and t.attr == "status" and _a_word(v) for t, v in pairs):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.keyword) and node.arg == "status" and _a_word(node.value):
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}: status={ast.unparse(node.value)}")
    return found


# cg/counters.py is the counter table, with its own words for what a printed counter is (VASL's: a
# "half_squad", a "commissar", an "afv"); a unit of the campaign takes its Kind from cg/state.unit_kind
EXEMPT = {"units.py", "counters.py"}


@pytest.mark.parametrize("path", [p for p in CODE if p.name not in EXEMPT], ids=lambda p: str(p.relative_to(ROOT)))
def test_no_bare_comparison_of_a_kind_or_status_word(path):
    assert bare_comparisons(path) == []


@pytest.mark.parametrize("path", [p for p in CODE if p.name not in EXEMPT], ids=lambda p: str(p.relative_to(ROOT)))
def test_no_status_is_set_to_a_word_written_out(path):
    assert bare_status_writes(path) == []


def test_every_status_the_fold_sets_is_a_status():
    from cg import evolve

    words = {v for k, v in vars(evolve).items() if k.endswith("_W") and isinstance(v, str)}
    assert words and words <= {m.value for m in Status}


def test_the_walker_finds_a_bare_comparison(tmp_path):
    p = ROOT / "cg" / "_probe_units.py"
    p.write_text('def f(u, kind):\n    return u.kind in ("squad", "hs") or u.status == "on_map" or kind == "leader"\n')
    try:
        assert len(bare_comparisons(p)) == 3
        p.write_text('MMC = ("squad", "hs")\nLEADERS = frozenset({"leader"})\ndef f(u, st, x):\n'
                     '    return getattr(st.unit(x), "kind", None) in MMC, u.kind in LEADERS\n')
        assert len(bare_comparisons(p)) == 2  # the entitlements bug's shape: a tuple named, read by getattr
        p.write_text('def f(u, hx):\n    u.status, u.hex = "recombined", None\n    return U(status="on_map" if hx else "x")\n')
        assert len(bare_status_writes(p)) == 2
    finally:
        p.unlink()
