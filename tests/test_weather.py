"""Ruling R27 (rules revision 2): 2.2 At Start Weather in every firefight; the weather carries over."""
from __future__ import annotations

import json

from conftest import Campaign, cli_run, owed_at

PLAN = {1: {"buy": [("axis", "I1"), ("allied", "I1")]}, 2: {"attack": ["axis"]}}


def camp(tmp_path, revision=None):
    db = tmp_path / "c.plcg"
    extra = ["--rules-revision", str(revision)] if revision else []
    assert cli_run(db, "new", "--card", "sample", "--seed", "w", *extra).code == 0
    return Campaign.attach(db, plan=PLAN)


def test_every_firefight_visits_2_2_and_keeps_the_previous_weather(tmp_path):
    c = camp(tmp_path)
    c.advance(1, "2.2")
    assert cli_run(c.path, "weather", "overcast").code == 0
    c.advance(2, "2.1")
    c.finish_step()
    assert c.step == "2.2"
    st = json.loads(cli_run(c.path, "status", "--json").out)
    assert [p["command"] for p in st["pending"]] == ["plcg weather"]
    r = cli_run(c.path, "weather")
    assert r.code == 0 and "overcast" in r.out  # the card gives none for firefight 2: firefight 1's
    assert c.state().ff.weather == "overcast"
    c.close()


def test_revision_1_went_from_2_1_to_2_3(tmp_path):
    c = camp(tmp_path, revision=1)
    c.advance(2, "2.1")
    c.finish_step()
    assert c.step == "2.3"
    c.close()


# ---- the harness's list of what each step owes, in the rules' words (tests/conftest.py owed_at): this file's steps ----


owed_at("2.2",
        "At Start Weather, every firefight (2.2, ruling R27)",
        [("weather_set", False, "2.2")])
