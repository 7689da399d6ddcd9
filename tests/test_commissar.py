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


# ---- issue 35 D4, issue 39 defect 8: each refusal names its own condition, before any die (ruling R92) ----------

from test_dead_ends import _os_dice, _rows as _bytes  # noqa: E402  (the ledger's OS dice, faked; the file's bytes)


def _at_2_3_bought(tmp_path, revision, nationality, rg, commissar):
    given = commissar and nationality == "russian"  # `card check` refuses the key on another nationality
    card = card_variant(tmp_path, allied={"nationality": nationality},
                        allied_rg={"I1": {"commissar": given}, "A1": {"commissar": given}})
    db = tmp_path / f"d4-{revision}-{nationality}-{rg}-{commissar}.plcg"
    assert cli_run(db, "new", "--card", card, "--rules-revision", str(revision)).code == 0  # the OS dice
    c = Campaign.attach(db, plan={})
    c.advance(1, "2.3")
    c.close()
    assert cli_run(db, "buy", "allied", rg).code == 0
    return db


import pytest  # noqa: E402


@pytest.mark.parametrize("revision", [1, 2, 3])
@pytest.mark.parametrize("nationality, rg, commissar, says, not_says", [
    # not a Russian side: the nationality is the reason
    ("american", "I1", False, "only a Russian side takes a Commissar (2.361 *, A25.22); allied is american",
     "column"),
    # a Russian tank leader: the Armor Leader column has no *, even where its RG says commissar (issue 35 D4)
    ("russian", "A1", True, "A1-1 is rolled on the armor column of 2.361; the * that offers a Commissar marks "
                            "rows of the Russian (general) leader column only", "only a Russian side"),
    # a Russian infantry leader whose RG the card does not give a Commissar
    ("russian", "I1", False, "the CG Card does not allow a Commissar for I1-1 (RG key commissar)",
     "only a Russian side"),
])
def test_each_commissar_refusal_names_the_condition_that_raised_it_before_any_die(
        tmp_path, monkeypatch, revision, nationality, rg, commissar, says, not_says):
    db = _at_2_3_bought(tmp_path, revision, nationality, rg, commissar)
    asked = _os_dice(monkeypatch, [3, 4])  # a * row: only the condition named can refuse it
    before = _bytes(db)
    r = cli_run(db, "leader", "allied", rg, "--commissar")
    assert r.code == 3, r.out + r.err
    assert says in r.err and "[rule 2.361]" in r.err, r.err
    assert not_says not in r.err
    assert asked == [] and _bytes(db) == before  # ruling R49: judged before the roll, under every revision
    r = cli_run(db, "leader", "allied", rg)  # without --commissar the same leader DR is taken
    assert r.code == 0, r.err
    assert asked == [2]


def test_a_row_without_a_star_is_the_one_refusal_revisions_1_and_2_make_after_the_roll(tmp_path, monkeypatch):
    db = _at_2_3_bought(tmp_path, 2, "russian", "I1", True)
    asked = _os_dice(monkeypatch, [1, 1])  # row <=2: no *
    r = cli_run(db, "leader", "allied", "I1", "--commissar")
    assert r.code == 3 and "row <2 of the 2.361 table has no * : no Commissar on it" in r.err, r.err
    assert asked == [2]  # ruling R49's old behaviour, kept for revisions 1-2 (the row needs the dice)


def test_a_commissar_is_logged_as_the_starred_row_not_as_2_362(tmp_path):
    c = at_2_3(tmp_path, True)
    r = cli_run(c.path, "leader", "allied", "I1", "--commissar", "--dice", "3,4")
    assert r.code == 0, r.err
    assert "8-0 -> 8+1 (Commissar, 2.361 * / A25.22)" in r.out, r.out
    assert "2.362" not in r.out
    log = cli_run(c.path, "log")
    assert "8-0 -> 8+1 (Commissar, 2.361 * / A25.22)" in log.out and "(2.362)" not in log.out
    c.close()


def _russian_at_3_45(tmp_path, commissar: bool):
    """The Allies (Russian, I1 and I2 bought) lost both leaders: 3.45 lets them generate one."""
    card = card_variant(tmp_path, allied={"nationality": "russian"},
                        allied_rg={"I1": {"commissar": commissar}, "I2": {"commissar": commissar}})
    db = tmp_path / f"gen-{commissar}.plcg"
    assert cli_run(db, "new", "--card", card, "--seed", "gl").code == 0
    c = Campaign.attach(db, plan={1: {"buy": [("allied", "I1"), ("allied", "I2")]}})
    c.advance(1, "2.9")
    leaders = sorted(u.id for u in c.state().side_units("allied") if u.kind == "leader")
    assert len(leaders) == 2
    end = ["end", "--turn", "5", "--cvp-lost", "axis=20", "--cvp-lost", "allied=5",
           *[a for x in leaders for a in ("--lost", f"allied:{x}")]]
    assert cli_run(db, *end).code == 0
    c.advance(1, "3.45")
    assert cli_run(db, "leaders", "allied", "--dice", "1").code == 0
    assert c.state().reph.may_generate["allied"] == 1
    return c


def test_a_generated_leader_may_be_a_commissar_where_the_card_makes_one_available(tmp_path):
    c = _russian_at_3_45(tmp_path, True)
    r = cli_run(c.path, "leader", "allied", "--generated", "--commissar", "--dice", "3,4", "--json")
    assert r.code == 0, r.err  # 3.45 generates "using the 2.361 Table": its * is the Russian column's
    roll = json.loads(r.out)[0]["roll"]
    assert roll["row"] == "7-8" and roll["rolled"] == "8-0" and roll["outcome"] == "8+1"
    c.close()


def test_a_generated_commissar_is_refused_where_no_rg_of_the_card_gives_one(tmp_path):
    c = _russian_at_3_45(tmp_path, False)
    before = rows(c.path)
    r = cli_run(c.path, "leader", "allied", "--generated", "--commissar", "--dice", "3,4")
    assert r.code == 3 and "the CG Card makes no Commissar available to allied" in r.err, r.err
    assert rows(c.path) == before
    c.close()


def test_each_refusal_of_the_leader_command_names_its_own_condition(tmp_path):
    """Issue 35 item 2, the leader command's other branches (the Commissar's are above): each refusal says
    the condition that raised it, writes nothing."""
    c = at_2_3(tmp_path, True)  # Russian, I1 bought (I1-1 owes its leader DR)
    before = rows(c.path)
    for args, code, says in (
            (("leader", "allied", "I2"), 3, "no I2 bought for firefight 1 owes a leader DR"),
            (("leader", "allied", "I1", "--hex", "B5"), 2, "--hex places a leader generated at 3.45 (--generated)"),
            (("leader", "allied", "--generated"), 3, "[rule 3.45]"),  # the step: 2.3 is no 3.45
    ):
        r = cli_run(c.path, *args)
        assert r.code == code and says in r.err, (args, r.code, r.err)
        assert rows(c.path) == before
    assert cli_run(c.path, "leader", "allied", "I1-1", "--dice", "3,4").code == 0
    r = cli_run(c.path, "leader", "allied", "I1-1", "--dice", "3,4")
    assert r.code == 3 and "I1-1 owes no leader DR" in r.err, r.err
    c.close()
    g = _russian_at_3_45(tmp_path, True)
    r = cli_run(g.path, "leader", "allied", "--generated", "--dice", "3,4")
    assert r.code == 0, r.err  # the one leader 3.45 lets the Allies generate
    r = cli_run(g.path, "leader", "allied", "--generated", "--dice", "3,4")
    assert r.code == 3 and "allied may generate 1 leader(s) this RePh" in r.err and "has generated 1" in r.err, r.err
    g.close()
