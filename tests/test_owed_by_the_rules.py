"""The harness's own list of what each step owes (tests/conftest.py OWED_BY_THE_RULES), written apart from
the steps' `owes`, covers every step the ledger shows (issue 33 item 9)."""
from __future__ import annotations

from conftest import OWED_BY_THE_RULES, STEP_IDS, Campaign


def test_the_harness_says_what_every_step_owes():
    assert list(OWED_BY_THE_RULES) == list(STEP_IDS)
    for step, (words, owed) in OWED_BY_THE_RULES.items():
        assert words and isinstance(owed, list), step


def test_the_harness_finds_a_patrol_bought_and_never_sent(tmp_path):
    """The walker's check, not `pending`: a patrol bought at 2.3 and neither sent nor given up is owed at 2.7."""
    camp = Campaign(tmp_path / "c.plcg", plan={1: {"patrols": [("allied", 1)]}})
    camp.advance(1, "2.7")
    st = camp.state()
    assert OWED_BY_THE_RULES["2.7"][1][0](camp, st, [r for r in camp.led.store.read() if r.firefight == 1]) == \
        ["allied patrol 1 (2.7)"]
