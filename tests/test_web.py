"""`plcg serve` (issue 34): the campaign as a local web page, driven in Debian's Chromium through
Playwright (executable_path: no browser download), against the app `plcg serve` builds, served on a
free loopback port. The page's parts are checked against the CLI's JSON at the same seq; its forms
run the real commands, whose exit codes and words the page shows.

Set PLCG_SHOTS=DIR to keep a screenshot of each view in DIR.
"""
from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import expect, sync_playwright

from conftest import ROOT, cli_run
from helpers.browser import chromium
from helpers.web import Served

from cg.app.history import History
from cg.app.ledger import Ledger
from projections.digest import digest

SHOTS = os.environ.get("PLCG_SHOTS")
expect.set_options(timeout=30_000)  # a page on a loaded machine answers late: waited for, never timed
HOSTILE = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'


def shot(page, name: str, locator=None) -> None:
    if not SHOTS:
        return
    Path(SHOTS).mkdir(parents=True, exist_ok=True)
    if locator is not None:
        locator.screenshot(path=str(Path(SHOTS) / f"{name}.png"))
    else:
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=True)


def cli_json(path, *args):
    r = cli_run(path, *args, "--json")
    assert r.code == 0, r.err
    return json.loads(r.out)


def head(path) -> int:
    led = Ledger(str(path))
    try:
        return led.store.head()[0]
    finally:
        led.close()


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium())
        yield b
        b.close()


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1400, "height": 900})
    ctx.set_default_timeout(60_000)
    pg = ctx.new_page()
    pg.errors = []
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    yield pg
    ctx.close()


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The shipped demo: six firefights of the sample card, undos among them."""
    path = tmp_path_factory.mktemp("web") / "demo.plcg"
    r = cli_run(path, "demo")
    assert r.code == 0, r.err
    return path


@pytest.fixture(scope="module")
def served_demo(demo):
    s = Served(demo)
    yield s
    s.close()


def fresh(tmp_path, seed="web"):
    path = tmp_path / "fresh.plcg"
    r = cli_run(path, "new", "--card", "sample", "--seed", seed)
    assert r.code == 0, r.err
    return path


# ---- reads ----------------------------------------------------------------------------------------------

def test_every_request_needs_the_token(served_demo):
    for path in ("/", "/api/state", "/static/htmx.min.js", "/static/page.css"):
        assert httpx.get(served_demo.base + path).status_code == 403
        assert httpx.get(served_demo.base + path, params={"token": "x" + served_demo.token}).status_code == 403
        assert served_demo.get(path).status_code == 200
    # a seq outside the log: said as the CLI says it, the page at the head
    n = head(served_demo.site.path)
    r = cli_run(served_demo.site.path, "status", "--at", str(n + 1))
    assert r.code == 2
    assert r.err.strip().removeprefix("plcg: ") in served_demo.get("/", at=n + 1).text.replace("&#39;", "'")
    bad = served_demo.get("/api/state", at=0)
    assert bad.status_code == 400 and bad.json()["exit"] == 2
    assert served_demo.get("/api/state", at="x").status_code == 400
    # static files are the package's own, by name: nothing beside them
    assert served_demo.get("/static/..%2fapp.py").status_code == 404
    assert served_demo.get("/static/app.py").status_code == 404


def test_the_page_loads_with_every_hook(served_demo, demo, page):
    page.goto(served_demo.url())
    st = cli_json(demo, "status")
    for hook in ("where", "history", "at", "pending", "options", "message", "roster", "oob-axis", "oob-allied",
                 "purchases-axis", "purchases-allied", "map", "log", "undo", "verdict"):
        expect(page.locator(f"[data-test={hook}]")).to_have_count(1)
    where = "FF {} · {}".format(st["firefight"], "end" if st["ended"] else st["step"])
    expect(page.locator("[data-test=where]")).to_have_text(where)
    slider = page.locator("[data-test=history]")
    assert slider.get_attribute("type") == "range"
    assert (slider.get_attribute("min"), slider.get_attribute("max")) == ("1", str(head(demo)))
    expect(page.locator("[data-test=at]")).to_have_text(str(head(demo)))
    expect(page.locator("[data-test=map] svg")).to_have_count(1)
    expect(page.locator("[data-test=verdict]")).to_contain_text(st["victory"]["why"])
    assert page.locator("[data-test=options] form[data-command=next]").count() == 0  # the CG has ended
    shot(page, "full-page")
    assert page.errors == []


def test_api_state_and_the_map_equal_the_cli_at_each_seq(served_demo, demo):
    n = head(demo)
    rnd = random.Random(34)
    for seq in sorted({1, 2, n, *rnd.sample(range(1, n + 1), 6)}):
        got = served_demo.get("/api/state", at=seq).json()
        assert got["seq"] == seq
        assert got["status"] == cli_json(demo, "status", "--at", str(seq))
        assert got["roster"] == cli_json(demo, "roster", "--at", str(seq))
        assert got["oob"] == {side: cli_json(demo, "oob", side, "--at", str(seq)) for side in ("axis", "allied")}
        assert got["map"] == cli_json(demo, "map", "--at", str(seq))
        svg = cli_run(demo, "map", "--svg", "-", "--at", str(seq))
        assert svg.code == 0 and svg.out.strip() in served_demo.get("/", at=seq).text  # the page's map, drawn or kept
    assert served_demo.get("/api/state").json()["status"] == cli_json(demo, "status")


def _page_agrees_with_status(site, status: dict, seq: int) -> None:
    """The page at `seq` shows the CLI's `status --json` and builds its forms from the same items: each owed
    item a form (or the other player's, shown) in status's order, and a form of each of status's options
    not owed."""
    parts = site.parts(seq)
    assert parts["status"] == status
    assert [f["text"] for f in parts["pending"]] == [p["command"] for p in status["pending"]]
    owed = {p["command"] for p in status["pending"]}  # `end` owed and offered: one form
    assert [f["text"] for f in parts["options"]] == [o["command"] for o in status["options"] if o["command"] not in owed]


def test_the_page_shows_the_status_the_cli_prints_and_forms_of_its_items(served_demo, demo, tmp_path):
    """The page works out the step's items once, for the status it shows and for its forms (issue 36): both
    agree with `plcg status --json --at SEQ`, on one copy and on a copy by email (its own side's options)."""
    from helpers.pbem import Game

    n = head(demo)
    for seq in sorted({1, 2, n, *random.Random(36).sample(range(1, n + 1), 12)}):
        _page_agrees_with_status(served_demo.site, cli_json(demo, "status", "--at", str(seq)), seq)
    game = Game(tmp_path, policy=None)
    game.play_to(1, "2.3")
    game.do("axis", "buy", "axis", "I1")
    s = Served(game.db["allied"], game.key["allied"])
    try:
        for seq in range(1, head(game.db["allied"]) + 1):
            got = game.cli("allied", "status", "--at", str(seq), "--json")
            assert got.code == 0, got.err
            _page_agrees_with_status(s.site, json.loads(got.out), seq)
    finally:
        s.close()


def test_slider_to_an_earlier_seq_and_back(served_demo, demo, page):
    n = head(demo)
    page.goto(served_demo.url())
    seq = 30
    page.locator("[data-test=history]").fill(str(seq))
    page.wait_for_url(re.compile(rf"[?&]at={seq}(&|$)"))
    expect(page.locator("[data-test=log] li").first).to_have_attribute("data-seq", str(seq))
    expect(page.locator("[data-test=at]")).to_have_text(str(seq))
    st = cli_json(demo, "status", "--at", str(seq))
    expect(page.locator("[data-test=where]")).to_have_text(f"FF {st['firefight']} · {st['step']}")
    api = served_demo.get("/api/state", at=seq).json()
    for side in ("axis", "allied"):  # the page's tables hold the CLI's rows at that seq
        rows = page.locator(f"[data-test=oob-{side}] tr")
        oob = cli_json(demo, "oob", side, "--at", str(seq))
        assert rows.count() == 1 + len(oob)
        assert [rows.nth(i + 1).locator("td").nth(3).inner_text() for i in range(len(oob))] == [r["where"] for r in oob]
        assert api["oob"][side] == oob
    roster = cli_json(demo, "roster", "--at", str(seq))
    assert page.locator("[data-test=roster] tr").count() == 1 + len(roster["rows"])
    assert page.locator("[data-test=log] li").first.get_attribute("data-seq") == str(seq)
    # the page as a whole agrees with a fresh load of the same URL
    page.reload()
    expect(page.locator("[data-test=at]")).to_have_text(str(seq))
    shot(page, "history-earlier")
    # a log line's link moves there
    page.locator("[data-test=log] li[data-seq='20'] a").click()
    page.wait_for_url(re.compile(r"[?&]at=20(&|$)"))
    expect(page.locator("[data-test=at]")).to_have_text("20")
    assert page.locator("[data-test=history]").input_value() == "20"
    # and back to the head
    page.locator("[data-test=history]").fill(str(n))
    page.wait_for_url(re.compile(rf"[?&]at={n}(&|$)"))
    expect(page.locator("[data-test=log] li").first).to_have_attribute("data-seq", str(n))
    assert page.errors == []


def test_what_changed_between_two_seqs(served_demo, demo, page):
    # the first firefight's end: control, CVP and units change between before and after it
    log = [json.loads(x) for x in cli_run(demo, "log", "--json").out.splitlines()]
    end = next(e["seq"] for e in log if e["type"] == "firefight_ended" and not e["reverted"])
    reph = next(e["seq"] for e in log if e["type"] == "tvp_awarded" and e["seq"] > end)
    page.goto(served_demo.url(at=reph, **{"from": end - 1}))
    diff = page.locator("[data-test=diff]")
    expect(diff).to_have_count(1)
    before = Ledger(str(demo)).state(at=end - 1)
    after = Ledger(str(demo)).state(at=reph)
    for h in set(after.ground.control) | set(before.ground.control):
        if after.ground.control.get(h) != before.ground.control.get(h):
            expect(diff.locator("tr", has_text=h).first).to_be_visible()
    changed = [side for side in ("axis", "allied") if before.sides[side].tvp_total != after.sides[side].tvp_total]
    assert changed
    for side in changed:
        row = diff.locator("tr").filter(has_text=side).filter(has_text="CG TVP")
        expect(row.locator("td").nth(2)).to_have_text(str(before.sides[side].tvp_total))
        expect(row.locator("td").nth(3)).to_have_text(str(after.sides[side].tvp_total))
    lost = [u for u in after.units.values() if u.status == "eliminated" and before.units.get((u.side, u.id))
            and before.units[(u.side, u.id)].status != "eliminated"]
    assert lost
    for u in lost:
        expect(diff.locator("tr", has_text=u.id).first).to_contain_text("eliminated")
    shot(page, "history-diff")


def short_and_whole(path) -> tuple[str, str]:
    """The page at the head, and with ?all=1."""
    s = Served(path)
    try:
        return s.get("/").text, s.get("/", all=1).text
    finally:
        s.close()


def table_column(html: str, hook: str, row: str) -> list[str]:
    """A column of the table `data-test=hook`, by the regex `row` with one group."""
    return re.findall(row, html.split(f'data-test="{hook}"')[1].split("</table>")[0])


def test_a_long_campaign_shows_the_units_not_settled_and_the_last_two_firefights_purchases(demo, monkeypatch):
    """A long campaign's page stays light: over OOB_ALL units a side, the units in play or lost in this
    firefight or the last (what the snapshot keeps hot); over PURCHASES_ALL rows, the purchases of this
    firefight and the last; each says how many it leaves out, and ?all=1 shows every one."""
    from cg.state import active_units
    from projections.web import view

    monkeypatch.setattr(view, "OOB_ALL", 3)
    monkeypatch.setattr(view, "PURCHASES_ALL", 2)
    st = Ledger(str(demo)).state()
    rows = cli_json(demo, "oob", "axis")
    live = [r["unit"] for r in rows if any(u.id == r["unit"] and u.side == "axis" for u in active_units(st)[0])]
    assert 0 < len(live) < len(rows)
    ff = cli_json(demo, "status")["firefight"]
    record = cli_json(demo, "purchases", "axis")
    recent = [r["purchase"] for r in record["purchases"] if r["firefight"] >= ff - 1]
    older = [r for r in [*record["purchases"], *record["fortifications"]] if r["firefight"] < ff - 1]
    assert recent and older
    short, whole = short_and_whole(demo)
    unit, purchase = r"<tr><td>([^<]+)</td>", r"<tr><td>\d+</td><td>([^<]+)</td>"
    assert table_column(short, "oob-axis", unit) == live
    assert f"and {len(rows) - len(live)} units out of play since an earlier firefight" in short
    assert table_column(whole, "oob-axis", unit) == [r["unit"] for r in rows]
    assert table_column(short, "purchases-axis", purchase) == recent
    assert f"and {len(older)} rows of earlier firefights" in short
    assert table_column(whole, "purchases-axis", purchase) == [r["purchase"] for r in record["purchases"]]


def test_undone_events_show_as_undone_with_their_reason(tmp_path, page):
    path = fresh(tmp_path)
    assert cli_run(path, "weather").code == 0
    assert cli_run(path, "undo", "--reason", "wrong weather").code == 0
    s = Served(path)
    try:
        page.goto(s.url())
        line = page.locator("[data-test=log] li[data-seq='2']")
        expect(line).to_have_class("undone")
        expect(line).to_contain_text("(undone at seq 3: wrong weather)")
    finally:
        s.close()


def with_undos(tmp_path):
    """A fresh campaign with undos of the last command, of several (--to) and an undo of an undo."""
    path = fresh(tmp_path, seed="undos")
    for args in (("weather",), ("undo", "--reason", "a"), ("weather",), ("next",), ("buy", "axis", "I1"),
                 ("buy", "allied", "I1"), ("undo", "--reason", "b"), ("buy", "allied", "I2"), ("buy", "axis", "I3"),
                 ("undo", "--to", "6", "--reason", "c"), ("buy", "allied", "I1"), ("leader", "axis", "I1-1"),
                 ("undo", "--reason", "d"), ("undo", "--reason", "e"), ("buy", "axis", "I4")):
        r = cli_run(path, *args)
        assert r.code == 0, (args, r.err)
    return path


@pytest.mark.parametrize("which", ["demo", "undos"])
def test_history_folds_from_its_checkpoints_to_the_cli_state(which, demo, tmp_path):
    """Each seq's state from the checkpoints equals the CLI's `--at` fold (the digest of every part), in
    any order, undos included; once the checkpoints are made, a read folds at most one stretch."""
    path = demo if which == "demo" else with_undos(tmp_path)
    every = 16 if which == "demo" else 3
    h = History(str(path), every=every)
    led = Ledger(str(path))
    n = led.store.head()[0]
    if which == "undos":
        assert len(led.store.reverts()) == 5
    seqs = list(range(1, n + 1))
    random.Random(7).shuffle(seqs)
    for seq in seqs:
        assert digest(h.state(seq)) == digest(led.state(at=seq)), seq
    f0 = h.folded
    for seq in seqs:
        h.state(seq)
    if which == "demo":  # no undo: the nearest checkpoint at most one stretch back
        assert h.folded - f0 <= every * len(seqs)
    assert h.folded - f0 < sum(seqs) // 2  # far less than a fold of the log to each seq
    led.close()


@pytest.mark.parametrize("card", ["kolkhoz", "sosnovka"])
def test_every_shipped_card_serves_its_first_steps(card, tmp_path):
    """The other shipped cards' campaigns as the page shows them at each seq of their first steps, each
    part as the CLI's JSON (the sample and bridgehead are served whole below and above)."""
    path = tmp_path / f"{card}.plcg"
    assert cli_run(path, "new", "--card", card, "--seed", "cards").code == 0
    for args in (("weather",), ("next",)):
        cli_run(path, *args)  # where the card's first firefight starts at 2.1, refused: nothing written
    s = Served(path)
    try:
        for seq in range(1, head(path) + 1):
            page = s.get("/", at=seq)
            assert page.status_code == 200 and 'data-test="where"' in page.text
            assert s.get("/api/state", at=seq).json()["status"] == cli_json(path, "status", "--at", str(seq))
    finally:
        s.close()


def test_the_bridgehead_demo_serves_its_seqs(tmp_path):
    """bridgehead's demo (boards, an OB given, a night firefight) page by page: every other seq renders,
    and the JSON at every fifth is the CLI's."""
    path = tmp_path / "bridgehead.plcg"
    assert cli_run(path, "demo", "--card", "bridgehead").code == 0
    s = Served(path)
    try:
        n = head(path)
        for seq in sorted({*range(1, n + 1, 2), n}):
            page = s.get("/", at=seq)
            assert page.status_code == 200 and 'data-test="where"' in page.text, seq
        for seq in range(5, n + 1, 5):
            got = s.get("/api/state", at=seq).json()
            assert got["status"] == cli_json(path, "status", "--at", str(seq))
            assert got["map"] == cli_json(path, "map", "--at", str(seq))
    finally:
        s.close()


# ---- writes ----------------------------------------------------------------------------------------------

def submit(page, locator, button=None):
    """Click the form's button and wait for the page's answer (htmx swaps it in)."""
    with page.expect_response(lambda r: "/run" in r.url and r.request.method == "POST"):
        (button or locator.locator("button[type=submit]").first).click()


def test_play_the_sample_from_the_first_step_into_the_reph(tmp_path, page):
    path = fresh(tmp_path)
    s = Served(path)
    try:
        page.goto(s.url())
        expect(page.locator("[data-test=where]")).to_have_text("FF 1 · 2.2")
        submit(page, page.locator("[data-test=pending] form[data-command=weather]"))
        expect(page.locator("[data-test=message]")).to_contain_text("at-start weather")
        submit(page, page.locator("[data-test=options] form[data-command=next]"))
        expect(page.locator("[data-test=where]")).to_have_text("FF 1 · 2.3")
        shot(page, "forms-2.3")
        # 2.3: the RGs each side may buy, with their cost after 2.34, as forms
        buy = page.locator("[data-test=options] li", has_text="Grenadier Platoon").locator("form[data-command=buy]")
        buy.locator("select[name='o:mode']").select_option("on-map")
        submit(page, buy)
        expect(page.locator("[data-test=message]")).to_contain_text("Axis bought I1 as I1-1 (on-map) for 6 CP")
        buy = page.locator("[data-test=options] li", has_text="Rifle Platoon").locator("form[data-command=buy]")
        submit(page, buy)
        expect(page.locator("[data-test=message]")).to_contain_text("Allied bought I1 as I1-1 (entry)")
        # 2.36: the leader DRs owed, the ledger's dice (seeded)
        leaders = page.locator("[data-test=pending] form[data-command=leader]")
        expect(leaders).to_have_count(2)
        shot(page, "pending-2.36", page.locator("[data-test=pending]"))
        submit(page, leaders.first)
        expect(page.locator("[data-test=message]")).to_contain_text("leader for I1-1: DR")
        submit(page, page.locator("[data-test=pending] form[data-command=leader]").first)
        submit(page, page.locator("[data-test=options] form[data-command=next]"))
        expect(page.locator("[data-test=where]")).to_have_text("FF 1 · 2.4")
        submit(page, page.locator("[data-test=pending] form[data-command=determine]"))
        submit(page, page.locator("[data-test=options] form[data-command=next]"))
        expect(page.locator("[data-test=where]")).to_have_text("FF 1 · 2.6")
        # 2.6 setup: the unit from the side's order of battle, the hex from the card's
        setup = page.locator("[data-test=options] li", has_text="axis: where a unit sets up").locator("form")
        setup.locator("input[name='a:unit']").fill("I1-1.1")
        setup.locator("input[name='a:hex_']").fill("L4")
        submit(page, setup)
        expect(page.locator("[data-test=message]")).to_contain_text("Axis I1-1.1 set up in L4")
        for step in ("2.7", "2.8", "2.9"):
            submit(page, page.locator("[data-test=options] form[data-command=next]"))
            expect(page.locator("[data-test=where]")).to_have_text(f"FF 1 · {step}")
        # 2.9: the firefight's end as one form
        end = page.locator("[data-test=pending] form[data-command=end]")
        end.locator("input[name='o:turn']").fill("5")
        end.locator("input[name='c:cvp_lost:axis']").fill("4")
        end.locator("input[name='c:cvp_lost:allied']").fill("7")
        end.locator("select[name='h:control:I5']").select_option("axis")
        end.locator("select[name='u:axis:I1-1.2']").select_option("lost")
        end.locator("select[name='u:allied:I1-1.1']").select_option("reduced")
        shot(page, "end-form", end)
        submit(page, end, end.locator("button[type=submit]").last)
        expect(page.locator("[data-test=message]")).to_contain_text("firefight ended on turn 5")
        submit(page, page.locator("[data-test=options] form[data-command=next]"))
        expect(page.locator("[data-test=where]")).to_have_text("FF 1 · 3.1")
        submit(page, page.locator("[data-test=options] form[data-command=next]"))
        expect(page.locator("[data-test=where]")).to_have_text("FF 1 · 3.2")
        # 3.2: the Redeployment Option, A or B
        option = page.locator("[data-test=pending] form[data-command=option]")
        assert option.locator("select[name='a:option'] option").evaluate_all("xs => xs.map(x => x.value)") == ["A", "B"]
        option.locator("select[name='a:option']").select_option("B")
        submit(page, option)
        expect(page.locator("[data-test=message]")).to_contain_text("Redeployment Option B")
        assert page.errors == []
    finally:
        s.close()
    st = cli_json(path, "status")
    assert (st["firefight"], st["step"], st["option"]) == (1, "3.2", "B")
    ended = [json.loads(x) for x in cli_run(path, "log", "--json").out.splitlines() if '"firefight_ended"' in x]
    assert len(ended) == 1
    r = cli_run(path, "audit")
    assert r.code == 0, r.out
    axis = {u["unit"]: u for u in cli_json(path, "oob", "axis")}
    allied = {u["unit"]: u for u in cli_json(path, "oob", "allied")}
    assert axis["I1-1.2"]["status"] == "eliminated"
    assert allied["I1-1.1"]["name"] != cli_json(path, "oob", "allied", "--at", "5")[0]["name"]  # reduced to its HS
    assert cli_json(path, "map")["control"]["I5"] == "axis"


def test_a_refusal_shows_rule_and_step_and_writes_nothing(tmp_path, page):
    path = fresh(tmp_path)
    s = Served(path)
    try:
        page.goto(s.url())
        n = head(path)
        submit(page, page.locator("[data-test=options] form[data-command=next]"))  # 2.2 owes the weather
        msg = page.locator("[data-test=message]")
        expect(msg).to_contain_text("exit 3")
        expect(msg).to_contain_text("nothing written")
        expect(msg).to_contain_text("[rule 2.2] (step 2.2)")
        shot(page, "refusal", msg)
        assert head(path) == n
        # the CLI gives the same words and the same exit code
        r = cli_run(path, "next")
        assert r.code == 3
        expect(msg).to_contain_text(r.err.strip().splitlines()[0])
    finally:
        s.close()


def test_undo_needs_a_reason_and_a_hostile_reason_renders_as_text(tmp_path, page):
    path = fresh(tmp_path)
    assert cli_run(path, "weather").code == 0
    s = Served(path)
    try:
        page.goto(s.url())
        n = head(path)
        undo = page.locator("form[data-test=undo]")
        undo.locator("button").click()  # no reason: the browser keeps the form (required) ...
        assert head(path) == n
        r = httpx.post(s.base + "/run", params={"token": s.token}, data={"command": "undo"})  # ... and the CLI refuses
        assert r.status_code == 200 and "Missing option" in r.text and head(path) == n
        undo.locator("input[name='o:reason']").fill(HOSTILE)
        submit(page, undo)
        expect(page.locator("[data-test=message]")).to_contain_text("undo of seq 2: " + HOSTILE)
        line = page.locator("[data-test=log] li[data-seq='2']")
        expect(line).to_have_class("undone")
        expect(line).to_contain_text(HOSTILE)  # as text, whole
        assert page.locator("[data-test=log] img").count() == 0
        assert page.locator("[data-test=log] script").count() == 0
        assert page.evaluate("window.__pwned") is None
        shot(page, "undo-hostile", page.locator("[data-test=log]"))
        assert head(path) == n + 1
        log = [json.loads(x) for x in cli_run(path, "log", "--json").out.splitlines()]
        assert log[-1]["type"] == "reverted" and log[1]["reverted"]
    finally:
        s.close()


def test_a_hostile_card_renders_as_text(tmp_path, page):
    """A card's campaign name and an RG name with markup in them (a bundle's card is the other player's
    file) show as text in the title, the forms' words, the map and the purchase record."""
    from conftest import card_variant

    card = card_variant(tmp_path, campaign={"name": HOSTILE}, axis_rg={"I1": {"name": HOSTILE}})
    path = tmp_path / "hostile.plcg"
    for args in (("new", "--card", card, "--seed", "x"), ("weather",), ("next",), ("buy", "axis", "I1")):
        r = cli_run(path, *args)
        assert r.code == 0, r.err
    s = Served(path)
    try:
        page.goto(s.url())
        expect(page.locator("h1")).to_have_text(HOSTILE)
        expect(page.locator("[data-test=purchases-axis]")).to_contain_text(HOSTILE)
        expect(page.locator("[data-test=map] svg title").first).to_contain_text(HOSTILE)
        assert page.locator("img, script:not([src])").count() == 0
        assert page.evaluate("window.__pwned") is None
        assert page.title().startswith(HOSTILE)
        assert page.errors == []
    finally:
        s.close()


def test_writes_check_the_origin_and_the_token(tmp_path):
    path = fresh(tmp_path)
    s = Served(path)
    try:
        n = head(path)
        evil = httpx.post(s.base + "/run", params={"token": s.token}, data={"command": "weather"},
                          headers={"Origin": "http://evil.example"})
        assert evil.status_code == 403
        cross = httpx.post(s.base + "/api/run", params={"token": s.token}, json={"command": "weather"},
                           headers={"Sec-Fetch-Site": "cross-site"})
        assert cross.status_code == 403
        assert httpx.post(s.base + "/run", data={"command": "weather"}).status_code == 403
        assert head(path) == n
        # the page's own origin, and the `args` of a pending item: the CLI's exit code and words
        item = cli_json(path, "status")["pending"][0]
        ok = httpx.post(s.base + "/api/run", params={"token": s.token}, headers={"Origin": s.base},
                        json={"command": item["args"]["name"], "args": item["args"]})
        (tmp_path / "twin").mkdir()
        twin = fresh(tmp_path / "twin")
        r = cli_run(twin, "weather")  # the same command on a twin campaign, through the CLI
        assert ok.json() == {"exit": r.code, "words": r.out.rstrip("\n")}
        assert head(path) == n + 1
        refused = httpx.post(s.base + "/api/run", params={"token": s.token}, json={"command": "next"}).json()
        assert refused["exit"] == 0  # 2.2 owes nothing now
        refused = httpx.post(s.base + "/api/run", params={"token": s.token},
                             json={"command": "cp", "args": {"name": "cp", "side": "axis"}}).json()
        r = cli_run(path, "cp", "axis")
        assert (refused["exit"], refused["words"].strip()) == (r.code, r.err.strip())
        assert r.code == 3
    finally:
        s.close()


def test_another_writer_first_is_the_campaign_moved_on(tmp_path, page, monkeypatch):
    """The store's optimistic check (exit 4): the page says the campaign moved on and shows it as it
    stands now. The other writer comes in between the page's read and its append."""
    path = fresh(tmp_path)
    s = Served(path)
    import events.store as store

    orig = store.Store.append
    raced = []

    def append(self, expected, new, *a, **kw):
        if new and new[0].type == "weather_set" and not raced:
            raced.append(expected)
            other = Ledger(str(path), write=True)
            try:
                other.run({"name": "weather"})
            finally:
                other.close()
        return orig(self, expected, new, *a, **kw)

    try:
        page.goto(s.url())
        monkeypatch.setattr(store.Store, "append", append)
        submit(page, page.locator("[data-test=pending] form[data-command=weather]"))
        monkeypatch.undo()
        msg = page.locator("[data-test=message]")
        expect(msg).to_contain_text("exit 4")
        expect(msg).to_contain_text("the campaign moved on")
        expect(page.locator("[data-test=at]")).to_have_text(str(head(path)))  # the page shows it now
        assert raced and head(path) == 2  # the other writer's weather, and nothing of the page's
    finally:
        s.close()


# ---- play by email ---------------------------------------------------------------------------------------

def test_by_email_the_page_acts_for_its_side_and_shows_sealed_rows_sealed(tmp_path, page):
    from helpers.pbem import Game

    game = Game(tmp_path, policy=None)
    game.play_to(1, "2.3")
    game.do("axis", "buy", "axis", "I1")
    game.do("allied", "buy", "allied", "I1")
    s = Served(game.db["allied"], game.key["allied"])
    try:
        page.goto(s.url())
        cli = json.loads(game.cli("allied", "purchases", "axis", "--json").out)
        sealed = [r for r in cli["purchases"] if r.get("sealed")]
        assert sealed
        rows = page.locator("[data-test=purchases-axis] tr.sealed")
        expect(rows).to_have_count(len(sealed))
        for r in sealed:
            expect(page.locator("[data-test=purchases-axis]")).to_contain_text(r["commitment"])
        # the forms act for this player's side only: the other side's options are not offered
        offered = page.locator("form.command:not([data-command=next]) fieldset:not([disabled])")
        assert offered.count() > 10
        sides = page.locator("fieldset:not([disabled]) input[type=hidden][name='a:side']")
        assert set(sides.evaluate_all("xs => xs.map(x => x.value)")) == {"allied"}
        for sel in page.locator("fieldset:not([disabled]) select[name='a:side']").all():
            assert sel.locator("option").all_inner_texts() == ["allied"]
        assert page.locator("[data-test=options]").get_by_text("Grenadier Platoon").count() == 0  # axis's RG
        status = json.loads(game.cli("allied", "status", "--json").out)
        assert s.get("/api/state").json()["status"] == status
        expect(page.locator("[data-test=sync] form[data-command=sync]")).to_have_count(2)
        shot(page, "by-email")
        # sync --send into a folder of bundles, from the page: the bundle the CLI's sync --send writes
        folder = tmp_path / "mail"
        folder.mkdir()
        send = page.locator("[data-test=sync] form[data-command=sync]").nth(1)
        send.locator("input[name='o:folder']").fill(str(folder))
        submit(page, send)
        expect(page.locator("[data-test=message]")).to_contain_text("sent ")
        assert len(list(folder.iterdir())) == 1
        for f in page.locator("[data-test=sync] form[data-command=sync]").all():  # the folder kept for next time
            assert f.locator("input[name='o:folder']").input_value() == str(folder)
    finally:
        s.close()


def test_by_email_at_2_9_the_page_offers_nothing_before_the_reveal_the_other_side_owes(tmp_path, page):
    """Ruling R112, issue 37 item 6: while the axis side owes the reveal of its HIP setup, no command of 2.9 is
    taken (`end` and the options are refused, exit 3); the page shows them disabled, each 'once axis has
    revealed', as `status` says, and offers them once the reveal is in."""
    from helpers.pbem import Game
    from test_pbem_hidden import at_2_9_owing_a_hip_reveal

    g = at_2_9_owing_a_hip_reveal(Game(tmp_path))
    assert g.cli("allied", "end", "--turn", "5", "--cvp-lost", "axis=0", "--cvp-lost", "allied=0").code == 3
    s = Served(g.db["allied"], g.key["allied"])
    try:
        page.goto(s.url())
        # the reveal is axis's to make: shown to the allied player, not offered (no form)
        owed = page.locator("[data-test=pending] li.item.other")
        expect(owed).to_contain_text("axis owes the reveal")
        expect(owed.locator("form")).to_have_count(0)
        end = page.locator("[data-test=pending] form[data-command=end] fieldset")
        expect(end).to_have_attribute("disabled", "")
        expect(page.locator("[data-test=pending] [data-test=waits]")).to_contain_text("once axis has revealed")
        options = page.locator("[data-test=options] form.command:not([data-command=next]) fieldset")
        assert options.count() > 0
        for f in options.all():
            expect(f).to_have_attribute("disabled", "")
        expect(page.locator("[data-test=options] [data-test=waits]").first).to_contain_text("once axis has revealed")
        shot(page, "by-email-2.9-waits")
    finally:
        s.close()
    assert g.cli("axis", "reveal").code == 0
    g.send("axis")
    s = Served(g.db["allied"], g.key["allied"])
    try:
        page.goto(s.url())
        expect(page.locator("[data-test=pending] form[data-command=end] fieldset")).not_to_have_attribute("disabled", "")
        expect(page.locator("[data-test=waits]")).to_have_count(0)
    finally:
        s.close()


def test_by_email_at_2_6_the_side_that_still_sets_up_names_its_unit_and_hex(tmp_path, page):
    """Ruling R110: once the first side has set up and waits, the other side owes `plcg setup SIDE UNIT HEX, then
    plcg next`. Its form held the hex as "HEX," (the words of the `then` read as the hex), hidden: no hex could be
    given, and the form ran `setup ... HEX,`. It asks the unit and the hex, and sets the unit up."""
    from helpers.pbem import Game
    from test_pbem_hidden import first_side_set_up_at_2_6

    g = Game(tmp_path, policy="any")
    first, second = first_side_set_up_at_2_6(g)
    g.send(first)
    s = Served(g.db[second], g.key[second])
    try:
        page.goto(s.url())
        owed = page.locator("[data-test=pending] li.item", has_text=f"{second} still sets up").locator("form")
        expect(owed.locator("input[name='a:hex_']")).to_have_attribute("type", "text")
        expect(owed.locator("input[name='a:hex_']")).to_have_value("")
        expect(owed.locator("input[name='a:unit']")).to_have_value("")
        owed.locator("input[name='a:unit']").fill("I1-1.1")
        owed.locator("input[name='a:hex_']").fill("M5" if second == "axis" else "C4")
        submit(page, owed)
        expect(page.locator("[data-test=message]")).to_contain_text(f"{second.capitalize()} I1-1.1 set up in")
        assert page.errors == []
    finally:
        s.close()


def test_a_form_leaves_empty_what_the_player_chooses(demo, page, served_demo):
    """What an item leaves to the player is asked, not filled in: 2.7's patrol read its units as "..." and 3.46's
    repair its kind as "malfunction|low_ammo|disabled|immobilized|captured_sw", each a value the command refuses."""
    h = History(str(demo))
    seqs = {}
    for seq in range(1, head(demo) + 1):
        step = h.state(seq).step
        if step in ("2.7", "3.46") and step not in seqs:
            seqs[step] = seq
    page.goto(served_demo.url(at=seqs["2.7"]))
    patrol = page.locator("[data-test=pending] form[data-command=patrol]").first
    expect(patrol.locator("input[name='o:units']")).to_have_value("")
    expect(patrol.locator("input[name='o:kind']")).to_have_value("")
    page.goto(served_demo.url(at=seqs["3.46"]))
    repair = page.locator("[data-test=options] form[data-command=repair]").first
    expect(repair.locator("input[name='o:kind']")).to_have_value("")
    expect(repair.locator("input[name='a:item']")).to_have_value("")


# ---- the command -----------------------------------------------------------------------------------------

def test_status_at_a_seq(demo):
    n = head(demo)
    assert cli_json(demo, "status", "--at", str(n)) == cli_json(demo, "status")
    first = cli_json(demo, "status", "--at", "1")
    assert (first["seq"], first["firefight"], first["step"]) == (1, 1, "2.2")
    assert "step 2.2" in cli_run(demo, "status", "--at", "1").out
    r = cli_run(demo, "status", "--at", str(n + 1))
    assert r.code == 2 and f"--at {n + 1}" in r.err


def _plcg(*args, **kw):
    return subprocess.Popen([sys.executable, "-c", "import cli; cli.main()", *args], cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


def test_serve_prints_its_url_refuses_without_the_token_and_ends_on_ctrl_c(demo):
    p = _plcg("serve", "--db", str(demo), "--no-open", "--port", "0")
    try:
        url = p.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and "/?token=" in url
        base, token = url.split("/?token=")
        assert httpx.get(base + "/").status_code == 403
        assert httpx.get(url).status_code == 200
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 0, err
    assert err == ""


def test_serve_says_when_it_listens_beyond_loopback(demo):
    p = _plcg("serve", "--db", str(demo), "--no-open", "--port", "0", "--host", "127.0.0.1")
    try:
        url = p.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 0
    assert "not loopback only" in err


def test_serve_help_names_the_contract_options(tmp_path):
    """cli-contract.md: plcg serve [--db PATH] [--key FILE] [--port N] [--host H] [--no-open]"""
    out = cli_run(tmp_path / "x.plcg", "serve", "--help").out
    for opt in ("--db PATH", "--key FILE", "--port N", "--host H", "--no-open"):
        assert opt in out, opt
    assert "serve" in cli_run(tmp_path / "x.plcg", "--help").out


def test_serve_refuses_a_missing_campaign_and_a_port_in_use(tmp_path, demo):
    r = cli_run(tmp_path / "none.plcg", "serve", "--no-open")
    assert r.code == 2 and "no campaign file" in r.err
    from projections.web import server

    taken = server.bind("127.0.0.1", 0)
    try:
        r = cli_run(demo, "serve", "--no-open", "--port", str(taken.getsockname()[1]))
    finally:
        taken.close()
    assert r.code == 2 and "cannot listen on 127.0.0.1:" in r.err
