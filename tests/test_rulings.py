"""Rulings decided while building the ledger (README, Rulings), each checked through commands."""
from __future__ import annotations

from cg.state import BySide, unit_kind
from conftest import Campaign


def test_r25_reph_losses_count_for_the_firefight_and_can_change_a_1_31_winner(tmp_path):
    # Initial Firefight: Allied attacks (card). Axis loses 12 CVP, Allied 3: Allied amassed more and wins.
    c = Campaign(tmp_path / "w.plcg", plan={1: {"end": {"cvp_lost": {"axis": 12, "allied": 3}}}})
    c.advance(1, "3.1")
    assert c.state().ff.winner == "allied"
    c.next()  # 3.2: the casualties of a failed redeployment are RePh losses too
    c.run("casualties", side="allied", cvp=10)
    ff = c.state().ff
    assert ff.cvp_lost == BySide(axis=12, allied=13)
    assert (ff.winner, ff.winner_rule) == ("axis", "1.31")  # 3.11: "for all purposes"
    c.advance(1, "3.44")
    c.run("promote", side="axis", dice="3")
    promo = c.last("promotion_rolled")["roll"]
    assert {"rule": "3.44", "reason": "won firefight 1", "value": -1} in promo["drm"]
    c.close()


def test_r25_a_winner_given_for_cg_objectives_stands(tmp_path):
    c = Campaign(tmp_path / "o.plcg", plan={1: {"end": {"cvp_lost": {"axis": 12, "allied": 3},
                                                        "winner": "axis"}}})
    c.advance(1, "3.1")
    c.run("casualties", side="axis", cvp=20)
    assert (c.state().ff.winner, c.state().ff.winner_rule) == ("axis", "--winner")
    c.close()


def test_r18_half_squads_named_by_the_card():
    assert unit_kind("3-3-7 HS", "heavy_weapons") == "hs"
    assert unit_kind("3-3-7", "infantry") == "squad"
    assert unit_kind("2-4-7", "infantry") == "hs"
    assert unit_kind("6-6-7", "infantry") == "squad"
    assert unit_kind("9-2", "infantry") == "leader"
    assert unit_kind("2-2-8 crew", "gun") == "crew"
    assert unit_kind("HMG", "heavy_weapons") == "sw"
    assert unit_kind("StuG IIIG", "afv") == "vehicle"


def test_end_records_the_oba_modules_used(tmp_path):
    c = Campaign(tmp_path / "b.plcg", plan={1: {"buy": [("allied", "O1")]}})
    c.advance(1, "2.9")
    pid = [p for p in c.state().purchases.values() if p.rg == "O1"][0].id
    c.run("end", turn=4, cvp_lost={"axis": 1, "allied": 1}, oba_used=[f"allied:{pid}", f"allied:{pid}"])
    assert c.state().ff.oba_used == BySide(axis=0, allied=1)  # named twice, one module (CG4)
    c.close()


def test_end_refuses_a_unit_already_eliminated(tmp_path):
    c = Campaign(tmp_path / "d.plcg", plan={1: {"buy": [("axis", "I1")]}})
    c.advance(1, "2.9")
    uid = next(u.id for u in c.state().units.values() if u.side == "axis" and u.kind == "squad")
    c.run("end", turn=3, cvp_lost={"axis": 4, "allied": 0}, lost=[f"axis:{uid}"])
    assert c.state().unit(uid, "axis").status == "eliminated"
    c.advance(2, "2.9", plan={2: {"attack": ["allied"]}})
    rows = c.rows()
    import pytest
    from events.errors import Refused

    with pytest.raises(Refused) as e:
        c.run("end", turn=3, cvp_lost={"axis": 4, "allied": 0}, lost=[f"axis:{uid}"])
    assert e.value.rule == "2.9" and "eliminated already (firefight 1)" in str(e.value)
    assert c.rows() == rows
    c.close()
