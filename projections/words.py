"""Each event in words: one line for `plcg log`, the step commands' output and the AAR."""
from __future__ import annotations

import re

from typing import Callable

from cg.items import DISGUISED, ITEMS, Kept, key_of, kept, seen_by
from cg.sequence import StepId
from cg.tables import COMMISSAR_ROWS
from cg.units import article
from events.roll import Drm, Roll
from events.stored import build, folder, value_builder
from events.types import REGISTRY

SIDE = {"axis": "Axis", "allied": "Allied", None: "-"}
TYPE = {"axis_assault": "Axis Assault", "allied_assault": "Allied Assault", "dual": "Dual Attack",
        "idle": "Idle Firefight"}


SITUATION = {"friendly_mlr": "friendly MLR", "enemy_mlr": "enemy MLR", "isolated": "Isolated",
             "uncontrolled": "Uncontrolled Terrain", "nml": "No Man's Land"}  # 3.212


def signed(v: int) -> str:
    return f"+{v}" if v > 0 else str(v)


def roll_words(r: Roll | dict, column: str | None = None) -> str:
    """'DR 7 (4+3), -1 for 10 CVP lost (2.12) = 6 on Low: 12'. r: the event's Roll (a stored roll's dict is
    built into one)."""
    if isinstance(r, dict):
        r = _roll(r)
    dice = r.dice
    kind = "DR" if len(dice) == 2 else "dr" if len(dice) == 1 else "dice"
    parts = [f"{kind} {sum(dice)}" + (f" ({'+'.join(map(str, dice))})" if len(dice) > 1 else "")]
    for d in r.drm:
        parts.append(drm_words(d))
    text = ", ".join(parts)
    if r.drm:
        text += f" = {r.final}"
    where = f" on {column}" if column else ""
    out = r.outcome
    if isinstance(out, str):
        out = out.replace("_", " ")  # "redeploys_replaced" -> "redeploys replaced"
    if r.rolled not in (None, r.outcome):
        out = f"{r.rolled} -> {out} ({changed_by(r)})"
    who = "" if not r.manual else " [dice given]"
    return f"{text}{where}, row {row_words(r.row)} of {r.table}: {out if out is not None else 'none'}{who}"


def _roll(d: dict) -> Roll:
    return value_builder(Roll)(d)


def changed_by(r: Roll) -> str:
    """The rule that changed a table's result (`rolled` -> `outcome`), ruling R92: on the starred rows of
    2.361 it is a Commissar taken (2.361 *, A25.22; the leaders of those rows, 8-1 and 8-0 or a
    Finnish/Japanese 9-x, are never among the two top types 2.362 limits), elsewhere the 2.362 limit."""
    if r.table == "2.361" and r.row in COMMISSAR_ROWS:
        return "Commissar, 2.361 * / A25.22"
    return "2.362"


def _winner(e) -> str:
    """'winner Axis (1.31)'; a Dual Night Assault's CVP tie: a draw, no Firefight Defender (ruling R5)."""
    if e.winner is None and e.winner_rule == "2.421":
        return "no winner, a draw (2.421: a Dual Night Assault has no Firefight Defender to take the tie)"
    return f"winner {SIDE[e.winner]} ({e.winner_rule})"


def row_words(label) -> str:
    """A table row as the ledger says it everywhere: '<2' -> '<=2', '>12' -> '>=12' (ruling R1: the
    extracted rules' '<' is 'or less'), '5-6' and '7' as printed."""
    text = str(label)
    if text[:1] in "<>" and text[1:2] != "=":
        return text[0] + "=" + text[1:]
    return text


def generation_why(result: int, lost: int, mmc: int) -> str:
    """Why 3.45 lets a side generate fewer leaders than its dr's result (issue 27 item 11)."""
    may = max(0, min(result, lost - 1, mmc))
    if may >= result:
        return ""
    why = []
    if lost - 1 < result:
        why.append(f"it lost {lost} leader{'s' if lost != 1 else ''} this firefight and generates at most "
                   f"leaders lost - 1 = {max(lost - 1, 0)}")
    if mmc < result:
        why.append(f"it has {mmc} MMC on board, the most it may generate")
    return f"may generate {may}, not {result}: " + "; ".join(why) + " (3.45)"


def summary(etype: str, p: dict, viewer: str | None = None, by: str | None = None) -> str:
    """An event in words; as `viewer` reads it where given (ruling R22: the other side's Dummy Minefields read as
    Known Minefields, whose factors and FP it does not read either). `by`: the side whose command recorded it,
    where the reader knows it (the Redeployment Option names the side that chose it)."""
    if viewer is not None:
        p = _seen(etype, p, viewer)
    if etype == "redeployment_option":
        return option_words(build(REGISTRY[etype], p), by)
    text = _summary(etype, p)
    if " [dice given]" in text:  # said once, at the end of the line
        text = text.replace(" [dice given]", "") + " [dice given]"
    return text


def _seen(etype: str, p: dict, viewer: str) -> dict:
    """The payload as `viewer` reads it (ruling R22, cg/items.seen_by)."""
    if etype in ("fortified", "fortification_placed") and p.get("kind") in DISGUISED and p.get("side") != viewer:
        return {**p, "kind": "known_minefield", "detail": {}, "secret": True}
    if etype == "firefight_ended" and p.get("terrain"):
        return {**p, "terrain": [{**t, "item": str(seen_by(kept(t["item"]), viewer))} for t in p["terrain"]]}
    if etype == "seals_revealed":  # ruling R47: a sealed purchase opened, its events and command
        return {**p, "openings": [{**o, "opening": {
            **o["opening"], "command": seen_command(o["opening"].get("command") or {}, viewer),
            "events": [(t, _seen(t, q, viewer)) for t, q in o["opening"].get("events") or ()]}}
            for o in p["openings"]]}
    return p


def seen_command(cmd: dict, viewer: str | None) -> dict:
    """A command as `viewer` reads it (ruling R22): the other side's `fortify` of a Dummy or Known Minefield as
    a Known Minefield's, without its factors."""
    if viewer is None or cmd.get("name") != "fortify" or cmd.get("side") == viewer:
        return cmd
    if key_of(cmd.get("kind") or "") not in DISGUISED:
        return cmd
    return {**{k: v for k, v in cmd.items() if k != "factors"}, "kind": "known_minefield"}


def option_words(e, by: str | None) -> str:
    """3.2: the Redeployment Option, chosen once for the CG and for both sides; who chose it where known
    (a keyed campaign's command names its side), else the players (one file, both at the table)."""
    who = f"{SIDE[by]} chose" if by in ("axis", "allied") else "the players chose"
    return f"{who} Redeployment Option {e.option} for the CG, both sides (3.2)"


def seed_words(e) -> str:
    """campaign_started's dice: the seed, or what makes the dice when there is none (rulings R31, R44)."""
    if e.seed:
        return f"seed {e.seed!r}"
    if (e.pbem or {}).get("dice_policy") == "two-party":
        return "no seed: two-party dice, made by both players together (ruling R44)"
    return "no seed: the ledger's dice come from the operating system's random source, unforeseeable (ruling R31)"


def drm_words(d: Drm) -> str:
    """One DRM as '-1 for won firefight 1 (3.44)'. The 2.361 Legacy drm (recorded as 'legacy nationality drm
    (german, 1943)') is said by what the rule gives it for: the nationality and the year."""
    reason = d.reason
    m = _LEGACY.fullmatch(reason)
    if m is not None:
        nat, year = m.group(1), m.group(2)
        why = ("pre-1945 German" if d.value < 0 else "US/British" if d.value == 0
               else "1945 German" if nat.lower() == "german" else "any other nationality")
        return f"{signed(d.value)} for {article(nat.capitalize())} side in {year} ({d.rule} nationality drm: {why})"
    return f"{signed(d.value)} for {reason} ({d.rule})"


_LEGACY = re.compile(r"legacy nationality drm \(([^,]+), (\d+)\)")


def _struck(e) -> str:
    """Ruling R29: the Random Selection drs and what the result did to each unit struck."""
    out = ""
    if e.selection:
        out += "; Random Selection drs " + ", ".join(f"{x.unit} {x.dr}" + (f" (round {x.round})" if x.round > 1 else "")
                                                     for x in e.selection)
    if e.losses:
        out += "; " + ", ".join(f"{c.unit} {c.to if c.to in ('eliminated', 'captured', 'wounded') else 'reduced to ' + c.to}"
                                for c in e.losses)
    return out


def _end_more(e) -> str:
    """2.9: what else the firefight's end records of units and terrain (issue 27 item 10)."""
    out = []
    for changes, what in ((e.reduced, "reduced"), (e.replaced, "replaced (A19.13)")):
        if changes:
            out.append(f"{what}: " + ", ".join(
                f"{SIDE[c.side]} {c.unit} " + (c.to if c.to in ("eliminated", "wounded", "captured")
                                               else f"to {c.to}") for c in changes))
    for units, what in ((e.wounded, "wounded"), (e.captured, "captured"), (e.exited, "exited (CG8)"),
                        (e.hero, "Hero (3.43)"), (e.encircled, "Encircled (3.17)"), (e.shocked, "Shocked/UK (3.19)"),
                        (e.recalled, "Recalled (3.461)")):
        if units:
            out.append(f"{what}: " + ", ".join(f"{SIDE[x.side]} {x.unit}" for x in units))
    if e.terrain:
        out.append("terrain kept (CG5): " + ", ".join(f"{terrain_words(t.item)} in {t.hex}" for t in e.terrain))
    if e.vasl_logs:
        out.append("played in " + ", ".join(f"{x.name} (SHA-256 {x.sha256})" for x in e.vasl_logs))
    return "".join(f"; {x}" for x in out)


def vasl_words(logs) -> str:
    """The firefight's VASL logs (`end --vasl-log`, issue 37 item 11): each name and SHA-256."""
    return ", ".join(f"{x.get('name')} (SHA-256 {x.get('sha256')})" for x in logs)


def _cmd_words(cmd: dict) -> str:
    """A command as the player typed it, roughly: `plcg end --turn 5 ...`."""
    skip = ("name", "by", "commit", "nonce", "confirmed", "provisional", "step")
    args = " ".join(f"{k}={v}" for k, v in sorted(cmd.items()) if k not in skip)
    return f"plcg {cmd.get('name')}" + (f" ({args})" if args else "")


def provisional_words(side: str, cmd: dict) -> str:
    """What a side did provisionally (rulings R71, R73): left a step, or gave a shared fact."""
    if cmd.get("name") == "next":
        return f"{side} left step {cmd.get('step')} provisionally"
    return f"{side} gave {_fact_words(cmd)} provisionally at step {cmd.get('step')}"


def _fact_words(cmd: dict) -> str:
    """A shared fact (rulings R45, R71) as a player says it: `to leave step 2.3`, `the firefight's end: ...`."""
    name = cmd.get("name")
    if name == "next":
        return "to leave step " + str(cmd["step"]) if "step" in cmd else "to leave the step"
    if name == "end":
        lost = cmd.get("cvp_lost") or {}
        lost = lost if isinstance(lost, dict) else dict(str(x).split("=", 1) for x in lost if "=" in str(x))
        out = f"the firefight's end: turn {cmd.get('turn')}, CVP lost " + ", ".join(
            f"{SIDE.get(k, k)} {v}" for k, v in sorted(lost.items()))
        for key, what in (("control", "control"), ("winner", "winner"), ("lost", "lost"), ("position", "at")):
            v = cmd.get(key)
            if v:
                out += f"; {what} {', '.join(map(str, v)) if isinstance(v, (list, tuple)) else v}"
        logs = cmd.get("vasl_logs")
        if isinstance(logs, list) and all(isinstance(x, dict) for x in logs) and logs:
            out += "; played in " + vasl_words(logs)
        return out
    if name == "determine":
        return "the 2.41 firefight determination"
    if name == "weather" and cmd.get("text"):  # ruling R68: a typed weather
        return f"the at-start weather {cmd['text']}"
    if name == "night":
        return f"the night ({cmd.get('text')})"
    if name == "option":
        return f"Redeployment Option {cmd.get('option')}"
    if name == "undo":
        seqs = cmd.get("seqs") or []
        what = f"seq {min(seqs)}-{max(seqs)}" if seqs else "the last command"
        return f"to undo {what} ({cmd.get('reason')})"
    return _cmd_words(cmd)


def _opened_words(opening: dict) -> str:
    """A sealed secret revealed (ruling R47): its events as the log words them, else its command."""
    evs = opening.get("events") or []
    said = [_summary(t, q) for t, q in evs if t not in ("dice_committed", "dice_revealed")]
    if said:
        return "; ".join(said)
    cmd = opening.get("command") or {}
    return "its two-party dice" if cmd.get("name") == "reveal" else _cmd_words(cmd)


def _left(left: int | None, what: str = "left") -> str:
    """", N CP left"; nothing where a sealed secret's opening leaves the balance out (ruling R47)."""
    return f", {left} CP {what}" if left is not None else ""


# type name -> fn(event): the event's words, given its class's instance built from the payload
_WORDS: dict[str, Callable[..., str]] = {}


def words(*names: str):
    """The words of the events registered as `names` in events/types.py: fn(event) -> str."""
    def wrap(fn):
        for name in names:
            _WORDS[name] = fn
        return fn

    return wrap


_MAY_BE_SECRET = frozenset(("fortified", "fortification_placed"))  # _seen marks the other side's Dummy Minefield


def _summary(etype: str, p: dict) -> str:
    said = _SAID.get(etype) or _said(etype)
    if said is None:
        return etype.replace("_", " ")  # an event this release has no words for yet: at least not snake_case
    if etype in _MAY_BE_SECRET and "secret" in p:  # ruling R22: as the other side reads it (_seen)
        return _WORDS[etype](build(REGISTRY[etype], {k: v for k, v in p.items() if k != "secret"}), True)
    return said(None, p)


# type name -> said(None, payload): its words, the instance built from the payload in the same call by the
# fold's generated constructor (events/stored.folder), made when the type is first worded
_SAID: dict[str, Callable] = {}


def _said(etype: str) -> Callable | None:
    fn = _WORDS.get(etype)
    if fn is None:
        return None
    said = _SAID[etype] = folder(REGISTRY[etype], lambda _none, e: fn(e))
    return said


def _side(e) -> str:
    """The event's side in words ("Axis"), as it is stored where the table has no word for it."""
    return SIDE.get(e.side, e.side)


# the two types of nine rows in ten of a campaign's log (2.5 and 2.6, every unit each firefight)
@words("redeployed")
def _redeployed(e) -> str:
    s = _side(e)
    r = e.roll
    how = roll_words(r, "Redeployment Table") if r else "Option B"
    res = e.result.replace("_", " ")
    tail = f" -> {res}" if not r or r.outcome != e.result else ""
    change = e.change
    change = "" if not change else f"; {e.unit} is {change}" if change in ("eliminated", "wounded") \
        else f"; {e.unit} is now {article(change)}"
    return f"{s} {e.unit} redeploys from {e.frm or 'MLR'} ({SITUATION.get(e.situation, e.situation)}) " \
           f"to {e.to}: {how}{tail}{change}"


@words("unit_set_up")
def _set_up(e) -> str:
    s = _side(e)
    return f"{s} {e.unit} set up in {e.hex}" + (" (HIP)" if e.hip else "")


@words("campaign_started")
def _started(e) -> str:
    return f"campaign started: {e.card.get('campaign', {}).get('name', e.card_ref)} ({e.rules}, " \
           f"{e.product} {e.product_version}, rules revision {e.rules_revision}), {seed_words(e)}"


@words("rules_upgraded")
def _upgraded(e) -> str:
    return f"rules revision {e.revision} in force from firefight {e.from_firefight}'s 2.1 on (ruling R32)"


@words("head_signed")
def _head_signed(e) -> str:
    s = _side(e)
    return f"{s} signed the head at seq {e.seq} ({e.hash[:16]})"


@words("dice_committed")
def _dice_committed(e) -> str:
    s = _side(e)
    ahead = e.command.get("ahead")
    if ahead is not None:  # ruling R121: answered by the other side's next bundle, decided at its own step
        return f"{s} committed ahead of its step to two-party dice for {e.command.get('name')} ({e.commit[:8]}):" \
               f" answered by the other side's next bundle, decided at {ahead} as the rules stand there (ruling R121)"
    if e.chain is not None:  # ruling R83
        return f"{s} committed to two-party dice for {e.command.get('name')} ({e.commit[:8]}), its value" \
               " shown: decided by the other side's next bundle, whose answer is fixed already (ruling R83)"
    return f"{s} committed to two-party dice for {e.command.get('name')} ({e.commit[:8]}): decided at" \
           f" {s}'s reveal, after the other side's answer"


@words("dice_chain")
def _dice_chain(e) -> str:
    s = _side(e)
    return f"{s} committed to its chain of answers to the other side's two-party dice ({e.anchor[:8]})"


@words("dice_answered")
def _dice_answered(e) -> str:
    s = _side(e)
    return f"{s} answered two-party dice {e.request[:8]}"


@words("dice_revealed")
def _dice_revealed(e) -> str:
    s = _side(e)
    if str(e.value).partition(":")[0] == "withheld":
        return f"{s} claimed two-party dice {e.request[:8]}, withheld by the other side (ruling R67)"
    return f"{s} revealed two-party dice {e.request[:8]}"


@words("sealed")
def _sealed(e) -> str:  # ruling R47
    s = _side(e)
    what = {"cp": "its CP DR (2.1)", "purchase": "a purchase (2.3)", "promote": "its promotion dr (3.44)",
            "harden": "a hardening (3.44)", "attack": "its Attack Option choice, yes or no (2.3)",
            "hidden": "a HIP unit or mines placed (2.6; revealed at 2.9, ruling R112)",
            "concealed": f"a concealed unit set up: a \"?\" in {e.hex} (2.6, A12.1; revealed at 2.9, ruling R112)",
            }.get(e.what, e.what)
    return f"{s} sealed {what} ({e.commitment[:8]})"


@words("seals_revealed")
def _seals_revealed(e) -> str:
    s = _side(e)
    n = len(e.openings)
    return f"{s} revealed {n} sealed secret{'s' if n != 1 else ''} at " + (
        "the CG's end" if e.point == StepId.END else f"{e.point}") + (
        f": {'; '.join(_opened_words(o['opening']) for o in e.openings)}" if n else "")


@words("fact_proposed")
def _fact_proposed(e) -> str:
    s = _side(e)
    if "provisional" in e.command:  # ruling R71
        return (f"{provisional_words(s, e.command)} (the other side's next command"
                " confirms it; `plcg reject --reason TEXT` undoes it)")
    return f"{s} proposed {_fact_words(e.command)} (the other side's `plcg next` or `plcg confirm` confirms" \
           " it; `plcg reject --reason TEXT` refuses it)"


@words("fact_confirmed")
def _fact_confirmed(e) -> str:
    s = _side(e)
    return f"{s} confirmed {_fact_words(e.command)}"


@words("fact_rejected")
def _fact_rejected(e) -> str:
    s = _side(e)
    return f"{s} rejected {_fact_words(e.command)} ({e.reason})"


@words("step_left")
def _step_left(e) -> str:
    return f"left step {e.step} for {e.to}" + (f" of firefight {e.firefight}" if e.to == StepId.CP else "")


@words("cp_replenished")
def _cp(e) -> str:
    s = _side(e)
    if e.roll is None:
        return f"{s} CP replenishment: {e.gained} CP provided by the CG Card{_left(e.total, 'in hand')}"
    return f"{s} CP replenishment: {roll_words(e.roll)} CP{_left(e.total, 'in hand')}"


@words("weather_set")
def _weather(e) -> str:
    return f"at-start weather: {e.text}"


@words("rg_bought")
def _rg_bought(e) -> str:
    s = _side(e)
    delta = f" ({e.base_cost}{signed(e.delta)} for {e.mode}, 2.34)" if e.delta else ""
    return f"{s} bought {e.rg} as {e.purchase} ({e.mode}) for {e.cost} CP{delta}{_left(e.cp_left)}"


@words("patrols_bought")
def _patrols_bought(e) -> str:
    s = _side(e)
    return f"{s} bought {e.count} patrol(s) for {e.cost} CP{_left(e.cp_left)}"


@words("attack_announced")
def _attack_announced(e) -> str:  # ruling R109
    s = _side(e)
    return f"{s} Attack Option (2.4): {'yes' if e.attack else 'no'}"


@words("attack_bought")
def _attack_bought(e) -> str:
    s = _side(e)
    return f"{s} bought the Attack Option for {e.cost} CP{_left(e.cp_left)}"


@words("oba_rolled")
def _oba(e) -> str:
    s = _side(e)
    return f"{s} OBA ammunition for {e.purchase}: {roll_words(e.roll)}"


@words("leader_rolled")
def _leader(e) -> str:
    s = _side(e)
    what = "generated leader (3.45)" if e.generated else f"leader for {e.purchase}"
    placed = f"; placed in {e.hex}" if e.hex else ""
    return f"{s} {what}: {roll_words(e.roll)}{placed}"


@words("fortified")
def _fortified(e, secret: bool = False) -> str:
    s = _side(e)
    if (e.detail or {}).get("level"):  # CG12, ruling R99
        return (f"{s} spent {e.cost} FP on Booby Traps: Level {e.detail['level']} in effect within its MLR "
                f"(CG12, 2.38 n6), {e.fp_left} FP left")
    where = f" in {e.hex}" if e.hex else ""
    unit = f" for {e.unit}" if e.unit else ""
    factors = (e.detail or {}).get("factors")
    what = terrain_words(Kept(e.kind, None, str(factors) if factors else None))  # 2.38: no side in words
    if secret:  # ruling R22: the other side reads no FP a minefield cost (its factors, or a dummy)
        return f"{s} bought a {what}{where} (2.38: its strength is {s}'s secret)"
    return f"{s} spent {e.cost} FP on {what}{',' if factors and where else ''}{where}{unit}, {e.fp_left} FP left"


@words("half_squads_recombined")
def _recombined(e) -> str:
    s = _side(e)
    return f"{s} {e.keep} and {e.gone} recombine into {article(e.to)} (3.42), as {e.keep}"


@words("heroes_removed")
def _heroes_removed(e) -> str:
    s = _side(e)
    return f"{s} Heroes removed from play (3.43: at most one in play): {', '.join(e.units)}"


@words("disease_replaced")
def _disease_replaced(e) -> str:
    s = _side(e)
    c = e.change
    if e.disrupted:
        return (f"{s} {c.unit} Disrupted by Disease & Starvation (3.41), not Replaced: a {c.to} has no "
                "lower-quality counter (A19.12)")
    return f"{s} {c.unit} ELR Replaced by Disease & Starvation (3.41): now a {c.to}"


@words("casualty_reduced")
def _casualty_reduced(e) -> str:
    s = _side(e)
    c = e.change
    what = "eliminated" if c.to == "eliminated" else f"now {article(c.to)}"
    return f"{s} {c.unit} Casualty Reduced for the clearance in {e.hex} (3.52): {what}"


@words("fortification_placed")
def _fortification_placed(e, secret: bool = False) -> str:
    s = _side(e)
    return f"{s} placed {terrain_words(Kept(e.kind))} in {e.hex} (bought at 2.38 without a hex)"


@words("firefight_determined")
def _determined(e) -> str:
    t = TYPE.get(e.type, e.type)
    if e.type == "idle":
        lost = f"; lost: {', '.join(e.lost)}" if e.lost else ""
        return f"firefight type: Idle Firefight (neither side bought an Attack Option){lost}"
    if e.type == "dual":
        drs = [r.dice[0] for r in e.rolls if r.dice]
        setup = f"dr {drs[0]}: " if drs else ""
        if not e.move_first:
            return f"firefight type: Dual Attack; {setup}{SIDE[e.setup_first]} sets up first " \
                   "(who moves first: a dr after all setup, 2.6)"
        move = f"dr {drs[1]}: " if len(drs) > 1 else ""
        return f"firefight type: Dual Attack; {setup}{SIDE[e.setup_first]} sets up first, " \
               f"{move}{SIDE[e.move_first]} moves first"
    return f"firefight type: {t}; {SIDE[e.setup_first]} sets up first, {SIDE[e.move_first]} moves first"


@words("moves_first_rolled")
def _moves_first(e) -> str:
    return f"Dual Attack, who moves first (2.41): {roll_words(e.roll)}: {SIDE[e.move_first]} moves first"


@words("night_set")
def _night(e) -> str:
    return f"night conditions: {e.text}"


@words("redeployment_option")
def _option(e) -> str:
    return option_words(e, None)


@words("patrol_resolved")
def _patrol(e) -> str:
    s = _side(e)
    return f"{s} {e.kind} patrol {e.patrol} ({', '.join(e.units)} with {e.leader}) to " \
           f"{e.mission_hex}: Detection {roll_words(e.roll)}{_struck(e)}"


@words("patrol_returned")
def _patrol_returned(e) -> str:
    s = _side(e)
    return f"{s} patrol {e.patrol} Return: {roll_words(e.roll)}{_struck(e)}"


@words("patrol_given_up")
def _patrol_given_up(e) -> str:
    s = _side(e)
    return f"{s} patrol {e.patrol} given up: {e.reason}"


@words("firefight_ended")
def _ended(e) -> str:
    c = ", ".join(f"{SIDE[x.side]} {x.hex}" for x in e.control)
    return f"firefight ended on turn {e.turn}: CVP lost Axis {e.cvp_lost['axis']}, Allied " \
           f"{e.cvp_lost['allied']}; {_winner(e)}" + \
           (f"; control: {c}" if c else "") + (f"; {len(e.lost)} unit(s) lost" if e.lost else "") + \
           _end_more(e)


@words("redeployment_done")
def _redeployment_done(e) -> str:
    s = _side(e)
    return f"{s} has done with its 2.5 Option A redeployment: the Attacker redeploys now (ruling R85)"


@words("unit_positioned")
def _positioned(e) -> str:
    s = _side(e)
    how = " (HIP)" if e.hip else " (concealed)" if e.concealed else ""
    return f"{s} {e.unit} stands in {e.hex} at the firefight's end{how} (2.9)"


@words("casualties_added")
def _casualties(e) -> str:
    s = _side(e)
    return f"{s} RePh losses: {e.cvp} CVP counted for the firefight (3.11)"


@words("encircled_tested")
def _encircled(e) -> str:
    s = _side(e)
    return f"{s} encircled {e.unit} 1TC vs morale {e.morale}: {roll_words(e.roll)}"


@words("shock_resolved")
def _shock(e) -> str:
    s = _side(e)
    return f"{s} {e.unit} Shock/UK: {roll_words(e.roll)}"


@words("isolated_marked")
def _isolated(e) -> str:
    return f"Isolated (Ammunition Shortage): {', '.join(u.unit for u in e.units)}"


@words("units_stranded")
def _stranded(e) -> str:
    why = "alone and Immobilized after all redeployment" if e.rule == "3.23" else "no redeployment possible"
    counted = "; their CVP count for the firefight (3.11)" if e.counted else ""
    return f"eliminated ({e.rule}: {why}; a vehicle is its wreck, CS NA{counted}): " + \
        ", ".join(f"{u.side} {u.unit}" for u in e.units)


@words("terrain_changed")
def _terrain(e) -> str:
    ch = ", ".join(f"{c.change} {terrain_words(c.item)} in {c.hex}" for c in e.changes) or "no change"
    rolls = "; ".join(roll_words(x) for x in e.rolls)
    return f"terrain ({e.rule}): {ch}" + (f" [{rolls}]" if rolls else "")


@words("evacuation_rolled")
def _evac(e) -> str:
    s = _side(e)
    return f"{s} wounded {e.leader} evacuation: {roll_words(e.roll)}"


@words("tvp_awarded")
def _tvp(e) -> str:
    return f"TVP: Axis {e.tvp['axis']} (CG total {e.total['axis']}), Allied {e.tvp['allied']} " \
           f"(CG total {e.total['allied']})"


@words("disease_rolled")
def _disease(e) -> str:
    s = _side(e)
    return f"{s} Disease & Starvation: {roll_words(e.roll)} squad(s) replaced"


@words("promotion_rolled")
def _promotion(e) -> str:
    s = _side(e)
    return f"{s} Battlefield Promotion: {roll_words(e.roll)} MMC"


@words("leaders_rolled")
def _leaders(e) -> str:
    s = _side(e)
    return f"{s} Leader Generation: {roll_words(e.roll)}; may generate {e.may_generate}"


@words("unit_hardened")
def _hardened(e) -> str:
    s = _side(e)
    return f"{s} {e.unit} Battle Hardened ({e.by})" + (f" to {e.to}" if e.to else "") + \
        (" (Elite: Fanatic, the counter stays)" if e.fanatic else "") + \
        (f" with the Hero of {e.hero}" if e.hero and e.hero != e.unit else "")


@words("repair_rolled")
def _repair(e) -> str:
    s = _side(e)
    return f"{s} repair of {e.item} ({e.kind}): {roll_words(e.roll)}"


@words("recall_rolled")
def _recall(e) -> str:
    s = _side(e)
    return f"{s} recalled {e.unit}: {roll_words(e.roll)}"


@words("elr_rolled")
def _elr(e) -> str:
    s = _side(e)
    return f"{s} ELR Loss/Gain: {roll_words(e.roll)}; ELR {e.before} -> {e.after}"


@words("san_adjusted")
def _san(e) -> str:
    s = _side(e)
    return f"{s} SAN {e.before} -> {e.after} (3.51)"


@words("clearance_rolled")
def _clearance(e) -> str:
    s = _side(e)
    cr = "; Casualty Reduction of one MMC (original 6)" if e.casualty_reduction else ""
    return f"{s} clearance of {e.item} in {e.hex}: {roll_words(e.roll)}{cr}"


@words("conceded")
def _conceded(e) -> str:
    s = _side(e)
    return f"{s} concedes the CG"


@words("cg_ended")
def _cg_ended(e) -> str:
    w = "; a draw (ruling R74)" if e.winner == "draw" else f"; winner {SIDE[e.winner]}" if e.winner else ""
    return f"CG ended ({e.reason}); CG TVP Axis {e.tvp['axis']}, Allied {e.tvp['allied']}{w}"


@words("reverted")
def _reverted(e) -> str:
    f = " (forced across a commencement)" if e.force else ""
    return f"undo of seq {', '.join(map(str, e.seqs))}: {e.reason}{f}"


def terrain_words(item: Kept | str) -> str:
    """A terrain item as the ledger keeps it (a cg/items.Kept, or its text in an event), in the one
    vocabulary's words: 'ap_mine:axis:3' -> 'A-P mines, 3 factors (Axis)'; 'foxhole:axis' -> 'foxhole
    (Axis)'; a word a revision 1 campaign kept as typed stays the player's ('A-P mines 6')."""
    k = kept(item)
    kind = k.key.strip()
    side, strength = k.said()
    name = ITEMS[kind].words if kind in ITEMS else kind.replace("_", " ")
    if strength:
        name += f", {strength} factor{'s' if strength != '1' else ''}"
    return name + (f" ({SIDE[side]})" if side else "")
