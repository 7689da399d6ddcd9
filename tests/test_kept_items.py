"""The items the campaign keeps in a hex are typed values (cg/items.Kept, issue 22 item 2): one parse of
their text form `KEY[:SIDE][:FACTORS]`, which the events, the snapshot and the replay digest keep to the
letter (a revision 1 word as typed included), and the questions the rules ask of them (1.4, 3.52, CG5)."""
from __future__ import annotations

import pytest

from cg import snapshot
from cg.card import SIDES
from cg.items import ITEMS, Kept, parse_terrain
from conftest import Campaign, cli_run, rows

END = ["end", "--turn", "5", "--cvp-lost", "axis=1", "--cvp-lost", "allied=1"]
# what a revision 1 campaign kept as typed (`end --terrain` took any word), and texts no reader split alike
ODD = ["rubbel", "a-p mines 6", "rubble:foo", "x:3:axis", "foxhole:", "wire:allied:03", "ap_mine:axis:0",
       "mines:axis:3:4", "known_minefield:allied:axis", ":", "", "rubble::", "set dc:allied", "trench:3:allied"]


@pytest.mark.parametrize("key", sorted(ITEMS))
def test_every_item_s_text_reads_back_to_its_fields_and_the_same_text(key):
    for side in (None, *SIDES):
        for factors in (None, "1", "3", "12"):
            text = ":".join(p for p in (key, side, factors) if p is not None)
            kept = Kept.parse(text)
            assert (kept.key, kept.side, kept.factors, kept.tail) == (key, side, factors, None), text
            assert str(kept) == text and Kept(key, side, factors) == kept
            # the questions the rules ask, from the vocabulary's entry
            assert kept.item is ITEMS[key] and kept.grows == ITEMS[key].grows  # 1.4
            assert kept.clears_as == ITEMS[key].clear  # 3.52: ap_mine, at_mine, known_minefield clear as mines
            assert kept.mine == (ITEMS[key].clear == "mines") and kept.reads_as() is ITEMS[key]
            assert kept.said() == (side, factors)


@pytest.mark.parametrize("text", ODD)
def test_a_revision_1_word_is_kept_to_the_letter_and_read_by_its_first_part(text):
    kept = Kept.parse(text)
    assert str(kept) == text and Kept.parse(str(kept)) == kept
    key = text.split(":")[0]  # what every reader took for the item before the typed value
    assert kept.key == key and kept.grows == (key in ITEMS and ITEMS[key].grows)
    assert kept.clears_as == (ITEMS[key].clear if key in ITEMS else key)
    parts = text.split(":")[1:]  # the words read a side and factors wherever they stood
    assert kept.said() == (next((p for p in parts if p in SIDES), None), next((p for p in parts if p.isdigit()), None))


def test_two_texts_are_two_values():
    texts = [f"{k}:{s}:{f}" for k in ITEMS for s in SIDES for f in ("2", "3")] + list(ITEMS) + ODD
    assert len({Kept.parse(t) for t in texts}) == len(set(texts))
    assert Kept.parse("foxhole") != Kept.parse("foxhole:") and Kept.parse("ap_mine:3") != Kept.parse("ap_mine::3")


def test_end_terrain_parses_to_the_kept_value():
    assert parse_terrain(" A-P mines : 3 : Axis ") == Kept("ap_mine", "axis", "3")  # its words, either order
    assert parse_terrain("Set DC") == Kept("set_dc") and str(parse_terrain("foxhole:allied")) == "foxhole:allied"


@pytest.fixture
def at_end(tmp_path):
    c = Campaign(tmp_path / "c.plcg")
    c.advance(1, "2.3")
    for args in (["buy", "axis", "F1"], ["fortify", "axis", "ap-mine", "--factors", "2", "--hex", "M5"],
                 ["fortify", "axis", "sangar", "--hex", "L4"]):
        r = cli_run(c.path, *args)
        assert r.code == 0, (args, r.err)
    c.advance(1, "2.9")
    yield c
    c.close()


@pytest.mark.parametrize("bad", ["D5=foxhole:axis:", "D5=A-P mines:axis:3:3", "D5=:axis", "D5=rubble:3:3",
                                 "D5=ap_mine::3"])
def test_end_refuses_an_item_not_of_the_form_and_writes_nothing(at_end, bad):
    before = rows(at_end.path)
    r = cli_run(at_end.path, *END, "--terrain", "I5=rubble", "--terrain", bad)
    assert r.code == 2 and r.err.count("\n") == 1 and bad in r.err, r.err
    assert rows(at_end.path) == before


def test_the_snapshot_and_the_digest_keep_the_text_in_order(at_end):
    c = at_end
    r = cli_run(c.path, *END, "--terrain", "M5=rubble", "--terrain", "D5=A-P mines:Allied:4",
                "--terrain", "M5=flame", "--terrain", "F4=rubble")
    assert r.code == 0, r.err
    st = c.state()
    want = {"M5": ["ap_mine:axis:2", "rubble", "flame"], "L4": ["sangar:axis"], "D5": ["ap_mine:allied:4"],
            "F4": ["rubble"]}
    assert st.ground.terrain == {h: [Kept.parse(t) for t in v] for h, v in want.items()}
    assert snapshot.state_data(st)["terrain"] == want  # the digest's form: hex -> [text], in the order kept
    hot, cold = snapshot.dump_split(st, None)
    loaded = snapshot.load(hot, st.card, cold=lambda token, probe=False: cold[1] if cold else None)
    assert loaded.ground.terrain == st.ground.terrain and snapshot.state_data(loaded)["terrain"] == want
    assert "F4" in st.strategic() and "D5" not in st.strategic()  # 1.4: rubble grows Strategic Terrain, mines not
    assert loaded.strategic() == st.strategic()


def test_a_copy_shares_the_items_but_not_the_lists(at_end):
    st = at_end.state()
    cp = st.copy()
    assert cp.ground.terrain == st.ground.terrain and cp.ground.terrain["M5"] is not st.ground.terrain["M5"]
    cp.ground.terrain["M5"].append(Kept("rubble"))
    assert Kept("rubble") not in st.ground.terrain["M5"]


def test_revision_1_odd_words_read_alike_from_the_snapshot_and_the_replay(tmp_path):
    db = tmp_path / "r1.plcg"
    assert cli_run(db, "new", "--card", "sample", "--seed", "it", "--rules-revision", "1").code == 0
    c = Campaign.attach(db)
    c.advance(1, "2.9")
    hexes = c.state().grid().hexes()
    odd = [t for t in ODD if t.strip() and t != ":"]
    r = cli_run(c.path, *END, *[a for h, t in zip(hexes, odd) for a in ("--terrain", f"{h}={t}")])
    assert r.code == 0, r.err
    assert [p["item"] for p in c.last("firefight_ended")["terrain"]] == odd  # the events carry the text
    st = c.state()
    assert [str(st.ground.terrain[h][0]) for h in hexes[:len(odd)]] == odd
    text = cli_run(c.path, "map").out
    assert "  A4: x, 3 factors (Axis)\n" in text and "  A6: wire, 03 factors (Allied)\n" in text
    assert cli_run(c.path, "replay").code == 0  # rebuilds the snapshot: the next reader loads it
    assert cli_run(c.path, "map").out == text
    c.close()
