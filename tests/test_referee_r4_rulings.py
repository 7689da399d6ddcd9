"""Issue 39, the fourth referee's round: the rulings he disputed (R5 in a Dual Night Assault; R48 against R58
and 3.11; the 3.23 proximity test), each played through the command line."""
from __future__ import annotations

import json

import pytest

from conftest import Campaign, cli_run

DUAL_NIGHT = {2: {"attack": ["axis", "allied"]}}  # the sample's firefight 2 is a night firefight


def at_dual_night_end(tmp_path, revision: int | None = None) -> Campaign:
    db = tmp_path / f"dn{revision}.plcg"
    extra = ["--rules-revision", str(revision)] if revision else []
    assert cli_run(db, "new", "--card", "sample", "--seed", "dn", *extra).code == 0
    c = Campaign.attach(db, plan=DUAL_NIGHT)
    c.advance(2, "2.9")
    ff = c.state().ff
    assert ff.type == "dual" and ff.time == "night" and ff.move_first in ("axis", "allied")
    return c


def end(c, *more):
    return cli_run(c.path, "end", "--turn", "5", "--cvp-lost", "axis=3", "--cvp-lost", "allied=3", *more)


def test_r5_a_cvp_tie_in_a_dual_night_assault_is_a_draw(tmp_path):
    """2.421: both sides are Firefight ATTACKERS and "neither side receives the benefits/penalties of the
    Firefight Defender": the tie 1.31 gives the defender has no one to go to."""
    c = at_dual_night_end(tmp_path)
    r = end(c)
    assert r.code == 0, r.err
    assert "no winner, a draw (2.421" in r.out, r.out
    ff = c.state().ff
    assert ff.winner is None and ff.winner_rule == "2.421"
    c.close()


def test_r5_the_players_may_name_the_dual_night_winner(tmp_path):
    c = at_dual_night_end(tmp_path)
    r = end(c, "--winner", "axis")  # CG Objectives, or the card's own firefight objective (1.31 "unless noted")
    assert r.code == 0, r.err
    assert c.state().ff.winner == "axis" and c.state().ff.winner_rule == "--winner"
    c.close()


def test_r5_a_reph_loss_decides_the_dual_night_tie_again(tmp_path):
    """3.11 / R25: RePh losses count for the firefight: the draw becomes a win once one side lost more."""
    c = at_dual_night_end(tmp_path)
    assert end(c).code == 0
    c.advance(2, "3.1")
    assert cli_run(c.path, "casualties", "allied", "--cvp", "2").code == 0
    ff = c.state().ff
    assert ff.winner == "axis" and ff.winner_rule == "1.31"
    c.close()


@pytest.mark.parametrize("revision", [1, 2])
def test_r5_revisions_1_and_2_gave_the_night_tie_to_the_side_that_moved_second(tmp_path, revision):
    c = at_dual_night_end(tmp_path, revision)
    assert end(c).code == 0
    ff = c.state().ff
    assert ff.winner == ("allied" if ff.move_first == "axis" else "axis") and ff.winner_rule == "R5"
    c.close()
