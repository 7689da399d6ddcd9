"""`plcg status` as a read model (issue 33 item 5: out of cli.py): `status_dict` (status --json, the
contract's keys), `status_text` (its words), and `player_status`, what the player of a key reads (a copy by
email lists his own side's options only, issue 38; the web page shows the same, issue 34)."""
from __future__ import annotations

from cg import seal, specs
from cg.options import options
from cg.pbem import side_of_key
from cg.rules import revision
from cg.specs import Item
from cg.steps import BY_ID, pending
from projections import verdict
from projections.medium import whose_move
from projections.words import TYPE


def _offered(name: str) -> bool:
    """The command line offers the command (cg/options.py asks before it names one)."""
    return name in specs.BY_NAME and specs.BY_NAME[name].cli


def own_options(opts: list[Item], me: str | None) -> list[Item]:
    """The options of a keyed copy's own side (and either player's): a player gives no command for the
    other side (ruling R43), so his copy does not offer them."""
    return opts if me is None else [o for o in opts if o.by in (me, None)]


def player_status(st, key, items: tuple[list[Item], list[Item]] | None = None) -> dict:
    """`status --json` as the player of `key` reads it: a copy by email lists his own side's options only
    (issue 38); the web page shows the same (issue 34), from the `items` it worked out for its forms."""
    return status_dict(st, viewer_side(st, key), items)


def viewer_side(st, key) -> str | None:
    """The side a player's key acts for (play by email), else None: both sides, as the CLI."""
    return _own_side(st, key) if st.pbem is not None and key is not None else None


def step_items(st, me: str | None = None) -> tuple[list[Item], list[Item]]:
    """What the step owes and offers (`pending`, `options`) as the ledger's `Item`s: data (a command's spec
    and its arguments), which status --json renders to command lines and the web page to forms; by email
    (`me`), the options of the player's own side."""
    return pending(st), own_options(options(st, has_command=_offered), me)


def _own_side(st, key):
    return side_of_key(st.pbem, key)


def dice_shown(st) -> str:
    """The campaign's roller as players see it (ruling R31; play by email's two-party dice, R44)."""
    if st.pbem is not None and st.pbem.dice_policy == "two-party":
        return "two-party (both players' values make every die; typed dice refused)"
    shown = "ledger (unforeseeable)" if st.dice_mode == "ledger" else "seeded (predictable)"
    return shown + (", typed dice refused" if st.dice_policy == "no-typed" else "")


def _card_firefight(st) -> dict:
    """What the CG Card says of the current firefight (2.2 weather, 2.74 moon, CG2 turns, 1.34, FSR)."""
    spec = st.card.firefight(st.firefight)
    return {
        "weather": st.card.weather_at(st.firefight),
        "moon": spec.moon if spec else None,
        "turns": spec.turns if spec else None,
        "historical_attacker": spec.attacker if spec else None,
        "fsr": list(spec.fsr) if spec else [],
    }


def status_dict(st, me: str | None = None, items: tuple[list[Item], list[Item]] | None = None) -> dict:
    """status --json (cli-contract.md); `me`: the side whose options a keyed copy lists (own_options);
    `items`: step_items(st, me), where the caller has them already."""
    ff = st.ff
    owes, offered = step_items(st, me) if items is None else items
    return {
        "campaign": st.card.campaign.name,
        "firefight": st.firefight,
        "firefights": len(st.card.firefights),
        "date": ff.date,
        "time": ff.time,
        "step": st.step,
        "step_name": BY_ID[st.step].name,
        "initial": st.initial,
        "idle": st.idle,
        "ended": st.ended,
        "type": ff.type,
        "attacker": ff.attacker,
        "option": st.option,
        "rules_revision": revision(st),
        "pending": [dict(i) for i in owes],  # each Item as the contract's dict
        "options": [dict(i) for i in offered],
        "card_firefight": _card_firefight(st),
        "sides": {
            side: {
                "cp": s.cp, "elr": s.elr, "san": s.san, "attack_option": s.attack, "fp": s.fp,
                "patrols": s.patrols, "platoons": s.platoons, "tvp_total": s.tvp_total,
                # ruling R47: CP this copy cannot know (the side's 2.1 CP DR is sealed); CP the card gives are
                # public (issue 38)
                **({"cp": None, "sealed": True} if (cp := seal.cp_in_hand(st, side)) is None else {"cp": cp}),
            }
            for side, s in st.sides.items()
        },
        "seq": st.seq,
        "dice": st.dice_mode or "seeded",
        "dice_shown": dice_shown(st),
        "dice_policy": st.dice_policy,
        **({"pbem": _pbem_status(st)} if st.pbem is not None else {}),
        "victory": verdict.victory(st),  # ruling R74: the CG's verdict (contract: victory)
    }


def _pbem_status(st) -> dict:
    """Play by email in `status --json`: the keys, the dice policy, what awaits whom."""
    pb = st.pbem
    prop = pb.proposal
    return {"keys": dict(pb.keys), "dice_policy": pb.dice_policy,
            "signed": {s: (None if h is None else {"seq": h[0], "hash": h[1][:16]}) for s, h in pb.signed.items()},
            "proposal": None if prop is None else {"side": prop.side, "command": prop.command.get("name")},
            # ruling R71: a step left provisionally, until the other side continues or rejects it
            "provisional": None if not pb.provisional else {
                "side": pb.provisional.side, "step": pb.provisional.command.get("step"),
                "seq": pb.provisional.command.get("provisional"),
                "command": pb.provisional.command.get("name")},  # ruling R73: a leave (next) or a shared fact
            "open_dice": [{"side": r.side, "command": r.command.get("name"), "commit": c[:16],
                           "answered": r.answer is not None} for c, r in pb.requests.items()],
            # ruling R47: every sealed secret not yet revealed, and whether this copy can read it
            "seals": [{"side": r.side, "what": r.what, "firefight": r.ff, "step": r.step, "seq": r.seq,
                       "commitment": c[:16], "sealed": not r.opened} for c, r in pb.seals.items()],
            "revealed": pb.revealed_n.data()}


def status_text(d: dict) -> str:
    """`plcg status` in words, from status_dict."""
    lines = [f"{d['campaign']} — firefight {d['firefight']} of {d['firefights']} ({d['date']}, {d['time']})"
             + (" — the CG has ended" if d["ended"] else f", step {d['step']} {d['step_name']}")]
    if d["type"]:
        lines.append(f"type: {TYPE[d['type']]}" + (f", attacker {d['attacker']}" if d["attacker"] else ""))
    lines.append(f"dice: {d['dice_shown']}")
    cf = d["card_firefight"]
    said = [f"weather {cf['weather']}"]
    if cf["moon"]:
        said.append(f"moon {cf['moon']}" + (" (+1 to patrols, 2.74)" if cf["moon"] in ("none", "full") else ""))
    if cf["turns"]:
        said.append(f"at most {cf['turns']} game turns")
    if cf["historical_attacker"]:
        said.append(f"historical ATTACKER {cf['historical_attacker']} (1.34)")
    lines.append("CG Card: " + ", ".join(said))
    for rule in cf["fsr"]:
        lines.append(f"  FSR: {rule}")
    # a plain table: status runs after every step, and tabulate's import costs more than this
    lines.append(f"{'side':8}{'CP':>5}{'ELR':>5}{'SAN':>5}{'FP':>5}{'CG TVP':>8}  attack")
    for side, s in d["sides"].items():
        cp = "seal" if s.get("sealed") else s["cp"]  # ruling R47: the other side's CP, sealed
        lines.append(f"{side:8}{cp:>5}{s['elr']:>5}{s['san']:>5}{s['fp']:>5}{s['tvp_total']:>8}  "
                     + ("yes" if s["attack_option"] else ""))
    lines.append(f"CG verdict: {d['victory']['why']}")
    if d["pending"]:
        lines.append("before `plcg next`:")
        for p in d["pending"]:
            lines.append(f"  {p['command']:48} ({p['rule']}) {p['what']}")
    elif not d["ended"]:
        lines.append("nothing owed: `plcg next` leaves the step")
    if d.get("pbem"):  # play by email (issue 26): whose move it is, what the other player waits for
        lines += whose_move(d["pending"], d["pbem"])
    owed = {p["command"] for p in d["pending"]}
    more = [o for o in d["options"] if o["command"] not in owed]  # `end` is owed and offered: said once
    if more:
        lines.append("you may also:")
        for o in more:
            once = f", once {' and '.join(o['waits_for'])} has revealed" if o.get("waits_for") else ""  # R112
            lines.append(f"  {o['command']:48} ({o['rule']}) {o['what']}{once}")
    return "\n".join(lines) + "\n"


def viewer_of(st, key, given: str | None) -> str | None:
    """Who reads a view: `--as VIEWER` (ruling R22), else the side of `key` in a campaign played by email,
    else nobody's view (everything as kept)."""
    if given is not None:
        return specs.side_arg({"side": given})
    if st.pbem is not None and key is not None:
        return side_of_key(st.pbem, key)
    return None
