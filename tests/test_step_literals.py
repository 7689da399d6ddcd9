"""Issue 33's count "step ids compared as literals at most 5": a step is named by its `StepId` member
(cg/sequence.py), never by the text "3.2" in a comparison with a step. The walk reads every comparison of the
product code whose one side is a step (a name or attribute called `step`, or `.step` read off anything) and
whose other side holds a string that is a step's id, alone or in a tuple, list or set."""
from __future__ import annotations

import ast
from pathlib import Path

from cg.sequence import StepId

ROOT = Path(__file__).resolve().parent.parent
IDS = {s.value for s in StepId}


def _is_step(node: ast.AST) -> bool:
    return (isinstance(node, ast.Name) and node.id in ("step", "at", "to_step")) or \
        (isinstance(node, ast.Attribute) and node.attr == "step")


def _ids(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value] if node.value in IDS else []
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [v for e in node.elts for v in _ids(e)]
    return []


def literal_step_comparisons(source: str, name: str) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_is_step(s) for s in sides) and any(_ids(s) for s in sides):
                out.append(f"{name}:{node.lineno}: {ast.unparse(node)}")
    return out


def _product_files():
    for pkg in ("cg", "events", "projections"):
        yield from sorted((ROOT / pkg).rglob("*.py"))
    yield ROOT / "cli.py"


def test_no_step_id_is_compared_as_a_literal():
    found = [hit for f in _product_files()
             for hit in literal_step_comparisons(f.read_text(), str(f.relative_to(ROOT)))]
    assert found == []


def test_the_walk_finds_a_step_compared_as_a_literal():
    planted = ("if st.step == '3.2':\n    pass\n"
               "ok = step in ('2.1', StepId.CP)\n"
               "fine = st.step == StepId.CP or rule == '3.2'\n")
    assert literal_step_comparisons(planted, "x.py") == [
        "x.py:1: st.step == '3.2'", "x.py:3: step in ('2.1', StepId.CP)"]
