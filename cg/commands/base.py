"""The command registry, `decide`, and the argument checks every command shares."""
from __future__ import annotations

from typing import Callable

import attrs

from cg import dice as dicemod
from cg.dice import Dice
from events.errors import BadInput, Refused
from cg.state import SIDES, CampaignState
from cg.steps import BY_ID
from events.roll import Drm, Roll



PRODUCT = "plcg"
RULES = "Platoon Leader 2.5"


@attrs.define
class Ctx:
    state: CampaignState
    base_seq: int  # the seq the command's first event will get: the seeded roller's position
    n_rolls: int = 0

    def dice(self, given: Dice | None, count: int) -> Dice:
        d = given if given is not None else dicemod.seeded(self.state.seed, self.base_seq, self.n_rolls, count)
        self.n_rolls += 1
        return d


HANDLERS: dict[str, Callable] = {}
STEPS_OF: dict[str, tuple[str, ...]] = {}  # command -> steps where it may be given ("*" = any)


def command(name: str, *steps: str):
    def wrap(fn):
        HANDLERS[name] = fn
        STEPS_OF[name] = steps
        return fn

    return wrap


def decide(state: CampaignState, cmd: dict, base_seq: int) -> list:
    name = cmd.get("name")
    handler = HANDLERS.get(name)
    if handler is None:
        raise BadInput(f"unknown command {name!r}")
    return handler(Ctx(state, base_seq), cmd)


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


def side_arg(cmd: dict, key: str = "side") -> str:
    side = cmd.get(key)
    if side in SIDES:  # as the CLI writes it
        return side
    side = str(side or "").lower()
    if side not in SIDES:
        raise BadInput(f"unknown side {cmd.get(key)!r}: sides are axis and allied")
    return side


def hex_arg(state: CampaignState, value, what: str = "hex") -> str:
    if value is None:
        raise BadInput(f"{what} is required")
    h = str(value).strip().upper()
    if not state.grid().valid(h):
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
    u = unit_any_case(state, str(uid).strip()) if uid is not None else None
    if u is None or u.side != side:
        raise BadInput(f"unknown {side} unit {uid!r} (plcg oob {side} lists them)")
    if alive:
        in_play(state, u)
    return u


def unit_any_case(state: CampaignState, uid: str):
    """Unit ids are case-insensitive, like sides and RGs: `i1-1.l1` names I1-1.L1."""
    u = state.unit(uid) or state.unit(uid.upper())
    if u is None:
        state.load_all()
        want = uid.casefold()
        u = next((x for x in state.units.values() if x.id.casefold() == want), None)
    return u


def in_play(state: CampaignState, *units) -> None:
    for u in units:
        if u is not None and u.status not in ("available", "on_map", "reserve"):
            raise Refused(f"{u.id} is {u.status}", "3.11", state.step)


def roll(dice: Dice, drm: tuple[Drm, ...], lookup: Callable, **extra) -> Roll:
    final = dice.total + sum(d.value for d in drm)
    hit = lookup(final)
    return Roll(dice=dice.values, drm=tuple(drm), final=final, table=hit.table, row=hit.row,
                outcome=hit.result, manual=dice.manual, **extra)


def given_dice(cmd: dict, count: int, key: str = "dice") -> Dice | None:
    return dicemod.parse(cmd.get(key), count)

def leader_slots(st: CampaignState, side: str) -> int:
    """3.45: the dr's '# of MMC' result counts leaders hardened and generated together."""
    hardened = sum(1 for x in st.hardened_now[side] if st.unit(x).kind == "leader")
    return st.leader_result[side] - hardened - st.generated[side]
