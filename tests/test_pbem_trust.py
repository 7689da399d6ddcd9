"""Play by email against an adversary (issue 25, items 6-14): what one player can do to the other's
copy through bundles, and what the other copy shows. Each test is one attack, through the real
command line and two copies (tests/helpers/pbem.py)."""
from __future__ import annotations

import json
import os

import pytest

from conftest import cli_run, rows
from helpers.pbem import OTHER, Game

from cg import seal
from events import bundle as bundles
from test_pbem import bundle_lines, log, write_lines  # noqa: F401 (the two files read bundles alike)
from cg.app.keys import load_private


@pytest.fixture
def free_game(workdir):
    """Keys and signatures, the roller's own dice (--dice-policy any), open rosters."""
    return Game(workdir, policy="any", sealed=False)


# ---- item 11: receive reads a regular file, bounded ----------------------------------------------------

def test_receive_reads_only_a_regular_file_of_bounded_size_and_lines(free_game, monkeypatch):
    g = free_game
    db = g.db["allied"]
    before = rows(db)
    zero = g.tmp / "zero.bundle"
    os.symlink("/dev/zero", zero)  # would grow without end: refused before a byte is read
    r = cli_run(db, "receive", zero)
    assert r.code == 2 and "not a regular file" in r.err and r.err.count("\n") == 1
    fifo = g.tmp / "fifo.bundle"
    os.mkfifo(fifo)  # nobody writes it: the open must not hang
    r = cli_run(db, "receive", fifo)
    assert r.code == 2 and "not a regular file" in r.err
    monkeypatch.setattr(bundles, "MAX_BUNDLE", 4096)
    big = g.tmp / "big.bundle"
    with open(big, "wb") as f:
        f.truncate(4097)  # sparse: larger than the bound, nothing to read
    r = cli_run(db, "receive", big)
    assert r.code == 2 and "more than a plcg bundle can be" in r.err
    monkeypatch.setattr(bundles, "MAX_BUNDLE", 2**28)
    monkeypatch.setattr(bundles, "MAX_LINE", 1000)
    long = g.tmp / "long.bundle"
    long.write_bytes(b'{"plcg_bundle": 1}\n' + b"x" * 1001 + b"\n")
    r = cli_run(db, "receive", long)
    assert r.code == 2 and "line longer than" in r.err
    assert rows(db) == before


# ---- item 14: a signature over nothing new ---------------------------------------------------------------

def test_a_signature_over_nothing_new_is_refused(free_game):
    from cg import pbem
    from cg.app.ledger import Ledger
    from events.errors import Refused

    g = free_game
    g.do("axis", "weather")
    g.bundle("axis", 0)  # the head is now axis's own signature
    key = load_private(g.key["axis"])
    led = Ledger(g.db["axis"], write=True, key=key)
    try:
        seq, h = led.store.head()
        before = rows(g.db["axis"])
        with pytest.raises(Refused, match="nothing new"):  # a client of its own making: one row per call
            led.run({"name": "sign", "seq": seq, "hash": h, "sig": pbem.sign_head(key, seq, h)}, key)
        assert rows(g.db["axis"]) == before
    finally:
        led.close()
    again = g.bundle("axis", 0)  # the ledger's own bundle does not sign twice either
    assert [x for x in bundle_lines(again)[1:] if x["type"] == "head_signed"][-1]["seq"] == seq


# ---- item 9 and 13: a keyed campaign rolls two-party by default, and the audit says so ----------------

def test_a_keyed_campaign_rolls_two_party_by_default_and_its_audit_names_the_policy(workdir):
    pub = {}
    for s in ("axis", "allied"):
        r = cli_run(workdir / "k.plcg", "keys", "new", "-o", workdir / f"{s}.key")
        pub[s] = r.out.strip()
    db = workdir / "c.plcg"
    r = cli_run(db, "new", "--card", "sample", "--axis-key", pub["axis"], "--allied-key", pub["allied"])
    assert r.code == 0, r.err
    st = json.loads(cli_run(db, "status", "--json").out)
    assert st["pbem"]["dice_policy"] == "two-party" and "two-party" in st["dice_shown"]
    assert cli_run(db, "--key", workdir / "axis.key", "weather").code == 0
    assert cli_run(db, "--key", workdir / "axis.key", "next").code == 0
    assert cli_run(db, "--key", workdir / "axis.key", "buy", "axis", "I1").code == 0
    typed = cli_run(db, "--key", workdir / "axis.key", "leader", "axis", "I1-1", "--dice", "6,6")
    assert typed.code == 3 and "dice-policy" in typed.err  # the roller cannot give his own dice
    audit = cli_run(db, "audit")
    assert audit.code == 0 and "policy two-party" in audit.out and "policy any" not in audit.out
    assert json.loads(cli_run(db, "audit", "--json").out)["dice"]["policy"] == "two-party"


# ---- item 12: text from the other side ------------------------------------------------------------------

FORGED = "Clear\n   99 ff1   2.9  Allied conceded the CG\x1b[2J\u2028"


def test_text_the_other_side_typed_is_checked_on_receive_and_escaped_in_every_output(free_game):
    from cg import pbem
    from cg.app.ledger import Ledger

    g = free_game
    key = load_private(g.key["axis"])
    led = Ledger(g.db["axis"], write=True, key=key)
    try:  # a client of the cheater's own making: the command line would refuse the text
        led.run({"name": "weather", "text": FORGED}, key)
    finally:
        led.close()
    path = g.bundle("axis", 0)
    before = rows(g.db["allied"])
    r = cli_run(g.db["allied"], "receive", path)
    assert r.code == 2 and "control characters" in r.err and r.err.count("\n") == 1
    assert rows(g.db["allied"]) == before
    # what a copy holds already (an older release took it) is printed escaped: no forged line, no escape code
    for args in (["log"], ["status"], ["audit"]):
        out = cli_run(g.db["axis"], *args).out
        assert "\x1b" not in out and "\u2028" not in out, args
    lines = cli_run(g.db["axis"], "log").out.splitlines()
    assert len(lines) == rows(g.db["axis"]) and not any(x.lstrip().startswith("99 ") for x in lines)
    assert "\\x1b[2J" in "\n".join(lines)


# ---- item 8: every command that changes what both sides share is a proposal -----------------------------

def test_rubble_position_and_weather_given_by_one_side_wait_for_the_other_sides_confirm(free_game):
    g = free_game
    g.confirm = False
    g.do("axis", "weather", "Clear")
    assert g.state("axis").pbem.proposal.command["name"] == "weather"
    g.send("axis")
    assert g.cli("allied", "confirm").code == 0
    g.confirm = True
    g.play_to(1, "2.9", plan={(1, "2.3"): [("axis", ["buy", "axis", "I1"])]})
    g.confirm = False
    hx = "I5"
    g.do("axis", "rubble", hx, "--kia", "6", "--dice", "1")
    st = g.state("axis")
    assert st.pbem.proposal.command["name"] == "rubble" and hx not in st.ground.terrain
    g.send("axis")
    assert g.cli("allied", "reject", "--reason", "no such kill").code == 0
    assert hx not in g.state("allied").ground.terrain  # given alone, it never took effect
    st = g.state("axis")
    st.load_all()
    unit = next(u.id for u in st.units.values() if u.side == "axis")
    g.do("axis", "position", "axis", unit, "J5")
    assert g.state("axis").pbem.proposal.command["name"] == "position"


# ---- item 13: what the other copy shows, and what a stored snapshot holds -------------------------------

@pytest.fixture
def sealed(workdir):
    """Keys, the roller's own dice, sealed secrets (ruling R47)."""
    return Game(workdir, policy="any")


def test_the_other_copy_shows_a_cp_spent_in_sealed_purchases_as_sealed_never_as_a_figure(sealed):
    g = sealed
    g.do("axis", "weather")
    g.do("axis", "next")
    g.do("axis", "buy", "axis", "I2")  # 7 of the Initial Firefight's 16 CP, sealed
    g.send("axis")
    theirs = json.loads(g.cli("allied", "status", "--json").out)["sides"]["axis"]
    assert theirs["cp"] is None and theirs["sealed"] is True
    text = g.cli("allied", "status").out
    assert [line.split()[1] for line in text.splitlines() if line.startswith("axis ")] == ["seal"]
    mine = json.loads(g.cli("axis", "status", "--json").out)["sides"]["axis"]
    assert mine["cp"] == 9 and "sealed" not in mine  # his own copy, his own key: the figure


def test_a_stored_snapshot_never_holds_a_seal_opened_by_the_players_key(sealed):
    from cg import snapshot
    from cg.app.ledger import Ledger

    g = sealed
    g.do("axis", "weather")
    g.do("axis", "next")
    g.do("axis", "buy", "axis", "I2")
    assert g.cli("axis", "replay").code == 0  # with his key: his own seal opens in the fold
    for _ in range(3):
        g.cli("axis", "status")
    led = Ledger(g.db["axis"])  # what anyone holding the file reads, without the key
    try:
        snap = led.store.snapshot()
        st = snapshot.load(snap[2], led._card(), led._cold_part) if snap is not None else None
    finally:
        led.close()
    assert st is not None  # the snapshot the commands wrote, read without the key
    assert not any(r.opened for r in st.pbem.seals.values())
    assert not st.purchases  # the purchase sealed is nowhere in it


# ---- item 6: two-party dice cannot be chosen --------------------------------------------------------------

@pytest.fixture
def open_game(workdir, monkeypatch):
    """Two-party dice with open rosters: the dice's own mechanics read in the clear, as ruling R44 rolls them
    (commit, answer, reveal: a sealed step's roll, one made before the other side's chain of answers is in,
    or after an undo; the rolls here are made at 2.3 with open rosters, so the chain of R83 is set aside)."""
    from cg import pbem

    monkeypatch.setattr(pbem, "chained", lambda st, cmd: False)
    return Game(workdir, sealed=False)


@pytest.fixture
def chain_game(workdir):
    """Two-party dice with open rosters, a roll answered from the other side's chain (ruling R83)."""
    return Game(workdir, sealed=False)


def _requests(g, side):
    return list(g.state(side).pbem.requests)


def _answered(g, *rgs: str) -> None:
    """At 2.3 the axis player buys an I1 per leader roll, commits to each roll; the allied copy answers."""
    g.play_to(1, "2.3")
    for rg in rgs:
        g.do("axis", "buy", "axis", "I1")
    for rg in rgs:
        assert g.cli("axis", "leader", "axis", rg).code == 0
    g.send("axis")
    g.send("allied")


def test_one_open_commitment_per_command_and_reveals_in_the_order_committed(open_game):
    from cg import pbem
    from cg.app.ledger import Ledger
    from events.errors import Refused

    g = open_game
    g.play_to(1, "2.3")
    g.do("axis", "buy", "axis", "I1")
    assert g.cli("axis", "leader", "axis", "I1-1").code == 0
    again = g.cli("axis", "leader", "axis", "I1-1")  # a second look at the same roll
    assert again.code == 3 and "one open commitment per command" in again.err and "R67" in again.err
    assert g.cli("axis", "undo", "--reason", "test: start over").code == 0
    _answered(g, "I1-1", "I1-2")  # both answered: the axis player can now compute both outcomes
    first, second = _requests(g, "axis")
    key = load_private(g.key["axis"])
    led = Ledger(g.db["axis"], write=True, key=key)
    try:
        nonce = g.state("axis").pbem.requests[second].nonce
        before = rows(g.db["axis"])
        with pytest.raises(Refused, match="order committed"):  # a client of his own making reveals the later one
            led.run({"name": "reveal", "request": second, "value": pbem.commit_value(key, nonce)}, key)
        assert rows(g.db["axis"]) == before
    finally:
        led.close()
    r = g.cli("axis", "reveal")  # the ledger's own reveal goes in order
    assert r.code == 0 and r.out.index("I1-1") < r.out.index("I1-2")
    assert cli_run(g.db["axis"], "audit").code == 0


def test_a_company_commits_its_four_leader_drs_in_one_bundle_and_no_fifth(workdir):
    """Ruling R118 (issue 37 item 6): the Rifle Company of `kolkhoz` owes four 2.36 leader DRs; its side commits
    to all four before it sends, sealed, and a fifth is refused (R67: no commitment beyond what the step owes).
    One answer bundle and one reveal decide them, in the order committed."""
    g = Game(workdir, card="kolkhoz")
    g.play_to(1, "2.3")
    g.do("allied", "buy", "allied", "I1")
    for _ in range(4):
        r = g.cli("allied", "leader", "allied", "I1-1")
        assert r.code == 0, r.err
    fifth = g.cli("allied", "leader", "allied", "I1-1")
    assert fifth.code == 3 and "one open commitment per command" in fifth.err and "R118" in fifth.err
    assert len(_requests(g, "allied")) == 4
    g.send("allied")
    g.send("axis")  # its bundle answers all four
    assert all(r.answer is not None for r in g.state("allied").pbem.requests.values())
    r = g.cli("allied", "reveal")
    assert r.code == 0, r.err
    st = g.state("allied")
    assert not st.pbem.requests and st.purchase("I1-1", "allied").leader_owed == 0
    assert len([u for u in st.units.values() if u.side == "allied" and u.kind == "leader"]) >= 1
    assert cli_run(g.db["allied"], "audit").code == 0


def test_a_sealed_2_3_roll_answered_lets_2_3_be_left_and_is_decided_as_of_2_3_at_2_6(workdir):
    """Ruling R119 (issue 37 items 6-7): allied's 2.36 leader DR, sealed, committed at 2.3 and answered by axis's
    bundle, does not hold 2.3: axis's `next` leaves it. Nobody sees the roll before 2.6 (axis's copy holds only its
    seal; allied's own `reveal` has nothing to reveal at 2.4), nobody can choose it (at 2.6 allied gives no other
    command before its reveal), and its reveal at 2.6 decides `leader` by 2.3's rules, not refused for the step."""
    g = Game(workdir)
    g.play_to(1, "2.3")
    if g.holder != "allied":
        g.send(g.holder)
    for args in (("buy", "allied", "I1"), ("leader", "allied", "I1-1"), ("next",)):  # the DR committed, sealed;
        r = g.cli("allied", *args)  # `next` proposed (R71 (b)): axis still buys
        assert r.code == 0, (args, r.err)
    g.send("allied")
    r = g.cli("axis", "next")  # answers the roll (R84 (c)) and confirms: 2.3 is left with the roll unrevealed
    assert r.code == 0, r.err
    seen = g.state("axis")
    assert seen.step == "2.4", seen.step
    (request,) = seen.pbem.requests.values()
    assert request.side == "allied" and request.answer is not None and request.sealed_at == "2.3"
    assert request.command["name"] == "sealed"  # axis's copy knows only that a sealed roll waits
    g.send("axis")
    early = g.cli("allied", "reveal")
    assert early.code == 3 and "nothing to reveal" in early.err  # not before 2.6: its result stays sealed
    for args in (("determine",), ("next",)):
        r = g.cli("axis", *args)
        assert r.code == 0, (args, r.err)
    assert g.state("axis").step == "2.6"
    g.send("axis")
    own = g.state("allied")
    assert own.step == "2.6" and own.purchase("I1-1", "allied").leader_owed == 1 and own.pbem.requests
    blocked = g.cli("allied", "next")  # nothing else of allied's is taken before its reveal (R44)
    assert blocked.code == 3 and "owes the reveal" in blocked.err
    r = g.cli("allied", "reveal")  # its 2.3 purchases unsealed, then the roll revealed and decided
    assert r.code == 0, r.err
    lines = log(g.db["allied"])
    revealed = [i for i, x in enumerate(lines) if x["type"] == "dice_revealed" and x["side"] == "allied"]
    assert len(revealed) == 1 and lines[revealed[0]]["step"] == "2.6"
    assert lines[revealed[0] + 1]["type"] == "leader_rolled"  # decided, not refused
    assert g.state("allied").purchase("I1-1", "allied").leader_owed == 0
    g.send("allied")
    for s in OTHER:
        assert cli_run(g.db[s], "audit").code == 0
    assert cli_run(g.db["axis"], "audit", "--against", g.db["allied"]).code == 0


def test_a_2_3_roll_withheld_at_2_6_is_claimed_as_of_2_3(workdir):
    """Ruling R119 with R67/R108: allied's client unseals its 2.3 purchases at 2.6 and signs without revealing its
    leader DR (withheld); axis's claim decides `leader` by 2.3's rules, not refused for being given at 2.6 (a refused
    claim would leave the DR owed, to be rolled again)."""
    from cg import pbem
    from cg.app.ledger import Ledger

    g = _sealed_roll_to_2_6(workdir)
    since = g.head("axis")
    key = load_private(g.key["allied"])
    led = Ledger(g.db["allied"], write=True, key=key)
    try:
        st, by = led._player(key)
        led._unseal(st, by, key)  # its purchases shown, its roll kept back, and its head signed
        seq, h = led.store.head()
        led.run({"name": "sign", "seq": seq, "hash": h, "sig": pbem.sign_head(key, seq, h)}, key)
        rows_, campaign = led.bundle_rows(since)
    finally:
        led.close()
    path = str(workdir / "withheld.bundle")
    bundles.write(path, rows_, since, campaign)
    assert cli_run(g.db["axis"], "receive", path).code == 0
    r = g.cli("axis", "claim")
    assert r.code == 0, r.err
    lines = log(g.db["axis"])
    claimed = [i for i, x in enumerate(lines) if x["type"] == "dice_revealed" and x["side"] == "axis"]  # the claimer
    assert len(claimed) == 1 and lines[claimed[0]]["step"] == "2.6"
    assert lines[claimed[0] + 1]["type"] == "leader_rolled"  # decided, not refused
    assert g.state("axis").purchase("I1-1", "allied").leader_owed == 0


def allied_sealed_leader_dr_sent(workdir) -> Game:
    """Firefight 1 at 2.3: allied bought I1, committed its sealed 2.36 leader DR and left 2.3, and sent it all."""
    g = Game(workdir)
    g.play_to(1, "2.3")
    if g.holder != "allied":
        g.send(g.holder)
    for args in (("buy", "allied", "I1"), ("leader", "allied", "I1-1"), ("next",)):
        r = g.cli("allied", *args)
        assert r.code == 0, (args, r.err)
    g.send("allied")
    return g


def _sealed_roll_to_2_6(workdir) -> Game:
    """Allied's 2.36 leader DR committed at 2.3 and answered; 2.3 left (ruling R119); both copies at 2.6."""
    g = allied_sealed_leader_dr_sent(workdir)
    for args in (("next",), ("determine",), ("next",)):
        r = g.cli("axis", *args)
        assert r.code == 0, (args, r.err)
    g.send("axis")
    return g


def test_2_1_is_left_with_the_cp_drs_answered_and_each_dr_revealed_sealed_at_2_3(workdir):
    """Ruling R120 (issue 37 item 6): both sides' 2.1 CP DRs answered, axis's `next` leaves 2.1 with them unrevealed;
    neither can reveal its DR at 2.2; each must reveal it at 2.3 before it buys, and reveals it sealed (its CP stay
    its secret: the other copy does not learn them), decided by 2.1's rules."""
    g = Game(workdir)
    g.play_to(2, "2.1")
    if g.holder != "axis":
        g.send(g.holder)
    for side, args in (("axis", ("cp", "axis")), ("axis", ("next",)), ("allied", ("cp", "allied")),
                       ("allied", ("next",))):  # allied's `next`: answers axis's DR first (R84), then proposed
        if g.holder != side:
            g.send(g.holder)
        r = g.cli(side, *args)
        assert r.code == 0, (args, r.err)
    g.send("allied")
    r = g.cli("axis", "next")  # answers allied's DR, then confirms: 2.1 is left, both DRs unrevealed
    assert r.code == 0, r.err
    st = g.state("axis")
    assert st.step == "2.2"
    assert sorted(r.side for r in st.pbem.requests.values() if r.answer and r.sealed_at == "2.1") == ["allied", "axis"]
    early = g.cli("axis", "reveal")
    assert early.code == 3 and "nothing to reveal" in early.err  # not before 2.3
    for args in (("weather",), ("next",)):
        r = g.cli("axis", *args)
        assert r.code == 0, (args, r.err)
    assert g.state("axis").step == "2.3"
    blocked = g.cli("axis", "buy", "axis", "I1")
    assert blocked.code == 3 and "owes the reveal" in blocked.err
    r = g.cli("axis", "reveal")
    assert r.code == 0, r.err
    last = log(g.db["axis"])[-1]
    assert last["type"] == "sealed" and last["step"] == "2.3"
    assert not any(r.side == "axis" for r in g.state("axis").pbem.requests.values())
    g.send("axis")
    theirs = g.state("allied")
    assert seal.cp_in_hand(theirs, "axis") is None  # still axis's secret
    assert not any(x["type"] == "cp_replenished" and x["firefight"] == 2 for x in log(g.db["allied"]))
    r = g.cli("allied", "reveal")
    assert r.code == 0, r.err
    assert not g.state("allied").pbem.requests
    g.send("allied")
    for s in OTHER:
        assert cli_run(g.db[s], "audit").code == 0
    assert cli_run(g.db["axis"], "audit", "--against", g.db["allied"]).code == 0


def test_a_withheld_reveal_may_be_claimed_by_the_other_side(open_game):
    from cg import pbem
    from cg.app.ledger import Ledger

    g = open_game
    _answered(g, "I1-1")
    early = g.cli("allied", "claim")  # the axis player has not had his chance yet
    assert early.code == 3 and "nothing to claim" in early.err
    # the axis player computes the outcome, dislikes it, and bundles without revealing (his own client)
    g.signed_only("axis")
    st = json.loads(g.cli("allied", "status", "--json").out)
    assert st["pbem"]["open_dice"] and not any(x["command"].startswith("plcg leader") for x in st["pending"])
    from events.errors import Refused

    key = load_private(g.key["allied"])
    (withheld,) = [c for c, r in g.state("allied").pbem.requests.items() if r.side == "axis"]
    led = Ledger(g.db["allied"], write=True, key=key)
    try:  # a claim whose dice come from a signature that is not the claimer's: refused
        with pytest.raises(Refused, match="not signed by allied's key"):
            led.run({"name": "claim", "request": withheld, "sig": pbem.sign_head(key, 1, withheld)}, key)
    finally:
        led.close()
    c = g.cli("allied", "claim")
    assert c.code == 0 and "claimed" in c.out and "withheld" in c.out, c.err
    rolled = [x for x in log(g.db["allied"]) if x["type"] == "leader_rolled"][-1]
    assert rolled["roll"]["source"] == "two-party"
    # ruling R108 (issue 37 attack 2): the claim's dice come from the claimer's signature over the
    # commitment, which the withholder cannot make, not from the answer he holds
    revealed = _payloads(g.db["allied"], "dice_revealed")[-1]
    commit = revealed["request"]
    assert revealed["value"] == "withheld:" + pbem.sign_claim(load_private(g.key["allied"]), commit)
    answer = next(p["value"] for p in _payloads(g.db["allied"], "dice_answered") if p["request"] == commit)
    dice = [pbem.two_party_die(revealed["value"], answer, commit, 0, d) for d in range(2)]
    assert rolled["roll"]["dice"] == dice
    assert not g.state("allied").pbem.requests
    assert cli_run(g.db["allied"], "audit").code == 0
    g.holder = "allied"
    g.send("allied")  # the axis copy takes the claim: he is free to play on, the roll decided
    assert not g.state("axis").pbem.requests and g.cli("axis", "buy", "axis", "I3").code == 0


def _chained(g, rg: str = "I1-1") -> str:
    """At 2.3 the axis player buys an I1 and commits to its leader roll, from the allied chain (ruling
    R83); the allied copy takes it in. The commitment."""
    g.play_to(1, "2.3")
    g.do("axis", "buy", "axis", "I1")
    assert g.cli("axis", "leader", "axis", rg).code == 0
    committed = _payloads(g.db["axis"], "dice_committed")[-1]
    assert committed["chain"] >= 1 and committed["value"]
    g.send("axis")
    return committed["commit"]


def _payloads(db: str, etype: str) -> list[dict]:
    from cg.app.ledger import Ledger

    led = Ledger(db)
    try:
        return [r.payload for r in led.store.read() if r.type == etype]
    finally:
        led.close()


def test_a_bundle_signed_over_a_roll_without_its_answer_is_refused(chain_game):
    """Ruling R83: the allied player sees the axis roll his chain's next answer decides (he knows his chain),
    dislikes it, and would send his bundle without the answer: his own ledger refuses the signature, and a
    head signed by a client of his own making is refused by the axis copy (exit 3), nothing written. The
    answer is owed, not withheld: there is nothing to claim."""
    from cg import pbem
    from cg.app.ledger import Ledger
    from events.errors import Refused
    from test_pbem import _append_forged

    g = chain_game
    commit = _chained(g)
    key = load_private(g.key["allied"])
    led = Ledger(g.db["allied"], write=True, key=key)
    try:
        since = led.store.head()[0]
        seq, h = led.store.head()
        with pytest.raises(Refused, match="without its answer"):
            led.run({"name": "sign", "seq": seq, "hash": h, "sig": pbem.sign_head(key, seq, h)}, key)
        ack = led.state().pbem.signed["axis"]
    finally:
        led.close()
    sig = pbem.sign_head(key, seq, h)
    _append_forged(g.db["allied"], "head_signed", {"side": "allied", "seq": seq, "hash": h, "sig": sig, "ack": ack},
                   {"name": "sign", "seq": seq, "hash": h, "sig": sig, "by": "allied"})
    led = Ledger(g.db["allied"])
    try:
        rows_, campaign = led.bundle_rows(since)
    finally:
        led.close()
    path = str(g.tmp / "withheld.bundle")
    bundles.write(path, rows_, since, campaign)
    before = rows(g.db["axis"])
    r = cli_run(g.db["axis"], "receive", path)
    assert r.code == 3 and "without its answer" in r.err, (r.code, r.err)
    assert rows(g.db["axis"]) == before and commit in g.state("axis").pbem.requests
    assert g.cli("axis", "claim").code == 3  # nothing to claim: the answer is owed


def test_an_answer_that_is_not_the_chains_is_refused(chain_game):
    """Ruling R83: the allied client answers with a value of its choosing: refused, nothing written; the
    ledger's own answer is the chain's, and a bundle carrying a forged one is refused by the other copy."""
    from cg import pbem
    from cg.app.ledger import Ledger
    from events.errors import Refused

    g = chain_game
    commit = _chained(g)
    key = load_private(g.key["allied"])
    before = rows(g.db["allied"])
    led = Ledger(g.db["allied"], write=True, key=key)
    try:
        with pytest.raises(Refused, match="not place"):
            led.run({"name": "answer", "request": commit, "value": "0" * 64}, key)
    finally:
        led.close()
    assert rows(g.db["allied"]) == before
    g.send("allied")
    assert commit not in g.state("axis").pbem.requests


def test_a_command_refused_with_answers_owed_writes_nothing_and_one_accepted_answers_first(chain_game):
    """Ruling R84: a side's command answers the other side's open dice first, but a command refused even
    after the answers writes nothing at all (exit 3 writes nothing); the answer goes before an accepted one."""
    g = chain_game
    commit = _chained(g)
    before = rows(g.db["allied"])
    refused = g.cli("allied", "elr", "allied")  # 3.47's roll at 2.3: refused by the step order
    assert refused.code == 3 and "3.47" in refused.err and rows(g.db["allied"]) == before
    assert commit in g.state("allied").pbem.requests
    ok = g.cli("allied", "buy", "allied", "I1")
    assert ok.code == 0, ok.err
    kinds = [t for t, _p in _types_after(g.db["allied"], before)]
    assert kinds[:3] == ["dice_answered", "dice_revealed", "leader_rolled"] and "rg_bought" in kinds[3:]
    assert commit not in g.state("allied").pbem.requests


def _types_after(db: str, n: int) -> list[tuple[str, dict]]:
    from cg.app.ledger import Ledger

    led = Ledger(db)
    try:
        return [(r.type, r.payload) for r in led.store.read(since=n)]
    finally:
        led.close()


def test_after_an_undo_a_roll_waits_for_a_new_chain(chain_game):
    """Ruling R83: an undo may take back an answer the other side has seen, so a chain from before it gives
    no new place: the next roll is committed to as under R44, and the other side's next bundle commits to
    a new chain, which the roll after it uses."""
    g = chain_game
    g.play_to(1, "2.3")
    g.do("axis", "buy", "axis", "I1")
    g.do("axis", "buy", "axis", "I1")
    assert g.cli("axis", "undo", "--reason", "one I1 is enough").code == 0
    assert g.cli("axis", "leader", "axis", "I1-1").code == 0
    first = _payloads(g.db["axis"], "dice_committed")[-1]
    assert "chain" not in first and "value" not in first  # ruling R44's commitment
    chains = [p for p in _payloads(g.db["axis"], "dice_chain") if p["side"] == "allied"]
    g.send("axis")
    g.send("allied")  # the answer (R44) and a new allied chain
    assert len([p for p in _payloads(g.db["axis"], "dice_chain") if p["side"] == "allied"]) == len(chains) + 1
    assert g.cli("axis", "reveal").code == 0
    g.do("axis", "buy", "axis", "I1")
    assert g.cli("axis", "leader", "axis", "I1-2").code == 0
    second = _payloads(g.db["axis"], "dice_committed")[-1]
    new = [p for p in _payloads(g.db["axis"], "dice_chain") if p["side"] == "allied"][-1]
    assert second["chain"] == 1 and second["value"]
    g.send("axis")
    g.send("allied")
    answer = [p for p in _payloads(g.db["axis"], "dice_answered") if p["request"] == second["commit"]][-1]
    v = answer["value"]
    assert pbem_commitment(v) == new["anchor"]
    for side in OTHER:
        assert cli_run(g.db[side], "audit").code == 0


def pbem_commitment(v: str) -> str:
    from cg import pbem

    return pbem.commitment(v)


def test_a_bundle_reveals_the_dice_it_owes_before_it_signs(open_game):
    g = open_game
    _answered(g, "I1-1")
    path = g.bundle("axis", 0)  # no `plcg reveal` first: the bundle would withhold it
    kinds = [x["type"] for x in bundle_lines(path)[1:]]
    assert "dice_revealed" in kinds and kinds.index("dice_revealed") < len(kinds) - 1
    assert not g.state("axis").pbem.requests


# ---- item 7: a sealed box's length tells nothing -------------------------------------------------------------

def test_every_sealed_box_has_one_length_whatever_it_holds(sealed):
    from cg.app.ledger import Ledger

    g = sealed
    g.play_to(2, "2.3")
    if g.holder != "axis":  # ruling R71: the holder left 2.2 at once, in his copy; the axis copy takes it in
        g.send(g.holder)
    for args in (["buy", "axis", "A1"], ["patrols", "axis", "1"], ["attack", "axis"], ["buy", "axis", "I1"]):
        assert g.cli("axis", *args).code == 0, args
    led = Ledger(g.db["axis"])
    try:
        boxes = {(r.payload["what"], len(r.payload["box"])) for r in led.store.read() if r.type == "sealed"}
    finally:
        led.close()
    whats = {w for w, _ in boxes}
    assert {"cp", "purchase", "promote"} <= whats
    assert len({n for _, n in boxes}) == 1, sorted(boxes)  # one size class, whatever the box holds


# ---- item 10: no hiding the Attack Option at 2.4 -----------------------------------------------------------

def test_every_side_seals_a_yes_or_no_attack_option_and_an_empty_2_4_reveal_is_refused(sealed):
    from cg import pbem
    from cg.app.ledger import Ledger
    from events.convert import unstructure
    from events.store import NewEvent
    from events.types import SealsRevealed

    g = sealed
    g.play_to(2, "2.3")
    g.do("axis", "attack", "axis")  # a sealed purchase; the choice is sealed as axis leaves 2.3 (ruling R109)
    g.play_to(2, "2.4")
    g.send(g.holder)
    for side in ("axis", "allied"):  # one yes/no seal each, both copies see it
        seals = [x for x in log(g.db[side]) if x["type"] == "sealed" and x["what"] == "attack"]
        assert sorted(x["summary"].split()[0].lower() for x in seals) == ["allied", "axis"], side
    # the axis player hides his Attack Option: a reveal at 2.4 without it, straight into his file
    key = load_private(g.key["axis"])
    led = Ledger(g.db["axis"], write=True, key=key)
    try:
        st = led.state()
        head = led.store.head()[0]
        e = SealsRevealed(side="axis", point="2.4", openings=())
        led.store.append(head, [NewEvent(type=e.TYPE, version=e.VERSION, payload=unstructure(e),
                                         firefight=st.firefight, step=st.step)],
                         command={"name": "unseal", "by": "axis", "point": "2.4", "openings": []})
    finally:
        led.close()
    path = g.bundle("axis", g.head("allied"))
    before = rows(g.db["allied"])
    r = cli_run(g.db["allied"], "receive", path)
    assert r.code == 3 and "2.4" in r.err and "must reveal" in r.err, r.err
    assert rows(g.db["allied"]) == before


def _card_with_control_characters(workdir) -> str:
    """TOML's escapes let a card's names hold control characters."""
    from pathlib import Path

    from conftest import card_variant

    card = Path(card_variant(workdir, campaign={"name": "Mill<ESC>[2J<NL>Allied conceded the CG"},
                             axis_rg={"I1": {"name": "Grenadier<ESC>[31m Platoon"}}))
    card.write_text(card.read_text().replace("<ESC>", "\\u001b").replace("<NL>", "\\n"))
    return str(card)


def test_names_from_the_card_reach_no_terminal_raw(workdir):
    db = workdir / "c.plcg"
    assert cli_run(db, "new", "--card", _card_with_control_characters(workdir), "--seed", "t").code == 0
    for args in (["weather"], ["next"], ["buy", "axis", "I1"]):
        assert cli_run(db, *args).code == 0
    for args in (["status"], ["roster"], ["oob", "axis"], ["purchases", "axis"], ["map"], ["log"]):
        out = cli_run(db, *args).out
        assert "\x1b" not in out, args
        if args[0] in ("status", "log"):
            assert "\nAllied conceded" not in out, args


def test_a_first_bundle_whose_card_holds_control_characters_is_refused(workdir):
    pub = {s: cli_run(workdir / "k.plcg", "keys", "new", "-o", workdir / f"{s}.key").out.strip()
           for s in ("axis", "allied")}
    db = workdir / "axis.plcg"
    assert cli_run(db, "new", "--card", _card_with_control_characters(workdir), "--axis-key", pub["axis"],
                   "--allied-key", pub["allied"]).code == 0
    assert cli_run(db, "--key", workdir / "axis.key", "bundle", "-o", workdir / "b1").code == 0
    r = cli_run(workdir / "allied.plcg", "receive", workdir / "b1")
    assert r.code == 2 and "control characters" in r.err and not (workdir / "allied.plcg").exists()


def test_a_roll_that_skips_the_live_chain_is_refused(chain_game, monkeypatch):
    """Issue 37 attack 2 (rulings R44, R67, R83): a client of the roller's own making committed to a roll
    under R44 (no chain place) while the other side's chain was live, learnt the answer before revealing,
    computed both its reveal's dice and the claim's dice R67 would give, and kept the better. A roll that
    the chain decides may not be committed any other way: the other copy refuses the bundle."""
    from cg import pbem

    g = chain_game
    g.play_to(1, "2.3")
    g.do("axis", "buy", "axis", "I1")
    assert pbem.chained(g.state("axis"), {"by": "axis"})  # the allied chain is live here
    since = g.head("allied")
    with monkeypatch.context() as own_client:  # the roller's own client leaves the chain's place out
        own_client.setattr(pbem, "chained", lambda st, cmd: False)
        assert g.cli("axis", "leader", "axis", "I1-1").code == 0
        path = g.bundle("axis", since)
    before = rows(g.db["allied"])
    r = cli_run(g.db["allied"], "receive", path)
    assert r.code == 3, r.err
    assert "chain of answers is live" in r.err
    assert rows(g.db["allied"]) == before


# ---- issue 37 item 1: no side takes away the other side's 3.45 result (ruling R127) -------------------------

@pytest.mark.parametrize("step, roll, then, kind", [("3.45", "leaders", "elr", "leader"),
                                                    ("3.44", "promote", "leaders", "squad")])
def test_a_side_cannot_leave_a_step_over_the_result_its_own_bundle_decided_for_the_other(chain_game, monkeypatch,
                                                                                       step, roll, then, kind):
    """The quiet walk's hole: the allied bundle answers the axis 3.45 roll from its chain, which decides it (R83),
    then leaves 3.45 provisionally and commits its 3.47 ELR DR from the axis chain; that roll counts as rolled
    (R107), so the axis rejection of the leave is refused, and the axis result, seen only after the leave, is lost.
    Allied saw the result before it chose to leave: a veto. Now its `next` waits for the axis `next` (R127).
    3.44's Battle Hardening had the same hole where its rolls come from a chain (open rosters)."""
    from cg import pbem

    g = chain_game
    g.play_to(1, step, plan={(1, "2.3"): [(s, ["buy", s, "I1"]) for s in ("axis", "allied")]})  # RGs, leaders (2.36)
    if g.holder != "allied":
        g.send(g.holder)
    assert g.cli("allied", roll, "allied").code == 0  # committed from the axis chain (R83)
    g.send("allied")
    # every die from here on is a 1: the axis 3.45 dr is 1 (+2 second dr, -1 won: 2-3, 2 leaders), 3.44's <= 1
    monkeypatch.setattr(pbem, "two_party_die", lambda a, b, commit, index, die: 1)
    assert g.cli("axis", roll, "axis").code == 0  # its command answers the allied roll first (R84)
    g.send("axis")
    r = g.cli("allied", "next")  # answers the axis roll, which decides it here, in the allied copy
    assert r.code == 0, r.err
    st = g.state("allied")
    assert pbem.left_over(st, step, "axis")[0] >= 1 and st.step == step  # the leave waits for axis
    assert pbem.left_over(st, step, "allied")[0] >= 1  # its own result, unused, it gives up by leaving
    assert st.pbem.proposal is not None and st.pbem.proposal.side == "allied"
    barring = g.cli("allied", then, "allied")  # its next step's roll, which would bar the rejection, is not yet
    assert barring.code == 3, (barring.code, barring.out)
    g.send("allied")
    unit = next(u.id for u in g.state("axis").side_units("axis") if u.kind == kind)
    hardened = g.cli("axis", "harden", "axis", unit)  # the axis result is the axis player's to use
    assert hardened.code == 0, hardened.err
    assert g.cli("axis", "next").code == 0  # its `next` confirms the allied leave (whose own result allied gave up)
    assert g.state("axis").step != step
    assert unit in g.state("axis").reph.hardened_now["axis"]


def test_a_client_that_leaves_out_the_r127_mark_still_waits_for_the_other_sides_result(chain_game, monkeypatch):
    """A player's own client (written against the Python API) sends its 3.45 `next` marked `their_results: false`
    (or without the mark) to take the axis result away as before ruling R127: a campaign started under the
    ledger's conventions 2 decides R127 by itself, so the leave still waits for the axis `next`."""
    from cg import pbem
    from cg.app.ledger import Ledger

    g = chain_game
    assert g.state("allied").conventions >= 2
    g.play_to(1, "3.45", plan={(1, "2.3"): [(s, ["buy", s, "I1"]) for s in ("axis", "allied")]})
    if g.holder != "allied":
        g.send(g.holder)
    assert g.cli("allied", "leaders", "allied").code == 0
    g.send("allied")
    monkeypatch.setattr(pbem, "two_party_die", lambda a, b, commit, index, die: 1)
    assert g.cli("axis", "leaders", "axis").code == 0
    g.send("axis")
    key = load_private(g.key["allied"])
    led = Ledger(g.db["allied"], write=True, key=key)
    try:
        led.answer(key)  # what `plcg next` does first (R84): the axis roll is decided here
        led.run({"name": "next", "their_results": False}, key)
    finally:
        led.close()
    st = g.state("allied")
    assert pbem.left_over(st, "3.45", "axis")[0] >= 1 and st.step == "3.45"  # the leave waits for axis
    assert st.pbem.proposal is not None and st.pbem.proposal.side == "allied"
