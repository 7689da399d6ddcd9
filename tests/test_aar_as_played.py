"""The AAR tells each firefight as it happened (issue 38 item 1), on the campaign the issue's players played:
two firefights by email on the `kolkhoz` card (a Russian company, Disease & Starvation, CP the card gives the
Soviets), keys, sealed secrets and two-party dice, a Casualty Reduction at each end, Disease replacements
(3.41) and sealed Battle Hardening (3.44) in each RePh. Everything is read through `plcg export`, from the
Allied player's copy (the Axis purchases and hardenings reach it sealed, then revealed)."""
from __future__ import annotations

import re
import tomllib
from collections import Counter

import orjson
import pytest

from conftest import ROOT, cli_run
from cg.steps import disease_owed
from helpers.pbem import Game

CARD = tomllib.loads((ROOT / "cg" / "cards" / "kolkhoz.toml").read_text())


def _mmc(g: Game, side: str) -> list[str]:
    st = g.state(side)
    return sorted(u.id for u in st.units.values()
                  if u.side == side and u.kind in ("squad", "hs") and u.status in ("available", "on_map"))


def _reph(g: Game, n: int) -> None:
    """3.41 each side's Disease dr and the replacements it owes; 3.44 each side's promotion dr and as many
    hardenings as it allows."""
    for side in ("axis", "allied"):
        g.do(side, "disease", side)
        while disease_owed(g.state(side), side) > 0:
            done = {k.of for k in g.state(side).reph.done if k.what == "disease-replaced"}
            for u in [x for x in _mmc(g, side) if x not in done]:
                if g.holder != side:
                    g.send(g.holder)
                if g.cli(side, "disease", side, "--replaced", u).code == 0:  # one the counter table replaces
                    g._settle(side)
                    break
            else:
                raise AssertionError(f"{side} owes a Disease replacement no unit can take")
    g.play_to(n, "3.44")
    for side in ("axis", "allied"):
        g.do(side, "promote", side)
        k = g.state(side).reph.promotions[side]
        for u in _mmc(g, side)[-k:] if k else []:
            g.do(side, "harden", side, u)


def play(tmp) -> Game:
    g = Game(tmp, card="kolkhoz")
    g.play_to(1, "2.3")
    g.do("axis", "buy", "axis", "I1", "--mode", "on-map")
    g.do("allied", "buy", "allied", "I1", "--mode", "on-map")
    g.play_to(1, "2.9")
    g.do(g.holder, "end", "--turn", "5", "--cvp-lost", "axis=4", "--cvp-lost", "allied=6",
         "--reduced", f"axis:{_mmc(g, 'axis')[0]}")
    g.play_to(1, "3.41")
    _reph(g, 1)
    g.play_to(2, "2.3")
    g.do("axis", "buy", "axis", "I1", "--mode", "on-map")
    g.do("allied", "attack", "allied")
    g.play_to(2, "2.9")
    g.do(g.holder, "end", "--turn", "5", "--cvp-lost", "axis=2", "--cvp-lost", "allied=8",
         "--reduced", f"axis:{_mmc(g, 'axis')[0]}", "--reduced", f"allied:{_mmc(g, 'allied')[0]}")
    g.play_to(2, "3.41")
    _reph(g, 2)
    g.play_to(3, "2.1")
    g.send(g.holder)
    return g


@pytest.fixture(scope="module")
def played(module_workdir):
    g = play(module_workdir)
    db = g.db["allied"]
    out = {"game": g, "db": db}
    for fmt in ("md", "html"):
        r = cli_run(db, "export", "--format", fmt)
        assert r.code == 0, r.err
        out[fmt] = r.out
    # the raw log (undone rows are not in this campaign): type, firefight and payload of every row
    out["log"] = [orjson.loads(line) for line in cli_run(db, "export", "--format", "jsonl").out.splitlines()]
    assert all("payload" in e for e in out["log"]) and not any(e["type"] == "reverted" for e in out["log"])
    return out


def _section(md: str, n: int) -> str:
    return md.split(f"## Firefight {n} ")[1].split("\n## ")[0]


def _opened(log: list, etype: str) -> list[dict]:
    """The events of type ETYPE the log holds, on their own rows or inside a revealed seal (ruling R47)."""
    out = [e["payload"] for e in log if e["type"] == etype]
    for e in log:
        if e["type"] == "seals_revealed":
            out += [q for o in e["payload"]["openings"] for t, q in o["opening"].get("events") or () if t == etype]
    return out


def test_purchase_tables_show_the_counters_as_bought_not_as_they_are_now(played):
    g = played["game"]
    # what each I1 brings by the card: "3x 4-6-7", "1x LMG" -> 3× 4-6-7, LMG
    for side, ff in (("axis", 1), ("allied", 1), ("axis", 2)):
        rg = next(x for x in CARD["sides"][side]["rg"] if x["id"] == "I1")
        bought = Counter()
        for spec in rg["units"]:
            n, name = spec.split("x ", 1)
            bought[name] += int(n)
        want = ", ".join(f"{n}× {u}" if n > 1 else u for u, n in bought.items())
        purchase = f"I1-{ff}" if side == "axis" else "I1-1"
        row = next(line for line in _section(played["md"], ff).splitlines()
                   if line.startswith(f"| {side.title()} | {purchase} |"))
        assert row.rstrip(" |").endswith(want), (row, want)
        # and the roster today is not that: a Casualty Reduction, Disease and hardening changed it
        today = sorted(u.name for u in g.state(side).units.values() if u.purchase == purchase and u.kind != "leader")
        assert Counter(today) != bought


def test_counters_changed_names_every_change_with_its_rule(played):
    md, log = played["md"], played["log"]
    for n in (1, 2):
        line = next(x for x in _section(md, n).splitlines() if x.startswith("- **Counters changed:**"))
        mine = [e for e in log if e["firefight"] == n]
        ended = next(e["payload"] for e in mine if e["type"] == "firefight_ended")
        assert ended["reduced"]
        for c in ended["reduced"]:
            what = c["to"] if c["to"] == "eliminated" else f"now {c['to']}"
            assert f"{c['side'].title()} {c['unit']} {what} (Casualty Reduction, 2.9)" in line
        disease = _opened(mine, "disease_replaced")
        assert {c["change"]["side"] for c in disease} == {"axis", "allied"}
        for p in disease:
            c = p["change"]
            assert f"{c['side'].title()} {c['unit']} now {c['to']} (Disease & Starvation, 3.41)" in line
        hardened = _opened(mine, "unit_hardened")
        # sealed at 3.44, revealed at 3.44; the Axis won the firefight: its promotion dr (-1) gives at least one MMC
        # (two-party dice: how many, and whether the Soviets' gives any, is the players' dice)
        assert "axis" in {p["side"] for p in hardened}
        for p in hardened:
            what = "Fanatic" if p["fanatic"] else f"now {p['to']}"
            assert f"{p['side'].title()} {p['unit']} {what} (Battle Hardening, 3.44)" in line


def test_the_sequence_tells_the_game_and_folds_play_by_email_into_one_line_a_step(played):
    md, html = played["md"], played["html"]
    seq1 = _section(md, 1).split("### Sequence")[1]
    for plumbing in ("signed the head", "answered two-party dice", "sealed a purchase", "committed to",
                     "revealed two-party dice", "proposed to leave", "confirmed to leave"):
        assert plumbing not in seq1, plumbing
    # one line per purchase, with what it brought
    buys = [x for x in seq1.splitlines() if " bought I1 " in x]
    assert len(buys) == 2 and all("× 4-" in x for x in buys), buys
    assert "plcg leader (" not in seq1  # no command fragments
    # the step's records by email: one line in Markdown ...
    step23 = seq1.split("#### 2.3 ")[1].split("####")[0]
    assert len(re.findall(r"^\*By email: \d+ records \(.*signatures.*\), seq ", step23, re.M)) == 1
    # ... and in HTML a <details> that opens on them, where the signatures are
    folded = re.findall(r'<details class="email"><summary>.*?</details>', html, re.S)
    assert folded and all(x.count("<summary>") == 1 for x in folded)
    assert "signed the head" in "".join(folded)
    rest = re.sub(r'<details class="email"><summary>.*?</details>', "", html, flags=re.S)
    assert "signed the head" not in rest and "answered two-party dice" not in rest


def test_numbers_public_by_the_card_are_never_sealed_and_revealed_ones_never_a_question_mark(played):
    md = played["md"]
    given = CARD["sides"]["allied"]["cp_provided"][0]  # 2.1 EXC: the Soviets' CP for firefight 2
    ff2 = _section(md, 2)
    assert f"Allied gained {given}, spent " in ff2
    assert f"Allied CP replenishment: {given} CP provided by the CG Card (2.1 EXC" in ff2.split("### Sequence")[1]
    roster = md.split("## CG Roster")[1]
    allied2 = [x for x in roster.splitlines() if "| Allied |" in x][1]
    assert allied2.split("|")[8].strip() == str(given)  # the CP gained column
    assert "sealed" not in allied2 and "?" not in allied2
    assert "?" not in roster.split("### Totals")[0]
    # both sides' purchases were revealed at 2.6: what each spent is shown
    ax = next(line for line in ff2.splitlines() if line.startswith("- **CP:**"))
    assert "Axis gained sealed, spent 6, left sealed" in ax  # the Axis CP DR stays sealed to the CG's end (R47)
    # the other copy's roster says what the Allied copy, which made it, says
    rows = {c: {(r["firefight"], r["side"]): r for r in orjson.loads(cli_run(played["game"].db[c], "--key",
                                                                              played["game"].key[c], "roster",
                                                                              "--json").out)["rows"]}
            for c in ("axis", "allied")}
    for k in ("cp_gained", "cp_spent", "cp_left"):
        assert rows["axis"][(2, "allied")][k] == rows["allied"][(2, "allied")][k], k
    # and `status` in the Axis copy shows the Soviets' CP in hand, not "sealed"
    g = played["game"]
    cp = {c: orjson.loads(g.cli(c, "status", "--json").out)["sides"]["allied"]["cp"] for c in ("axis", "allied")}
    assert cp["axis"] == cp["allied"] == rows["allied"][(2, "allied")]["cp_left"], cp


def test_markdown_has_no_html_entities(played):
    md = played["md"]
    assert "Disease & Starvation" in md and re.search(r"row [<>]=\d", md)
    assert not re.search(r"&(amp|lt|gt|quot|#\d+);", md)


def test_in_chromium_the_sequence_shows_the_game_and_opens_the_email_records_on_demand(played, tmp_path):
    from helpers.browser import measure

    script = """
      const seqs = Array.from(document.querySelectorAll('details.sequence'));
      const shown = () => Array.from(document.querySelectorAll('details.sequence li'))
        .filter(li => li.checkVisibility()).map(li => li.textContent);
      const closed = document.documentElement.scrollHeight;
      seqs.forEach(d => d.open = true);
      const opened = shown();
      document.querySelectorAll('details.email').forEach(d => d.open = true);
      const all = shown();
      return {closed, opened, all};"""
    got = measure(played["html"], tmp_path, script, width=1280)
    assert got["closed"] < 4000, got["closed"]  # the report as it opens, sequences folded
    assert any(" bought I1 " in x for x in got["opened"])
    assert not any("signed the head" in x or "answered two-party dice" in x for x in got["opened"])
    assert any("signed the head" in x for x in got["all"])  # one click on "By email" away
