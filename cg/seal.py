"""Play by email, sealed secrets (ruling R47): what PL makes secret stays the acting player's until the
rules reveal it, and is checked then.

PL makes secret the 2.1 CP DR, the 2.3 purchases and the CP spent, the 2.36 leader DRs and the 3.44
Battlefield Promotion dr. In a campaign played by email (a campaign whose keys say `sealed`), every
command a side gives at 2.1, 2.3 and 3.44 (and the reveal of its two-party dice there) is appended as
a `sealed` event instead of its events:

- its opening {"command": the command as decided (with the ledger's dice), "events": what it decided
  less the CP balances they leave behind, "salt": 32 random bytes} hashed: `commitment` = sha256 of
  the opening's canonical JSON;
- the opening encrypted to the side's own key (ChaCha20-Poly1305, key = HMAC(private key, nonce)):
  `box`. Both copies hold it; only that side's key opens it, so a player's secret lives in the shared
  history itself and either copy can reveal it.

The fold applies the opening's events where the seal stands when the viewer can open it (its own key, or the log holds
its reveal); the audit decides the command there again and compares. A seal it cannot open is
only its public part: that the side rolled its CP (`what` cp) or promotion dr, bought something, and
the two-party dice it asks for or resolves. A side whose CP DR is sealed has unknown CP in that view.

The rules reveal (`plcg reveal` makes a `seals_revealed` event at each point):
- 2.4: the Attack Option (2.4 announces it), and only it; a side with sealed purchases says so even
  when it bought none, so the 2.41 determination waits for both;
- 2.6: every 2.3 purchase not revealed yet (setup shows the OB; entering units included);
  an Idle Firefight skips 2.6: at 2.4 once 2.41 has determined it Idle (ruling R80, switch idle_reveal);
- 3.44: the promotion dr and the hardening before the step is left (the step that reads the dr);
- end: everything left, the 2.1 CP DRs with it, so the final audit checks overspending.
A side that owes a reveal is blocked where the rules need it, and `pending` says whose reveal is owed.
"""
from __future__ import annotations

import contextvars
import hashlib
import hmac
from typing import cast

import orjson

from events.errors import BadInput, Refused
from events import osrandom
from cg.items import key_of
from cg.rules import rules_for
from cg.state import DiceRequest, Done, RevealPoint, Seal
from cg.sequence import StepId, step_id
from cg.specs import Item
from cg.units import article

SECRET_STEPS = ("2.1", "2.3", "3.44")
# what a sealed command is publicly, by its name: the name itself is public for the compulsory rolls
# (everyone knows a side rolls its CP), hidden for the purchases
WHAT = {"cp": "cp", "buy": "purchase", "patrols": "purchase", "attack": "purchase", "fortify": "purchase",
        "oba": "purchase", "leader": "purchase", "promote": "promote", "harden": "harden"}
WHAT_AT = {"2.1": ("cp",), "2.3": ("purchase", "attack"), "2.6": ("hidden", "concealed"), "3.44": ("promote", "harden")}
SECRET_PLACED = ("ap_mine", "at_mine")  # ruling R112: B28.1's secretly recorded minefields (a Known one shows, R22)
HIDDEN_AT = "2.6"  # ruling R112: a HIP setup is sealed (kind `hidden`), revealed at 2.9 (the firefight's own revelation)
SET_UP_UNSEEN = ("hidden", "concealed")  # ruling R112: a HIP setup (nothing shows) and a concealed one (a "?" stack)
# the steps the seals' checks of every command ask about (a member looked up on StepId goes through the enum
# class's __getattr__ hook: ~0.15 us, asked several times by each command of a campaign by email)
_STEP_PURCHASE, _STEP_DETERMINATION, _STEP_SETUP = StepId.PURCHASE, StepId.DETERMINATION, StepId.SETUP
_STEP_PROMOTIONS, _STEP_FIREFIGHT_END, _STEP_END = StepId.PROMOTIONS, StepId.FIREFIGHT_END, StepId.END


def kind(st, name: str | None, cmd: dict | None = None) -> str | None:
    """What a sealed command of this name is publicly. Rules revision 3 (switch attack_seal, ruling R69,
    issue 25 item 10): the Attack Option is a seal of its own kind, `attack`, which every side makes at 2.3 of a
    firefight after the first and opens at 2.4: both copies can tell that the reveal holds it. Ruling R109
    (issue 37 attack 3): the ledger makes it, yes or no (`attack SIDE` with `announce`), as the side leaves 2.3,
    so its place in the log tells nothing; the typed `attack SIDE` is a purchase like any other. A log of
    before R109 holds the typed yes as the `attack` seal itself (`_seal` takes it)."""
    if name == "attack" and attack_seal(st):
        return "attack" if cmd is not None and ("announce" in cmd or cmd.get("none")) else "purchase"
    if name == "setup":  # ruling R112: a unit set up HIP shows the other copy nothing (A12.3) until 2.9, a concealed
        # one a "?" stack in its hex (A12.1: the concealment counter shows where, not what)
        return None if cmd is None else "hidden" if cmd.get("hip") else "concealed" if cmd.get("concealed") else None
    if name == "fortify" and st.step == HIDDEN_AT:  # ruling R112: mines placed at 2.6 are recorded secretly (B28.1)

        return "hidden" if cmd is not None and key_of(str(cmd.get("kind") or "")) in SECRET_PLACED else None
    return WHAT.get(name) if name is not None else None


def attack_seal(st) -> bool:
    return rules_for(st).seals_attack_choice(sealing(st))


def owes_attack_seal(st, side: str) -> bool:
    """Whether `side` must still make its yes/no Attack Option seal before 2.3 is left."""
    if not attack_seal(st) or st.step != StepId.PURCHASE or st.initial:
        return False
    return not any(r.side == side and r.what == "attack" and r.ff == st.firefight
                   for r in st.pbem.seals.values()) \
        and RevealPoint(st.firefight, "2.4", side) not in st.pbem.points
POINTS = ("2.4", "2.6", "2.9", "3.44", "end")
PUB_PREFIX = "ed25519:"  # a public key as one line


# ---- crypto: a salted hash and a box only its side's key opens ----------------------------------------

def canonical(obj) -> bytes:
    return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS)


def commitment_of(opening: dict) -> str:
    return hashlib.sha256(canonical(opening)).hexdigest()


def keyed():
    """cg/crypto.py, the keyed operations (the seals' boxes, the signatures' checks): only a campaign with keys
    takes it (cg/pbem.py's checks come through here too)."""
    from cg import crypto  # lazy: cryptography (~4-6 ms) only in a campaign with keys

    return crypto


def raw_private(sk) -> bytes:
    """The Ed25519 private key's 32 bytes: the HMAC key of what a player derives from it (cg/pbem.py's
    two-party value, the seals' box keys)."""
    return sk.private_bytes_raw()


def public_line(sk) -> str:
    """The public key as one line `ed25519:HEX` (what `plcg keys new` prints and campaign_started holds)."""
    return PUB_PREFIX + sk.public_key().public_bytes_raw().hex()


def _box_key(sk, nonce: str) -> bytes:
    return hmac.new(raw_private(sk), f"plcg seal {nonce}".encode(), hashlib.sha256).digest()


BOX_CLASS = 1024  # bytes: every opening is padded to this, or to the next power of two above it


def padded(text: bytes) -> bytes:
    """The opening's JSON padded with spaces (JSON's own whitespace: it opens as before) to its size
    class: a box's length tells nothing the rules keep secret (issue 25 item 7: an Attack Option was
    the only box under 221 bytes, the CP DR boxes narrowed the CP gained). Every opening the ledger
    makes fits the first class; a larger one shows only that it is larger."""
    size = BOX_CLASS
    while size < len(text):
        size *= 2
    return text + b" " * (size - len(text))


def seal_box(sk, nonce: str, opening: dict) -> str:
    return keyed().box(_box_key(sk, nonce), padded(canonical(opening))).hex()  # a fresh key per nonce


def open_box(sk, nonce: str, box: str) -> dict | None:
    try:
        text = keyed().unbox(_box_key(sk, nonce), bytes.fromhex(box))
        return None if text is None else orjson.loads(text)
    except (ValueError, orjson.JSONDecodeError):
        return None


BALANCES = {"cp_replenished": "total", "rg_bought": "cp_left", "patrols_bought": "cp_left",
            "attack_bought": "cp_left"}  # what an opening leaves out: CP in hand, revealed at the CG's end


def opened_events(events: list, unstructure) -> list:
    """The events an opening holds: [type, payload], each without the CP balance it leaves behind
    (the fold derives it; CP left is the side's secret until the CG's end)."""
    out = []
    for e in events:
        p = unstructure(e)
        drop = BALANCES.get(e.TYPE)
        if drop:
            p = {k: v for k, v in p.items() if k != drop}
        out.append([e.TYPE, p])
    return out


def make(sk, side: str, what: str, cmd: dict, events: list, unstructure) -> tuple[dict, dict]:
    """(the `seal` command stored in place of `cmd`, the opening). `events`: what `cmd` decided."""
    opening = {"command": cmd, "events": opened_events(events, unstructure), "salt": osrandom.token_hex(32)}
    nonce = osrandom.token_hex(16)
    first = events[0] if events else None
    opens = first.commit if first is not None and first.TYPE == "dice_committed" else None
    closes = cmd.get("request") if cmd["name"] == "reveal" else None
    public = {"name": "seal", "by": side, "what": what, "commitment": commitment_of(opening), "nonce": nonce,
              "box": seal_box(sk, nonce, opening)}
    if opens:
        public["opens"] = opens
    if closes:
        public["closes"] = closes
    if what == "concealed":  # ruling R112: the "?" stack's hex is public (A12.1), the unit in it is not
        public["hex"] = events[0].hex
    return public, opening


# ---- which commands are sealed ---------------------------------------------------------------------

def sealing(st) -> bool:
    return st.pbem is not None and bool(st.pbem.sealing)


def secret(st, cmd: dict, events: list) -> str | None:
    """What `cmd` (a keyed command, `by` set, decided to `events`) is publicly when it is sealed in this
    campaign at this step; None: it is not sealed."""
    if not sealing(st) or st.step not in SECRET_STEPS + (HIDDEN_AT,) or not (events or cmd.get("none")):
        return None
    name = cmd.get("name")
    closes = None
    if name == "reveal":  # two-party dice of a secret roll: revealing them shows the result
        closes = cmd.get("request")
        r = st.pbem.requests.get(closes)
        name = r.command.get("name") if r is not None else None
    elif events and events[0].TYPE == "dice_committed" and name in ("cp", "promote"):
        return None  # the roll itself is no secret (the rules owe it); its result is, at the reveal
    what = kind(st, name, cmd)
    if what is None or what not in sealed_here(st, closes) or cmd.get("generated"):
        return None
    return what


def sealed_here(st, closes=None) -> tuple:
    """What a seal may be at this step: WHAT_AT's, and `cp` for the reveal of a 2.1 CP DR made at 2.3 (ruling
    R120: its result is the side's secret until the CG's end, wherever it is revealed)."""
    r = st.pbem.requests.get(closes) if isinstance(closes, str) else None
    late = ("cp",) if r is not None and r.sealed_at == StepId.CP and st.step == StepId.PURCHASE else ()
    return WHAT_AT.get(st.step, ()) + late


# ---- the viewer: which seals this fold can open ---------------------------------------------------

def opening_of(st, commitment: str, nonce, box) -> dict | None:
    """The opening of the seal `commitment` (its box: `nonce`, `box`) as the state's reader has it (`st.view`,
    the Opener its fold was given: the Ledger's with its key and the log's reveals, the audit's and the AAR's
    with the reveals alone), else None."""
    return st.view(commitment, nonce, box) if st.view is not None else None


class Opener:
    """The openings a viewer has: the reveals the log holds (read once, on the first seal met) and,
    with a key, its own side's boxes. `key`: the private key, or a function giving it (asked once,
    only when a seal is met)."""

    def __init__(self, revealed, key=None):
        self._revealed = revealed  # callable -> {commitment: opening}, read lazily
        self._known: dict | None = None
        self._key_src = key
        self._side_of = None  # the key's side, once asked
        self._cache: dict = {}

    @property
    def key(self):
        if callable(self._key_src):
            self._key_src = self._key_src()
        return self._key_src

    def add(self, commitment: str, opening: dict) -> None:
        self._cache[commitment] = opening

    def revealed(self) -> dict:
        """{commitment: opening} of the log's reveals, read once: another view of the same log (another
        key) can share it rather than hold a second copy (issue 36: the audit's and its reader's)."""
        if self._known is None:
            self._known = self._revealed()
        return self._known

    def _in_log(self, commitment: str) -> dict | None:
        """The log's reveal of the seal, if it matches its commitment (one that does not is refused
        at its unseal; the seal stays shut)."""
        got = self.revealed().get(commitment)
        return got if got is not None and commitment_of(got) == commitment else None

    def can_open(self, commitment: str, side: str, keys: dict) -> bool:
        """Whether this view opens the seal, without opening it: the log reveals it, or it is the
        key's own side's (its box opens with the key that made it)."""
        if commitment in self._cache:
            return self._cache[commitment] is not None
        if self._in_log(commitment) is not None:
            return True
        if self.key is None:
            return False
        if self._side_of is None:
            pub = public_line(self.key)
            self._side_of = next((s for s, k in keys.items() if k == pub), "")
        return side == self._side_of

    def __call__(self, commitment: str, nonce, box):
        if commitment in self._cache:
            return self._cache[commitment]
        got = self._in_log(commitment)
        if got is None and self.key is not None and box:
            got = open_box(self.key, nonce, box)
            if got is not None and commitment_of(got) != commitment:
                got = None
        self._cache[commitment] = got
        return got


def log_openings(store) -> dict:
    """{commitment: opening} of every reveal in the log (ruling R47)."""
    out = {}
    for _, text in store.payloads_of("seals_revealed"):
        for o in orjson.loads(text).get("openings") or ():
            if isinstance(o, dict) and isinstance(o.get("commitment"), str) and isinstance(o.get("opening"), dict):
                out[o["commitment"]] = o["opening"]
    return out


# ---- the fold ------------------------------------------------------------------------------------

def apply_sealed(st, p, fold_opened) -> None:  # fold_opened(st, [(type, payload), ...]): cg/evolve's one loop
    """evolve's `sealed`: record the seal; apply its command where it stands if the viewer opens it."""
    side, what, c = p.side, p.what, p.commitment
    opening = opening_of(st, c, p.nonce, p.box)
    opened = opening is not None and isinstance(opening.get("events"), list)
    st.pbem._by_kind = None  # the index of the seals (_unrevealed): built again when asked
    st.pbem.seals[c] = Seal(side, what, st.firefight, st.step, p.at, p.nonce, p.box, opened, p.opens, p.closes,
                            p.hex)
    if opened and opening is not None:  # opened: it is set
        fold_opened(st, opening["events"])
        return
    # not opened here: only the public part
    if p.opens:
        st.pbem.requests[p.opens] = DiceRequest(side, {"name": "sealed", "what": what}, None)
    if p.closes:
        st.pbem.requests.pop(p.closes, None)
    if what in ("cp", "promote") and not p.opens:
        st.reph.done.add(Done(what, side))
    if what in SET_UP_UNSEEN:  # ruling R112: a HIP or concealed setup unseen is still a setup begun (2.41's order, R51)
        st.reph.done.add(Done("setup", side))
    if what == "cp":
        st.pbem.cp_sealed[side] = True


# ruling R119: set while a `next` or `confirm` marked `sealed_rolls` is decided: 2.3's sealed rolls, answered, owe
# their reveal by 2.6 (decided as of 2.3 there), not before 2.3 is left
LEAVING_SEALED: contextvars.ContextVar[bool] = contextvars.ContextVar("plcg_leaving_sealed", default=False)
# ruling R119: a sealed 2.3 roll's reveal waits at 2.4 and 2.5 (2.6 shows the purchases); ruling R120: a 2.1 CP DR's
# at 2.2 (the side reveals it, sealed, at 2.3, before it buys with the CP)
_WAITS_AT = {StepId.PURCHASE: (StepId.DETERMINATION, StepId.MLR_REDEPLOYMENT), StepId.CP: (StepId.WEATHER,)}


def deferred(st, r: DiceRequest) -> bool:
    """Ruling R119: a sealed 2.3 roll, answered, whose reveal waits for 2.6 (where the purchase it belongs to is
    revealed; 2.4 where an Idle Firefight reveals them, ruling R80): as 2.3 is left (a `next` or `confirm`
    marked `sealed_rolls`), and at 2.4 and 2.5."""
    if r.answer is None:
        return False
    if r.command.get("ahead") is not None:  # ruling R121: a roll committed ahead of its step: from a chain, decided
        # there by the ledger, never revealed by its side; a sealed one (3.44's, R44) revealed by its side there
        return r.value is not None or r.command["ahead"] != st.step
    if st.step in _WAITS_AT and r.sealed_at is None:  # 2.1 or 2.3 is being left: every roll of it is sealed (R47)
        return LEAVING_SEALED.get() and sealing(st)
    return r.sealed_at is not None and st.step in _WAITS_AT[step_id(r.sealed_at)] and owed(st, r.side) is None


def defer_sealed_rolls(st) -> None:
    """Ruling R119: 2.3 is left (a `next` or `confirm` marked `sealed_rolls`) with sealed rolls of its answered
    and not yet revealed (a 2.36 leader DR, a 2.35 OBA DR): each is marked as 2.3's, revealed at 2.6 and decided
    as of 2.3 there; ruling R120: so is 2.1 with its CP DR, revealed (sealed) at 2.3 and decided as of 2.1. A log
    of before the rulings never left either with one open: its states are as they were."""
    if st.step in _WAITS_AT and sealing(st):
        for r in st.pbem.requests.values():
            r.sealed_at = st.step.value


def apply_revealed(st, p) -> None:
    side, point = p.side, p.point
    st.pbem.points.append(RevealPoint(st.firefight, point, side) if point != StepId.END else RevealPoint(None, "end", side))
    seals = st.pbem.seals  # only the seals not yet revealed: a revealed one leaves (the state stays small)
    st.pbem._by_kind = None  # the index of the seals (_unrevealed): built again when asked
    for o in p.openings:
        rec = seals.pop(o.get("commitment"), None)
        if rec is None:
            continue
        st.pbem.revealed_n[side] += 1
        if not rec.opened:
            st.pbem.stale = True  # folded without it: the ledger folds the log again with it open


def concealed_stacks(st) -> dict[str, list[str]]:
    """{hex: [side, ...]}: the "?" stacks this view sees and cannot open (ruling R112, A12.1: a concealed unit's
    setup shows its hex, not the unit), one entry a unit, until 2.9 reveals them."""
    out: dict[str, list[str]] = {}
    pb = getattr(st, "pbem", None)  # the AAR's map state of a firefight's end has none: 2.9 revealed them
    if pb is None:
        return out
    for r in pb.seals.values():
        if r.what == "concealed" and not r.opened and r.hex:
            out.setdefault(r.hex, []).append(r.side)
    return out


def cp_unknown(st, side: str) -> bool:
    """This view does not know the side's CP: its 2.1 CP DR is sealed (the overspending check waits
    for the reveal at the CG's end)."""
    return st.pbem is not None and bool(st.pbem.cp_sealed.get(side))


def cp_hidden(st, side: str) -> bool:
    """This view does not know the side's CP in hand: its CP DR is sealed, or a purchase of its that
    this view cannot open is (the CP it spent). Shown as sealed, never as a figure (issue 25 item 13)."""
    if st.pbem is None:
        return False
    return cp_unknown(st, side) or any(r.side == side and r.what in ("purchase", "attack") and not r.opened
                                       for r in st.pbem.seals.values())


def opened_secrets(st) -> bool:
    """Whether the state holds a seal opened by the viewer's key and not revealed yet: such a state is
    the player's alone and is never stored as a snapshot (a copy handed over for `audit --against`
    would show it; issue 25 item 13)."""
    return st.pbem is not None and any(r.opened for r in st.pbem.seals.values())


def card_cp(card, side: str, n: int) -> int | None:
    """2.1 EXC: the CP the CG Card gives SIDE for firefight N instead of the 2.12 DR; None where it rolls."""
    provided = card.sides[side].cp_provided  # the later firefights', the 2nd first
    return provided[n - 2] if 0 <= n - 2 < len(provided) else None


def public_cp(st) -> dict[tuple[int, str], int]:
    """{(firefight, side): CP} of the sealed 2.1 records this view cannot open whose CP the CG Card gives
    (2.1 EXC): public by the card, so never shown sealed (issue 38). The fold applied none of them, so the
    view's CP left lacks each from its firefight on."""
    if st.pbem is None:
        return {}
    return {(r.ff, r.side): cp for r in st.pbem.seals.values()
            if r.what == "cp" and not r.opened and (cp := card_cp(st.card, r.side, r.ff)) is not None}


def cp_in_hand(st, side: str) -> int | None:
    """SIDE's CP in hand as this view knows it: None where cp_hidden, but for the sealed 2.1 records whose CP
    the card gives (public_cp): those are public and added, the fold having applied none of them."""
    if not cp_hidden(st, side):
        return st.sides[side].cp
    given = public_cp(st)
    if any(r.side == side and not r.opened and (r.what in ("purchase", "attack")
                                                 or (r.what == "cp" and (r.ff, side) not in given))
           for r in st.pbem.seals.values()):
        return None
    return st.sides[side].cp + sum(cp for (_n, s), cp in given.items() if s == side)


def unknown_figures(st) -> set[tuple[int, str, str]]:
    """(firefight, side, figure) this view cannot know (ruling R47): cp_gained of a sealed CP DR,
    cp_spent of a firefight with a sealed purchase, cp_left from the first of either on. CP the card
    gives (public_cp) are known."""
    out: set = set()
    if st.pbem is None:
        return out
    last = len(st.firefights)
    given = public_cp(st)
    for r in st.pbem.seals.values():
        if r.opened or r.what not in ("cp", "purchase", "attack") or (r.what == "cp" and (r.ff, r.side) in given):
            continue
        out.add((r.ff, r.side, "cp_gained" if r.what == "cp" else "cp_spent"))
        out |= {(n, r.side, "cp_left") for n in range(r.ff, last + 1)}
    return out


# ---- what is owed, and where it blocks ------------------------------------------------------------

def unseen_purchases(st, side: str) -> bool:
    """This view holds a 2.3 seal of SIDE's, this firefight, that it cannot open: what SIDE still owes for its
    public purchases (an OB given's 2.36 leader DR, its 2.35 OBA DR) may be inside it, so this view does not
    owe it on SIDE's behalf; SIDE's own view does, and the reveal at 2.6 decides the 2.3 `next` again with
    the seal open (ruling R47)."""
    return sealing(st) and any(r.side == side and r.what == "purchase" and not r.opened
                               and r.ff == st.firefight and r.step == StepId.PURCHASE
                               for r in st.pbem.seals.values())


def unrevealed_purchases(st, side: str) -> bool:
    """Whether SIDE holds a 2.3 purchase of the current firefight not yet revealed (ruling R117)."""
    return sealing(st) and _any_unrevealed(st, side, ("purchase",), st.firefight)


def _index(pb) -> dict:
    """The play by email state's index of its seals not revealed yet (`Pbem._by_kind`): side -> [(n, commitment,
    Seal)] and (side, kind) -> the same, n the order sealed; built again when the seals have changed (the fold
    empties it)."""
    seals, memo = pb.seals, pb._by_kind
    if memo is None or memo[0] is not seals or memo[1] != len(seals):
        index: dict = {}
        for n, (c, r) in enumerate(seals.items()):
            index.setdefault(r.side, []).append((n, c, r))
            index.setdefault((r.side, r.what), []).append((n, c, r))
        memo = pb._by_kind = (seals, len(seals), index)
    return memo[2]


def _unrevealed(st, side: str, whats=None, ff=None) -> list:
    """[(commitment, Seal)] of SIDE's seals not revealed yet, in the order sealed: of the kinds `whats`
    (None: every kind), of firefight `ff` (None: any). Asked by every command at 2.4, 2.6 and 3.44
    (`owed`), where a sealed CP DR stays to the CG's end: through the state's index of the seals by side
    and kind (`_index`)."""
    index = _index(st.pbem)
    if whats is None:
        got = index.get(side, ())
    elif len(whats) == 1:
        got = index.get((side, whats[0]), ())
    else:  # the kinds' lists merged back into the order sealed
        got = sorted(x for w in whats for x in index.get((side, w), ()))
    return [(c, r) for _, c, r in got if ff is None or r.ff == ff]


def _any_unrevealed(st, side: str, whats=None, ff=None) -> bool:
    """Whether `_unrevealed(st, side, whats, ff)` holds any seal, without making its list: the question every
    command of a campaign by email asks (`owed`, `check_unseen_units`), nearly always answered no."""
    pb = st.pbem
    memo = pb._by_kind  # (the index as _index keeps it, asked without a call where it stands)
    index = memo[2] if memo is not None and memo[0] is pb.seals and memo[1] == len(pb.seals) else _index(pb)
    if whats is None:
        got = index.get(side, ())
        return bool(got) and (ff is None or any(r.ff == ff for _, _, r in got))
    for w in whats:
        got = index.get((side, w), ())
        if got and (ff is None or any(r.ff == ff for _, _, r in got)):
            return True
    return False


def owed(st, side: str) -> str | None:
    """The reveal point `side` owes now (None: nothing)."""
    # asked by every command at 2.4, 2.6 and 3.44 (check_owed): the steps as the module's constants (_STEP_*),
    # each `StepId.X` being a lookup through the enum class's __getattr__ hook
    pb = st.pbem
    if pb is None or not pb.sealing:  # sealing(st)
        return None
    pos = st.position
    if pos.ended:
        return "end" if _any_unrevealed(st, side) else None
    step = pos.step
    if step == _STEP_DETERMINATION and _any_unrevealed(st, side, ("attack",) if attack_seal(st) else ("purchase",),
                                                       pos.firefight) \
            and RevealPoint(pos.firefight, "2.4", side) not in pb.points:
        return "2.4"
    if step == _STEP_SETUP and _any_unrevealed(st, side, ("purchase",)):
        return "2.6"
    if step == _STEP_DETERMINATION and idle_reveal(st) and _any_unrevealed(st, side, ("purchase",)):
        return "2.6"  # ruling R80: what 2.6 reveals, where an Idle Firefight skips it
    if step == _STEP_PROMOTIONS and _any_unrevealed(st, side, ("promote", "harden"), pos.firefight):
        return "3.44"
    if step == _STEP_FIREFIGHT_END and _any_unrevealed(st, side, SET_UP_UNSEEN):
        return "2.9"  # ruling R112: the firefight has revealed what it revealed; the RePh reads where each unit stood
    return None


def due(st, side: str, point: str, openable) -> list[str]:
    """The commitments `side` reveals at `point`, as its own copy knows them (openable(c) -> opening)."""
    if point == StepId.END:
        return [c for c, _ in _unrevealed(st, side)]
    if point == StepId.DETERMINATION and attack_seal(st):  # the yes/no seal: public, so both copies know what is due
        return [c for c, _ in _unrevealed(st, side, ("attack",), st.firefight)]
    if point == StepId.DETERMINATION:
        out = []
        for c, _ in _unrevealed(st, side, ("purchase",), st.firefight):
            o = openable(c)
            if o is not None and o["command"].get("name") == "attack":
                out.append(c)
        return out
    if point == StepId.SETUP:
        return [c for c, _ in _unrevealed(st, side, ("purchase",))]
    if point == StepId.FIREFIGHT_END:
        return [c for c, _ in _unrevealed(st, side, SET_UP_UNSEEN)]
    return [c for c, _ in _unrevealed(st, side, ("promote", "harden"), st.firefight)]


def idle_reveal(st) -> bool:
    """Ruling R80 (revision switch idle_reveal): 2.41 has determined an Idle Firefight, which skips 2.6 and
    goes to the RePh: the purchases 2.6 would reveal are revealed at 2.4 instead, before it is left."""
    return rules_for(st).reveals_purchases_at_2_4(st.ff.type)


_REVEAL_STEPS = (StepId.DETERMINATION, StepId.SETUP, StepId.PROMOTIONS)  # where a reveal point may block
_HELD_BY_REVEALS = ("determine", "next", "setup", "moves-first")  # the commands a reveal owed may block
_TAKEN_BEFORE_2_9_REVEAL = ("reveal", "unseal", "sign", "answer", "chain", "confirm", "reject", "undo")  # ruling R112


def reveals_first(st) -> list[str]:
    """Ruling R112: the sides that owe their 2.9 reveal, before which no command of 2.9 is taken (`end` included)."""
    if not sealing(st) or st.step != StepId.FIREFIGHT_END:
        return []
    return [side for side in ("axis", "allied") if owed(st, side) == StepId.FIREFIGHT_END]


def check_owed(st, cmd: dict) -> None:
    """Refused (exit 3) where a reveal the rules need is owed first."""
    pb = st.pbem  # (asked of every command of a campaign by email: the common path kept short, see owed)
    if pb is None or not pb.sealing:  # sealing(st)
        return
    name = cmd.get("name")
    step = st.step
    if name in ("next", "confirm") and step == _STEP_PURCHASE:
        prop = pb.proposal
        sides = (cmd.get("by"),) if name == "next" else \
            ("axis", "allied") if prop and prop.command.get("name") == "next" else ()
        for side in sides:
            if owes_attack_seal(st, cast(str, side)):  # a keyed command: its `by` is set
                raise Refused(f"{side} owes its sealed Attack Option choice, yes or no, before 2.3 is left (2.4"
                              " opens it)", "2.4", st.step)
    if step == _STEP_FIREFIGHT_END and name not in _TAKEN_BEFORE_2_9_REVEAL:
        for side in reveals_first(st):  # ruling R112: every command of 2.9 may read where a HIP unit stood
            raise Refused(f"{side} owes the reveal of its sealed {_POINT_WHAT['2.9']} first (plcg reveal)",
                          "2.9", st.step)
    if name not in _HELD_BY_REVEALS or step not in _REVEAL_STEPS:
        return  # asked of every command: what blocks is a handful of commands at three steps
    actor = cmd.get("side") or cmd.get("by")
    # (every setup asks) only the acting side's reveal blocks a setup or moves-first: nothing to ask of the other
    sides = ("axis", "allied") if name not in ("setup", "moves-first") else \
        ("axis",) if actor == "axis" else ("allied",) if actor == "allied" else ()
    for side in sides:
        point = owed(st, side)
        if point is None or point == _STEP_END:
            continue
        blocks = ((point == _STEP_DETERMINATION and name == "determine")
                  or (point == _STEP_SETUP and ((name == "next" and (side == actor or not _first_done(st, cmd)))
                                                or (name in ("setup", "moves-first") and actor == side)))
                  or (point == _STEP_PROMOTIONS and name == "next"))
        if blocks and point == _STEP_SETUP and step == _STEP_DETERMINATION:
            raise Refused(f"{side} owes the reveal of its sealed {_POINT_WHAT['idle']} first (plcg reveal)",
                          "2.41", st.step)
        if blocks:
            raise Refused(f"{side} owes the reveal of its sealed {_POINT_WHAT[point]} first (plcg reveal)",
                          point, st.step)


def _first_done(st, cmd: dict) -> bool:
    """Ruling R119: the side that sets up first (2.41) says it has set up (R110's `next`) while the other side
    still owes its 2.6 reveal: its setup never waited for the other's purchases (a `setup` does not), so neither
    does its `next`; the other side's `next`, after its reveal, confirms it."""
    return bool(cmd.get("setups")) and st.ff.setup_first == cmd.get("by")


_POINT_WHAT = {"2.4": "purchases' Attack Option (2.4 announces it)", "2.6": "purchases (2.3; setup shows them)",
               "3.44": "promotion dr and hardening (3.44)", "end": "secrets (the CG has ended)",
               "2.9": "HIP setups, concealed setups and mines (2.6; the firefight has revealed them, ruling R112)",
               "idle": "purchases (2.3; the Idle Firefight skips 2.6, ruling R80)"}


UNIT_KEYS = ("unit", "item", "leader", "vehicle")  # the keys of a command that name one unit
UNITS_KEYS = ("units", "lost")  # ... and a list of them


def check_unseen_units(st, cmd: dict) -> None:
    """Refused (exit 3) where a command outside the secret steps names a unit of its side's purchase still
    sealed in the other copy (ruling R47: revealed at 2.6; an Idle Firefight's at 2.4 under ruling R80, before
    its RePh names them): the other copy could not check it, and would refuse the bundle for good. Revision switch
    sealed_views_agree."""
    by = cmd.get("by")
    pb = st.pbem  # (sealing(st), asked of every command)
    if by not in ("axis", "allied") or not rules_for(st).checks_units_named(
            pb is not None and bool(pb.sealing) and st.step not in SECRET_STEPS):
        return
    if not _any_unrevealed(st, by, ("purchase",)):  # (asked of every command: the side's purchases are nearly always revealed)
        return
    sealed = _unrevealed(st, by, ("purchase",))
    given = [cmd.get(k) for k in UNIT_KEYS] + [u for k in UNITS_KEYS for u in (cmd.get(k) or ())]
    named = {str(u).strip().casefold() for u in given if isinstance(u, str) and u.strip()}
    if not named:
        return
    for c, rec in sealed:
        opening = opening_of(st, c, rec.nonce, rec.box)
        for etype, payload in (opening or {}).get("events", ()):
            refs = list(payload.get("units") or ()) if etype == "rg_bought" else \
                [payload["unit"]] if etype == "leader_rolled" and payload.get("unit") else []
            for ref in refs:
                uid = ref["id"] if isinstance(ref, dict) else ref[0]
                if uid.casefold() in named:
                    raise Refused(f"{uid} belongs to {by}'s purchase still sealed in the other copy (ruling R47: "
                                  "revealed at the next 2.6): the other copy could not check this command",
                                  "pbem", st.step)


def pending_items(st) -> list[Item]:
    out: list[Item] = []
    if not sealing(st):
        return out
    for side in ("axis", "allied"):
        point = owed(st, side)
        if point is not None:
            said = "idle" if point == StepId.SETUP and st.step == StepId.DETERMINATION else point
            out.append(Item.of("reveal", "pbem", f"{side} owes the reveal of its sealed {_POINT_WHAT[said]}", False,
                               runnable_first=True))
    return out


def check_unseal(st, cmd: dict, opened) -> None:
    """The `unseal` command's checks: the point is owed, each opening matches its commitment and is the
    side's, the set is what the point reveals (as far as this view can tell: `opened(c)` gives the
    opening this view holds for a seal not in the command)."""
    by, point, openings = cmd["by"], cmd.get("point"), cmd.get("openings")
    if point not in POINTS or not isinstance(openings, list):
        raise BadInput("unseal: a point (2.4, 2.6, 3.44, end) and a list of openings are needed")
    if owed(st, by) != point:
        raise Refused(f"{by} owes no reveal at {point} here", "pbem", st.step)
    given = {}
    for o in openings:
        c = o.get("commitment") if isinstance(o, dict) else None
        rec = st.pbem.seals.get(c) if isinstance(c, str) else None
        if rec is None or rec.side != by:
            raise Refused(f"{by} reveals {str(c)[:8]}: not a seal of its own still sealed", "pbem", st.step)
        c = cast(str, c)  # the seal was found by it
        op = o.get("opening")
        if not isinstance(op, dict) or commitment_of(op) != c:
            raise Refused(f"{by}'s opening of {c[:8]} does not match its commitment", "pbem", st.step)
        if not isinstance(op.get("command"), dict) or op["command"].get("by") != by:
            raise Refused(f"{by}'s opening of {c[:8]} holds a command that is not its own", "pbem", st.step)
        given[c] = op
    if point == StepId.DETERMINATION and not attack_seal(st):
        for c, op in given.items():
            if op["command"].get("name") != "attack":
                raise Refused(f"2.4 reveals the Attack Option only: {c[:8]} is {article(op['command'].get('name'))}",
                              "2.4", st.step)
        for c, _ in _unrevealed(st, by, ("purchase",), st.firefight):
            op = opened(c)
            if c not in given and op is not None and op["command"].get("name") == "attack":
                raise Refused(f"{by} hides the Attack Option it bought ({c[:8]}): 2.4 announces it", "2.4", st.step)
    else:
        want = set(due(st, by, point, opened))
        if set(given) != want:
            raise Refused(f"{by} must reveal at {point} exactly its {len(want)} sealed"
                          f" {_POINT_WHAT[point].split(' (')[0]}", "pbem", st.step)
