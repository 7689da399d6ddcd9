"""Each event in words: one line for `plcg log`, the step commands' output and the AAR."""
from __future__ import annotations

import re

from cg.items import DISGUISED, ITEMS, Kept, key_of, kept, seen_by
from cg.sequence import StepId
from cg.tables import COMMISSAR_ROWS
from cg.units import article

SIDE = {"axis": "Axis", "allied": "Allied", None: "-"}
TYPE = {"axis_assault": "Axis Assault", "allied_assault": "Allied Assault", "dual": "Dual Attack",
        "idle": "Idle Firefight"}


SITUATION = {"friendly_mlr": "friendly MLR", "enemy_mlr": "enemy MLR", "isolated": "Isolated",
             "uncontrolled": "Uncontrolled Terrain", "nml": "No Man's Land"}  # 3.212


def signed(v: int) -> str:
    return f"+{v}" if v > 0 else str(v)


def roll_words(r: dict, column: str | None = None) -> str:
    """'DR 7 (4+3), -1 for 10 CVP lost (2.12) = 6 on Low: 12'"""
    dice = r["dice"]
    kind = "DR" if len(dice) == 2 else "dr" if len(dice) == 1 else "dice"
    parts = [f"{kind} {sum(dice)}" + (f" ({'+'.join(map(str, dice))})" if len(dice) > 1 else "")]
    for d in r["drm"]:
        parts.append(drm_words(d))
    text = ", ".join(parts)
    if r["drm"]:
        text += f" = {r['final']}"
    where = f" on {column}" if column else ""
    out = r["outcome"]
    if isinstance(out, str):
        out = out.replace("_", " ")  # "redeploys_replaced" -> "redeploys replaced"
    if r.get("rolled") not in (None, r["outcome"]):
        out = f"{r['rolled']} -> {out} ({changed_by(r)})"
    who = "" if not r.get("manual") else " [dice given]"
    return f"{text}{where}, row {row_words(r['row'])} of {r['table']}: {out if out is not None else 'none'}{who}"


def changed_by(r: dict) -> str:
    """The rule that changed a table's result (`rolled` -> `outcome`), ruling R92: on the starred rows of
    2.361 it is a Commissar taken (2.361 *, A25.22; the leaders of those rows, 8-1 and 8-0 or a
    Finnish/Japanese 9-x, are never among the two top types 2.362 limits), elsewhere the 2.362 limit."""
    if r.get("table") == "2.361" and r.get("row") in COMMISSAR_ROWS:
        return "Commissar, 2.361 * / A25.22"
    return "2.362"


def _winner(p: dict) -> str:
    """'winner Axis (1.31)'; a Dual Night Assault's CVP tie: a draw, no Firefight Defender (ruling R5)."""
    if p["winner"] is None and p.get("winner_rule") == "2.421":
        return "no winner, a draw (2.421: a Dual Night Assault has no Firefight Defender to take the tie)"
    return f"winner {SIDE[p['winner']]} ({p['winner_rule']})"


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
        return option_words(p, by)
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


def option_words(p: dict, by: str | None) -> str:
    """3.2: the Redeployment Option, chosen once for the CG and for both sides; who chose it where known
    (a keyed campaign's command names its side), else the players (one file, both at the table)."""
    who = f"{SIDE[by]} chose" if by in ("axis", "allied") else "the players chose"
    return f"{who} Redeployment Option {p['option']} for the CG, both sides (3.2)"


def seed_words(p: dict) -> str:
    """campaign_started's dice: the seed, or what makes the dice when there is none (rulings R31, R44)."""
    if p.get("seed"):
        return f"seed {p['seed']!r}"
    if (p.get("pbem") or {}).get("dice_policy") == "two-party":
        return "no seed: two-party dice, made by both players together (ruling R44)"
    return "no seed: the ledger's dice come from the operating system's random source, unforeseeable (ruling R31)"


def drm_words(d: dict) -> str:
    """One DRM as '-1 for won firefight 1 (3.44)'. The 2.361 Legacy drm (recorded as 'legacy nationality drm
    (german, 1943)') is said by what the rule gives it for: the nationality and the year."""
    reason = d["reason"]
    m = _LEGACY.fullmatch(reason)
    if m is not None:
        nat, year = m.group(1), m.group(2)
        why = ("pre-1945 German" if d["value"] < 0 else "US/British" if d["value"] == 0
               else "1945 German" if nat.lower() == "german" else "any other nationality")
        return f"{signed(d['value'])} for {article(nat.capitalize())} side in {year} ({d['rule']} nationality drm: {why})"
    return f"{signed(d['value'])} for {reason} ({d['rule']})"


_LEGACY = re.compile(r"legacy nationality drm \(([^,]+), (\d+)\)")


def _struck(p: dict) -> str:
    """Ruling R29: the Random Selection drs and what the result did to each unit struck."""
    out = ""
    if p.get("selection"):
        out += "; Random Selection drs " + ", ".join(f"{x['unit']} {x['dr']}" + (f" (round {x['round']})"
                                                                                  if x.get("round", 1) > 1 else "")
                                                     for x in p["selection"])
    if p.get("losses"):
        out += "; " + ", ".join(f"{c['unit']} {c['to'] if c['to'] in ('eliminated', 'captured', 'wounded') else 'reduced to ' + c['to']}"
                                for c in p["losses"])
    return out


def _end_more(p: dict) -> str:
    """2.9: what else the firefight's end records of units and terrain (issue 27 item 10)."""
    out = []

    def units(key: str) -> str:
        return ", ".join(f"{SIDE[x['side']]} {x['unit']}" for x in p.get(key, ()))

    for key, what in (("reduced", "reduced"), ("replaced", "replaced (A19.13)")):
        if p.get(key):
            out.append(f"{what}: " + ", ".join(
                f"{SIDE[c['side']]} {c['unit']} " + (c["to"] if c["to"] in ("eliminated", "wounded", "captured")
                                                    else f"to {c['to']}") for c in p[key]))
    for key, what in (("wounded", "wounded"), ("captured", "captured"), ("exited", "exited (CG8)"),
                      ("hero", "Hero (3.43)"), ("encircled", "Encircled (3.17)"), ("shocked", "Shocked/UK (3.19)"),
                      ("recalled", "Recalled (3.461)")):
        if p.get(key):
            out.append(f"{what}: {units(key)}")
    if p.get("terrain"):
        out.append("terrain kept (CG5): " + ", ".join(f"{terrain_words(t['item'])} in {t['hex']}"
                                                      for t in p["terrain"]))
    if p.get("vasl_logs"):
        out.append("played in " + vasl_words(p["vasl_logs"]))
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


def _left(p: dict, key: str = "cp_left", what: str = "left") -> str:
    """", N CP left"; nothing where a sealed secret's opening leaves the balance out (ruling R47)."""
    return f", {p[key]} CP {what}" if key in p else ""


def _redeployed(p: dict, s: str, r) -> str:
    how = roll_words(r, "Redeployment Table") if r else "Option B"
    res = p["result"].replace("_", " ")
    tail = f" -> {res}" if not r or r["outcome"] != p["result"] else ""
    change = p.get("change")
    change = "" if not change else f"; {p['unit']} is {change}" if change in ("eliminated", "wounded") \
        else f"; {p['unit']} is now {article(change)}"
    return f"{s} {p['unit']} redeploys from {p['frm'] or 'MLR'} ({SITUATION.get(p['situation'], p['situation'])}) " \
           f"to {p['to']}: {how}{tail}{change}"


def _set_up(p: dict, s: str, r) -> str:
    return f"{s} {p['unit']} set up in {p['hex']}" + (" (HIP)" if p["hip"] else "")


# the two types of nine rows in ten of a campaign's log (2.5 and 2.6, every unit each firefight): looked up
# first, before the chain of tests below (`plcg log` and the AAR word every row)
_COMMON = {"redeployed": _redeployed, "unit_set_up": _set_up}


def _summary(etype: str, p: dict) -> str:
    s = SIDE.get(p.get("side"), p.get("side"))
    r = p.get("roll")
    common = _COMMON.get(etype)
    if common is not None:
        return common(p, s, r)
    if etype == "campaign_started":
        return f"campaign started: {p['card'].get('campaign', {}).get('name', p['card_ref'])} ({p['rules']}, " \
               f"{p['product']} {p['product_version']}, rules revision {p.get('rules_revision', 1)}), {seed_words(p)}"
    if etype == "rules_upgraded":
        return f"rules revision {p['revision']} in force from firefight {p['from_firefight']}'s 2.1 on (ruling R32)"
    if etype == "head_signed":
        return f"{s} signed the head at seq {p['seq']} ({p['hash'][:16]})"
    if etype == "dice_committed" and p.get("chain") is not None:  # ruling R83
        return f"{s} committed to two-party dice for {p['command'].get('name')} ({p['commit'][:8]}), its value" \
               " shown: decided by the other side's next bundle, whose answer is fixed already (ruling R83)"
    if etype == "dice_chain":
        return f"{s} committed to its chain of answers to the other side's two-party dice ({p['anchor'][:8]})"
    if etype == "dice_committed":
        return f"{s} committed to two-party dice for {p['command'].get('name')} ({p['commit'][:8]}): decided at" \
               f" {s}'s reveal, after the other side's answer"
    if etype == "dice_answered":
        return f"{s} answered two-party dice {p['request'][:8]}"
    if etype == "dice_revealed" and str(p.get("value")).partition(":")[0] == "withheld":
        return f"{s} claimed two-party dice {p['request'][:8]}, withheld by the other side (ruling R67)"
    if etype == "dice_revealed":
        return f"{s} revealed two-party dice {p['request'][:8]}"
    if etype == "sealed":  # ruling R47
        what = {"cp": "its CP DR (2.1)", "purchase": "a purchase (2.3)", "promote": "its promotion dr (3.44)",
                "harden": "a hardening (3.44)", "attack": "its Attack Option choice, yes or no (2.3)",
                "hidden": "a HIP unit or mines placed (2.6; revealed at 2.9, ruling R112)",
                "concealed": f"a concealed unit set up: a \"?\" in {p.get('hex')} (2.6, A12.1; revealed at 2.9, ruling R112)",
                }.get(p["what"], p["what"])
        return f"{s} sealed {what} ({p['commitment'][:8]})"
    if etype == "seals_revealed":
        n = len(p["openings"])
        return f"{s} revealed {n} sealed secret{'s' if n != 1 else ''} at " + (
            "the CG's end" if p["point"] == StepId.END else f"{p['point']}") + (
            f": {'; '.join(_opened_words(o['opening']) for o in p['openings'])}" if n else "")
    if etype == "fact_proposed":
        if "provisional" in p["command"]:  # ruling R71
            return (f"{provisional_words(s, p['command'])} (the other side's next command"
                    " confirms it; `plcg reject --reason TEXT` undoes it)")
        return f"{s} proposed {_fact_words(p['command'])} (the other side's `plcg next` or `plcg confirm` confirms" \
               " it; `plcg reject --reason TEXT` refuses it)"
    if etype == "fact_confirmed":
        return f"{s} confirmed {_fact_words(p['command'])}"
    if etype == "fact_rejected":
        return f"{s} rejected {_fact_words(p['command'])} ({p['reason']})"
    if etype == "step_left":
        return f"left step {p['step']} for {p['to']}" + (f" of firefight {p['firefight']}" if p["to"] == StepId.CP else "")
    if etype == "cp_replenished":
        if r is None:
            return f"{s} CP replenishment: {p['gained']} CP provided by the CG Card{_left(p, 'total', 'in hand')}"
        return f"{s} CP replenishment: {roll_words(r)} CP{_left(p, 'total', 'in hand')}"
    if etype == "weather_set":
        return f"at-start weather: {p['text']}"
    if etype == "rg_bought":
        delta = f" ({p['base_cost']}{signed(p['delta'])} for {p['mode']}, 2.34)" if p["delta"] else ""
        return f"{s} bought {p['rg']} as {p['purchase']} ({p['mode']}) for {p['cost']} CP{delta}{_left(p)}"
    if etype == "patrols_bought":
        return f"{s} bought {p['count']} patrol(s) for {p['cost']} CP{_left(p)}"
    if etype == "attack_announced":  # ruling R109
        return f"{s} Attack Option (2.4): {'yes' if p['attack'] else 'no'}"
    if etype == "attack_bought":
        return f"{s} bought the Attack Option for {p['cost']} CP{_left(p)}"
    if etype == "oba_rolled":
        return f"{s} OBA ammunition for {p['purchase']}: {roll_words(r)}"
    if etype == "leader_rolled":
        what = "generated leader (3.45)" if p.get("generated") else f"leader for {p['purchase']}"
        placed = f"; placed in {p['hex']}" if p.get("hex") else ""
        return f"{s} {what}: {roll_words(r)}{placed}"
    if etype == "fortified" and (p.get("detail") or {}).get("level"):  # CG12, ruling R99
        return (f"{s} spent {p['cost']} FP on Booby Traps: Level {p['detail']['level']} in effect within its MLR "
                f"(CG12, 2.38 n6), {p['fp_left']} FP left")
    if etype == "fortified":
        where = f" in {p['hex']}" if p.get("hex") else ""
        unit = f" for {p['unit']}" if p.get("unit") else ""
        factors = (p.get("detail") or {}).get("factors")
        what = terrain_words(Kept(p["kind"], None, str(factors) if factors else None))  # 2.38: no side in words
        if p.get("secret"):  # ruling R22: the other side reads no FP a minefield cost (its factors, or a dummy)
            return f"{s} bought a {what}{where} (2.38: its strength is {s}'s secret)"
        return f"{s} spent {p['cost']} FP on {what}{',' if factors and where else ''}{where}{unit}, {p['fp_left']} FP left"
    if etype == "half_squads_recombined":
        return f"{s} {p['keep']} and {p['gone']} recombine into {article(p['to'])} (3.42), as {p['keep']}"
    if etype == "heroes_removed":
        return f"{s} Heroes removed from play (3.43: at most one in play): {', '.join(p['units'])}"
    if etype == "disease_replaced":
        c = p["change"]
        if p.get("disrupted"):
            return (f"{s} {c['unit']} Disrupted by Disease & Starvation (3.41), not Replaced: a {c['to']} has no "
                    "lower-quality counter (A19.12)")
        return f"{s} {c['unit']} ELR Replaced by Disease & Starvation (3.41): now a {c['to']}"


        return f"{s} {c['unit']} ELR Replaced by Disease & Starvation (3.41): now {article(c['to'])}"
    if etype == "casualty_reduced":
        c = p["change"]
        what = "eliminated" if c["to"] == "eliminated" else f"now {article(c['to'])}"
        return f"{s} {c['unit']} Casualty Reduced for the clearance in {p['hex']} (3.52): {what}"
    if etype == "fortification_placed":
        return f"{s} placed {terrain_words(Kept(p['kind']))} in {p['hex']} (bought at 2.38 without a hex)"
    if etype == "firefight_determined":
        t = TYPE.get(p["type"], p["type"])
        if p["type"] == "idle":
            lost = f"; lost: {', '.join(p['lost'])}" if p.get("lost") else ""
            return f"firefight type: Idle Firefight (neither side bought an Attack Option){lost}"
        if p["type"] == "dual":
            drs = [r["dice"][0] for r in p.get("rolls", ()) if r.get("dice")]
            setup = f"dr {drs[0]}: " if drs else ""
            if not p.get("move_first"):
                return f"firefight type: Dual Attack; {setup}{SIDE[p['setup_first']]} sets up first " \
                       "(who moves first: a dr after all setup, 2.6)"
            move = f"dr {drs[1]}: " if len(drs) > 1 else ""
            return f"firefight type: Dual Attack; {setup}{SIDE[p['setup_first']]} sets up first, " \
                   f"{move}{SIDE[p['move_first']]} moves first"
        return f"firefight type: {t}; {SIDE[p['setup_first']]} sets up first, {SIDE[p['move_first']]} moves first"
    if etype == "moves_first_rolled":
        return f"Dual Attack, who moves first (2.41): {roll_words(p['roll'])}: {SIDE[p['move_first']]} moves first"
    if etype == "night_set":
        return f"night conditions: {p['text']}"
    if etype == "redeployment_option":
        return option_words(p, None)
    if etype == "patrol_resolved":
        return f"{s} {p['kind']} patrol {p['patrol']} ({', '.join(p['units'])} with {p['leader']}) to " \
               f"{p['mission_hex']}: Detection {roll_words(r)}{_struck(p)}"
    if etype == "patrol_returned":
        return f"{s} patrol {p['patrol']} Return: {roll_words(r)}{_struck(p)}"
    if etype == "patrol_given_up":
        return f"{s} patrol {p['patrol']} given up: {p['reason']}"
    if etype == "firefight_ended":
        c = ", ".join(f"{SIDE[x['side']]} {x['hex']}" for x in p["control"])
        return f"firefight ended on turn {p['turn']}: CVP lost Axis {p['cvp_lost']['axis']}, Allied " \
               f"{p['cvp_lost']['allied']}; {_winner(p)}" + \
               (f"; control: {c}" if c else "") + (f"; {len(p['lost'])} unit(s) lost" if p["lost"] else "") + \
               _end_more(p)
    if etype == "redeployment_done":
        return f"{s} has done with its 2.5 Option A redeployment: the Attacker redeploys now (ruling R85)"
    if etype == "unit_positioned":
        how = " (HIP)" if p.get("hip") else " (concealed)" if p.get("concealed") else ""
        return f"{s} {p['unit']} stands in {p['hex']} at the firefight's end{how} (2.9)"
    if etype == "casualties_added":
        return f"{s} RePh losses: {p['cvp']} CVP counted for the firefight (3.11)"
    if etype == "encircled_tested":
        return f"{s} encircled {p['unit']} 1TC vs morale {p['morale']}: {roll_words(r)}"
    if etype == "shock_resolved":
        return f"{s} {p['unit']} Shock/UK: {roll_words(r)}"
    if etype == "isolated_marked":
        return f"Isolated (Ammunition Shortage): {', '.join(u['unit'] for u in p['units'])}"
    if etype == "units_stranded":
        why = "alone and Immobilized after all redeployment" if p["rule"] == "3.23" else "no redeployment possible"
        counted = "; their CVP count for the firefight (3.11)" if p.get("counted") else ""
        return f"eliminated ({p['rule']}: {why}; a vehicle is its wreck, CS NA{counted}): " + \
            ", ".join(f"{u['side']} {u['unit']}" for u in p["units"])
    if etype == "terrain_changed":
        ch = ", ".join(f"{c['change']} {terrain_words(c['item'])} in {c['hex']}" for c in p["changes"]) or "no change"
        rolls = "; ".join(roll_words(x) for x in p.get("rolls", ()))
        return f"terrain ({p['rule']}): {ch}" + (f" [{rolls}]" if rolls else "")
    if etype == "evacuation_rolled":
        return f"{s} wounded {p['leader']} evacuation: {roll_words(r)}"
    if etype == "tvp_awarded":
        return f"TVP: Axis {p['tvp']['axis']} (CG total {p['total']['axis']}), Allied {p['tvp']['allied']} " \
               f"(CG total {p['total']['allied']})"
    if etype == "disease_rolled":
        return f"{s} Disease & Starvation: {roll_words(r)} squad(s) replaced"
    if etype == "promotion_rolled":
        return f"{s} Battlefield Promotion: {roll_words(r)} MMC"
    if etype == "leaders_rolled":
        return f"{s} Leader Generation: {roll_words(r)}; may generate {p['may_generate']}"
    if etype == "unit_hardened":
        return f"{s} {p['unit']} Battle Hardened ({p['by']})" + (f" to {p['to']}" if p.get("to") else "") + \
            (" (Elite: Fanatic, the counter stays)" if p.get("fanatic") else "") + \
            (f" with the Hero of {p['hero']}" if p.get("hero") and p["hero"] != p["unit"] else "")
    if etype == "repair_rolled":
        return f"{s} repair of {p['item']} ({p['kind']}): {roll_words(r)}"
    if etype == "recall_rolled":
        return f"{s} recalled {p['unit']}: {roll_words(r)}"
    if etype == "elr_rolled":
        return f"{s} ELR Loss/Gain: {roll_words(r)}; ELR {p['before']} -> {p['after']}"
    if etype == "san_adjusted":
        return f"{s} SAN {p['before']} -> {p['after']} (3.51)"
    if etype == "clearance_rolled":
        cr = "; Casualty Reduction of one MMC (original 6)" if p.get("casualty_reduction") else ""
        return f"{s} clearance of {p['item']} in {p['hex']}: {roll_words(r)}{cr}"
    if etype == "conceded":
        return f"{s} concedes the CG"
    if etype == "cg_ended":
        w = "; a draw (ruling R74)" if p.get("winner") == "draw" else \
            f"; winner {SIDE[p['winner']]}" if p.get("winner") else ""
        return f"CG ended ({p['reason']}); CG TVP Axis {p['tvp']['axis']}, Allied {p['tvp']['allied']}{w}"
    if etype == "reverted":
        f = " (forced across a commencement)" if p.get("force") else ""
        return f"undo of seq {', '.join(map(str, p['seqs']))}: {p['reason']}{f}"
    return etype.replace("_", " ")  # an event this release has no words for yet: at least not snake_case


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
