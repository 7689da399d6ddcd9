"""docs/performance.md keeps ONE current table, the bench's own (issue 36 item 4): the table between its
markers, parsed as a Markdown table, names every row `python -m bench.run` prints (bench/targets.ROWS), in
its order, each once; and the bench's table has a row for each of them. No timing here."""
from __future__ import annotations

from pathlib import Path

from bench import targets

DOC = Path(__file__).resolve().parent.parent / "docs" / "performance.md"
NAMES = [name for name, _goal in targets.ROWS]


def _fig(cpu: float) -> dict:
    return {"cpu_s": cpu, "wall_s": cpu, "wall_min_s": cpu, "rss_mb": 50.0, "runs": [[cpu, cpu]]}


def _measured() -> dict:
    """A measurement of the shape bench/targets.measure returns (figures made up: only the rows' names count)."""
    commands = [name for name, _ in targets.PER_EVENT] + ["import", "undo", "row scan", "payload scan", "chain floor"]
    files = {label: {name: _fig(1.0) for name in commands} for label in ("big", "small")}
    five = {name: _fig(0.1) for name in ("python -c pass", "status", "status floor", "setup", "next", "undo", "buy",
                                         "write floor", "stack floor")}
    slider = {"events": 9330, "moves": 15, "api_state_p90_s": 0.01, "page_p90_s": 0.1, "api_state_cpu_p90_s": 0.01,
              "page_cpu_p90_s": 0.1, "api_state_ratio": 0.01, "page_ratio": 0.1, "cli_roster_at_p90_s": 1.0}
    return {"events": {"big": 9330, "small": 4742, "five": 4742}, "runs": 1, "python -c pass": _fig(0.02),
            "import cli": _fig(0.1), **files, "five": five, "signed": {"signed": _fig(1.3), "unsigned": _fig(1.0),
                                                                     "events": 12150},
            "slider": slider, "write floor audit": {"exit": 0, "findings": 0}}


def test_the_bench_prints_a_row_for_every_target_in_order():
    rows = targets.rows(_measured())
    assert [r[0] for r in rows] == NAMES
    assert all(len(r) == len(targets.HEAD) for r in rows)


def test_the_doc_holds_one_bench_table_with_every_row_the_bench_prints():
    text = DOC.read_text()
    assert text.count(targets.BEGIN) == 1 and text.count(targets.END) == 1
    assert targets.doc_rows(text) == NAMES


def test_the_doc_table_is_parsed_not_searched():
    """A row name that appears only in the prose, not as a row of the table, does not count."""
    md = targets.markdown([[n, "", "", "", "", ""] for n in NAMES[1:]], "head")
    text = f"prose naming {NAMES[0]}\n{targets.BEGIN}\n{md}\n{targets.END}\n"
    assert targets.doc_rows(text) == NAMES[1:]


def test_the_signed_row_compares_the_two_games_per_firefight_played():
    """The signed and unsigned files are two games (the seeded dice follow the row numbers): the row says how many
    firefights each played and the ratio per firefight, and its verdict says so before play by email's own work."""
    m = _measured()
    m["signed"]["firefights"] = {"signed": 96, "unsigned": 90}
    row = {r[0]: r for r in targets.rows(m)}["signed audit / unsigned"]
    assert "per firefight 1.22x" in row[3]  # (1.3 / 96) / (1.0 / 90)
    assert row[5].startswith("missed by 1.08x: the two files are two games")
    assert "played 96 firefights to the unsigned's 90 (+6.7%)" in row[5]
    assert "the signed audit is 1.22x the unsigned, and the rest is play by email's own work" in row[5]


def test_the_start_up_rows_say_what_a_normal_install_measures_beside_the_venv():
    """Where the bench measured the start-up as a normal install starts Python (bench/targets.plain_python), each
    start-up row gives its figures beside the venv's, and the why says whether the floor alone passes 3x there."""
    m = _measured()
    m["five"].update({"plain python -c pass": _fig(0.01), "plain status": _fig(0.1), "plain status floor": _fig(0.04),
                      "plain stack floor": _fig(0.06), "plain write floor": _fig(0.025),
                      **{f"plain {c}": _fig(0.11) for c in ("setup", "next", "undo", "buy")}})
    m["five"].update({"status": _fig(0.4), "setup": _fig(0.4)})  # 4x the venv's `python -c pass`: missed, with a why
    m["editable"] = ["__editable__.plcg-0.1.0.pth"]
    got = {r[0]: r for r in targets.rows(m)}
    status, setup = got["status / python -c pass"], got["setup / python -c pass"]
    assert "`python -c pass` 10 ms, status 10.00x it, the status floor 4.00x, the stack floor 6.00x" in status[3]
    assert "editable installs are __editable__.plcg-0.1.0.pth" in status[3]
    assert "the status floor alone, which imports orjson, sqlite3 and hashlib and nothing of the ledger, is 4.00x" \
        " `python -c pass`: there no design" in status[5]
    assert "setup 11.00x it, the write floor 2.50x" in setup[3]
    assert "the write floor alone" in setup[5] and "2.50x `python -c pass`" in setup[5] and "no design" not in setup[5]
