"""The command registry, `decide`, and the argument checks every command shares."""
from __future__ import annotations

from typing import Callable, Literal, cast

import importlib

import attrs

from cg import dice as dicemod
from cg import pbem
from cg.rules import DUAL_DETERMINED, conventions, rules_for
from cg.dice import Dice
from cg.specs import BY_NAME, SPECS, side_arg  # noqa: F401  (the commands read side_arg here)
from cg.sequence import StepId
from events.errors import BadInput, Refused
from events import records
from cg.state import CampaignState, Pbem, expand_units
from cg.rules import counter_table  # noqa: F401  (the commands read it here)
from cg.steps import BY_ID, accepted_at, owed_by, pending
from events.roll import Drm, Roll
from cg.units import IN_PLAY, Kind
from events import types as ev  # the module: a write builds the event classes it makes (issue 36 item 2)


PRODUCT = "plcg"
RULES = "Platoon Leader 2.5"


class LeaveCheck:
    """Ruling R45 in the audit: a `next` proposed is checked as the step stands (its leave decided, nothing
    recorded but the proposal) and decided again when the other side confirms it. The leave (cg/commands/flow.py
    `_next`) reads nothing of its command and rolls no dice: it is a function of the state (and of ruling R119's
    LEAVING_SEALED) alone. So where the audit proves the state the confirmation decides it on the one it was
    checked on (cg/app/audit.py: nothing between the two but the proposal itself and signatures, which set
    only what the leave never reads), the events of the check are the leave's at the confirmation.

    decide() fills `events` (and `sealed`) at the check of a proposed `next`, while `proven` is false; the audit
    sets `proven`, and the confirmation's `next` (decide(confirmed=True), _own_dice) takes them once."""

    __slots__ = ("events", "sealed", "proven")

    def __init__(self):
        self.events: list | None = None  # the leave's events as checked at the proposal
        self.sealed = False  # LEAVING_SEALED as it stood at the check
        self.proven = False  # the audit's word: the state is the one checked (but for what the leave never reads)


@records.define
class Ctx:
    state: CampaignState
    base_seq: int  # the seq the command's first event will get: the seeded roller's position
    n_rolls: int = 0
    replay: list | None = None  # the ledger's dice recorded with the command (the audit decides again)
    rolled: list = attrs.Factory(list)  # the ledger's dice rolled now, recorded with the command
    # two-party dice (cg/pbem.py): (A, B, commit) once both values are known; "probe" while the
    # command is only being checked before its commitment (any dice do: they are not recorded)
    two_party: tuple[str, str, str] | Literal["probe", "check"] | None = None
    covered: bool = False  # a signature vouched for by a later one of its side (the audit, ruling R43)
    leave: LeaveCheck | None = None  # the audit's check of the `next` a `confirm` confirms (ruling R45, LeaveCheck)

    def dice(self, given: Dice | None, count: int) -> Dice:
        st = self.state
        tp = self.two_party
        mode = st.dice_mode  # None: a campaign started before roll sources were recorded (R32)
        if tp is None:
            if given is not None:
                if st.dice_policy == "no-typed":  # ruling R31: the campaign accepts only the ledger's dice
                    raise Refused("this campaign accepts no typed dice (new --dice-policy no-typed): omit --dice",
                                  "dice-policy", st.step)
                d = given if mode is None else attrs.evolve(given, source="typed")
            elif mode == "ledger":
                d = Dice(self._ledger(count), manual=False, source="ledger")
            else:
                d = dicemod.seeded(st.seed, self.base_seq, self.n_rolls, count)
                if mode is not None:
                    d = attrs.evolve(d, source="seeded")
        elif given is not None and tp != "check":
            raise Refused("this campaign takes two-party dice only (--dice-policy two-party): no --dice",
                          "dice-policy", st.step)
        elif tp == "probe":
            d = Dice((1,) * count)
        elif tp == "check":  # a proposal checked before it is recorded (ruling R45): nothing is rolled
            d = given or Dice((1,) * count)
        else:
            a, b, commit = tp
            d = Dice(tuple(pbem.two_party_die(a, b, commit, self.n_rolls, die) for die in range(count)),
                     source=None if mode is None else "two-party")
        self.n_rolls += 1
        return d

    def _ledger(self, count: int) -> tuple[int, ...]:
        """The OS dice (ruling R31); deciding a recorded command again, the dice it recorded (ruling R42)."""
        if self.replay is None:
            values = dicemod.os_dice(count)
            self.rolled.append(list(values))
            return values
        i = len(self.rolled)
        recorded = self.replay[i] if isinstance(self.replay, list) and i < len(self.replay) else None
        if not isinstance(recorded, list) or len(recorded) != count or \
                any(type(v) is not int or not 1 <= v <= 6 for v in recorded):
            raise BadInput(f"the ledger's dice recorded for roll {i + 1} of the command ({recorded!r}) are not"
                           f" {count} die/dice of 1-6")
        self.rolled.append(recorded)
        return tuple(recorded)


class _ByCommand(dict):
    """command -> what its step group registered (`@command`): the group's module (its spec's `module`,
    cg/specs.py) is imported the first time one of its commands is asked for, so a write imports the one
    command module it runs (issue 36 item 2); a name no spec names is missing, as before."""

    def __missing__(self, name):
        spec = BY_NAME.get(name) if isinstance(name, str) else None
        if spec is None or spec.module is None:
            raise KeyError(name)
        importlib.import_module(f"cg.commands.{spec.module}")  # its @command fills this registry
        return dict.__getitem__(self, name)

    def get(self, name: object, default=None):  # any key: a non-str one is missing
        try:
            return self[name]
        except KeyError:
            return default

    def __contains__(self, name) -> bool:
        return self.get(name) is not None

    def _every(self) -> None:  # all of them (a walk over the registry): every step group imported
        for spec in SPECS:
            if spec.module is not None:
                self.get(spec.name)

    def __iter__(self):
        self._every()
        return dict.__iter__(self)

    def __len__(self) -> int:
        self._every()
        return dict.__len__(self)

    def keys(self):
        self._every()
        return dict.keys(self)

    def values(self):
        self._every()
        return dict.values(self)

    def items(self):
        self._every()
        return dict.items(self)


HANDLERS: _ByCommand = _ByCommand()  # command -> its handler (Ctx, cmd) -> events
STEPS_OF: dict[str, tuple[str, ...]] = _ByCommand()  # command -> steps where it may be given ("*" = any)


def command(name: str, *steps: str):
    """The handler of command `name`, given at the steps that accept it (their `accepts`, cg/steps/), or
    at any step: `steps` "*"."""
    def wrap(fn):
        HANDLERS[name] = fn
        STEPS_OF[name] = steps or tuple(s.value for s in accepted_at(name))
        assert STEPS_OF[name], f"no step accepts {name}"
        return fn

    return wrap


# play by email's own commands and the shared facts (rulings R45, R68), asked of every command decide takes
_OWN, _SHARED, _SHARED_3 = frozenset(pbem.OWN), frozenset(pbem.SHARED), frozenset(pbem.SHARED_3)


def decide(state: CampaignState, cmd: dict, base_seq: int, confirmed: bool = False, covered: bool = False,
           leave: LeaveCheck | None = None) -> list:
    """The events of `cmd`. `confirmed`: only the confirm of a proposal (cg/commands/pbem.py) decides
    a shared fact as such; a command that says so itself is refused (ruling R45). `covered`: a
    signature the audit knows a later signature of the same side vouches for (ruling R43): its key
    check is left to that one. `leave`: the audit's (LeaveCheck), filled at the check of a proposed `next`,
    taken by its confirmation once proven."""
    if not confirmed:  # rulings R110-R112, R119, R127: as the campaign decides them, not as the marks sent say
        cmd = rules_for(state).ruling_marks(state, cmd)
    name = cmd.get("name")
    if cmd.get("sealed_rolls") and not pbem.LEAVING_SEALED.get():  # ruling R119: 2.3's sealed rolls do not hold it
        token = pbem.LEAVING_SEALED.set(True)
        try:
            return decide(state, cmd, base_seq, confirmed, covered, leave)
        finally:
            pbem.LEAVING_SEALED.reset(token)
    if cmd.get("confirmed") and not confirmed:
        raise Refused(f"{name}: a command cannot confirm itself; the other side's `plcg confirm` does",
                      "pbem", state.step)
    handler = HANDLERS.get(name)
    if handler is None:
        raise BadInput(f"unknown command {name!r}")
    pb: Pbem = state.pbem  # type: ignore[assignment]  # None: below, as the AttributeError on pb.proposal
    if pb is None and name not in _OWN:
        return _own_dice(state, cmd, base_seq, handler)
    # both ask of the proposal awaiting an answer: most commands find none (pbem is None only where a log gives a
    # pbem command to a campaign on one copy: the AttributeError is what the audit reports of it, UNFOLDABLE)
    if pb.proposal is not None:
        if _waits_for_proposer(state, cmd):
            # ruling R84: done too, only the proposer still owes something: this side proposes the leave instead

            cmd = {k: v for k, v in cmd.items() if k not in ("request", "reason")} | {"name": "next"}
            pbem.authorize(state, cmd)
            return [ev.FactProposed(side=cmd["by"], command={**_proposed(cmd), "step": state.step})]
        if _continues(state, cmd):  # ruling R71: continuing from the other side's proposal confirms it
            cmd = {**cmd, "name": "confirm"}
            name, handler = "confirm", HANDLERS["confirm"]
    pbem.authorize(state, cmd)
    prov = pb.provisional  # pbem.provisional: the step left provisionally, not yet answered (R71)
    if prov is not None and prov.side != cmd["by"] and name not in pbem.NOT_CONTINUING \
            and not (name == "seal" and cmd.get("closes")):  # a sealed reveal is a reveal (its side's `reveal`)
        # ruling R71: the other side continues from a step left provisionally: that confirms the leave

        said = ev.FactConfirmed(side=cmd["by"], command=prov.command)
        assert state.pbem is not None  # prov came from it
        if name == "confirm" and state.pbem.proposal is None:
            return [said]  # the leave confirmed in so many words
        state.pbem.provisional = None  # decided as the rules stand once it is answered (restored: decide is pure)
        try:
            events = decide(state, cmd, base_seq + 1, confirmed, covered)
        finally:
            state.pbem.provisional = prov
        return [said, *events]
    if name in _OWN:
        return handler(Ctx(state, base_seq, covered=covered, leave=leave), cmd)
    if _shared(state, cmd) and not _decided_alone(state, cmd, base_seq, handler):
        # checked as it stands now, recorded as a proposal (ruling R45)

        if _done_before_them(state, cmd):  # ruling R71: done with the step; the other side still owes its part
            return [ev.FactProposed(side=cmd["by"], command={**_proposed(cmd), "step": state.step})]
        # ruling R71: left at once; the other side may still reject it. Ruling R73: so is a shared fact of R68
        # in a two-party campaign (outside 2.3)
        if pbem.leaves_provisionally(state, cmd) or pbem.fact_provisionally(state, cmd):
            own = prov is not None  # a leave or fact of this side pending covers this one: its rejection undoes both
            left = _leave_now(state, cmd, base_seq + (0 if own else 1), handler)
            if left is not None and own:
                return left
            if left is not None:
                proposed = {**_proposed(cmd), "provisional": base_seq, "step": state.step}
                return [ev.FactProposed(side=cmd["by"], command=proposed), *left]
        checked = handler(Ctx(state, base_seq, two_party="check" if not pbem.two_party(state) else "probe"), cmd)
        if leave is not None and name == "next" and not leave.proven:  # the leave as checked, for the audit (R45)
            leave.events, leave.sealed = checked, pbem.LEAVING_SEALED.get()
        words = rules_for(state).proposal_words(name, state.step)  # its words (R71)
        return [ev.FactProposed(side=cmd["by"], command={**_proposed(cmd), **words})]
    if pb.dice_policy != "two-party":  # pbem.two_party(state), pb being set
        return _own_dice(state, cmd, base_seq, handler, leave if confirmed else None)
    # two-party dice: a command that rolls is committed to now and decided at its reveal
    ctx = Ctx(state, base_seq, two_party="probe")
    step = pbem.ahead(state, cmd)  # ruling R121: a roll committed ahead of its step is checked as of its step
    here = state.position
    if step is not None:
        state.position = here.to(step=step)  # restored below: decide is pure
    try:
        events = handler(ctx, cmd)
    finally:
        state.position = here
    if ctx.n_rolls == 0 and step is not None:  # only a roll is committed ahead; anything else waits for its step
        at(state, cast(str, cmd.get("name")))
    if ctx.n_rolls == 0:
        return events
    return pbem_commit(state, cmd)


def _decided_alone(state: CampaignState, cmd: dict, base_seq: int, handler) -> bool:
    """Ruling R71: a 2.41 determination that rolls no dice follows from what both sides revealed at
    2.4 alone: nothing for the other side to consent to (it is checked all the same). Ruling R122 (conventions 3):
    so does a Dual Attack's, whose only other input is its two-party dice, which neither side can choose."""
    if not rules_for(state).determined_without_consent(cmd.get("name")):
        return False
    if pbem.two_party(state) and conventions(state, DUAL_DETERMINED):
        return True
    probe = Ctx(state, base_seq, two_party="probe")
    handler(probe, cmd)
    return probe.n_rolls == 0


def _done_before_them(state: CampaignState, cmd: dict, their_results: bool | None = None) -> bool:
    """Ruling R71: `next` while only the other side still owes something at the step (an answer to
    this side's dice, its own part): proposed, so that the other side's `next` confirms it once
    everything is done (it decides `next` as the rules stand then). `their_results` (ruling R127): whether the
    other side's unused 3.44/3.45 result holds the leave; None: as the command, as the campaign decides it
    (Rules.ruling_marks), carries."""
    if not rules_for(state).done_first_waits(cmd.get("name")):
        return False
    at(state, "next")
    owed = pending(state)
    other = "allied" if cmd["by"] == "axis" else "axis"
    if state.step == StepId.SETUP and cmd.get("setups"):
        # ruling R110: 2.6 owes each side's setup, one side then the other (2.41); a side's `next` says it is done
        # and waits for the other's, which confirms it: the other side still sets up
        return all(owed_by(o) == other for o in owed)
    if their_results is None:  # ruling R127 (decide() gave the mark as the campaign decides it)
        their_results = bool(cmd.get("their_results"))
    if their_results and state.step in pbem.ROLL_ALLOWS and pbem.result_allows(state, other) > 0:
        # ruling R127: the other side's decided 3.44 or 3.45 result still lets it act here: the leave waits for
        # its `next`, never provisional (its rejection would be barred by a roll of this side's after it, R107)
        return all(owed_by(o) == other for o in owed)
    return bool(owed) and all(owed_by(o) == other for o in owed)


def _waits_for_proposer(state: CampaignState, cmd: dict) -> bool:
    """Ruling R84: `next` (or `confirm`) that would confirm the other side's proposal to leave the step, while the step
    cannot be left only because that side still owes something (its answer to this side's dice)."""
    # None only where a log gives a pbem command (sign, answer...) to a campaign on one copy: the AttributeError
    # on the next line is what the audit reports of it (UNFOLDABLE), as before
    pb = cast(Pbem, state.pbem)
    prop = pb.proposal
    if cmd.get("name") not in ("next", "confirm") or prop is None or prop.side == cmd.get("by") \
            or not rules_for(state).proposes_in_turn(prop.command.get("name")) \
            or prop.command.get("setups"):  # ruling R110: both sides have set up: this `next` leaves 2.6
        return False
    pb.proposal = None  # as the step stands without it (restored: decide is pure)
    try:
        # ruling R127 asks nothing here: the proposer's own proposal to leave gives up what its result still allows
        return _done_before_them(state, {**cmd, "name": "next"}, their_results=False)
    finally:
        pb.proposal = prop


def _leave_now(state: CampaignState, cmd: dict, base_seq: int, handler) -> list | None:
    """Ruling R71: `next` decided at once, as a provisional leave; None where leaving rolls two-party
    dice (it is then proposed and waits, as before)."""
    if not pbem.two_party(state):
        return _own_dice(state, cmd, base_seq, handler)
    ctx = Ctx(state, base_seq, two_party="probe")
    events = handler(ctx, cmd)
    return events if ctx.n_rolls == 0 else None


def _continues(st: CampaignState, cmd: dict) -> bool:
    """Ruling R71 (revision 3, issue 26): a side's `next` while the other side's proposal (to leave
    the step, the firefight's end, the 2.41 determination; not an undo) awaits its answer is its
    confirmation: the proposal takes effect, nothing more is decided."""
    assert st.pbem is not None  # decide() read st.pbem before (_waits_for_proposer)
    prop = st.pbem.proposal
    return (cmd.get("name") == "next" and prop is not None and prop.side != cmd.get("by")
            and rules_for(st).next_confirms(prop.command.get("name")))


def _shared(st: CampaignState, cmd: dict) -> bool:
    """Ruling R45: whether the command is a shared fact that needs the other side's confirmation:
    the firefight's end, the 2.41 determination, leaving a step where a side's command is accepted."""
    if cmd.get("confirmed"):
        return False
    name = cmd.get("name")
    if name == "next":
        step = BY_ID.get(st.step)  # a step where a command for a side is accepted (its `accepts`)
        return step is not None and any(n in step.accepts for n in pbem.SIDED)
    if name in _SHARED_3:  # ruling R68, under every rules revision (issue 37 item 5)
        # the card's weather (no TEXT) is nobody's choice: only a weather a side types is proposed
        return name != "weather" or bool(cmd.get("text"))
    return name in _SHARED



def _proposed(cmd: dict) -> dict:
    return {k: v for k, v in cmd.items() if k not in pbem.COMMIT_KEYS}


def pbem_commit(state: CampaignState, cmd: dict) -> list:
    assert state.pbem is not None  # two-party dice (decide() returned before otherwise)
    commit, nonce = cmd.get("commit"), cmd.get("nonce")
    if not isinstance(commit, str) or len(commit) != 64 or commit in state.pbem.requests \
            or not isinstance(nonce, str):
        raise BadInput(f"{cmd.get('name')}: two-party dice need a fresh commitment (the ledger makes it"
                       " from --key)")
    command = {k: v for k, v in cmd.items() if k not in pbem.COMMIT_KEYS and k != "ahead"}
    step = pbem.ahead(state, cmd)
    if step is not None:  # ruling R121: committed ahead of its step, answered at once, decided at that step
        command["ahead"] = step.value

    bare = {k: v for k, v in command.items() if k != "ahead"}  # ruling R121: one committed ahead counts as open
    open_now = sum(1 for r in state.pbem.requests.values() if r.side == cmd["by"]
                   and {k: v for k, v in r.command.items() if k != "ahead"} == bare)
    why = rules_for(state).repeat_commitment_refusal(  # ruling R118: each roll owed, in one bundle
        cmd.get("name"), cmd["by"], open_now, _owed_times(state, command) if open_now else 0)
    if why:
        raise Refused(why, "pbem", state.step)
    if cmd.get("chain") is None and cmd.get("value") is None:
        if pbem.chained(state, cmd):  # issue 37 attack 2: a roll the chain decides is not committed otherwise
            raise Refused(f"{cmd.get('name')}: {pbem.other(cmd['by'])}'s chain of answers is live, so the roll names"
                          " its next place (ruling R83); a commitment without it, answered after it is made,"
                          " is refused", "pbem", state.step)
        return [ev.DiceCommitted(side=cmd["by"], command=command, commit=commit, nonce=nonce)]
    # ruling R83: the value shown, the next place of the other side's chain named
    value, place = cmd.get("value"), cmd.get("chain")
    if not isinstance(value, str) or pbem.commitment(value) != commit or type(place) is not int:
        raise BadInput(f"{cmd.get('name')}: two-party dice from a chain need the value of the commitment and a"
                       " place (the ledger makes them from --key)")
    chain = pbem.chain_of(state, pbem.other(cmd["by"])) if pbem.chained(state, cmd) else None  # live when chained
    if chain is None or place != chain.next:
        raise Refused(f"{cmd.get('name')}: {cmd['by']}'s roll names place {place} of the other side's chain of"
                      " answers, not the next one it may (ruling R83)", "pbem", state.step)
    return [ev.DiceCommitted(side=cmd["by"], command=command, commit=commit, nonce=nonce, value=value, chain=place)]


def _owed_times(state: CampaignState, command: dict) -> int:
    """Ruling R118: how many times the step owes this very roll (a company's four 2.36 leader DRs), open
    commitments included: a side may commit to each of them in one bundle, never to more."""
    step = BY_ID.get(state.step)
    owed = step.owes(state, rules_for(state)) if step is not None else []
    return sum(1 for item in owed if item.get("args")
               and all(command.get(k) == v for k, v in item["args"].items()))


def _own_dice(state: CampaignState, cmd: dict, base_seq: int, handler, leave: LeaveCheck | None = None) -> list:
    """A command decided with the campaign's own dice. The ledger's OS dice it rolls are recorded in
    cmd["ledger_dice"]; a recorded command decided again (the audit) takes them from there (R31, R42).
    `leave`: a confirmed `next` whose leave the audit proved checked on this very state (LeaveCheck): its
    events as checked (the leave rolls no dice: ctx.rolled stays empty, as the handler would leave it)."""
    replay = cmd.get("ledger_dice") if state.dice_mode == "ledger" else None
    ctx = Ctx(state, base_seq, replay=replay)
    if leave is not None and leave.proven and leave.events is not None and cmd.get("name") == "next" \
            and pbem.LEAVING_SEALED.get() == leave.sealed:
        events, leave.proven = list(leave.events), False  # ruling R45: taken once
    else:
        events = handler(ctx, cmd)
    if replay is None:
        if ctx.rolled:  # stored with the command: the audit decides it again with these dice
            cmd["ledger_dice"] = ctx.rolled
    elif not isinstance(replay, list) or len(ctx.rolled) != len(replay):
        raise BadInput(f"the command records {len(replay) if isinstance(replay, list) else 'no list of'}"
                       f" ledger dice, it rolls {len(ctx.rolled)}")
    return events


def at(state: CampaignState, name: str, *steps: str) -> None:
    """The step order: refuse a command given at the wrong step (exit 3, rule and current step)."""
    allowed = steps or STEPS_OF[name]
    if state.ended:
        raise Refused(f"the CG has ended ({state.end_reason}); {name} is not possible", "1.3", "end")
    if "*" in allowed or state.step in allowed:
        return
    where = " or ".join(f"{s} {BY_ID[s].name}" for s in allowed)
    raise Refused(f"{name} belongs to step {where}, not {state.step} {BY_ID[state.step].name}",
                  allowed[0], state.step)


def hex_arg(state: CampaignState, value, what: str = "hex") -> str:
    if value is None:
        raise BadInput(f"{what} is required")
    h = str(value).strip().upper()
    grid = state.grid()
    if state.card.map.boards:  # a map of boards: "24J4"; an id without its board is refused
        try:
            return grid.canonical(str(value).strip())
        except ValueError as e:
            raise BadInput(f"{what}: {e} ({state.card.map.describe()})") from None
    if not grid.valid(h):
        raise BadInput(f"{what} {value!r} is not a hex of the map ({state.card.map.columns}, rows 1-{state.card.map.rows})")
    return h


MAX_INT = 10**9  # no count, turn, CVP or modifier of a campaign comes near it; SQLite and JSON stop at 2**63


def int_arg(cmd: dict, key: str, lo: int | None = 0, hi: int | None = None, default=None) -> int:
    v = cmd.get(key, default)
    if v is None:
        raise BadInput(f"--{key.replace('_', '-')} is required")
    try:
        n = int(v)
    except (TypeError, ValueError):
        raise BadInput(f"--{key.replace('_', '-')} {v!r}: a whole number is needed") from None
    if abs(n) > MAX_INT:
        raise BadInput(f"--{key.replace('_', '-')} {n}: too large a number")
    if (lo is not None and n < lo) or (hi is not None and n > hi):
        bounds = f"{lo}..{hi}" if lo is not None and hi is not None else \
            f"{lo} or more" if lo is not None else f"{hi} or less"
        raise BadInput(f"--{key.replace('_', '-')} {n}: must be {bounds}")
    return n


def unit_arg(state: CampaignState, side: str, uid, alive: bool = True):
    """The unit named; BadInput if SIDE has none of that id. `alive`: also refused (3.11) if it is out
    of play. A command with other arguments to check asks with alive=False and calls in_play once
    they are all parsed: bad input is reported as such before any rule is applied."""
    u = state.unit(str(uid), side) if uid is not None else None
    if u is None and uid is not None:  # ids are case-insensitive, like sides and RGs
        u = unit_any_case(state, str(uid).strip(), side)
    if u is None or u.side != side:
        raise BadInput(f"unknown {side} unit {uid!r}{_did_you_mean(state, side, uid)} (plcg oob {side} lists them)")
    if alive:
        in_play(state, u)
    return u


def _did_you_mean(state: CampaignState, side: str, uid) -> str:
    """"; did you mean I1-2.2?": the side's unit ids nearest to a mistyped one (issue 27 item 11), or the
    other side's unit of that very id."""
    import difflib  # lazy: only a mistyped unit id asks for it

    if uid is None:
        return ""
    text = str(uid).strip()
    state.load_all()
    other = next((u for u in state.units.values() if u.side != side and u.id.casefold() == text.casefold()), None)
    if other is not None:
        return f"; {other.id} is an {other.side} unit"
    ids = {u.id.casefold(): u.id for u in state.units.values() if u.side == side}
    near = difflib.get_close_matches(text.casefold(), list(ids), n=3, cutoff=0.6)
    return f"; did you mean {' or '.join(ids[n] for n in near)}?" if near else ""


def unit_any_case(state: CampaignState, uid: str, side: str | None = None):
    """Unit ids are case-insensitive, like sides and RGs: `i1-1.l1` names I1-1.L1 (of `side`, if given)."""
    u = state.unit(uid, side) or state.unit(uid.upper(), side)
    if u is None:
        state.load_all()
        want = uid.casefold()
        u = next((x for x in state.units.values() if x.id.casefold() == want and side in (None, x.side)), None)
    return u


def in_play(state: CampaignState, *units) -> None:
    for u in units:
        if u is not None and u.status not in IN_PLAY:
            raise Refused(f"{u.id} is {u.status}", "3.11", state.step)


def roll(dice: Dice, drm: tuple[Drm, ...], lookup: Callable, **extra) -> Roll:
    final = dice.total + sum(d.value for d in drm)
    hit = lookup(final)
    return Roll(dice=dice.values, drm=tuple(drm), final=final, table=hit.table, row=hit.row,
                outcome=hit.result, manual=dice.manual, source=dice.source, **extra)


def given_dice(cmd: dict, count: int, key: str = "dice") -> Dice | None:
    return dicemod.parse(cmd.get(key), count)


def leader_slots(st: CampaignState, side: str) -> int:
    """3.45: the dr's '# of MMC' result counts leaders hardened and generated together."""
    hardened = sum(1 for x in st.reph.hardened_now[side] if st.unit(x, side).kind == Kind.LEADER)
    return st.reph.leader_result[side] - hardened - st.reph.generated[side]


def card_quality(st, u) -> str | None:
    """The class the CG Card gives the unit's RG (its `quality`, the one 3.47 counts), while the unit still
    is a counter the RG lists; a counter it became since (hardened, replaced) takes the table's class."""
    p = st.purchase(u.purchase, u.side) if u.purchase else None
    rg = st.card.sides[u.side].group_by_id(p.rg) if p is not None else None
    if rg is None or u.name not in expand_units(rg.units):
        return None
    return getattr(rg, "quality", None)
