"""The harness's own list of what each step owes (tests/conftest.py OWED_BY_THE_RULES), written apart from
the steps' `owes`, covers every step the ledger shows (issue 33 item 9); each step's entry is declared in the
test file of its rules (`owed_at`), a new step's in its own."""
from __future__ import annotations

from pathlib import Path

from cg.steps import BY_ID
from conftest import OWED_BY_THE_RULES, STEP_IDS, Campaign


def test_the_harness_says_what_every_step_owes():
    assert sorted(OWED_BY_THE_RULES, key=STEP_IDS.index) == list(STEP_IDS)  # every step, none other
    for step, (words, owed) in OWED_BY_THE_RULES.items():
        # in the rules' words: each begins with the step's name as the sequence prints it (cg/steps/)
        name = BY_ID[step].name
        assert words.startswith(name) and not words[len(name):][:1].isalnum(), (step, words)
        assert isinstance(owed, list), step


def test_each_steps_entry_is_declared_in_a_test_file_of_its_rules():
    """`owed_at` is called in the test files (tests/test_*.py), not in the harness itself: a step's test is one file."""
    import ast

    declared = {}
    for path in sorted(Path(__file__).resolve().parent.glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
                    and getattr(node.value.func, "id", None) == "owed_at":
                declared.setdefault(node.value.args[0].value, []).append(path.name)
    assert sorted(declared, key=STEP_IDS.index) == list(STEP_IDS)
    assert all(len(files) == 1 and files[0].startswith("test_") for files in declared.values()), declared


def test_the_harness_finds_a_patrol_bought_and_never_sent(tmp_path):
    """The walker's check, not `pending`: a patrol bought at 2.3 and neither sent nor given up is owed at 2.7."""
    camp = Campaign(tmp_path / "c.plcg", plan={1: {"patrols": [("allied", 1)]}})
    camp.advance(1, "2.7")
    st = camp.state()
    assert OWED_BY_THE_RULES["2.7"][1][0](camp, st, [r for r in camp.led.store.read() if r.firefight == 1]) == \
        ["allied patrol 1 (2.7)"]
