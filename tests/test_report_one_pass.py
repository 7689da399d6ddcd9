"""The After Action Report reads the whole log once (issue 36 item 1), and says the same as before.

Counted, not timed. The dice counts of the overview and the dice section's rolls are gathered by the
walk that folds the log; the maps are written with their final ids (no rewrite of each SVG after).
The byte-identity of the reports before and after this change was checked by hash on the demo and the
bench files (docs/performance.md); here the report's structure is checked against the log read again.
"""
from __future__ import annotations

import re
from collections import Counter

import orjson

import pytest

from cg.app.ledger import Ledger
from events.store import Store
from projections.dicestats import rolls_of, section_stats, stats, tally
from tests.conftest import cli_run


@pytest.mark.parametrize("fmt", ["html", "md", "bbcode"])
def test_the_report_reads_the_whole_log_once(r1, monkeypatch, fmt):
    """One walk from the first row, and no other read of the rows: the overview's dice counts and (HTML) the
    dice section's rolls come from it, and so does what each firefight's section tells of its rows (the
    sequence, the setup tables, the counters changed, the terrain kept), which the report used to read again
    firefight by firefight (issue 36 item 1)."""
    reads, folds = [], []
    real, real_fold = Store.read_rows, Store.fold_chunks

    def counted(self, since=0, until=None, columns=(), *a, **k):
        reads.append((since, until, tuple(columns)))
        return real(self, since, until, columns, *a, **k)

    def counted_fold(self, current, since=0, until=None):
        folds.append((since, until))
        return real_fold(self, current, since, until)

    monkeypatch.setattr(Store, "read_rows", counted)
    monkeypatch.setattr(Store, "fold_chunks", counted_fold)
    for name in ("read", "rows_of"):  # no other read of the rows either
        monkeypatch.setattr(Store, name, lambda *a, _n=name, **k: pytest.fail(f"the report called Store.{_n}"))
    r = cli_run(r1, "export", "--format", fmt)
    assert r.code == 0, r.err
    assert "Sequence" in r.out or fmt == "bbcode"  # the sections that read their rows again are there
    # one pass from the first row: the seqs, types and payloads as the fold reads them, the other columns the
    # walk reads of the same rows beside them, a run of rows at a time; no column of a row read twice
    assert len(reads) == 1 and len(folds) == 1, (reads, folds)
    assert reads[0][0] == 0 and folds[0][0] == 0, (reads, folds)
    assert not set(reads[0][2]) & {"seq", "type", "payload"}, reads


def _log_rolls(path):
    led = Ledger(str(path))
    try:
        rows = [(r.seq, r.batch, r.type, r.payload, r.command) for r in led.store.read()]
    finally:
        led.close()
    return rows


def test_the_reports_dice_are_the_logs(r1):
    """The overview's Dice line counts every roll of the log per source and side, and each dice chart's
    caption the side's rolls of its kind, as a second read of the log finds them."""
    rows = _log_rolls(r1)
    rolls = rolls_of(rows)
    t = tally(rolls)  # as plcg dice-stats counts them (issue 38)
    assert t["rolls"], "the fixture rolls no dice: the test shows nothing"
    html = cli_run(r1, "export", "--format", "html").out
    said = "; ".join(f"{src} {side} {n}" for (src, side), n in sorted(t["by_source_side"].items()))
    assert f"; {t['rolls']} rolls ({t['dice']} dice), by source and side: {said} (" in html
    section = html[html.index('<section id="dice"'):]
    section = section[:section.index("</section>")]
    for side, name in (("axis", "Axis"), ("allied", "Allied")):
        for kind, n_dice in (("DR", 2), ("dr", 1)):
            n = sum(1 for x in rolls if x["side"] == side and len(x["dice"]) == n_dice)
            caption = f"<figcaption>{name}: {n} {kind}s, mean"
            assert (caption in section) == (n > 0), (side, kind, n)


def test_the_dice_sections_figures_are_dice_stats(r1):
    """The dice section's figures (section_stats: its totals against fair dice and its sources) are those
    `plcg dice-stats` reports of each side's rolls, every roll of the log counted."""
    rolls = rolls_of(_log_rolls(r1))
    for side in ("axis", "allied"):
        d = stats(rolls, side)
        assert d["rolls"], "the fixture rolls no dice of this side: the test shows nothing"
        got = section_stats(rolls, side)
        assert got == {"sources": d["sources"], "dr": d["dr"], "DR": d["DR"]}, side
        assert got["dr"]["rolls"] + got["DR"]["rolls"] == sum(1 for r in rolls if r["side"] == side
                                                              and len(r["dice"]) in (1, 2))


def test_each_map_is_written_with_ids_of_its_own(r1):
    """Every map of the page carries its firefight's id prefix and the class "map" on its root, each id
    is the page's only one, and every reference inside a map points to an id of that map."""
    html = cli_run(r1, "export", "--format", "html").out
    maps = re.findall(r'<figure class="map">(<svg\b.*?</svg>)<figcaption>', html, re.S)
    assert maps, "the report holds no map: the test shows nothing"
    all_ids = re.findall(r'\sid="([^"]+)"', html)
    assert len(all_ids) == len(set(all_ids)), [i for i, k in Counter(all_ids).items() if k > 1]
    for svg in maps:
        root = re.match(r"<svg\b[^>]*>", svg).group(0)
        assert root.startswith('<svg class="map" xmlns="http://www.w3.org/2000/svg"'), root
        assert not svg.endswith("\n")
        ids = set(re.findall(r'\sid="([^"]+)"', svg))
        prefix = {re.match(r"m\d+-", i).group(0) for i in ids}
        assert len(prefix) == 1, prefix
        refs = set(re.findall(r"url\(#([^)]+)\)", svg)) | set(re.findall(r'href="#([^"]+)"', svg))
        assert refs and refs <= ids, refs - ids


def test_the_maps_escape_their_xml_as_the_standard_library_does():
    """projections/mapview.py escapes its SVG's texts and attributes itself (xml.sax.saxutils imports urllib.request
    and http.client, ~15 ms of the report's start): the same strings for every character either escapes."""
    from xml.sax import saxutils

    from projections import mapview

    for text in ["", "plain 4-6-7", "a & b", "<g>", "x > y", "&amp;", 'say "so"', "it's", "both ' and \"",
                 "line\nbreak\ttab\rreturn", "all &<>\"'\n\t\r of them"]:
        assert mapview.escape(text) == saxutils.escape(text), text
        assert mapview.quoteattr(text) == saxutils.quoteattr(text), text


@pytest.mark.parametrize("args", [("export", "--format", "html"), ("export", "--format", "md"), ("log", "--json"),
                                  ("log",)], ids=["html", "md", "log-json", "log"])
def test_the_log_read_in_runs_of_any_length_says_the_same_with_rows_missing(r1, monkeypatch, args):
    """The report's walk and `plcg log` read a run of rows in two queries side by side (Store.fold_chunks: the
    seqs, types and payloads as the fold reads them; Store.read_rows: the other columns of the same rows): runs of
    7 rows say what runs of 1024 say, with rows deleted from the file by another tool (one alone, and a whole run
    of 7: a run with no row in it is passed over by both reads)."""
    import sqlite3

    conn = sqlite3.connect(r1)
    conn.execute("DELETE FROM events WHERE seq BETWEEN 99 AND 105 OR seq = 120")
    conn.execute("DELETE FROM snapshot")
    conn.commit()
    conn.close()
    whole = cli_run(r1, *args)
    monkeypatch.setattr(Store, "FOLD_CHUNK", 7)
    runs = cli_run(r1, *args)
    assert whole.code == 0 and runs.code == 0, (whole.err, runs.err)
    assert runs.out == whole.out
    if args == ("log", "--json"):  # a line for each row the file holds, and none for another
        conn = sqlite3.connect(r1)
        held = [seq for (seq,) in conn.execute("SELECT seq FROM events ORDER BY seq")]
        conn.close()
        assert [orjson.loads(line)["seq"] for line in whole.out.splitlines()] == held
