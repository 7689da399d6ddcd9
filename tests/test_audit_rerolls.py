"""The audit's re-roll notes name only a roll of the same kind and subject made again after its undo, in
the same step of the same firefight (issue 14): firefight 2's own ELR roll is no re-roll of firefight 1's."""
from __future__ import annotations

import json

from conftest import Campaign, cli_run

PLAN = {1: {"buy": [("allied", "I1")]}, 2: {"attack": ["axis"]}}


def notes(path) -> list[str]:
    r = cli_run(path, "audit", "--json")
    assert r.code == 0, r.out
    return [n["what"] for n in json.loads(r.out)["notes"]]


def test_only_the_same_roll_made_again_is_a_reroll(tmp_path):
    c = Campaign(tmp_path / "c.plcg", plan=PLAN)
    c.advance(1, "2.3")
    c.run("buy", side="axis", rg="I1")
    c.run("buy", side="axis", rg="I2")
    c.run("leader", side="axis", rg="I1-1", dice="6,6")
    c.run("undo", reason="typo")
    c.run("leader", side="axis", rg="I2-1", dice="3,3")  # another purchase's DR: no re-roll
    c.run("leader", side="axis", rg="I1-1", dice="2,2")  # the same DR made again: a re-roll
    c.advance(1, "3.47")
    c.run("elr", side="axis", dice="6,6")
    c.run("undo", reason="wrong dice")
    c.run("elr", side="axis", dice="3,3")
    c.advance(2, "3.47")
    c.run("elr", side="axis", dice="4,4")  # firefight 2's own ELR roll
    c.close()
    made_again = [n for n in notes(c.path) if "made again" in n]
    assert len(made_again) == 2, made_again
    assert made_again[0].startswith("leader_rolled of axis") and "[2, 2]" in made_again[0]
    assert made_again[1].startswith("elr_rolled of axis") and "[3, 3]" in made_again[1]
