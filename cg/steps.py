"""The PL 2.5 step order (shared/docs/pl25-sequence.md): each step's id, name and rule, what it owes before
`plcg next`, and the `transitions` machine that says where `next` goes.

The machine is built once per process and never driven on replay: the folded state carries the
step, and `next_step` asks the machine only when a `next` (or `concede`) command is decided.
"""
from __future__ import annotations

import re

import attrs

from cg import revision, seal
from cg.rules import mmc_in_play, nearest_friendly_hex, redeployment_owed, repair_refusal
from cg.state import SIDES, CampaignState, active_units, counter_morale
from cg.victory import objectives_fulfilled
from cg.units import Kind, PRESENT, Status
from cg.seal import pending_items as sealed_items
from cg.state import Done


@attrs.frozen
class Step:
    id: str
    name: str
    rule: str


STEPS = (
    Step("2.1", "CP Replenishment", "2.1"),
    Step("2.2", "At Start Weather", "2.2"),
    Step("2.3", "Purchasing Reinforcements", "2.3"),
    Step("2.4", "Firefight Determination", "2.4"),
    Step("2.5", "Redeployment of Units in Friendly MLR", "2.5"),
    Step("2.6", "Firefight Setup", "2.6"),
    Step("2.7", "Patrols", "2.7"),
    Step("2.8", "Firefight Commencement", "2.8"),
    Step("2.9", "CG Firefight End", "2.9"),
    Step("3.1", "End of the Battle Phase", "3.1"),
    Step("3.2", "Redeployment Phase", "3.2"),
    Step("3.3", "Consequences Phase", "3.3"),
    Step("3.41", "Disease & Starvation", "3.41"),
    Step("3.42", "Regrouping", "3.42"),
    Step("3.43", "Heroes and Heroic Leaders", "3.43"),
    Step("3.44", "Bravery and Battlefield Promotions", "3.44"),
    Step("3.45", "Leader Generation/Improvement", "3.45"),
    Step("3.46", "Unjamming Guns, Replenishing Ammo, Mobilizing Vehicles", "3.46"),
    Step("3.461", "Removing Stun, Reclaiming Recalled Vehicles", "3.461"),
    Step("3.47", "ELR Loss/Gain", "3.47"),
    Step("3.51", "SAN Adjustment", "3.51"),
    Step("3.52", "Fortification Clearance", "3.52"),
    Step("end", "CG End", "1.3"),
)
BY_ID = {s.id: s for s in STEPS}
ORDER = {s.id: i for i, s in enumerate(STEPS)}

# `next` in order; where a source has several lines the first whose conditions hold is taken.
TRANSITIONS = [
    {"trigger": "next", "source": "2.1", "dest": "2.2", "conditions": "weather_every"},  # ruling R27
    ["next", "2.1", "2.3"],  # rules revision 1: 2.2 is the Initial Firefight's only
    ["next", "2.2", "2.3"],
    ["next", "2.3", "2.4"],
    {"trigger": "next", "source": "2.4", "dest": "3.41", "conditions": "is_idle"},  # 2.41 Idle
    {"trigger": "next", "source": "2.4", "dest": "2.6", "conditions": "is_initial"},  # 2.5 not Initial
    ["next", "2.4", "2.5"],
    ["next", "2.5", "2.6"],
    ["next", "2.6", "2.7"],
    ["next", "2.7", "2.8"],
    ["next", "2.8", "2.9"],
    ["next", "2.9", "3.1"],
    ["next", "3.1", "3.2"],
    ["next", "3.2", "3.3"],
    ["next", "3.3", "3.41"],
    {"trigger": "next", "source": "3.41", "dest": "3.46", "conditions": "is_idle"},
    ["next", "3.41", "3.42"],
    ["next", "3.42", "3.43"],
    ["next", "3.43", "3.44"],
    ["next", "3.44", "3.45"],
    ["next", "3.45", "3.46"],
    ["next", "3.46", "3.461"],
    {"trigger": "next", "source": "3.461", "dest": "3.52", "conditions": "is_idle"},
    ["next", "3.461", "3.47"],
    ["next", "3.47", "3.51"],
    ["next", "3.51", "3.52"],
    {"trigger": "next", "source": "3.52", "dest": "end", "conditions": "is_last"},  # ruling R16
    ["next", "3.52", "2.1"],
    {"trigger": "concede", "source": [s.id for s in STEPS if s.id != "end"], "dest": "end"},
]


class _Probe:
    """The machine's model: the three facts `next` branches on."""

    is_idle = False
    is_initial = False
    is_last = False
    weather_every = False  # rules revision 2 (ruling R27): 2.2 in every firefight


_PROBE = _Probe()
_MACHINE: list = []  # the machine, built by the first `next` or `concede` decided in the process


def machine():
    """The step machine, built once per process on first use: `status` and every other command read
    BY_ID and `pending` from this module and never ask it where `next` goes."""
    if not _MACHINE:
        # lazy: `plcg status` and the step commands other than next/concede skip importing
        # transitions and building the machine (~10 ms of their start, -X importtime)
        from transitions import Machine  # lazy: transitions (~5 ms) only for the step machine tests and `plcg diagram`

        _MACHINE.append(Machine(
            model=_PROBE,
            states=[s.id for s in STEPS],
            transitions=TRANSITIONS,
            initial="2.2",
            auto_transitions=False,  # no to_<state>(): the step order cannot be skipped
            ignore_invalid_triggers=False,
        ))
    return _MACHINE[0]


def next_step(state: CampaignState, trigger: str = "next") -> str:
    """Where `trigger` leads from the state's step, decided by the machine (which is then left at it)."""
    m = machine()
    _PROBE.is_idle = state.idle
    _PROBE.is_initial = state.initial
    # ruling R74: a CG Objective fulfilled after this firefight (its RePh complete) ends the CG too (1.3)
    _PROBE.is_last = state.last_firefight or (state.step == "3.52" and bool(objectives_fulfilled(state)))
    _PROBE.weather_every = revision.of(state).weather_every_firefight if trigger == "next" else False
    m.set_state(state.step, model=_PROBE)
    getattr(_PROBE, trigger)()
    return _PROBE.state


def mermaid() -> str:
    """The step machine drawn by transitions itself (Mermaid stateDiagram-v2, no graphviz)."""
    # lazy: only `plcg diagram` (and docs/steps.md's test) draw; GraphMachine's import is theirs alone
    from transitions.extensions import GraphMachine  # lazy: ~40 ms (graph support) only for `plcg diagram`

    model = _Probe()
    gm = GraphMachine(
        model=model,
        states=[s.id for s in STEPS],
        transitions=TRANSITIONS,
        initial="2.2",
        auto_transitions=False,
        graph_engine="mermaid",
        show_conditions=True,
        title="TITLE",  # put in below: the id rewriting would take its "2.5" for a step
    )
    text = gm.get_graph().draw(None)
    # Mermaid ids may not hold dots: draw "2.1" as the id s2_1 and keep "2.1" as its label.
    ident = r"(?<![\w.\"])(\d\.\d+|end)(?![\w.\"])"
    text = re.sub(ident, lambda m: "s" + m.group(1).replace(".", "_"), text)
    text = re.sub(r"(?m)^(\s*)Class ", r"\1class ", text)  # Mermaid's keyword is lower case
    return text.replace("TITLE", "PL 2.5 step order", 1)


# --- what a step owes before `next` --------------------------------------------------------------

def pending(state: CampaignState) -> list[dict]:
    """Only what the rules make compulsory (cli-contract.md: status `pending`)."""
    if state.ended:  # play by email: the secrets left are revealed at the CG's end (ruling R47)
        if state.pbem is not None and state.pbem.sealing:
            return sealed_items(state)
        return []
    s = state.step
    out: list[dict] = []

    def owe(command: str, rule: str, what: str, runnable: bool = True):
        item = {"command": command, "rule": rule, "what": what, "runnable": runnable}
        if runnable:
            item["args"] = command_args(command)  # the same command as a dict, for scripts
        out.append(item)

    card = state.card
    if s == "2.1":
        for side in SIDES:
            if Done("cp", side) not in state.reph.done:
                owe(f"plcg cp {side}", "2.1", f"{side} CP replenishment")
    elif s == "2.2":
        if Done("weather") not in state.reph.done:
            owe("plcg weather", "2.2", "at-start weather")
    elif s == "2.3":
        hidden = _sealed_2_3(state)  # rulings R72 and R47: the other side's secret, this view cannot open
        hidden |= {side for side in SIDES if seal.unseen_purchases(state, side)}
        for p in _this_firefights(state):
            if p.side in hidden:
                continue
            for _ in range(p.leader_owed):
                owe(f"plcg leader {p.side} {p.id}", "2.36", f"{p.side} leader DR for {p.id}")
            if p.oba_owed:
                owe(f"plcg oba {p.side} {p.id}", "2.35", f"{p.side} OBA ammunition DR for {p.id}")
    elif s == "2.4":
        if Done("determine") not in state.reph.done:
            owe("plcg determine", "2.41", "firefight type")
        elif state.ff.time == "night" and Done("night") not in state.reph.done and not state.idle:
            owe("plcg night TEXT", "2.42", "night conditions from the CG Card's night rules", False)
    elif s == "2.6":
        if state.ff.type == "dual" and state.ff.move_first is None:  # revision 2: after all setup (2.41)
            owe("plcg moves-first", "2.41", "Dual Attack: the dr for who moves first, after all setup")
    elif s == "2.7":
        for side in SIDES:
            done = state.reph.patrols_done[side]
            for n in range(1, state.sides[side].patrols + 1):
                if n not in done:
                    owe(f"plcg patrol {side} --type TYPE --units ... --leader L --hex HEX", "2.7",
                        f"{side} patrol {n} (or give it up: plcg patrol {side} --give-up REASON)", False)
            for n in sorted(state.reph.patrols_to_return[side]):
                owe(f"plcg patrol-return {side} {n}", "2.74", f"{side} patrol {n} Return DR")
    elif s == "2.9":
        if Done("end") not in state.reph.done:
            owe("plcg end --turn N --cvp-lost axis=N --cvp-lost allied=N", "2.9", "firefight result", False)
    elif s == "3.1":
        for u in active_units(state)[0]:  # a settled unit is not PRESENT: the units not settled, in order
            if u.encircled and u.status in PRESENT and Done("encircled", u.side, u.id) not in state.reph.done:
                if counter_morale(u.name) is None:
                    owe(f"plcg encircled {u.side} {u.id} --morale M", "3.17", f"1TC for encircled {u.id}", False)
                else:  # the counter shows the morale: runnable as written
                    owe(f"plcg encircled {u.side} {u.id}", "3.17", f"1TC for encircled {u.id}")
            if u.shocked and u.status in PRESENT:
                owe(f"plcg shock {u.side} {u.id}", "3.19", f"Shock/UK dr for {u.id}")
    elif s == "3.2":
        if state.option is None:
            owe("plcg option A|B", "3.2", "Redeployment Option A or B (kept for the CG)", False)

        for side, unit, rule in redeployment_owed(state):
            if rule == "3.215" and revision.of(state).redeployment_limits:
                continue  # an Isolated unit may, not must, redeploy
            near = nearest_friendly_hex(state, state.unit(unit, side))
            owe(f"plcg redeploy {side} {unit} --to HEX", rule,
                f"{side} {unit} must redeploy ({rule})" + (f"; nearest friendly CTHC hex: {near}" if near else ""),
                False)
    elif s == "3.3":
        for u in active_units(state)[0]:  # as at 3.1: every unit PRESENT is among them
            if u.wounded and u.kind == Kind.LEADER and u.status in PRESENT \
                    and Done("evacuate", None, u.id) not in state.reph.done \
                    and card.sides[u.side].nationality.lower() != "japanese":
                owe(f"plcg evacuate {u.side} {u.id}", "3.32", f"evacuation dr for wounded {u.id}")
    elif s == "3.41":
        if card.campaign.disease:
            for side in SIDES:
                if Done("disease", side) not in state.reph.done:
                    owe(f"plcg disease {side}", "3.41", f"{side} Disease & Starvation dr")
                left = disease_owed(state, side)
                if left > 0 and any(u.kind in (Kind.SQUAD, Kind.HALF_SQUAD) and u.status in PRESENT
                                    and Done("disease-replaced", side, u.id) not in state.reph.done
                                    for u in state.side_units(side)):
                    owe(f"plcg disease {side} --replaced UNIT", "3.41",
                        f"{side}: ELR Replacement of {left} more HS equivalent(s), Isolated units first", False)
    elif s == "3.44":
        for side in SIDES:
            if Done("promote", side) not in state.reph.done:
                owe(f"plcg promote {side}", "3.44", f"{side} Battlefield Promotion dr")
    elif s == "3.45":
        for side in SIDES:
            if Done("leaders", side) not in state.reph.done:
                owe(f"plcg leaders {side}", "3.45", f"{side} Leader Generation dr")
    elif s == "3.46":
        for (side, item), kind in sorted(state.reph.repairs_owed.items()):
            if Done("repair", side, item) in state.reph.done:  # failed this RePh: owed again next RePh (3.46)
                continue
            if repair_refusal(state, side, item, state.unit(item, side), kind):
                continue  # ruling R48, every revision: `repair` refuses it where it stands; owed next RePh
            owe(f"plcg repair {side} {item} --kind {kind}", "3.46", f"{side} repair dr for {item} ({kind})")
    elif s == "3.461":
        for u in active_units(state)[0]:  # a recalled vehicle is not settled: among them, in order
            if u.recalled and u.status == Status.RECALLED:
                owe(f"plcg recall {u.side} {u.id}", "3.461", f"recalled vehicle {u.id}")
    elif s == "3.52":
        for key in sorted(k for k in state.reph.done if k.what == "cr-owed"):  # 3.52 dagger (revision 3)
            side, hx = key.side, key.of
            if not mmc_in_play(state, side):
                continue  # ruling R100: no MMC in play, none to reduce: `casualties --reduced` refuses every unit
            owe(f"plcg casualties {side} --reduced UNIT", "3.52",
                f"{side}: the Casualty Reduction of one MMC the clearance in {hx} owes (3.52)", False)
    elif s == "3.47":
        for side in SIDES:
            if Done("elr", side) not in state.reph.done:
                owe(f"plcg elr {side}", "3.47", f"{side} ELR Loss/Gain DR")
    if state.pbem is not None:  # play by email: two-party dice committed to owe an answer or a reveal
        from cg.pbem import committed, pending_items  # lazy: play by email only (cg.pbem ~0.7 ms)

        out = pending_items(state) + committed(state, out)
    return out


def owed_by(item: dict) -> str | None:
    """The side a `pending` item is owed by (None: either side may do it, e.g. `plcg end`)."""
    side = (item.get("args") or {}).get("side")
    if side in SIDES:
        return side
    first = str(item.get("what", "")).split(" ", 1)[0]
    if first in SIDES:
        return first
    words = str(item.get("command", "")).split()
    return words[2] if len(words) > 2 and words[2] in SIDES else None


def _this_firefights(state: CampaignState) -> list:
    """The purchases of the current firefight, in their order: they come last in `purchases`, which are
    made in firefight order (cg/evolve.py), so the walk stops at the first earlier one."""
    out = []
    for p in reversed(state.purchases.values()):
        if p.firefight < state.firefight:
            break
        if p.firefight == state.firefight:
            out.append(p)
    out.reverse()
    return out


def _sealed_2_3(state: CampaignState) -> set[str]:
    """Ruling R72: the sides whose 2.3 secrets this view cannot open (play by email, ruling R47): a
    leader or OBA DR it owes may be in one of them, so this view owes none of its DRs; its own copy
    does, and the audit of the CG's end, with every seal open, checks them."""
    pb = state.pbem
    if pb is None or not pb.seals:
        return set()
    return {r.side for r in pb.seals.values()
            if not r.opened and r.ff == state.firefight and r.step == "2.3"}
def disease_owed(state: CampaignState, side: str) -> int:
    """3.41 (revision switch disease_replacements): the HS equivalents the side's dr still owes."""
    key = next((k for k in state.reph.done if k.what == "disease-owed" and k.side == side), None)
    return key.of if key else 0


# how a runnable `pending` command's words map to the command's keys
POSITIONAL = {
    "cp": ("side",), "weather": (), "determine": (), "moves-first": (), "leader": ("side", "rg"), "oba": ("side", "rg"),
    "patrol-return": ("side", "patrol"), "promote": ("side",), "leaders": ("side",), "elr": ("side",),
    "disease": ("side",), "evacuate": ("side", "leader"), "shock": ("side", "unit"), "encircled": ("side", "unit"),
    "recall": ("side", "vehicle"), "repair": ("side", "item"),
}


def command_args(text: str) -> dict:
    """`plcg leader axis I1-1` -> {"name": "leader", "side": "axis", "rg": "I1-1"}"""
    words = text.split()[1:]
    name, rest = words[0], words[1:]
    cmd: dict = {"name": name}
    for key, value in zip(POSITIONAL[name], [w for w in rest if not w.startswith("--")]):
        cmd[key] = value
    if "--kind" in rest:
        cmd["kind"] = rest[rest.index("--kind") + 1]
    return cmd
