"""Play by email: the players' keys, who may act, signed chain heads, and two-party dice.

Two players each keep a copy of the campaign and exchange bundles (events/bundle.py). A campaign
started with `--axis-key PUB --allied-key PUB` holds both public keys in its first event; from then
on every command carries `by`, the side whose private key the ledger was given (`--key FILE`), and
a side acts only for itself (exit 3, rule "pbem").

Signatures: not one per event. A bundle ends with a `head_signed` event, its author's Ed25519
signature over the chain head (seq, hash) just before it; as with a signed git tag, the hash chain
makes that one signature cover the whole history up to it. The audit checks every signature and that
each command before it (back to the previous signature) was its signer's (ruling R43).

Two-party dice (`--dice-policy two-party`): a rolling command is not decided at once. Its side
appends `dice_committed`: the command and sha256 of a secret value A (A = HMAC(its private key,
nonce): the ledger recomputes it from the key, nothing secret is stored). The other side's next
bundle carries `dice_answered` with its own value B. The first side then reveals A (`plcg reveal`);
the command is decided with the dice sha256("A:B:commit:roll:die") gives: neither player can choose
or foresee them (ruling R44). Under rules revision 3 (ruling R83) B comes from the other side's chain
of answers, committed to before the roll: the roll shows A with its commitment and is decided by the
other side's next bundle, with no reveal (below, "a chain of answers").

Ed25519 is `cryptography`'s (pyca): a maintained wheel for every platform, already the library
that pip and most of PyPI's security tooling use; PyNaCl would add libsodium for the same curve.
"""
from __future__ import annotations

import hashlib
import hmac
import os
from typing import cast

import attrs

from cg import caches, seal
from cg.rules import AHEAD_ROLLS, conventions, rules_for
from cg.sequence import StepId
from cg.specs import OWN, SHARED, SHARED_3, SIDED  # noqa: F401  (read here by cg/commands)
from cg.specs import Choose, Item
from cg.state import AnswerChain, DiceRequest, Done, Pbem, Proposal
from cg.units import Kind
from events import osrandom
from events.errors import BadInput, Refused
from events.types import REGISTRY

SIDES = ("axis", "allied")
PUB_PREFIX = seal.PUB_PREFIX
POLICIES = ("any", "two-party")  # --dice-policy values this module decides


# ---- keys ----------------------------------------------------------------------------------------

public_line = seal.public_line  # `ed25519:HEX`


def parse_public(text: str, what: str) -> str:
    """A public key as given on the command line: the line `ed25519:HEX`, or a file holding it."""
    t = (text or "").strip()
    if not t.startswith(PUB_PREFIX) and os.path.isfile(t):
        try:
            with open(t, encoding="utf-8") as f:
                t = f.read().strip()
        except (OSError, UnicodeDecodeError) as e:
            raise BadInput(f"{what} {text}: cannot read it ({e})") from None
    raw = t[len(PUB_PREFIX):] if t.startswith(PUB_PREFIX) else None
    try:
        ok = raw is not None and len(bytes.fromhex(raw)) == 32
    except ValueError:
        ok = False
    if not ok or raw is None:  # ok holds only with raw set
        raise BadInput(f"{what} {text!r}: a public key is one line `ed25519:` and 64 hex digits"
                       " (what `plcg keys new` prints), or a file holding it")
    return PUB_PREFIX + raw.lower()


def _verifier(pub: str):
    return seal.keyed().verifier(bytes.fromhex(pub[len(PUB_PREFIX):]))


def head_message(seq: int, hash_: str) -> bytes:
    return f"plcg head {seq}:{hash_}".encode()


def sign_head(sk, seq: int, hash_: str) -> str:
    return sk.sign(head_message(seq, hash_)).hex()


def verify_head(pub: str, seq: int, hash_: str, sig) -> bool:
    return _verify(pub, head_message(seq, hash_), sig)


def claim_message(commit: str) -> bytes:
    return f"plcg claim {commit}".encode()


def sign_claim(sk, commit: str) -> str:
    """Ruling R108: the claimer's signature over the withheld commitment, whose bytes make the claim's dice:
    fixed by its key (Ed25519 signs deterministically: no second try), unknown to anyone else before it."""
    return sk.sign(claim_message(commit)).hex()


def verify_claim(pub: str, commit: str, sig) -> bool:
    return _verify(pub, claim_message(commit), sig)


def note_message(campaign: str, seq: int, hash_: str, text: str) -> bytes:
    return f"plcg note {campaign} {seq} {hash_} {text}".encode()


def sign_note(sk, campaign: str, seq: int, hash_: str, text: str) -> str:
    """A line for the other player (`sync --send --note`), signed with the bundle's head: it travels in the
    bundle's header, outside the log, and no one else can put words in the sender's mouth."""
    return sk.sign(note_message(campaign, seq, hash_, text)).hex()


def verify_note(pub: str, campaign: str, seq: int, hash_: str, text: str, sig) -> bool:
    return _verify(pub, note_message(campaign, seq, hash_, text), sig)


def _verify(pub: str, message: bytes, sig) -> bool:
    c = caches.current()
    v = c.bounded(c.verifiers, pub, lambda: _verifier(pub))
    try:
        return seal.keyed().verified(v, bytes.fromhex(sig), message)
    except (ValueError, TypeError):
        return False


def side_of_key(pbem: Pbem, sk) -> str | None:
    """Which side of the campaign the private key is (None: neither)."""
    pub = public_line(sk)
    for side in SIDES:
        if pbem.keys.get(side) == pub:
            return side
    return None


# ---- the campaign's play-by-email settings -------------------------------------------------------

def settings(axis_key: str | None, allied_key: str | None, policy: str | None, sealed: bool = True) -> dict | None:
    """What campaign_started records (None: an ordinary campaign)."""
    if axis_key is None and allied_key is None:
        if not sealed:
            raise BadInput("--open-secrets is for a campaign played by email (--axis-key, --allied-key)")
        if policy == "two-party":
            raise BadInput("--dice-policy two-party needs both players' keys (--axis-key, --allied-key)")
        return None
    if axis_key is None or allied_key is None:
        raise BadInput("a campaign played by email needs both keys: --axis-key PUB --allied-key PUB")
    keys = {"axis": parse_public(axis_key, "--axis-key"), "allied": parse_public(allied_key, "--allied-key")}
    if keys["axis"] == keys["allied"]:
        raise BadInput("--axis-key and --allied-key are the same key: each player makes his own")
    # ruling R47: what PL makes secret is sealed (cg/seal.py); a campaign started before it was not
    # issue 25 item 9: a keyed campaign rolls two-party unless asked otherwise; the roller's own dice
    # (`any`) let a player restore a copy and roll again, and the other copy cannot tell
    return {"keys": keys, "dice_policy": policy or "two-party", "sealed": sealed}


def state_of(started: dict | None) -> Pbem | None:
    """The state's `pbem` part for a campaign_started `pbem` payload."""
    if not started:
        return None
    return Pbem.of_data({"keys": dict(started["keys"]), "dice_policy": started.get("dice_policy", "any"),
            "signed": {s: None for s in SIDES},  # each side's last signed head [seq, hash]
            "proposal": None,  # a shared fact proposed by one side: {"side", "command"} (ruling R45)
            "requests": {},  # commit -> DiceRequest: two-party dice not yet revealed
            # sealed secrets (cg/seal.py, ruling R47): commitment -> a seal not yet revealed; the reveal points made
            # ("FF:POINT:SIDE", "end:SIDE"); sides whose CP this view does not know
            "sealing": bool(started.get("sealed")), "seals": {}, "points": [],
            "cp_sealed": {s: False for s in SIDES}, "leaders_made": {s: 0 for s in SIDES},
            "revealed_n": {s: 0 for s in SIDES}})  # how many seals each side has revealed (they leave `seals`)


def two_party(st) -> bool:
    return st.pbem is not None and st.pbem.dice_policy == "two-party"


# ---- who may act ---------------------------------------------------------------------------------

# the play-by-email commands themselves (OWN), the shared facts (SHARED, SHARED_3: ruling R45, R68) and a side's
# own commands (SIDED): generated from the commands' specs (cg/specs.py)
BUNDLING = ("sign", "answer", "reveal", "unseal", "chain")  # what a side may do while a proposal awaits an answer
COMMIT_KEYS = ("commit", "nonce", "value", "chain")  # what the ledger adds to a command for its dice (R44, R83)
# what the ledger adds to a command to say which ruling decides it (R110, R111, R112, R127; a log of before lacks them)
RULING_KEYS = ("setups", "own_rolls", "mines_at_setup", "sealed_rolls", "their_results")
LEAVING_SEALED = seal.LEAVING_SEALED  # ruling R119
deferred = seal.deferred  # ruling R119


def undo_shared(st, reverted_seqs) -> bool:
    """An undo is shared when it takes back anything the other side has signed over (its own
    events, or the undoing side's that it has received): the other side has seen it."""
    if st.pbem is None:
        return False
    seen = max((h[0] for h in st.pbem.signed.values() if h), default=0)
    return min(reverted_seqs) <= seen


def authorize(st, cmd: dict) -> None:
    """In a keyed campaign: the command names its acting side (`by`), that side acts for itself
    only, and owes no reveal first. Refused (exit 3, rule pbem) otherwise."""
    pb = st.pbem
    name = cmd.get("name")
    if pb is None:
        if name in OWN:
            raise Refused(f"{name}: this campaign was not started with the players' keys", "pbem", st.step)
        return
    by = cmd.get("by")
    if by not in SIDES:
        raise Refused("a campaign played by email takes each command with the acting player's key"
                      " (--key FILE or $PLCG_KEY)", "pbem", st.step)
    side = cmd.get("side")
    # a shared fact confirmed is the proposer's command, decided with the confirming side's key (decide refuses a
    # command that says `confirmed` itself): a proposed `position SIDE ...` is SIDE's, confirmed by the other
    if side is not None and side != by and (side := str(side).lower()) in SIDES and side != by \
            and not cmd.get("confirmed"):
        raise Refused(f"{by}'s key cannot act for {side}: each side's purchases, units and rolls are"
                      " its own", "pbem", st.step)
    requests = pb.requests  # (asked of every command: most find none open, and then owe nothing of them)
    if requests:
        if name not in OWN:
            owed = [c for c, r in requests.items() if r.side == by and r.answer is not None and not deferred(st, r)]
            if owed:
                raise Refused(f"{by} owes the reveal of two-party dice first (plcg reveal)", "pbem", st.step)
        if name not in _DUE_FIRST_BUT and due(st):
            # ruling R121: the rolls committed ahead of this step are decided before anything else here (the ledger
            # does it first); a step left over one would leave it undecided for good
            raise Refused(f"the rolls committed ahead of step {st.step} are decided first: "
                          + ", ".join(f"{r.command.get('name')} {r.side} ({c[:8]})" for c, r in due(st))
                          + " (plcg reveal, or any command of the ledger's)", "pbem", st.step)
    prop = pb.proposal  # (its reveal owed is said first: ruling R71 lets a side propose before it reveals)
    if name in ("next", "confirm") and cmd.get("own_rolls") and st.step in ROLL_ALLOWS and (name == "next" or (
            prop is not None and prop.command.get("name") == "next")):
        mine = [(c, r.command.get("name")) for c, r in pb.requests.items() if r.side == by and not later(st, r)]
        if mine:  # ruling R111: the step is left once this side's own rolls of it are decided
            listed = ", ".join(f"{n} ({c[:8]})" for c, n in mine)
            raise Refused(f"{by}'s roll of this step is not decided yet: {listed}; its result may allow more here"
                          " (a hardening, a replacement): send it (plcg sync --send) and leave the step once the"
                          " answer is back", "pbem", st.step)
    if name in ("confirm", "reject"):
        if prop is None and provisional(st) is None:
            raise Refused(f"{name}: no proposal awaits an answer", "pbem", st.step)
        if name == "confirm" and cast(Proposal, prop or provisional(st)).side == by:  # one of them is set (above)
            raise Refused(f"{by} proposed it: the other side confirms it", "pbem", st.step)
    elif prop is not None and name not in BUNDLING and not cmd.get("confirmed") and not _acts_meanwhile(st, prop, by) \
            and not (name == "seal" and cmd.get("closes")) \
            and not (name == "attack" and (cmd.get("none") or "announce" in cmd)) \
            and not (name == "seal" and cmd.get("what") == "attack"):  # a sealed reveal is a reveal (ruling R71);
        # the sealed "no" Attack Option made as 2.3 is left (ruling R69, seal.kind)
        other = "allied" if prop.side == "axis" else "axis"
        raise Refused(f"{prop.side}'s proposal ({prop.command.get('name')}) awaits {other}'s answer first"
                      " (plcg confirm, or plcg reject --reason TEXT)", "pbem", st.step)
    seal.check_owed(st, cmd)
    seal.check_unseen_units(st, cmd)


_DUE_FIRST_BUT = BUNDLING + ("seal", "reject", "undo", "claim")  # what a roll committed ahead and due does not hold (R121)


def _acts_meanwhile(st, prop, by: str) -> bool:
    """Ruling R71 (revision 3, issue 26): while one side proposes to leave the step, the other still
    does its part of it; its own `next` then confirms the proposal (cg/commands/base.py)."""
    return prop.side != by and rules_for(st).acts_meanwhile(prop.command.get("name"))


# Ruling R71: where the other side must be asked before a step is left (2.3: both sides buy, in secret,
# at the same step); elsewhere `next` leaves at once, provisionally, and the other side's rejection
# undoes the leave and everything after it (a side that wanted to redeploy or set up rejects it).
ASKED_STEPS = ("2.3",)
NOT_CONTINUING = ("reject", "sign", "reveal", "unseal", "chain")  # what does not confirm the other side's leave


def rolling_types() -> frozenset:
    """The events that may hold dice (ruling R71: a leave followed by a roll is no longer rejected)."""
    return frozenset(t for t, cls in REGISTRY.items() if attrs.has(cls)
                     and {"roll", "rolls"} & set(attrs.fields_dict(cls))) | {"sealed", "dice_revealed"}


def provisional(st) -> Proposal | None:
    """The step left provisionally and not yet answered (ruling R71): {"side", "command"}, or None."""
    return st.pbem.provisional if st.pbem is not None else None


def leaves_provisionally(st, cmd: dict) -> bool:
    return rules_for(st).leaves_provisionally(cmd.get("name"), st.step in ASKED_STEPS)


def fact_provisionally(st, cmd: dict) -> bool:
    """Ruling R73: a shared fact of ruling R68 given in a two-party campaign, outside 2.3, takes effect
    at once, provisionally, as a step is left under R71 (a): the other side's next command confirms
    it, its `reject` undoes it with everything after. With the roller's own dice (`any`) it stays a
    proposal: a roll of the proposer's made at once would put it beyond the other side's rejection."""
    name = cmd.get("name")
    return rules_for(st).fact_provisionally(  # ruling R84: `end`
        name, name in SHARED_3, two_party(st) and st.step not in ASKED_STEPS)


def rolled_after(st, seen, reverted, since: int) -> list[str]:
    """Ruling R71: the kinds of rows after `since` that may hold dice already decided (a rejection that
    undid them would have them rolled again). Ruling R73: in a two-party campaign a sealed row still
    closed that closes no commitment holds none (a rolling command is committed to, never rolled, and
    its reveal is the row that closes it): the proposer's sealed purchases do not bar the rejection.
    Ruling R83 (issue 37 attack 1): a roll committed with a place in the other side's chain is decided
    from its commitment on, for the answerer holds the answer already and so knows the dice."""
    closed = {}
    if two_party(st):
        closed = {r.seq: r for r in st.pbem.seals.values() if not r.closes}
    kinds = rolling_types()
    found = {t for s, _, t, *_ in seen
             if s > since and s not in reverted and t in kinds and not (t == "sealed" and s in closed)}
    if two_party(st) and any(s not in reverted for s, _ in seen.chained_after(since)):
        found.add("dice_committed")
    return sorted(found)


# ---- two-party dice ------------------------------------------------------------------------------

def commit_value(sk, nonce: str) -> str:
    """The committing side's secret value: recomputable from its key and the public nonce only."""
    return hmac.new(seal.raw_private(sk), f"plcg two-party {nonce}".encode(), hashlib.sha256).hexdigest()


def commitment(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def new_nonce() -> str:
    return osrandom.token_hex(16)


def answer_value() -> str:
    return osrandom.token_hex(32)


def two_party_die(a: str, b: str, commit: str, index: int, die: int) -> int:
    """One die of roll `index` of a committed command: sha256 of both values and the roll's place."""
    digest = hashlib.sha256(f"{a}:{b}:{commit}:{index}:{die}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % 6 + 1  # 2**64 % 6 bias < 1e-18, as the seeded roller


def check_order(st, by: str, commit: str) -> None:
    """Ruling R67: `by` reveals its two-party dice in the order it committed to them: the first
    still open decides, a later one cannot be revealed before it (no choosing among outcomes)."""
    # a roll committed ahead of its step is decided there by the ledger, never revealed (ruling R121)
    first = next((c for c, r in st.pbem.requests.items() if r.side == by and r.command.get("ahead") is None), None)
    why = rules_for(st).reveal_order_refusal(by, commit, first)
    if why:
        raise Refused(why, "pbem", st.step)


def claimable(st, by: str) -> list[tuple[str, DiceRequest]]:
    """Ruling R67: the other side's two-party dice that `by` answered and the committer withheld (it
    signed a head after the answer without revealing): `by` may claim them."""
    return [(c, r) for c, r in st.pbem.requests.items()
            if r.side != by and r.answer is not None and r.withheld]


def open_requests(st, side: str | None = None, answered: bool | None = None) -> list[tuple[str, DiceRequest]]:
    pb = st.pbem
    if pb is None:
        return []
    return [(c, r) for c, r in pb.requests.items()
            if (side is None or r.side == side) and (answered is None or (r.answer is not None) == answered)]


def committed(st, items: list[Item]) -> list[Item]:
    """`pending`'s items less the rolls already committed to (one item per open commitment). At 2.9, while a side
    owes its reveal (ruling R112), each is marked `waits_for` those sides: no one may give it before (issue 37 item 6:
    `sync` named `end` as the other player's move, and `end` was refused)."""
    first = seal.reveals_first(st) if st.pbem is not None else []
    if first:
        items = [attrs.evolve(item, waits_for=tuple(first)) for item in items]
    if st.pbem is None or not st.pbem.requests:
        return items
    left = [r.command for r in st.pbem.requests.values()]
    out = []
    for item in items:
        args = item.get("args")
        hit = next((c for c in left if args and all(c.get(k) == v for k, v in args.items())), None)
        if hit is None:
            out.append(item)
        else:
            left.remove(hit)
    return out


ROLL_ALLOWS = ("3.41", "3.44", "3.45")  # ruling R111: steps where a side's decided roll allows more (replacements, hardening)


def left_over(st, step: str, side: str) -> tuple[int, int, int]:
    """(how many more the side's 3.44 or 3.45 result lets it take, the result, how many taken)."""
    hardened = set(st.reph.hardened_now[side])
    mine = [u for u in st.side_units(side) if u.id not in hardened]
    if step == StepId.PROMOTIONS:
        is_mmc = rules_for(st).is_mmc
        used = sum(1 for x in hardened if is_mmc(st.unit(x, side).kind))
        return min(st.reph.promotions[side] - used, sum(1 for u in mine if is_mmc(u.kind))), \
            st.reph.promotions[side], used
    used = sum(1 for x in hardened if st.unit(x, side).kind == Kind.LEADER)
    slots = st.reph.leader_result[side] - used - st.reph.generated[side]
    could = sum(1 for u in mine if u.kind == Kind.LEADER) + max(0, st.reph.may_generate[side] - st.reph.generated[side])
    return min(slots, could), st.reph.leader_result[side], used


def result_allows(st, side: str) -> int:
    """Ruling R111: how many more hardenings or generated leaders SIDE's decided 3.44 or 3.45 roll still lets it
    take at this step (0 before its roll is decided, or once it is used)."""
    if st.ended or st.step not in (StepId.PROMOTIONS, StepId.LEADERS) or \
            Done("promote" if st.step == StepId.PROMOTIONS else "leaders", side) not in st.reph.done:
        return 0
    return max(0, left_over(st, st.step, side)[0])


def pending_items(st) -> list[Item]:
    """What play by email owes (cg/steps.pending lists it): an answer to a proposal, an answer to
    two-party dice, a reveal; none runs as written by the side that reads it."""
    out = []
    prop = st.pbem.proposal if st.pbem else None
    if prop is not None and prop.command.get("setups") and prop.command.get("step") == st.step == StepId.SETUP:
        other = "allied" if prop.side == "axis" else "axis"  # ruling R110: the other side still sets up
        out.append(Item.of("setup", "2.6", f"{other} still sets up (2.6; {prop.side} has set up and waits)", False,
                           side=other, unit=Choose.UNIT, hex_=Choose.HEX, then=Item.of("next", "2.6", ""),
                           runnable_first=True))
    elif prop is not None:
        other = "allied" if prop.side == "axis" else "axis"
        out.append(Item.of("confirm", "pbem", f"{other} owes the answer to {prop.side}'s proposal: "
                           f"{prop.command.get('name')} (plcg confirm, or plcg reject --reason TEXT)", False,
                           runnable_first=True))
    out += seal.pending_items(st)
    for commit, r in open_requests(st):
        if deferred(st, r) or (r.answer is None and later(st, r)):
            continue  # ruling R119: its reveal is owed by 2.6, with the purchases it belongs to; R121: a roll ahead
            # of its step holds this one nothing (its answer still goes with the other side's next bundle, R83)
        other = "allied" if r.side == "axis" else "axis"
        what = r.command.get("name")
        if r.answer is None:
            # issue 37 item 10: its next command or send carries the answer
            out.append(Item.of("sync", "pbem", f"{other} owes the answer to {r.side}'s two-party dice for {what}"
                               f" ({commit[:8]}): {other}'s next command or send carries it", False, send=True,
                               runnable_first=True))
        else:
            out.append(Item.of("reveal", "pbem", f"{r.side} owes the reveal of its two-party dice for {what} "
                               f"({commit[:8]})", False, runnable_first=True))
    return out


# ---- two-party dice from a chain of answers (ruling R83, rules revision 3, switch dice_chain) -----------
#
# Each side commits once to a hash chain: anchor = sha256^L(seed), seed = HMAC(its private key, nonce).
# The answer at place n is sha256^(L-n)(seed): shown in order, each hashes back to the one before, and
# none tells the next. A roll (outside a sealed step) shows its own value A with its commitment and
# names the next place of the other side's chain; that place's value, fixed before the roll, is shown
# by the other side's next bundle (`plcg bundle` answers) and decides the roll at once: the roller
# never knew it, the answerer cannot choose it, and no reveal round trip is left.

CHAIN_LENGTH = 1024  # answers per chain; a side commits to a new chain when one is spent or after an undo


def other(side: str) -> str:
    return "allied" if side == "axis" else "axis"


def _h(value: str, times: int) -> str:
    v = value
    for _ in range(times):
        v = hashlib.sha256(v.encode()).hexdigest()
    return v


def chain_seed(sk, nonce: str) -> str:
    return hmac.new(seal.raw_private(sk), f"plcg answers {nonce}".encode(), hashlib.sha256).hexdigest()


def chain_anchor(sk, nonce: str, length: int = CHAIN_LENGTH) -> str:
    return _h(chain_seed(sk, nonce), length)


def chain_value(sk, rec: AnswerChain, place: int) -> str:
    """The answer at `place` of the chain `rec` (recomputed from the key; nothing secret is stored)."""
    return _h(chain_seed(sk, rec.nonce), rec.length - place)


def answer_to(sk, st, request: DiceRequest) -> str:
    """This side's answer to the other side's open roll `request`: the value at the place of this side's
    chain the roll named (ruling R83), else a fresh one (ruling R44)."""
    if request.chain is None:
        return answer_value()
    return chain_value(sk, st.pbem.anchors[request.anchor], request.chain)


def chain_of(st, side: str) -> AnswerChain | None:
    """The chain `side` answers new rolls from now, or None: none yet, spent, or older than an undo (the
    undo may have taken back answers the other side has seen: a place must never be given twice)."""
    pb = st.pbem
    anchor = pb.chain_at.get(side)
    rec = pb.anchors[anchor] if anchor else None
    if rec is None or rec.reverts != len(st.reverts) or rec.next > rec.length:
        return None
    return rec


def chain_check(st, side: str, anchor: str, place: int, value) -> bool:
    """Whether `value` is `side`'s answer at `place` of its chain `anchor`: hashed back to the furthest
    answer shown (or that one hashed back to it, a place before it)."""
    rec = st.pbem.anchors.get(anchor)
    if rec is None or rec.side != side or not isinstance(value, str) or not 1 <= place <= rec.length:
        return False
    n, v = rec.last
    return _h(value, place - n) == v if place >= n else _h(v, n - place) == value


def chain_shown(st, side: str, anchor: str, place: int, value: str) -> None:
    rec = st.pbem.anchors[anchor]
    if place > rec.last[0]:
        rec.last = [place, value]


def chained(st, cmd: dict) -> bool:
    """Ruling R83: whether `cmd`'s roll, committed now, takes its answer from the other side's chain:
    rules revision 3, a live chain of the other side, and outside a step whose results are sealed (a
    sealed roll shows nothing of its value: ruling R44 goes on there, its reveal sealed). A roll committed
    ahead of its step (ruling R121) is of its own step, never a sealed one."""
    return two_party(st) and rules_for(st).answered_by_chain(
        chain_of(st, other(cmd["by"])) is not None, seal.sealing(st) and (ahead(st, cmd) or st.step) in seal.SECRET_STEPS)


# Ruling R121: the RePh rolls a side may commit ahead of their steps (conventions 3): roll -> (its step, the
# steps it may be committed at). Each dr's drm are fixed before the steps it may be committed at: 3.41's the
# card's historical drm, 3.44's the firefight's winner, its CVP, the card's and the historical, 3.45's the same
# without CVP, 3.47's the winner, the previous purchases, the Attack Option, the firefights played and the card.
_FROM_341 = (StepId.DISEASE, StepId.REGROUPING, StepId.HEROES)
AHEAD = {"disease": (StepId.DISEASE, (StepId.BATTLE_END, StepId.REDEPLOYMENT, StepId.CONSEQUENCES)),
         "promote": (StepId.PROMOTIONS, _FROM_341), "leaders": (StepId.LEADERS, (*_FROM_341, StepId.PROMOTIONS)),
         "elr": (StepId.ELR, (*_FROM_341, StepId.PROMOTIONS, StepId.LEADERS, StepId.REPAIR, StepId.RECALL))}


def ahead(st, cmd: dict) -> StepId | None:
    """Ruling R121: the later RePh step whose roll `cmd` is, committed now ahead of it; None: a roll of this step
    (or a campaign of conventions before 3, or no live chain of the other side's answers to take it from)."""
    spec = AHEAD.get(cmd.get("name"))  # type: ignore[arg-type]
    if spec is None or st.step not in spec[1] or not conventions(st, AHEAD_ROLLS) or not two_party(st) \
            or cmd.get("by") not in SIDES or not rules_for(st).answered_by_chain(chain_of(st, other(cmd["by"])) is not None, False):
        return None
    return spec[0]


def may_commit_ahead(st, side: str) -> list[str]:
    """Ruling R121: the rolls `side` may commit now ahead of their steps, not yet committed (what `sync` names)."""
    if st.pbem is None or st.ended:
        return []
    prop = st.pbem.proposal
    if prop is not None and not _acts_meanwhile(st, prop, side):
        return []  # its own proposal (or one it must answer first) awaits: no roll of its is taken now (ruling R71)
    made = {r.command.get("name") for r in st.pbem.requests.values() if r.side == side}
    if not st.card.campaign.disease:  # 3.41: only invoked by FSR
        made.add("disease")
    return [n for n in AHEAD if n not in made and ahead(st, {"name": n, "by": side, "side": side}) is not None]


def later(st, request: DiceRequest) -> bool:
    """Ruling R121: whether `request` is a roll committed ahead of a step not reached yet (it holds this one
    nothing: its result allows nothing here, and its answer, given at once, decides it only at its step)."""
    step = request.command.get("ahead")
    return step is not None and step != st.step


def due(st) -> list[tuple[str, DiceRequest]]:
    """Ruling R121: the rolls committed ahead of this step and answered: decided now, by whichever side's ledger
    acts first here (both values are in the log: the roller's shown with its commitment, R83)."""
    if st.pbem is None:
        return []
    return [(c, r) for c, r in st.pbem.requests.items()
            if r.answer is not None and r.value is not None and r.command.get("ahead") == st.step]


def unanswered(st, by: str) -> bool:
    """Ruling R84: whether the other side's two-party dice wait for `by`'s answer (a command of `by`'s
    answers them first: the answer is no choice of its own, and its command may need the roll decided)."""
    return two_party(st) and rules_for(st).answers_first(
        any(r.side != by and r.answer is None for r in st.pbem.requests.values()) or bool(due(st)))


def needs_chain(st, side: str) -> bool:
    """Whether `side` commits to a new chain of answers in its next bundle (ruling R83)."""
    # from the first bundle after the other side's first signature (before it the other side has no copy
    # to roll in, and the campaign's first bundle stays as it was)
    return two_party(st) and rules_for(st).needs_chain(
        st.pbem.signed[other(side)] is not None, chain_of(st, side) is not None)
