"""Ruling R32: a campaign keeps the rules revision it was started under; `plcg rules-upgrade` moves it on
from the next firefight's 2.1; each changed decision is one named switch, listed in the README."""
from __future__ import annotations

import json

from conftest import ROOT, Campaign, cli_run

from cg.rules import revisions, rules_for


def status(path) -> dict:
    r = cli_run(path, "status", "--json")
    assert r.code == 0, r.err
    return json.loads(r.out)


def test_a_new_campaign_is_decided_under_the_current_revision_and_says_so(tmp_path):
    db = tmp_path / "c.plcg"
    assert cli_run(db, "new", "--card", "sample").code == 0
    assert status(db)["rules_revision"] == revisions.CURRENT == 3
    r = cli_run(db, "log", "--json")
    assert "rules revision 3" in json.loads(r.out.splitlines()[0])["summary"]


def test_an_earlier_revision_only_where_asked_and_only_a_known_one(tmp_path):
    db = tmp_path / "c.plcg"
    r = cli_run(db, "new", "--card", "sample", "--rules-revision", "7")
    assert r.code == 2 and "--rules-revision" in r.err and not db.exists()
    assert cli_run(db, "new", "--card", "sample", "--rules-revision", "1").code == 0
    assert status(db)["rules_revision"] == 1


def buy_two_i1(db) -> list[str]:
    """Axis then Allies buy an I1 at 2.3 of the Initial Firefight: the purchase ids given."""
    assert cli_run(db, "weather").code == 0 and cli_run(db, "next").code == 0  # 2.2 -> 2.3
    ids = []
    for side in ("axis", "allied"):
        r = cli_run(db, "buy", side, "I1", "--json")
        assert r.code == 0, r.err
        ids.append(json.loads(r.out)[0]["summary"].split(" as ")[1].split()[0])
    return ids


def test_revision_2_numbers_purchases_per_side_revision_1_across_sides(tmp_path):
    new = tmp_path / "r2.plcg"
    old = tmp_path / "r1.plcg"
    assert cli_run(new, "new", "--card", "sample").code == 0
    assert cli_run(old, "new", "--card", "sample", "--rules-revision", "1").code == 0
    assert buy_two_i1(new) == ["I1-1", "I1-1"]  # the Allies' first I1 is I1-1 (revision 2)
    assert buy_two_i1(old) == ["I1-1", "I1-2"]  # as the first release numbered them
    # the ids repeat across sides: each side's command reaches its own unit, the oob shows each side's
    for side, name in (("axis", "4-6-7"), ("allied", "6-6-7")):
        r = cli_run(new, "oob", side, "--json")
        rows = {u["unit"]: u for u in json.loads(r.out)}
        assert rows["I1-1.1"]["name"] == name
    assert cli_run(new, "audit").code == 0 and cli_run(old, "audit").code == 0


def test_rules_upgrade_takes_effect_at_the_next_firefights_2_1_and_the_audit_follows(tmp_path):
    db = tmp_path / "c.plcg"
    assert cli_run(db, "new", "--card", "sample", "--rules-revision", "1").code == 0
    r = cli_run(db, "rules-upgrade")
    assert r.code == 0, r.err
    assert "from firefight 2's 2.1" in r.out
    assert status(db)["rules_revision"] == 1  # firefight 1 stays under revision 1
    r = cli_run(db, "rules-upgrade")
    assert r.code == 3 and "R32" in r.err  # recorded once
    c = Campaign.attach(db, plan={1: {"buy": [("axis", "I1"), ("allied", "I1")]}})
    c.advance(1, "2.4")
    ids = sorted(p.id for p in c.state().purchases.values())
    assert ids == ["I1-1", "I1-2"]  # decided under revision 1
    c.advance(2, "2.3", plan={2: {"attack": ["axis"]}})
    assert status(db)["rules_revision"] == revisions.CURRENT
    c.run("buy", side="allied", rg="I2")
    c.run("buy", side="axis", rg="I2")
    assert sorted(p.id for p in c.state().purchases.values() if p.rg == "I2") == ["I2-1", "I2-1"]
    c.close()
    r = cli_run(db, "audit", "--json")
    assert r.code == 0 and json.loads(r.out)["findings"] == []


def test_a_campaign_under_the_current_revision_is_not_upgraded(tmp_path):
    from conftest import rows

    db = tmp_path / "c.plcg"
    assert cli_run(db, "new", "--card", "sample").code == 0
    before = rows(db)
    r = cli_run(db, "rules-upgrade")
    assert r.code == 3 and f"revision {revisions.CURRENT}" in r.err and "R32" in r.err
    assert rows(db) == before


def test_the_table_of_changes_is_generated_from_the_revision_classes():
    """docs/revisions.md's table is `python -m cg.rules`: every decision that changed, the revision
    that brings the change and its words, in the order `Rules` declares them."""
    text = (ROOT / "docs" / "revisions.md").read_text()
    assert revisions.markdown_table() in text, "docs/revisions.md: paste the output of `python -m cg.rules`"
    assert text.count("| decision (`Rules` method) | from revision |") == 1


def test_each_older_revision_overrides_only_what_changed_after_it():
    """As python-chess's variants: `Revision2(Rules)` and `Revision1(Revision2)` define a decision only where
    it differs: the class of revision N overrides exactly the decisions a change of revision N+1 marks (a
    decision changed twice is overridden by both classes)."""
    classes = {cls.revision: cls for cls in (revisions.Rules, revisions.Revision2, revisions.Revision1)}
    assert sorted(classes) == list(range(1, revisions.CURRENT + 1))
    assert revisions.Revision2.__bases__ == (revisions.Rules,) and revisions.Revision1.__bases__ == (revisions.Revision2,)
    marked = {(name, n) for name, n, _text in revisions.changes()}
    assert marked and all(1 < n <= revisions.CURRENT for _name, n in marked)
    for n, cls in classes.items():
        own = {name for name, v in vars(cls).items() if callable(v) and not name.startswith("_")}
        if cls is revisions.Rules:
            continue
        # what this class overrides is exactly the decisions changed by the revision after it
        assert own == {name for name, since in marked if since == n + 1}, cls.__name__


def test_rules_for_gives_the_revision_in_force_at_the_firefight(tmp_path):
    db = tmp_path / "c.plcg"
    assert cli_run(db, "new", "--card", "sample", "--rules-revision", "1").code == 0
    assert cli_run(db, "rules-upgrade").code == 0
    c = Campaign.attach(db, plan={2: {"attack": ["axis"]}})
    assert type(rules_for(c.state())) is revisions.Revision1  # from firefight 2's 2.1 only
    c.advance(2, "2.3")
    assert type(rules_for(c.state())) is revisions.Rules
    c.close()


def test_no_switch_is_read_outside_the_rules_package():
    """Every decision that changed between revisions is a method of `Rules` (cg/rules/revisions.py); no
    module outside cg/rules/ reads a revision record, compares a revision number or names an older class."""
    import re

    for path in [*(ROOT / "cg").rglob("*.py"), *(ROOT / "projections").rglob("*.py"), ROOT / "cli.py"]:
        if path.is_relative_to(ROOT / "cg" / "rules"):
            continue
        text = path.read_text()
        assert not re.search(r"revision\.of\(|_RECORDS|SWITCHES|Revision[12]\b|rules_revision\s*(?:[<>]|[=!]=)", text), path


def test_no_rules_method_without_facts_is_asked_outside_the_rules_package():
    """Issue 33 item 3: a `Rules` method that takes no facts and answers yes or no is a switch by another name. No
    module outside cg/rules/ calls one (a method of that name, called with no argument): each asks a method that
    decides the thing from the facts it is given (the value, the DRMs, the refusal, the events)."""
    import ast
    import inspect

    from cg.rules import Rules

    bare = {name for name, fn in inspect.getmembers(Rules, inspect.isfunction)
            if not name.startswith("_") and list(inspect.signature(fn).parameters) == ["self"]}
    assert "next_leaves_provisionally" in bare  # the scan sees the switches it is meant to see
    calls = []
    for path in [*(ROOT / "cg").rglob("*.py"), *(ROOT / "projections").rglob("*.py"), *(ROOT / "events").rglob("*.py"),
                 ROOT / "cli.py"]:
        if path.is_relative_to(ROOT / "cg" / "rules"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in bare \
                    and not node.args and not node.keywords:
                calls.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.func.attr}()")
    assert calls == []


def test_no_rules_method_takes_the_callers_code_to_run_or_not():
    """Issue 33 item 3: a revision's difference reads as a rule, not as a callback. A `Rules` method decides from the
    facts it is given (a value, or yes or no where a whole branch differs: the caller runs it on a yes); none takes a
    callable of the caller's, but `strategic_terrain`, whose computation is kept lazy for speed (its docstring says
    why: every read of map control asks it)."""
    import inspect

    takes = set()
    for cls in (revisions.Rules, revisions.Revision2, revisions.Revision1):
        for name, fn in vars(cls).items():
            if inspect.isfunction(fn) and any("Callable" in str(p.annotation)
                                              for p in inspect.signature(fn).parameters.values()):
                takes.add(name)
    assert takes == {"strategic_terrain"}
    assert "for speed" in (revisions.Rules.strategic_terrain.__doc__ or "")


def test_an_upgraded_campaign_never_reuses_a_purchase_number_of_the_side(tmp_path):
    db = tmp_path / "c.plcg"
    assert cli_run(db, "new", "--card", "sample", "--rules-revision", "1").code == 0
    c = Campaign.attach(db, plan={1: {"buy": [("axis", "I1"), ("allied", "I1")]}, 2: {"attack": ["axis"]}})
    c.advance(1, "2.4")
    assert cli_run(db, "rules-upgrade").code == 0
    c.advance(2, "2.3")
    c.run("buy", side="allied", rg="I1")  # the Allies' I1-2 exists (revision 1 numbering): this one is I1-3
    ids = sorted(p.id for p in c.state().purchases.values() if p.side == "allied" and p.rg == "I1")
    assert ids == ["I1-2", "I1-3"]
    c.close()
    assert cli_run(db, "audit").code == 0
