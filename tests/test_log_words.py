"""What a player reads (issue 27 item 10): `log` prints every event in words, never its raw name; the `end`
summary names the reduced, replaced and wounded units and the terrain kept; an entitlement left unused
(the 3.44 and 3.45 results) is said when `next` leaves its step, as ruling R3 says of CP at 2.3."""
from __future__ import annotations

import ast
import re

import pytest

from conftest import ROOT, Campaign, cli_run
from events.types import REGISTRY
from cg.steps.registry import WORDS
from projections import words as _words  # noqa: F401  (registers the words of the events no step writes)


def _worded() -> set[str]:
    """The event types that have words: each registered with `@words("t")` (its table, cg.steps.registry.WORDS:
    beside its step in cg/steps/, or in projections/words.py), and each type projections/words.py's code
    compares with `etype` (`etype == "t"`)."""
    tree = ast.parse((ROOT / "projections" / "words.py").read_text(encoding="utf-8"))
    out: set[str] = set(WORDS)
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and isinstance(node.left, ast.Name) and node.left.id == "etype":
            for right in node.comparators:
                values = right.elts if isinstance(right, (ast.Tuple, ast.List, ast.Set)) else [right]
                out |= {v.value for v in values if isinstance(v, ast.Constant) and isinstance(v.value, str)}
    return out


def _lines(out: str) -> dict[int, list[str]]:
    """A command's `[seq] text` lines, by seq."""
    said: dict[int, list[str]] = {}
    for line in out.splitlines():
        m = re.fullmatch(r"\[(\d+)\] (.+)", line)
        if m:
            said.setdefault(int(m[1]), []).append(m[2])
    return said


def _log(out: str) -> dict[int, tuple[int, str, str]]:
    """`plcg log`'s lines: seq -> (firefight, step, words)."""
    rows = {}
    for line in out.splitlines():
        m = re.fullmatch(r"\s*(\d+) ff(\d+)\s+(\S+)\s+(.+)", line)
        assert m, line
        rows[int(m[1])] = (int(m[2]), m[3], m[4])
    return rows


def _unused(out: str) -> dict[tuple[str, str], str]:
    """`next`'s lines of what a step left unused: (rule, side) -> what it says the side could have done."""
    found = {}
    for texts in _lines(out).values():
        for text in texts:
            m = re.fullmatch(r"left unused \((3\.4[45])\): (axis|allied) could have (.+); lost at `next`", text)
            if m:
                found[(m[1], m[2])] = m[3]
    return found


def test_every_event_type_has_its_own_words():
    assert sorted(set(REGISTRY) - _worded()) == []


@pytest.fixture
def at_end(tmp_path):
    db = str(tmp_path / "c.plcg")
    c = Campaign(db, plan={1: {"buy": [("axis", "I1"), ("allied", "I1")]}})
    c.advance(1, "2.9")
    c.close()
    return db


def test_log_says_where_a_unit_stands_at_the_end_in_words(at_end):
    r = cli_run(at_end, "position", "axis", "I1-1.2", "L4")
    assert r.code == 0
    [(seq, [said])] = _lines(r.out).items()
    assert said == "Axis I1-1.2 stands in L4 at the firefight's end (2.9)"
    log = _log(cli_run(at_end, "log").out)
    assert log[seq] == (1, "2.9", said)
    assert [w for _ff, _step, w in log.values() if re.fullmatch(r"[a-z]+(_[a-z]+)+", w)] == []  # no bare event name


def test_the_end_summary_names_reduced_replaced_wounded_units_and_the_terrain(at_end):
    r = cli_run(at_end, "end", "--turn", "5", "--cvp-lost", "axis=4", "--cvp-lost", "allied=6",
                "--reduced", "axis:I1-1.1", "--replaced", "axis:I1-1.3", "--wounded", "allied:I1-1.L1",
                "--terrain", "I5=rubble")
    assert r.code == 0, r.err
    [ended] = [text for texts in _lines(r.out).values() for text in texts if text.startswith("firefight ended")]
    head, *parts = ended.split("; ")
    assert head == "firefight ended on turn 5: CVP lost Axis 4, Allied 6"
    assert parts[1:] == ["reduced: Axis I1-1.1 to 2-4-7", "replaced (A19.13): Axis I1-1.3 to 4-4-7",
                         "wounded: Allied I1-1.L1", "terrain kept (CG5): rubble in I5"]


def test_next_says_the_34x_results_left_unused(tmp_path):
    db = str(tmp_path / "c.plcg")
    c = Campaign(db, plan={1: {"buy": [("axis", "I1"), ("allied", "I1")]}})
    c.advance(1, "3.44")
    c.close()
    for args in (("promote", "axis", "--dice", "1"), ("promote", "allied", "--dice", "6"),
                 ("harden", "axis", "I1-1.1")):
        assert cli_run(db, *args).code == 0
    r = cli_run(db, "next")  # Axis: 4 MMC allowed, 1 hardened, 2 squads left who could
    assert r.code == 0
    # the Allies' 0 MMC: nothing to say of them
    assert _unused(r.out) == {("3.44", "axis"): "Battle Hardened 2 more MMC (the dr allowed 4, 1 hardened)"}
    for args in (("leaders", "axis", "--dice", "1"), ("leaders", "allied", "--dice", "6")):
        assert cli_run(db, *args).code == 0
    r = cli_run(db, "next")
    assert _unused(r.out) == {("3.45", "axis"): "hardened or generated 1 more leader(s) (the dr allowed 2)"}


def _at_3_44_with_a_gun(tmp_path, allied_buys):
    db = str(tmp_path / "c.plcg")
    c = Campaign(db, plan={1: {"buy": [("axis", "I1"), *[("allied", rg) for rg in allied_buys]]}})
    c.advance(1, "3.44")
    crew = next(u.id for u in c.state().side_units("allied") if u.kind == "crew")
    for args in (("promote", "axis", "--dice", "6"), ("promote", "allied", "--dice", "1")):
        assert cli_run(db, *args).code == 0
    allowed = c.state().reph.promotions["allied"]
    c.close()
    assert allowed >= 2
    return db, crew, allowed


def test_a_lone_crews_unused_promotion_is_said_at_next(tmp_path):
    # rules revision 3 (switch mmc_crews): a crew is an MMC for 3.44 (ASL A1.1), so its unused promotion is lost
    db, crew, allowed = _at_3_44_with_a_gun(tmp_path, ["G1"])
    r = cli_run(db, "next")
    assert r.code == 0, r.err
    assert _unused(r.out)[("3.44", "allied")] == f"Battle Hardened 1 more MMC (the dr allowed {allowed}, 0 hardened)"


def test_a_hardened_crew_counts_as_a_promotion_used(tmp_path):
    db, crew, allowed = _at_3_44_with_a_gun(tmp_path, ["I1", "G1"])  # three squads and the crew
    assert cli_run(db, "harden", "allied", crew).code == 0
    r = cli_run(db, "next")
    assert r.code == 0, r.err
    assert _unused(r.out)[("3.44", "allied")] == \
        f"Battle Hardened {allowed - 1} more MMC (the dr allowed {allowed}, 1 hardened)"


def test_typed_dice_are_said_once_at_the_end_of_a_log_line(tmp_path):
    """A roll made with typed dice is marked "[dice given]" once, at the end of its line, in `plcg log` and in
    `log --json`'s summary, where the event's words go on after the roll (a leader's hex: a row edited to hold
    one, which its schema allows). The log words a whole file through each type's constructor and words looked
    up once (projections.words.plain_words), not through summary a row: the mark is moved there too."""
    import orjson

    from helpers.sandbox import rechain

    c = Campaign(tmp_path / "dice.plcg", seed=None)
    c.advance(1, "2.3")
    c.run("buy", side="axis", rg="I1")
    c.run("leader", side="axis", rg="I1", dice="3,4")
    c.close()
    path = str(tmp_path / "dice.plcg")
    rechain(path, "UPDATE events SET payload = json_set(payload, '$.hex', 'M4') WHERE type = 'leader_rolled'")
    said = [x for _ff, _step, x in _log(cli_run(path, "log").out).values() if "leader for" in x]
    rows = [orjson.loads(x) for x in cli_run(path, "log", "--json").out.splitlines()]
    summaries = [r["summary"] for r in rows if r["type"] == "leader_rolled"]
    assert len(said) == 1 and said == summaries, (said, summaries)
    assert said[0].endswith("; placed in M4 [dice given]") and said[0].count("[dice given]") == 1, said[0]


def test_a_row_whose_step_was_edited_to_null_is_shown_by_log_as_log_json_shows_it(tmp_path):
    """Found while checking edited files against the log's read: a row whose step column another tool set to NULL
    made `plcg log` fail with an internal error (exit 5: the line's format had no way to write None), where
    `log --json` shows it as null. Both show it, as null; the audit is what names such an edit."""
    import sqlite3

    import orjson

    c = Campaign(tmp_path / "null-step.plcg")
    c.advance(1, "2.3")
    c.close()
    path = str(tmp_path / "null-step.plcg")
    conn = sqlite3.connect(path)
    seq = conn.execute("SELECT max(seq) FROM events WHERE type = 'step_left'").fetchone()[0]
    conn.execute("UPDATE events SET step = NULL WHERE seq = ?", (seq,))
    conn.commit()
    conn.close()
    r = cli_run(path, "log")
    assert r.code == 0, (r.code, r.err)
    line = next(x for x in r.out.splitlines() if x.split()[0] == str(seq))
    assert line.split()[1:3] == ["ff1", "null"], line
    rows = {x["seq"]: x for x in map(orjson.loads, cli_run(path, "log", "--json").out.splitlines())}
    assert rows[seq]["step"] is None
