"""Play by email (issue 16): keys, signed bundles between two copies, two-party dice.

Every test drives the real command line; two players each keep their own campaign file and
exchange bundles only (tests/helpers/pbem.py).
"""
from __future__ import annotations

import json
import os
import stat

import orjson
import pytest

from conftest import cli_run, rows
from helpers.pbem import OTHER, Game

from cg import pbem
from cg.app.ledger import Ledger
from cg.app.keys import load_private


@pytest.fixture
def game(workdir):
    return Game(workdir)


@pytest.fixture
def free_game(workdir):
    """Keys and signatures, the ledger's own dice (--dice-policy any), open rosters (--open-secrets)."""
    return Game(workdir, policy=None, sealed=False)


@pytest.fixture
def open_game(workdir):
    """Two-party dice with open rosters: the dice's own mechanics read in the clear."""
    return Game(workdir, sealed=False)


@pytest.fixture
def sealed_free_game(workdir):
    """Keys, the ledger's own dice, sealed secrets (ruling R47)."""
    return Game(workdir, policy=None)


@pytest.fixture
def r44_game(open_game, monkeypatch):
    """Open rosters, two-party dice as ruling R44 rolls them (commit, answer, reveal): the way of a sealed
    step's roll, of one made before the other side's chain of answers is in, or after an undo (ruling
    R83); the rolls of these tests are made at 2.3 with open rosters, so the chain is set aside here."""
    monkeypatch.setattr(pbem, "chained", lambda st, cmd: False)
    return open_game


def log(path) -> list[dict]:
    r = cli_run(path, "log", "--json")
    assert r.code == 0, r.err
    return [json.loads(x) for x in r.out.splitlines()]


def bundle_lines(path) -> list[dict]:
    import gzip

    with open(path, "rb") as f:
        data = f.read()
    data = gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data  # compressed by default (issue 26)
    return [orjson.loads(x) for x in data.splitlines()]


def write_lines(path, lines) -> None:
    with open(path, "wb") as f:
        f.write(b"\n".join(orjson.dumps(x) for x in lines) + b"\n")


# ---- keys -------------------------------------------------------------------------------------------

def test_keys_new_writes_a_private_file_0600_and_prints_the_public_key(workdir):
    r = cli_run(workdir / "c.plcg", "keys", "new", "-o", workdir / "me.key")
    assert r.code == 0, r.err
    line = r.out.strip()
    assert r.out.count("\n") == 1 and line.startswith("ed25519:") and len(line) == len("ed25519:") + 64
    assert stat.S_IMODE(os.stat(workdir / "me.key").st_mode) == 0o600
    assert pbem.public_line(load_private(str(workdir / "me.key"))) == line
    again = cli_run(workdir / "c.plcg", "keys", "new", "-o", workdir / "me.key")
    assert again.code == 2 and "already exists" in again.err


def test_new_needs_both_keys_and_two_party_needs_keys(workdir):
    r = cli_run(workdir / "k.plcg", "keys", "new", "-o", workdir / "a.key")
    pub = r.out.strip()
    one = cli_run(workdir / "c.plcg", "new", "--card", "sample", "--axis-key", pub)
    assert one.code == 2 and "both keys" in one.err
    same = cli_run(workdir / "c.plcg", "new", "--card", "sample", "--axis-key", pub, "--allied-key", pub)
    assert same.code == 2
    bad = cli_run(workdir / "c.plcg", "new", "--card", "sample", "--axis-key", pub, "--allied-key", "ed25519:zz")
    assert bad.code == 2 and "public key" in bad.err
    tp = cli_run(workdir / "c.plcg", "new", "--card", "sample", "--dice-policy", "two-party")
    assert tp.code == 2 and "keys" in tp.err
    assert not (workdir / "c.plcg").exists()


def test_a_side_acts_only_with_its_own_key(free_game):
    g = free_game
    g.do("axis", "weather")
    g.do("axis", "next")
    db = g.db["axis"]
    before = rows(db)
    no_key = cli_run(db, "buy", "axis", "I1")
    assert no_key.code == 3 and "--key" in no_key.err and "pbem" in no_key.err
    wrong = cli_run(db, "--key", g.key["allied"], "buy", "axis", "I1")
    assert wrong.code == 3 and "allied's key cannot act for axis" in wrong.err
    stranger = cli_run(db, "keys", "new", "-o", g.tmp / "x.key")
    other = cli_run(db, "--key", g.tmp / "x.key", "buy", "axis", "I1")
    assert stranger.code == 0 and other.code == 3 and "neither side" in other.err
    assert rows(db) == before
    ok = g.cli("axis", "buy", "axis", "I1")
    assert ok.code == 0 and rows(db) == before + 1


def test_plcg_key_from_the_environment(free_game, monkeypatch):
    g = free_game
    monkeypatch.setenv("PLCG_KEY", g.key["axis"])
    r = cli_run(g.db["axis"], "weather")
    assert r.code == 0, r.err
    assert log(g.db["axis"])[-1]["type"] == "weather_set"


# ---- bundles ---------------------------------------------------------------------------------------

def test_receive_makes_a_copy_from_a_first_bundle_and_holds_nothing_twice(free_game):
    g = free_game
    a, b = g.db["axis"], g.db["allied"]
    assert [x["type"] for x in log(b)] == ["campaign_started", "head_signed"]
    g.do("axis", "weather")
    path = g.send("axis")
    assert log(a) == log(b)
    again = cli_run(b, "receive", path)
    assert again.code == 0 and "already held" in again.out
    assert log(a) == log(b)
    head = cli_run(b, "receive", g.bundles[0])  # the very first bundle, long held
    assert head.code == 0 and "already held" in head.out


def test_a_bundle_signs_the_head_and_the_audit_checks_it(free_game):
    g = free_game
    g.do("axis", "weather")
    g.send("axis")
    signed = [x for x in log(g.db["allied"]) if x["type"] == "head_signed"]
    assert [s["side"] for s in signed] == ["axis", "allied", "axis"]  # the copies took turns
    assert cli_run(g.db["allied"], "audit").code == 0
    # the allied copy's next bundle acknowledges the axis head it holds
    g.send("allied")
    last = [x for x in log(g.db["axis"]) if x["type"] == "head_signed"][-1]
    led = Ledger(g.db["axis"])
    p = list(led.store.read(since=led.store.head()[0] - 1))[0].payload
    led.close()
    assert last["side"] == "allied" and p["ack"] is not None and p["ack"][0] == signed[-1]["seq"] - 1


def _tamper(lines, seq, change):
    for x in lines[1:]:
        if x["seq"] == seq:
            change(x)
    return lines


def test_tampered_truncated_gapped_and_forged_bundles_are_refused(free_game):
    g = free_game
    g.do("axis", "weather")
    g.do("axis", "next")
    g.do("axis", "buy", "axis", "I1")
    since = g.head("allied")
    path = g.bundle("axis", since)
    lines = bundle_lines(path)
    b = g.db["allied"]
    before = rows(b)

    def refused(lines, code, words):
        bad = str(g.tmp / "bad.bundle")
        write_lines(bad, lines)
        r = cli_run(b, "receive", bad)
        assert r.code == code and words in r.err, (r.code, r.err)
        assert rows(b) == before

    # an edited payload (CP left): its hash no longer matches
    refused(_tamper(bundle_lines(path), since + 3,
                    lambda x: x.update(payload=x["payload"].replace('"cp_left":11', '"cp_left":16'))),
            2, "tampered")
    # truncated: a row less than the header says
    refused(bundle_lines(path)[:-1], 2, "truncated")
    # a row taken out of the middle
    cut = bundle_lines(path)
    del cut[2]
    cut[0]["rows"] -= 1
    refused(cut, 2, "skips")
    # not continuing this copy: a bundle starting later than the copy's head
    late = bundle_lines(path)
    late[0]["since"] += 1
    late[0]["rows"] -= 1
    del late[1]
    refused(late, 2, "missing")
    # re-hashed after the edit, but the signature then covers another head
    from events.codec import chain_hash, chain_record, loads

    forged = bundle_lines(path)
    prev = forged[1]["prev_hash"]
    for x in forged[1:]:
        x["prev_hash"] = prev
        if x["type"] == "rg_bought":
            x["payload"] = x["payload"].replace('"cp_left":11', '"cp_left":16')
        c = None if x["command"] is None else loads(x["command"])
        x["hash"] = chain_hash(prev, chain_record(x["seq"], x["batch"], x["type"], x["version"], x["firefight"],
                                                  x["step"], loads(x["payload"]), x["recorded"], c))
        prev = x["hash"]
    forged[0]["head"] = [forged[-1]["seq"], prev]
    refused(forged, 2, "signature")
    # not a bundle at all
    with open(g.tmp / "junk", "w") as f:
        f.write("hello\n")
    r = cli_run(b, "receive", g.tmp / "junk")
    assert r.code == 2 and "not a plcg bundle" in r.err
    # the real one goes in
    assert cli_run(b, "receive", path).code == 0 and rows(b) == before + len(lines) - 1


def test_a_command_signed_by_the_wrong_side_is_refused(free_game):
    """The allied player signs a bundle holding a command recorded as the axis player's."""
    g = free_game
    g.do("allied", "weather")  # allied holds the latest now
    # forge: a row recorded `by` axis in the allied copy (written straight into SQLite, re-hashed)
    import sqlite3

    from events.codec import chain_hash, chain_record, dumps, loads

    con = sqlite3.connect(g.db["allied"])
    seq, cmd, link, p, rec = con.execute("SELECT seq, command, prev_hash, payload, recorded FROM events"
                                         " WHERE type = 'weather_set'").fetchone()
    c = loads(cmd)
    c["by"] = "axis"
    row = con.execute("SELECT batch, type, version, firefight, step FROM events WHERE seq = ?", (seq,)).fetchone()
    h = chain_hash(link, chain_record(seq, row[0], row[1], row[2], row[3], row[4], loads(p), rec, c))
    con.execute("UPDATE events SET command = ?, hash = ? WHERE seq = ?", (dumps(c), h, seq))
    con.execute("DELETE FROM snapshot")
    con.commit()
    con.close()
    before = rows(g.db["axis"])
    path = g.bundle("allied", g.head("axis"))
    r = cli_run(g.db["axis"], "receive", path)
    assert r.code == 2 and "a command of axis signed by allied" in r.err
    assert rows(g.db["axis"]) == before


def test_a_forked_history_is_refused_and_audit_against_names_the_row(free_game):
    g = free_game
    a, b = g.db["axis"], g.db["allied"]
    g.do("axis", "weather")
    g.send("axis")  # both hold the weather
    common = g.head("axis")
    # each side appends after the same head: two histories
    assert g.cli("axis", "next").code == 0
    assert g.cli("allied", "next").code == 0
    pa = g.bundle("axis", common)
    r = cli_run(b, "receive", pa)
    assert r.code == 2 and "fork" in r.err
    cmp = cli_run(a, "audit", "--against", b)
    assert cmp.code == 1 and f"row {common + 1}" in cmp.out


def test_a_copy_cut_after_a_bundle_was_acknowledged_is_caught(free_game):
    g = free_game
    a, b = g.db["axis"], g.db["allied"]
    g.do("axis", "weather")
    g.send("axis")
    g.do("allied", "next")
    g.send("allied")  # axis holds the allied bundle ...
    g.do("axis", "buy", "axis", "I1")
    g.send("axis")  # ... and acknowledged it in its own
    # the axis player cuts his copy back to before the allied bundle (and its snapshot)
    import sqlite3

    cut = g.head("axis") - 5
    con = sqlite3.connect(a)
    con.execute("DELETE FROM events WHERE seq > ?", (cut,))
    con.execute("DELETE FROM snapshot")
    con.commit()
    con.close()
    assert cli_run(a, "audit").code == 0  # alone, the cut copy looks whole
    r = cli_run(b, "audit", "--against", a)
    assert r.code == 1 and f"row {cut + 1}" in r.out and "cut" in r.out
    same = cli_run(b, "audit", "--against", b)
    assert same.code == 0


def _append_forged(db: str, etype: str, payload: dict, cmd: dict) -> None:
    """A row appended straight into SQLite with its chain hash recomputed (the snapshot dropped)."""
    import sqlite3

    from events.codec import chain_hash, chain_record, dumps

    con = sqlite3.connect(db)
    seq, h, ff, step = con.execute("SELECT seq, hash, firefight, step FROM events ORDER BY seq DESC LIMIT 1").fetchone()
    rec = "2026-01-01T00:00:00Z"
    nh = chain_hash(h, chain_record(seq + 1, seq + 1, etype, 1, ff, step, payload, rec, cmd))
    con.execute("INSERT INTO events VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (seq + 1, seq + 1, etype, 1, ff, step, dumps(payload), rec, dumps(cmd), h, nh))
    con.execute("DELETE FROM snapshot")
    con.commit()
    con.close()


@pytest.mark.parametrize("forged, words", [
    # the step order: a second weather at 2.2 once it is recorded
    (("weather_set", {"text": "snow"}, {"name": "weather", "text": "snow", "by": "allied"}), "weather"),
    # an event the command does not give: the text recorded is not the text asked for
    (("weather_set", {"text": "rain"}, {"name": "next", "by": "allied"}), "step_left"),
])
def test_a_bundle_breaking_a_rule_is_refused_with_exit_3(free_game, forged, words):
    """The allied player edits his own file (rows re-hashed) and signs it: his signature is good, the
    rules are broken; the axis copy refuses the bundle and writes nothing."""
    g = free_game
    g.do("allied", "weather")
    _append_forged(g.db["allied"], *forged)
    before = rows(g.db["axis"])
    path = g.bundle("allied", g.head("axis"))
    r = cli_run(g.db["axis"], "receive", path)
    assert r.code == 3 and words in r.err, r.err
    assert rows(g.db["axis"]) == before


# ---- two-party dice ------------------------------------------------------------------------------

def test_two_party_dice_refuse_typed_dice_and_commit_then_reveal(r44_game):
    g = r44_game
    g.play_to(1, "2.3")
    db = g.db[g.holder]
    g.do("axis", "buy", "axis", "I1")
    db = g.db["axis"]
    typed = g.cli("axis", "leader", "axis", "I1-1", "--dice", "3,4")
    assert typed.code == 3 and "dice-policy" in typed.err
    before = rows(db)
    r = g.cli("axis", "leader", "axis", "I1-1")
    assert r.code == 0 and "committed" in r.out and rows(db) == before + 1
    st = g.cli("axis", "status", "--json")  # the axis player's own view: his sealed leader DR open (R47)
    owed = json.loads(st.out)["pending"]
    assert owed[0]["rule"] == "pbem" and "allied owes the answer" in owed[0]["what"]
    assert not any(o["command"].startswith("plcg leader") for o in owed)
    pb = json.loads(st.out)["pbem"]
    assert pb["dice_policy"] == "two-party" and pb["open_dice"] == [
        {"side": "axis", "command": "leader", "commit": pb["open_dice"][0]["commit"], "answered": False}]
    assert pb["keys"] == g.pub
    early = g.cli("axis", "reveal")
    assert early.code == 3 and "await" in early.err
    blocked = g.cli("axis", "next")  # ruling R71: only allied owes: proposed, the step stays until allied's next
    assert blocked.code == 0, blocked.err
    assert "proposed" in blocked.out
    assert g.state("axis").step == "2.3"
    g.send("axis")
    g.send("allied")  # the answer
    other = g.cli("axis", "buy", "axis", "I2")
    assert other.code == 3 and "reveal" in other.err
    rv = g.cli("axis", "reveal")
    assert rv.code == 0 and "leader for I1-1" in rv.out
    rolled = [x for x in log(db) if x["type"] == "leader_rolled"][-1]
    revealed = [x for x in log(db) if x["type"] == "dice_revealed"][-1]
    assert rolled["roll"]["source"] == "two-party"
    # the dice are what both values make: sha256 of A, B, the commitment, the roll's place
    led = Ledger(db)
    recs = {r.type: r.payload for r in led.store.read()}
    led.close()
    a, b = recs["dice_revealed"]["value"], recs["dice_answered"]["value"]
    commit = recs["dice_committed"]["commit"]
    assert pbem.commitment(a) == commit and revealed["seq"] == rolled["seq"] - 1
    assert rolled["roll"]["dice"] == [pbem.two_party_die(a, b, commit, 0, d) for d in (0, 1)]
    assert cli_run(db, "audit").code == 0


def test_a_roll_from_the_other_sides_chain_is_decided_by_its_next_bundle(open_game):
    """Ruling R83: the roll shows its value with its commitment and names the next place of the allied
    chain of answers; the allied bundle's answer, fixed before the roll, decides it: two bundles, no reveal."""
    g = open_game
    g.play_to(1, "2.3")
    g.do("axis", "buy", "axis", "I1")
    db = g.db["axis"]
    r = g.cli("axis", "leader", "axis", "I1-1")
    assert r.code == 0 and "committed" in r.out and "R83" in r.out
    assert g.cli("axis", "reveal").code == 3  # nothing to reveal: the value is shown already
    n = len(g.bundles)
    g.send("axis")
    g.send("allied")  # the answer, and with it the roll
    assert len(g.bundles) == n + 2 and not g.state("axis").pbem.requests
    led = Ledger(db)
    recs = [(x.type, x.payload) for x in led.store.read()]
    led.close()
    committed = [p for t, p in recs if t == "dice_committed"][-1]
    chain = [p for t, p in recs if t == "dice_chain" and p["side"] == "allied"][-1]
    i = next(i for i, (t, p) in enumerate(recs) if t == "dice_answered" and p["request"] == committed["commit"])
    answer = recs[i][1]["value"]
    assert [t for t, _ in recs[i:i + 3]] == ["dice_answered", "dice_revealed", "leader_rolled"]
    v = answer  # the answer hashes back to the allied anchor in as many steps as its place
    for _ in range(committed["chain"]):
        v = pbem.commitment(v)
    assert v == chain["anchor"] and pbem.commitment(committed["value"]) == committed["commit"]
    rolled = recs[i + 2][1]
    assert rolled["roll"]["source"] == "two-party" and rolled["roll"]["dice"] == [
        pbem.two_party_die(committed["value"], answer, committed["commit"], 0, d) for d in (0, 1)]
    for side in OTHER:
        assert cli_run(g.db[side], "audit").code == 0


def test_a_reveal_that_does_not_match_its_commitment_is_refused(r44_game):
    g = r44_game
    g.play_to(1, "2.3")
    g.do("axis", "buy", "axis", "I1")
    assert g.cli("axis", "leader", "axis", "I1-1").code == 0
    g.send("axis")
    g.send("allied")
    led = Ledger(g.db["axis"], write=True)
    commit = next(iter(led.state().pbem.requests))
    with pytest.raises(Exception) as e:
        led.run({"name": "reveal", "request": commit, "value": "0" * 64}, key=load_private(g.key["axis"]))
    led.close()
    assert "does not match its commitment" in str(e.value) and e.value.exit_code == 3


def test_dual_rolls_of_one_step_go_in_one_exchange(r44_game):
    g = r44_game
    g.play_to(1, "2.3")
    g.do("axis", "buy", "axis", "I1")
    g.do("axis", "buy", "axis", "I1")
    n = len(g.bundles)
    for rg in ("I1-1", "I1-2"):
        assert g.cli("axis", "leader", "axis", rg).code == 0
    g.send("axis")
    g.send("allied")
    assert len(g.bundles) == n + 2  # one round trip for both rolls
    r = g.cli("axis", "reveal")
    assert r.code == 0 and "I1-1" in r.out and "I1-2" in r.out


def test_a_whole_firefight_and_reph_through_bundles_only(game):
    g = game
    plan = {(1, "2.3"): [("axis", ["buy", "axis", "I1"]), ("allied", ["buy", "allied", "I1"])]}
    g.play_to(2, "2.1", plan)
    g.send(g.holder)  # both copies hold everything
    a, b = g.db["axis"], g.db["allied"]
    assert log(a) == log(b)
    for db in (a, b):
        r = cli_run(db, "audit")
        assert r.code == 0, r.out
    assert cli_run(a, "audit", "--against", b).code == 0
    report = json.loads(cli_run(a, "audit", "--json").out)
    assert set(report["rolls"]["axis"]) == {"two-party"} and set(report["rolls"]["allied"]) == {"two-party"}
    assert "two-party" in cli_run(b, "audit").out
    lines = log(a)
    # the secret rolls were sealed (ruling R47) and revealed where the rules reveal them: the 2.36
    # leader DRs at 2.6, the 3.44 promotion dr before 3.44 was left; a sealed row shows what it held
    opened = [e for x in lines if x["type"] == "sealed" for e in x.get("events") or ()]
    assert any(x["type"] == "sealed" and x["sealed"] is False for x in lines)
    rolls = [x for x in lines + opened if "roll" in x]
    assert len(rolls) >= 6 and all(x["roll"]["source"] == "two-party" for x in rolls)
    kinds = {x["type"] for x in rolls}
    assert {"leader_rolled", "elr_rolled", "promotion_rolled"} <= kinds
    assert not any(x["type"] in ("rg_bought", "leader_rolled", "promotion_rolled") for x in lines)
    # the shared facts went through a proposal and the other side's confirmation (ruling R45)
    proposed = [x for x in lines if x["type"] == "fact_proposed"]
    confirmed = [x for x in lines if x["type"] == "fact_confirmed"]
    assert len(confirmed) >= g.proposals > 0
    assert len(proposed) - len(confirmed) in (0, 1)  # ruling R71: the last step left awaits the other's next move
    assert all(p["side"] != c["side"] for p, c in zip(proposed, confirmed))
    after = {lines[i + 1]["type"] for i, x in enumerate(lines[:-1]) if x["type"] == "fact_confirmed"}
    assert "step_left" in after
    # ruling R84: the firefight's end takes effect at once, provisionally, the other side's next command confirms it
    ended = next(i for i, x in enumerate(lines) if x["type"] == "firefight_ended")
    assert lines[ended - 1]["type"] == "fact_proposed" and "the firefight's end" in lines[ended - 1]["summary"]
    assert "provisionally" in lines[ended - 1]["summary"]
    # the replayed bundle changes nothing in either copy
    for p in g.bundles:
        for db in (a, b):
            r = cli_run(db, "receive", p)
            assert r.code == 0 and "already held" in r.out
    assert log(a) == log(b)


# ---- a real shared medium: a git repository of bundles ------------------------------------------

def _git(cwd, *args) -> str:
    import subprocess

    env = {**os.environ, "GIT_AUTHOR_NAME": "p", "GIT_AUTHOR_EMAIL": "p@example.org", "GIT_COMMITTER_NAME": "p",
           "GIT_COMMITTER_EMAIL": "p@example.org", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    r = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True)
    assert r.returncode == 0, (args, r.stderr)
    return r.stdout


def test_a_git_repository_of_bundles_is_the_medium_and_shows_a_fork(workdir):
    """The players share a bare repository; each clones it, pushes his bundles and pulls the other's.
    The campaign files stay private (outside the clone); only bundles travel."""
    bare = workdir / "shared.git"
    _git(workdir, "init", "-q", "--bare", "-b", "main", str(bare))
    clone = {s: workdir / f"{s}-clone" for s in OTHER}
    key, pub, db = {}, {}, {}
    for s in OTHER:
        _git(workdir, "clone", "-q", str(bare), str(clone[s]))
        key[s] = str(workdir / f"{s}.key")
        pub[s] = cli_run(workdir / "x", "keys", "new", "-o", key[s]).out.strip()
        db[s] = str(workdir / f"{s}.plcg")

    def push(side, since):
        name = f"{since:05d}-{side}.bundle"
        r = cli_run(db[side], "--key", key[side], "bundle", "--since", since, "-o", clone[side] / name)
        assert r.code == 0, r.err
        _git(clone[side], "add", name)
        _git(clone[side], "commit", "-q", "-m", f"{side} after seq {since}")
        _git(clone[side], "push", "-q", "origin", "HEAD:main")

    def pull(side):
        """Pull, then receive every bundle not held yet, in order."""
        _git(clone[side], "pull", "-q", "--rebase", "origin", "main")
        out = []
        for f in sorted(clone[side].glob("*.bundle")):
            out.append(cli_run(db[side], "receive", f))
        return out

    assert cli_run(db["axis"], "new", "--card", "sample", "--axis-key", pub["axis"], "--allied-key",
                   pub["allied"]).code == 0
    assert cli_run(db["axis"], "--key", key["axis"], "weather").code == 0
    push("axis", 0)
    assert all(r.code == 0 for r in pull("allied"))  # the allied copy is made from the first bundle
    assert cli_run(db["allied"], "--key", key["allied"], "next").code == 0
    head = cli_run(db["allied"], "log", "--json").out.count("\n")
    push("allied", 3)
    assert all(r.code == 0 for r in pull("axis"))
    # the allied bundle: his moves, his chain of answers (ruling R83: from the first bundle after the axis
    # signature) and his signature
    assert log(db["axis"]) == log(db["allied"]) and len(log(db["axis"])) == head + 2
    # a fork: both players act after the same head and push a bundle each
    common = len(log(db["axis"]))
    assert cli_run(db["axis"], "--key", key["axis"], "buy", "axis", "I1").code == 0
    assert cli_run(db["allied"], "--key", key["allied"], "buy", "allied", "I1").code == 0
    push("axis", common)
    _git(clone["allied"], "pull", "-q", "--rebase", "origin", "main")
    push("allied", common)
    files = sorted(p.name for p in clone["allied"].glob(f"{common:05d}-*.bundle"))
    assert files == [f"{common:05d}-allied.bundle", f"{common:05d}-axis.bundle"]  # two bundles after one head
    got = pull("axis")
    refused = [r for r in got if r.code != 0]
    assert len(refused) == 1 and refused[0].code == 2 and "fork" in refused[0].err
    mine = pull("allied")
    assert [r.code for r in mine].count(2) == 1


# ---- shared facts (ruling R45) ----------------------------------------------------------------------

def test_a_shared_fact_is_proposed_and_takes_effect_only_when_the_other_side_confirms(free_game):
    g = free_game
    g.confirm = False  # the test answers proposals itself
    g.do("axis", "weather")
    a, b = g.db["axis"], g.db["allied"]
    # 2.2: only the weather, no side acts: `next` leaves at once
    assert g.cli("axis", "next").code == 0 and g.state("axis").step == "2.3"
    g.do("axis", "buy", "axis", "I1")
    g.do("axis", "leader", "axis", "I1-1")
    r = g.cli("axis", "next")  # 2.3: both sides buy; leaving it is a shared fact
    assert r.code == 0 and "proposed" in r.out and g.state("axis").step == "2.3"
    # nothing else goes on meanwhile, and the proposer cannot confirm his own proposal
    more = g.cli("axis", "buy", "axis", "I2")
    assert more.code == 3 and "awaits allied's answer" in more.err
    own = g.cli("axis", "confirm")
    assert own.code == 3 and "other side confirms" in own.err
    owed = json.loads(cli_run(a, "status", "--json").out)["pending"]
    assert owed[0]["rule"] == "pbem" and "allied owes the answer to axis's proposal: next" in owed[0]["what"]
    g.send("axis")
    # the allied player rejects it (he still wants to buy): the step stays
    no_reason = g.cli("allied", "reject")
    assert no_reason.code == 2
    rj = g.cli("allied", "reject", "--reason", "I have not bought yet")
    assert rj.code == 0 and g.state("allied").step == "2.3"
    bought = g.cli("allied", "buy", "allied", "I1", "--json")
    assert bought.code == 0
    pid = json.loads(bought.out)[0]["summary"].split(" as ")[1].split()[0]
    assert g.cli("allied", "leader", "allied", pid).code == 0
    assert g.cli("allied", "next").code == 0  # proposed by allied now
    g.send("allied")
    c = g.cli("axis", "confirm")
    assert c.code == 0 and "now at step" in c.out and g.state("axis").step != "2.3"
    g.send("axis")
    assert log(a) == log(b)
    assert cli_run(a, "audit").code == 0
    kinds = [x["type"] for x in log(a)]
    assert kinds.count("fact_proposed") == 2 and kinds.count("fact_rejected") == 1 and kinds.count("fact_confirmed") == 1


def test_an_undo_of_what_the_other_side_has_seen_needs_its_consent(free_game):
    g = free_game
    g.confirm = False
    g.do("axis", "weather")
    assert g.cli("axis", "next").code == 0
    g.do("axis", "buy", "axis", "I1")
    # not sent yet: the axis player takes it back alone
    u = g.cli("axis", "undo", "--reason", "misclick")
    assert u.code == 0 and "proposed" not in u.out
    g.do("axis", "buy", "axis", "I2")
    g.send("axis")  # the allied copy holds it, signed
    u = g.cli("axis", "undo", "--reason", "meant I1")
    assert u.code == 0 and "proposed" in u.out
    assert [x["reverted"] for x in log(g.db["axis"]) if x["type"] == "rg_bought"] == [True, False]
    g.send("axis")
    c = g.cli("allied", "confirm")
    assert c.code == 0, c.err
    assert [x["reverted"] for x in log(g.db["allied"]) if x["type"] == "rg_bought"] == [True, True]
    assert cli_run(g.db["allied"], "audit").code == 0
    g.send("allied")
    assert log(g.db["axis"]) == log(g.db["allied"])


def test_a_command_cannot_confirm_itself(free_game):
    """A player who writes `confirmed` into his own shared fact is refused, here and in the audit."""
    g = free_game
    g.do("axis", "weather")
    assert g.cli("axis", "next").code == 0
    led = Ledger(g.db["axis"], write=True)
    key = load_private(g.key["axis"])
    try:
        for cmd in ({"name": "next", "confirmed": True},
                    {"name": "undo", "reason": "x", "confirmed": True}):
            with pytest.raises(Exception) as e:
                led.run(cmd, key=key)
            assert e.value.exit_code == 3 and "cannot confirm itself" in str(e.value)
    finally:
        led.close()


def test_receive_refuses_a_partial_first_bundle_another_campaign_and_an_unkeyed_one(free_game, workdir):
    g = free_game
    g.do("axis", "weather")
    late = g.bundle("axis", 2)
    fresh = workdir / "fresh.plcg"
    r = cli_run(fresh, "receive", late)
    assert r.code == 2 and "only a bundle from seq 1" in r.err and not fresh.exists()
    (workdir / "other").mkdir()
    other = Game(workdir / "other", policy=None)
    theirs = other.bundle("axis", 0)
    r = cli_run(g.db["allied"], "receive", theirs)
    assert r.code == 2 and "another campaign" in r.err
    plain = workdir / "plain.plcg"
    assert cli_run(plain, "new", "--card", "sample").code == 0
    b = cli_run(plain, "bundle", "-o", workdir / "x.bundle")
    assert b.code == 3 and "keys" in b.err and not (workdir / "x.bundle").exists()
    rv = cli_run(plain, "reveal")
    assert rv.code == 3


def test_a_bundle_whose_reveal_does_not_match_its_commitment_is_refused(r44_game):
    """The axis player, unhappy with the dice his value makes, writes another value into his reveal
    (re-hashed, signed by himself): the allied copy refuses the bundle (exit 3) and writes nothing."""
    g = r44_game
    g.play_to(1, "2.3")
    g.do("axis", "buy", "axis", "I1")
    assert g.cli("axis", "leader", "axis", "I1-1").code == 0
    g.send("axis")
    g.send("allied")  # the answer: the axis copy could now reveal
    commit = next(iter(g.state("axis").pbem.requests))
    fake = "f" * 64
    _append_forged(g.db["axis"], "dice_revealed", {"side": "axis", "request": commit, "value": fake, "refused": None},
                   {"name": "reveal", "request": commit, "value": fake, "by": "axis"})
    before = rows(g.db["allied"])
    path = g.bundle("axis", g.head("allied"))
    r = cli_run(g.db["allied"], "receive", path)
    assert r.code == 3 and "does not match its commitment" in r.err, r.err
    assert rows(g.db["allied"]) == before


def test_leaving_2_3_says_only_the_acting_players_own_cp_carried_over(tmp_path):
    """Issue 17 / ruling R3: `next` out of 2.3 says the CP carried over; in a play-by-email copy only the
    player's own, since the other side's CP left is his secret (2.3)."""
    game = Game(tmp_path, policy=None)
    game.play_to(1, "2.3")
    game.confirm = False
    game.do("axis", "next")  # leaving 2.3 is a shared fact: proposed by the Axis ...
    game.send("axis")
    r = game.cli("allied", "confirm")  # ... and decided by the Allies' confirmation
    assert r.code == 0, r.err
    line = [x for x in r.out.splitlines() if "carried over" in x]
    assert len(line) == 1 and "allied" in line[0] and "axis" not in line[0], r.out
