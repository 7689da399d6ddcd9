"""`plcg export --format bbcode` (issue 38 item 2): the AAR for a forum that takes BBCode, read back by a BBCode
parser (the `bbcode` package, a library, not a regex): its tags balance, its tables render as tables (the
roster, each firefight's purchases and result), it gives the verdict and links to the HTML report and to each
played firefight's map in it, and it stays under a forum post's size (aar.BBCODE_LIMIT, 60,000 characters:
phpBB's default; the six-firefight demo's post is printed and is about 13,000)."""
from __future__ import annotations

from html.parser import HTMLParser

import bbcode
import orjson

from conftest import Campaign, cli_run
from projections import aar
from test_aar import demo  # noqa: F401  (the played demo: a fixture)

URL = "https://example.org/mill/aar.html"


def forum() -> bbcode.Parser:
    """A forum's BBCode: the package's tags and the table and size tags a forum that takes tables has."""
    p = bbcode.Parser()
    for tag in ("table", "tr", "td", "th"):
        p.add_simple_formatter(tag, f"<{tag}>%(value)s</{tag}>", transform_newlines=False)
    p.add_formatter("size", lambda name, value, options, parent, context:
                    f'<span class="size{options.get("size", "")}">{value}</span>')
    return p


def balanced(tokens) -> list:
    """The tags left open or closed out of order (the list item `[*]` closes itself)."""
    stack, wrong = [], []
    for kind, tag, _opts, text in tokens:
        if tag == "*" or kind not in (bbcode.Parser.TOKEN_TAG_START, bbcode.Parser.TOKEN_TAG_END):
            continue
        if kind == bbcode.Parser.TOKEN_TAG_START:
            stack.append(tag)
        elif stack and stack[-1] == tag:
            stack.pop()
        else:
            wrong.append(text)
    return wrong + stack


class Tables(HTMLParser):
    """The tables of the rendered post: each a list of rows, each row its cells' text."""

    def __init__(self):
        super().__init__()
        self.tables, self.links, self._cell = [], [], None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = ""
        elif tag == "a":
            self.links.append(dict(attrs)["href"])

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.tables[-1][-1].append(self._cell.strip())
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data


def test_the_demo_as_a_forum_post_parses_balanced_renders_its_tables_and_links_and_fits(demo, tmp_path):
    out = tmp_path / "aar.bbcode"
    r = cli_run(demo["path"], "export", "--format", "bbcode", "--url", URL, "-o", str(out))
    assert r.code == 0, r.err
    post = out.read_text(encoding="utf-8")
    print(f"the demo's BBCode post: {len(post)} characters (limit {aar.BBCODE_LIMIT})")
    assert len(post) < aar.BBCODE_LIMIT
    p = forum()
    tokens = p.tokenize(post)
    assert balanced(tokens) == []
    used = {t[1] for t in tokens if t[0] == bbcode.Parser.TOKEN_TAG_START}
    assert {"table", "tr", "th", "td", "url", "b", "list"} <= used
    page = Tables()
    page.feed(p.format(post))
    roster = orjson.loads(cli_run(demo["path"], "roster", "--json").out)
    # the CG Roster: a header and a row per firefight and side, each with its CVP lost
    table = next(t for t in page.tables if t[0][:5] == ["FF", "Date", "Time", "Type", "Side"])
    assert len(table) == 1 + len(roster["rows"])
    cvp = table[0].index("CVP lost")
    assert [row[cvp] for row in table[1:]] == ["" if r["cvp_lost"] is None else str(r["cvp_lost"])
                                              for r in roster["rows"]]
    # each firefight's purchases and result as table rows
    purchases = [t for t in page.tables if t[0][:3] == ["Side", "Purchase", "RG"]]
    results = [t for t in page.tables if any(row[0] == "Winner:" for row in t)]
    played = sorted({r["firefight"] for r in roster["rows"] if r["winner"]})
    assert len(results) == len(played) and len(purchases) >= len(played)
    for t, n in zip(results, played):
        winner = next(r["winner"] for r in roster["rows"] if r["firefight"] == n)
        assert next(row[1] for row in t if row[0] == "Winner:").startswith(winner.title())
    # the verdict, as `roster --json` gives it
    verdict = next(row[1] for t in page.tables for row in t if row[0] == "CG verdict:")
    assert verdict == roster["victory"]["why"] + "."
    # links: the HTML report and each played firefight's map in it
    assert URL in page.links
    assert [x for x in page.links if "#map" in x] == [f"{URL}#map{n}" for n in played]


def test_text_a_player_typed_never_becomes_a_tag(workdir):
    c = Campaign(workdir / "t.plcg", seed="bb")
    c.advance(1, "2.3")
    c.run("buy", side="axis", rg="I1", mode="on-map")
    c.run("undo", reason="[/table][url=https://evil.example]click[/url] [b]x")
    c.close()
    r = cli_run(str(workdir / "t.plcg"), "export", "--format", "bbcode")
    assert r.code == 0, r.err
    tokens = forum().tokenize(r.out)
    assert balanced(tokens) == []
    assert not any(t[1] == "url" and "evil" in str(t[2]) for t in tokens)
    assert "click" in forum().format(r.out)  # the reason is still there, as text


def test_a_post_that_would_pass_the_limit_counts_its_lists_instead_of_naming_them(demo):
    """A long campaign's post: each firefight's lists (counters changed, units lost...) are counted, named in
    the HTML report, and the post says so; the demo's post, given a limit just under its size, shows it."""
    import cli as cli_module

    led = cli_module.Ledger(demo["path"])
    try:
        h = aar.walk(led)
        played = {n for n, info in h.firefights.items() if info.ended is not None}
        full = aar.bbcode_post(aar.iter_report(h), URL, played)
        short = aar.bbcode_post(aar.iter_report(aar.walk(led)), URL, played, limit=len(full) - 1)
    finally:
        led.close()
    assert "named in the HTML report" not in full and "Units lost:" in full
    assert len(short) < len(full) and short.startswith("[i]Each firefight's lists are counted here")
    assert balanced(forum().tokenize(short)) == []
    page = Tables()
    page.feed(forum().format(short))
    lost = [row[1] for t in page.tables for row in t if row[0] == "Units lost:"]
    assert lost and all("(" not in x for x in lost)  # "Axis 3; Allied 2.", the units named in the HTML
