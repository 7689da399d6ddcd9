"""Issue 38 item 3: dice a player can check. `plcg dice-check SEQ` recomputes the roll of event SEQ from the
log's own values (a seeded roll from the seed and its position, a two-party roll from both values, the
commitment and the chain place: rulings R31, R44, R83), each step shown, exit 1 where they do not give the
logged dice; `plcg dice-stats` counts each die (white and colored apart, each side's) per kind of command
that rolled, and the AAR counts the rolls as it does. The expectations are computed here from the raw rows
with hashlib/hmac, not taken from the command's output."""
from __future__ import annotations

import hashlib
import hmac
import json
import shutil
import sqlite3

import orjson
import pytest

from conftest import Campaign, cli_run
from helpers.sandbox import rechain
from cg.app.keys import load_private


def _rows(path) -> list[tuple]:
    db = sqlite3.connect(str(path))
    try:
        return [(s, b, t, orjson.loads(p), None if c is None else orjson.loads(c))
                for s, b, t, p, c in db.execute("SELECT seq, batch, type, payload, command FROM events ORDER BY seq")]
    finally:
        db.close()


def _die(digest: bytes) -> int:
    return int.from_bytes(digest[:8], "big") % 6 + 1


def _seeded(seed: str, pos: int, index: int, n: int) -> list[int]:
    return [_die(hmac.new(seed.encode(), f"{pos}:{index}:{d}".encode(), hashlib.sha256).digest()) for d in range(n)]


def _two_party(a: str, b: str, commit: str, n: int, index: int = 0) -> list[int]:
    return [_die(hashlib.sha256(f"{a}:{b}:{commit}:{index}:{d}".encode()).digest()) for d in range(n)]


def _check(path, *args, key=None):
    extra = ("--key", str(key)) if key else ()
    return cli_run(path, *extra, "dice-check", *args)


# ---- a seeded campaign: the demo ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def demo(module_workdir):
    path = module_workdir / "demo.plcg"
    assert cli_run(path, "demo").code == 0
    return path


def test_every_seeded_roll_of_the_demo_recomputes_from_the_seed_and_its_position(demo):
    rows = _rows(demo)
    seed = rows[0][3]["seed"]
    checked = 0
    for seq, batch, etype, p, _c in rows:
        rolls = [p["roll"]] if isinstance(p.get("roll"), dict) else [r for r in p.get("rolls") or [] if "dice" in r]
        if not rolls:
            continue
        r = _check(demo, str(seq), "--json")
        assert r.code == 0, (seq, r.out, r.err)
        d = json.loads(r.out)
        assert [x["dice"] for x in d["rolls"]] == [x["dice"] for x in rolls]
        # the demo's commands roll in one batch each, no confirmation before them: position = the batch's seq,
        # index = the roll's place among the batch's rolls
        before = [q for s, b, _t, q, _ in rows if b == batch and s < seq]
        index = sum(1 + 0 * len(x) for q in before for x in ([q["roll"]] if isinstance(q.get("roll"), dict) else
                                                          [y for y in q.get("rolls") or [] if "dice" in y]))
        for i, x in enumerate(rolls):
            assert x["dice"] == _seeded(seed, batch, index + i, len(x["dice"]))
            assert d["rolls"][i]["recomputed"] == x["dice"] and d["rolls"][i]["ok"] is True
        checked += 1
    assert checked >= 40


def test_a_seeded_roll_is_shown_step_by_step(demo):
    rows = _rows(demo)
    seq, batch, _t, p, _c = next(r for r in rows if r[2] == "elr_rolled")
    r = _check(demo, str(seq))
    assert r.code == 0, r.err
    seed = rows[0][3]["seed"]
    white, colored = p["roll"]["dice"]
    n = int.from_bytes(hmac.new(seed.encode(), f"{seq}:0:0".encode(), hashlib.sha256).digest()[:8], "big")
    assert f"key = the campaign's seed {seed!r}" in r.out
    assert f'white: HMAC-SHA256(seed, "{seq}:0:0") first 8 bytes = {n}; {n} mod 6 + 1 = {white}' in r.out
    assert f'colored: HMAC-SHA256(seed, "{seq}:0:1")' in r.out and f"mod 6 + 1 = {colored}" in r.out
    assert r.out.rstrip().endswith(f"the dice of seq {seq} are as the log's values make them")


def test_a_tampered_seeded_roll_is_exit_1(demo, workdir):
    path = workdir / "forged.plcg"
    shutil.copy(demo, path)
    rows = _rows(path)
    seq, _b, _t, p, _c = next(r for r in rows if r[2] == "elr_rolled")
    forged = [7 - p["roll"]["dice"][0], p["roll"]["dice"][1]]  # another white die, the hash chain recomputed
    rechain(str(path), (f"UPDATE events SET payload = json_set(payload, '$.roll.dice', json(?)) WHERE seq = {seq}",
                        (json.dumps(forged),)))
    r = _check(path, str(seq))
    assert r.code == 1, r.out
    assert f"logged {forged}: NOT the logged dice" in r.out
    assert "not as logged" in r.out


def test_a_bad_seq_is_exit_2(demo):
    head = len(_rows(demo))
    no_roll = next(r[0] for r in _rows(demo) if r[2] == "weather_set")
    for seq, words in (("x", "SEQ 'x'"), (str(head + 5), f"is not in the log (it holds 1-{head})"),
                       (str(no_roll), f"seq {no_roll} (weather_set) holds no roll")):
        r = _check(demo, seq)
        assert r.code == 2 and words in r.err, (seq, r.err)


def test_typed_and_os_dice_say_they_cannot_be_recomputed(workdir):
    c = Campaign(workdir / "os.plcg", seed=None)  # the ledger's OS dice (ruling R31)
    c.advance(1, "2.3")
    c.run("buy", side="axis", rg="I1")
    c.run("buy", side="allied", rg="I1")
    c.run("leader", side="axis", rg="I1")
    c.run("leader", side="allied", rg="I1", dice="2,5")
    c.close()
    rows = _rows(c.path)
    (os_seq, os_p, os_cmd), (typed_seq, _p, _c) = [(s, p, cm) for s, _b, t, p, cm in rows if t == "leader_rolled"]
    r = _check(c.path, str(os_seq))
    assert r.code == 0, r.err
    assert "operating system's random source (ruling R31)" in r.out and "nothing in the log can recompute them" in r.out
    assert f"(ledger_dice, roll 1): {os_cmd['ledger_dice'][0]}" in r.out and os_cmd["ledger_dice"][0] == os_p["roll"]["dice"]
    r = _check(c.path, str(typed_seq))
    assert r.code == 0, r.err
    assert "typed in with --dice" in r.out and "nothing recomputes them" in r.out
    rechain(c.path, f"UPDATE events SET payload = json_set(payload, '$.roll.dice', json('[6,6]')) WHERE seq = {os_seq}")
    if os_p["roll"]["dice"] != [6, 6]:
        r = _check(c.path, str(os_seq))
        assert r.code == 1 and "not the dice the command recorded" in r.out


# ---- two-party dice: R44 (a reveal) and R83 (a chain of answers) ----------------------------------------

@pytest.fixture(scope="module")
def letters(tmp_path_factory):
    from helpers.pace import Letters

    game = Letters(tmp_path_factory.mktemp("letters"))
    game.play((2, "2.1"))
    return game


def _committed(rows) -> dict:
    out = {}
    for s, _b, t, p, _c in rows:
        evs = [(t, p)]
        if t == "seals_revealed":
            evs += [(u, q) for o in p["openings"] for u, q in o["opening"]["events"]]
        for u, q in evs:
            if u == "dice_committed":
                out[q["commit"]] = q
    return out


def test_a_roll_from_a_chain_of_answers_recomputes_from_both_values_and_the_chain(letters):
    path, key = letters.db["axis"], letters.key["axis"]
    rows = _rows(path)
    committed = _committed(rows)
    answers = {p["request"]: p["value"] for _s, _b, t, p, _c in rows if t == "dice_answered"}
    anchors = {p["side"]: p["anchor"] for _s, _b, t, p, _c in rows if t == "dice_chain"}
    seq, batch, _t, p, _c = next(r for r in rows if r[2] == "elr_rolled")
    reveal = next(q for s, b, t, q, _ in rows if b == batch and t == "dice_revealed")
    commit = reveal["request"]
    c = committed[commit]
    assert c["chain"] >= 1 and c["value"] == reveal["value"]  # ruling R83: A shown with the commitment
    a, b = c["value"], answers[commit]
    other = "allied" if c["side"] == "axis" else "axis"
    v = b
    for _ in range(c["chain"]):
        v = hashlib.sha256(v.encode()).hexdigest()
    assert v == anchors[other]
    assert _two_party(a, b, commit, 2) == p["roll"]["dice"]
    r = _check(path, str(seq), key=key)
    assert r.code == 0, r.err
    assert f"commitment {commit[:16]}…: {c['side'].capitalize()}'s roll for elr" in r.out
    assert "sha256(A) = the commitment" in r.out
    assert f"the answer at place {c['chain']} of {other.capitalize()}'s chain of answers (ruling R83" in r.out
    assert "gives the anchor" in r.out
    n = int.from_bytes(hashlib.sha256(f"{a}:{b}:{commit}:0:0".encode()).digest()[:8], "big")
    assert f'white: sha256("A:B:commitment:0:0") first 8 bytes = {n}; {n} mod 6 + 1 = {p["roll"]["dice"][0]}' in r.out
    assert json.loads(_check(path, str(seq), "--json", key=key).out)["rolls"][0]["recomputed"] == p["roll"]["dice"]


def test_a_revealed_two_party_roll_recomputes_in_either_copy(letters):
    """Ruling R44: the 3.44 promotion dr, committed, answered, revealed in a seal (ruling R47)."""
    for side in ("axis", "allied"):
        path = letters.db[side]
        rows = _rows(path)
        committed = _committed(rows)
        answers = {p["request"]: p["value"] for _s, _b, t, p, _c in rows if t == "dice_answered"}
        seq, _b, _t, p, _c = next(r for r in rows if r[2] == "seals_revealed" and any(
            u == "promotion_rolled" for o in r[3]["openings"] for u, _q in o["opening"]["events"]))
        evs = p["openings"][0]["opening"]["events"]
        reveal = next(q for u, q in evs if u == "dice_revealed")
        rolled = next(q for u, q in evs if u == "promotion_rolled")
        commit, a = reveal["request"], reveal["value"]
        assert hashlib.sha256(a.encode()).hexdigest() == commit and "chain" not in committed[commit]
        assert _two_party(a, answers[commit], commit, 1) == rolled["roll"]["dice"]
        r = _check(path, str(seq))  # without a key: the reveal is in the log
        assert r.code == 0, r.err
        assert f"B = {answers[commit][:16]}…" in r.out and "ruling R44" in r.out
        assert f"recomputed {rolled['roll']['dice']}; logged {rolled['roll']['dice']}: the same" in r.out


def test_a_forged_answer_or_roll_is_exit_1(letters, workdir):
    src = letters.db["axis"]
    rows = _rows(src)
    seq, batch, _t, p, _c = next(r for r in rows if r[2] == "elr_rolled")
    commit = next(q["request"] for _s, b, t, q, _ in rows if b == batch and t == "dice_revealed")
    # the answer that decided it (in its batch, or earlier for a roll committed ahead of 3.47: ruling R121)
    ans = next(s for s, _b, t, q, _ in rows if t == "dice_answered" and q["request"] == commit)
    forged = workdir / "answer.plcg"
    shutil.copy(src, forged)
    rechain(str(forged), f"UPDATE events SET payload = json_set(payload, '$.value', '{'0' * 64}') WHERE seq = {ans}")
    r = _check(forged, str(seq))
    assert r.code == 1, r.out
    assert "does NOT give the anchor" in r.out
    dice = workdir / "dice.plcg"
    shutil.copy(src, dice)
    other = [p["roll"]["dice"][0], 7 - p["roll"]["dice"][1]]
    rechain(str(dice), (f"UPDATE events SET payload = json_set(payload, '$.roll.dice', json(?)) WHERE seq = {seq}",
                        (json.dumps(other),)))
    r = _check(dice, str(seq))
    assert r.code == 1 and f"logged {other}: NOT the logged dice" in r.out


# ---- dice-stats: each die, per kind of command that rolled; the AAR counts the same --------------------

def _expected(rows) -> tuple[dict, dict]:
    """(per side: die -> faces; per kind: rolls) from the raw rows, seals the log reveals opened."""
    committed = _committed(rows)
    sides: dict = {}
    kinds: dict = {}
    batch_kind: dict = {}  # batch -> the kind its rolls are (its command's, or the roll a reveal decides)
    for _s, b, t, p, cmd in rows:
        if cmd is not None:
            batch_kind[b] = cmd.get("name")
        groups = [[(t, p)]] if t != "seals_revealed" else [o["opening"]["events"] for o in p["openings"]]
        for evs in groups:
            kind = batch_kind.get(b)
            for u, q in evs:
                if u == "dice_revealed":
                    kind = committed[q["request"]]["command"]["name"]
                    if t != "seals_revealed":
                        batch_kind[b] = kind
                for x in [q["roll"]] if isinstance(q.get("roll"), dict) else [y for y in q.get("rolls") or [] if "dice" in y]:
                    names = ("dr",) if len(x["dice"]) == 1 else ("white", "colored")
                    for name, v in zip(names, x["dice"]):
                        sides.setdefault(q.get("side") or "both", {}).setdefault(name, [0] * 6)[v - 1] += 1
                    kinds[kind] = kinds.get(kind, 0) + 1
    return sides, kinds


def test_dice_stats_counts_each_die_per_side_and_the_command_an_answer_decided(letters):
    path = letters.db["allied"]
    r = cli_run(path, "dice-stats", "--json")
    assert r.code == 0, r.err
    d = json.loads(r.out)
    sides, kinds = _expected(_rows(path))
    assert "answer" not in d["kinds"] and "reveal" not in d["kinds"]
    assert {k: v["rolls"] for k, v in d["kinds"].items()} == kinds
    assert {"elr", "leaders", "promote"} <= set(kinds)
    assert {s: v["dice"] for s, v in d["sides"].items()} == sides
    for die in ("white", "colored", "dr"):
        assert [d["dice"][die]["observed"][str(f)] for f in range(1, 7)] == \
            [sum(v.get(die, [0] * 6)[f - 1] for v in sides.values()) for f in range(1, 7)]
    assert "a roll is one dr or DR recorded in the log" in d["counted"]
    text = cli_run(path, "dice-stats").out
    assert "  white die  " in text and "  allied colored die " in text and "  elr: " in text and "(counted: " in text


def test_the_aar_counts_the_rolls_as_dice_stats_does(letters, demo):
    for path in (letters.db["axis"], demo):
        d = json.loads(cli_run(path, "dice-stats", "--json").out)
        md = cli_run(path, "export", "--format", "md").out
        line = next(x for x in md.splitlines() if x.startswith("- **Dice:**"))
        said = "; ".join(f"{x['source']} {x['side']} {x['rolls']}" for x in d["by_source_side"])
        assert f"; {d['rolls']} rolls (" in line and f"by source and side: {said} (" in line, line
        assert "plcg dice-stats counts the same" in line
        assert sum(x["rolls"] for x in d["by_source_side"]) == d["rolls"] == sum(_expected(_rows(path))[1].values())


def test_a_claimed_roll_recomputes_from_the_answer_alone(workdir, monkeypatch):
    """Ruling R67: a reveal withheld past the committer's signature, claimed by the other side as a claim of
    before ruling R108 is recorded (no signature): the dice are sha256("withheld:B:commitment:roll:die"), B the
    claimer's answer."""
    from cg import pbem
    from cg.app.ledger import Ledger
    from helpers.pbem import Game
    from test_pbem_trust import _answered

    monkeypatch.setattr(pbem, "chained", lambda st, cmd: False)  # ruling R44's roll: commit, answer, reveal
    g = Game(workdir, sealed=False)
    _answered(g, "I1-1")
    g.signed_only("axis")  # the axis player's own client bundles without revealing
    key = load_private(g.key["allied"])
    led = Ledger(g.db["allied"], write=True, key=key)
    try:  # a claim as a client of before ruling R108 made it
        (withheld,) = [c for c, r in led.state().pbem.requests.items() if r.side == "axis"]
        led.run({"name": "claim", "request": withheld}, key)
    finally:
        led.close()
    rows = _rows(g.db["allied"])
    seq, batch, _t, p, _c = [r for r in rows if r[2] == "leader_rolled"][-1]
    reveal = next(q for s, b, t, q, _ in rows if b == batch and t == "dice_revealed")
    assert reveal["value"] == "withheld"
    commit = reveal["request"]
    answer = next(q["value"] for _s, _b, t, q, _ in rows if t == "dice_answered" and q["request"] == commit)
    assert _two_party("withheld", answer, commit, 2) == p["roll"]["dice"]
    r = _check(g.db["allied"], str(seq))
    assert r.code == 0, r.out + r.err
    assert "claimed (ruling R67)" in r.out and 'A = "withheld"' in r.out
    assert f"recomputed {p['roll']['dice']}; logged {p['roll']['dice']}: the same" in r.out


def test_a_roll_claimed_from_the_claimers_signature_recomputes(workdir, monkeypatch):
    """Ruling R108: a claim's dice come from the claimer's signature over the commitment; dice-check verifies
    the signature with the claimer's public key and recomputes the dice from it and the answer."""
    from cg import pbem
    from helpers.pbem import Game
    from test_pbem_trust import _answered

    monkeypatch.setattr(pbem, "chained", lambda st, cmd: False)
    g = Game(workdir, sealed=False)
    _answered(g, "I1-1")
    g.signed_only("axis")
    assert g.cli("allied", "claim").code == 0
    rows = _rows(g.db["allied"])
    seq, batch, _t, p, _c = [r for r in rows if r[2] == "leader_rolled"][-1]
    reveal = next(q for s, b, t, q, _ in rows if b == batch and t == "dice_revealed")
    assert reveal["value"].startswith("withheld:")
    commit = reveal["request"]
    answer = next(q["value"] for _s, _b, t, q, _ in rows if t == "dice_answered" and q["request"] == commit)
    assert _two_party(reveal["value"], answer, commit, 2) == p["roll"]["dice"]
    r = _check(g.db["allied"], str(seq))
    assert r.code == 0, r.out + r.err
    assert "claimed (ruling R108)" in r.out and "which its key signs" in r.out
