"""Moving through the campaign: `next` (where the step machine, cg/machine.py, leads and what the step
records when it is left), concession, the CG's end."""
from __future__ import annotations

from typing import cast

from cg.rules import rules_for, revision
from events.errors import BadInput, Refused
from cg.state import SIDES, CampaignState, other
from cg.machine import walk
from cg.sequence import StepId
from events import types as ev
from cg.commands.base import Ctx, PRODUCT, RULES, at, command, side_arg
from cg import victory
from cg.rules import CURRENT


DICE_POLICIES = ("any", "no-typed")


def start_event(card, card_ref: str, card_dict: dict, seed: str | None, redeployment: str | None, version: str,
                dice_policy: str = "any", pbem: dict | None = None, rules_revision: int | None = None,
                conventions: int | None = None):
    """`seed` None: the ledger rolls from the OS random source (ruling R31). `conventions`: the ledger's
    conventions a new campaign records (CONVENTIONS); None, as a campaign started before them (a walk
    recorded then and played again: tests/test_explorer.py's Replay)."""
    if redeployment is not None and redeployment not in ("A", "B"):
        raise BadInput(f"--redeployment {redeployment!r}: A or B")
    if dice_policy not in DICE_POLICIES:
        raise BadInput(f"--dice-policy {dice_policy!r}: {' or '.join(DICE_POLICIES)}")
    rev = CURRENT if rules_revision is None else rules_revision
    if rev not in range(1, CURRENT + 1):
        raise BadInput(f"--rules-revision {rules_revision!r}: this plcg decides revisions 1 to {CURRENT}")
    return ev.CampaignStarted(product=PRODUCT, product_version=version, rules=RULES, seed=seed or "",
                              card_ref=card_ref, card=card_dict, redeployment=redeployment, rules_revision=rev,
                              dice="ledger" if seed is None else "seeded", dice_policy=dice_policy,
                              pbem=pbem, conventions=conventions)


@command("rules-upgrade", "*")
def _rules_upgrade(ctx: Ctx, cmd: dict):
    """Ruling R32: move the campaign to the current rules revision from the next firefight's 2.1 on."""
    st = ctx.state
    at(st, "rules-upgrade")
    planned = max([st.rules_revision] + [to for _ff, to in st.rules_upgrades])
    if planned >= CURRENT:
        when = "" if revision(st) >= CURRENT else \
            f" from firefight {max(ff for ff, _to in st.rules_upgrades)}'s 2.1 on"
        raise Refused(f"the campaign is decided under rules revision {CURRENT}{when} already", "R32", st.step)
    if st.last_firefight:
        raise Refused(f"firefight {st.firefight} is the CG's last: no later 2.1 for rules revision {CURRENT} "
                      "to start at", "R32", st.step)
    return [ev.RulesUpgraded(revision=CURRENT, from_firefight=st.firefight + 1)]


@command("next", "*")
def _next(ctx: Ctx, cmd: dict):
    st = ctx.state
    at(st, "next")
    w = walk(st, "next")  # the machine: guarded by what the step owes; leaving records its events
    if w.to is None:
        owed = cast(list, w.owed)  # the guard that refused asked it
        listed = "; ".join(f"{o['what']} ({o['command']})" for o in owed)
        raise Refused(f"step {st.step} still owes: {listed}", owed[0]["rule"], st.step)
    to = w.to
    out: list = list(w.records)
    if to == StepId.END:
        out.append(ev.StepLeft(step=st.step, to=to, firefight=st.firefight))
        # ruling R74: a CG Objective fulfilled after this firefight ends the CG (1.3)
        out.append(_cg_end(st, "CG Objectives" if victory.objectives_fulfilled(st) else "last firefight"))
        return out
    ff = st.firefight + 1 if to == StepId.CP else st.firefight
    out.append(ev.StepLeft(step=st.step, to=to, firefight=ff))
    return out


def _cg_end(st: CampaignState, reason: str):
    tot = {s: st.sides[s].tvp_total for s in SIDES}
    winner = None
    if reason == "concession":
        winner = other(st.conceded_by) if st.conceded_by else None
    else:  # ruling R74: the card's Victory Conditions name the winner
        winner = victory.decide(st, reason)[0] if rules_for(st).cg_end_names_winner(reason) else None
    return ev.CgEnded(reason=reason, winner=winner, tvp=tot)


@command("concede", "*")
def _concede(ctx, cmd):
    side = side_arg(cmd)
    st = ctx.state
    at(st, "concede")
    walk(st, "concede")
    return [ev.Conceded(side=side), ev.StepLeft(step=st.step, to="end", firefight=st.firefight),
            ev.CgEnded(reason="concession", winner=other(side), tvp={s: st.sides[s].tvp_total for s in SIDES})]
