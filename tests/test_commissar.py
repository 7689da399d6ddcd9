"""2.361 * (A25.22, ruling R40): a Russian side may take a Commissar for the leader its DR gives, on the
starred rows, where the card's RG allows it."""
from __future__ import annotations

import json

from conftest import Campaign, card_variant, cli_run, rows


def at_2_3(tmp_path, commissar=True, *new):
    card = card_variant(tmp_path, allied={"nationality": "russian"}, allied_rg={"I1": {"commissar": commissar}})
    db = tmp_path / "c.plcg"
    assert cli_run(db, "new", "--card", card, "--seed", "k", *new).code == 0, "new"
    c = Campaign.attach(db, plan={})
    c.advance(1, "2.3")
    assert cli_run(db, "buy", "allied", "I1").code == 0
    return c


def test_a_commissar_for_a_starred_row(tmp_path):
    c = at_2_3(tmp_path, True, "--rules-revision", "2")  # revision 3 (ruling R49): tests/test_dead_ends.py
    before = rows(c.path)
    r = cli_run(c.path, "leader", "allied", "I1", "--commissar", "--dice", "1,1")  # row <4: no star
    assert r.code == 3 and "2.361" in r.err
    assert rows(c.path) == before
    r = cli_run(c.path, "leader", "allied", "I1", "--commissar", "--dice", "3,4", "--json")
    assert r.code == 0, r.err
    roll = json.loads(r.out)[0]["roll"]
    assert roll["row"] in ("5-6", "7-8") and roll["outcome"] in ("8+1", "9-0", "10-0") and roll["rolled"]
    assert roll["outcome"].split("-")[0].split("+")[0] == roll["rolled"].split("-")[0].split("+")[0]
    c.close()


def test_no_commissar_where_the_card_does_not_allow_it(tmp_path):
    c = at_2_3(tmp_path, commissar=False)
    r = cli_run(c.path, "leader", "allied", "I1", "--commissar", "--dice", "3,4")
    assert r.code == 3 and "commissar" in r.err.lower()
    c.close()
