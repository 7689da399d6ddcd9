"""One vocabulary of terrain and fortification items (cg/items.py): `end --terrain`, `fortify`, `clear`
and `map` read the same table, so a word means the same thing everywhere (2.9, 2.38, 3.52, CG5)."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from cg.items import CLEAR_ITEMS, FORTIFICATION_ITEMS, IN_HEX, ITEMS, Kept
from cg.tables import CLEARABLE, FORTIFICATIONS
from conftest import Campaign, cli_run, rows

SVG = "{http://www.w3.org/2000/svg}"
END = ["end", "--turn", "5", "--cvp-lost", "axis=1", "--cvp-lost", "allied=1"]


@pytest.fixture
def at_end(tmp_path):
    c = Campaign(tmp_path / "c.plcg")
    c.advance(1, "2.9")
    yield c
    c.close()


def at_end_r1(tmp_path):
    db = tmp_path / "r1.plcg"
    assert cli_run(db, "new", "--card", "sample", "--seed", "it", "--rules-revision", "1").code == 0
    c = Campaign.attach(db)
    c.advance(1, "2.9")
    return c


def test_the_vocabulary_holds_the_2_38_table_and_the_3_52_items():
    assert set(FORTIFICATION_ITEMS) == set(FORTIFICATIONS)
    assert CLEAR_ITEMS == tuple(CLEARABLE)
    assert all(i.rule and i.words and i.mark for i in ITEMS.values())
    assert {k for k, i in ITEMS.items() if i.grows} == {"rubble", "pillbox", "foxhole", "trench", "at_ditch"}
    # what the ledger writes itself: B24 rubble, 3.31/3.311 fire, revision 1's B24.71 Trailbreak
    assert {"rubble", "flame", "blaze", "burning_wreck", "burnt_out_wreck", "cleared_open_ground",
            "trailbreak"} <= set(IN_HEX)


def test_end_refuses_an_unknown_item_naming_the_known_ones(at_end):
    c = at_end
    before = rows(c.path)
    r = cli_run(c.path, *END, "--terrain", "I5=rubble", "--terrain", "D5=rubbel")
    assert r.code == 2, r.err
    assert r.err.count("\n") == 1 and "'rubbel'" in r.err
    assert all(k in r.err for k in IN_HEX)
    assert rows(c.path) == before
    for bad in ("D5=hip", "D5=rubble:axs", "D5=ap_mine:axis:allied", "D5=ap_mine:0"):
        r = cli_run(c.path, *END, "--terrain", bad)
        assert r.code == 2 and r.err.count("\n") == 1, (bad, r.err)
    assert rows(c.path) == before


def test_revision_1_keeps_a_word_as_typed(tmp_path):
    c = at_end_r1(tmp_path)
    r = cli_run(c.path, *END, "--terrain", "D5=rubbel")
    assert r.code == 0, r.err
    assert c.state().ground.terrain["D5"] == [Kept("rubbel")]
    c.close()


def test_an_item_is_kept_in_the_vocabulary_s_form(at_end):
    c = at_end
    r = cli_run(c.path, *END, "--terrain", "D5=Set DC", "--terrain", "L5=A-P mines:Axis:3",
                "--terrain", "F4=known_minefield:allied")
    assert r.code == 0, r.err
    t = c.state().ground.terrain
    assert t["D5"] == [Kept("set_dc")] and t["L5"] == [Kept("ap_mine", "axis", "3")] \
        and t["F4"] == [Kept("known_minefield", "allied")]
    text = cli_run(c.path, "map").out
    assert "L5: A-P mines, 3 factors (Axis)" in text and "D5: Set DC" in text


def test_every_item_reads_the_same_in_end_map_and_legend(at_end, tmp_path):
    c = at_end
    st = c.state()
    hexes = st.grid().hexes()
    placed = dict(zip(hexes, IN_HEX))
    r = cli_run(c.path, *END, *[a for h, k in placed.items() for a in ("--terrain", f"{h}={k}")])
    assert r.code == 0, r.err
    m = json.loads(cli_run(c.path, "map", "--json").out)
    assert {h: m["hexes"][h]["terrain"] for h in placed} == {h: [k] for h, k in placed.items()}
    text = cli_run(c.path, "map").out
    for h, k in placed.items():
        assert f"  {h}: {ITEMS[k].words}\n" in text, k
    out = tmp_path / "m.svg"
    assert cli_run(c.path, "map", "--svg", str(out)).code == 0
    legend = ET.fromstring(out.read_text(encoding="utf-8")).find(f".//{SVG}g[@class='legend']")
    texts = ["".join(t.itertext()) for t in legend.iter(f"{SVG}text")]
    pairs = set(zip(texts, texts[1:]))
    for k in IN_HEX:
        assert (ITEMS[k].mark, ITEMS[k].words) in pairs, k


def test_fortify_and_clear_name_the_vocabulary_s_items(at_end):
    c = at_end
    r = cli_run(c.path, "fortify", "axis", "trench")  # a CG5 item, not on the 2.38 table
    assert r.code == 2 and "'trench'" in r.err and all(k in r.err for k in FORTIFICATIONS), r.err
    assert cli_run(c.path, *END, "--terrain", "D5=trench", "--terrain", "L5=at_mine:axis:2").code == 0
    c.advance(1, "3.52")
    r = cli_run(c.path, "clear", "axis", "D5", "trench", "--dice", "1")
    assert r.code == 2 and all(k in r.err for k in CLEAR_ITEMS), r.err
    r = cli_run(c.path, "clear", "axis", "L5", "at_mine", "--dice", "1")  # all mines are one item (3.52)
    assert r.code == 0, r.err
    assert c.last("clearance_rolled")["item"] == "mines"
    assert "L5" not in c.state().ground.terrain
