"""One definition per command (issue 33 item 2): a `CommandSpec` holds a command's typed arguments
(`Arg`: positional or option, its type, default and help), where `plcg --help` lists it (`SPECS` is in
the order of the listing), who gives it in a campaign played by email (sided, a shared fact, or the
play-by-email protocol's own), and, for a command the log stores, how its parsed arguments become that
command (`command`). The click commands (cli.py builds only the one invoked), the play-by-email lists
(`SIDED`, `SHARED`, `SHARED_3`, `OWN`, read by cg/pbem.py), the words of a `pending` command
(`POSITIONAL`, for the web page's API) and the help sections are generated from `SPECS`.

A spec's typed argument class (`args_class`, an attrs class built from its `Arg`s the first time it is asked
for, so start-up builds none it does not use) carries the parsed arguments to `command`. What a step owes
or offers (`status` `pending` and `options`) is an `Item`: a spec, its typed arguments (`Choose` where
the player must choose: HEX, UNIT, N) and its rule and words; its command line is rendered from the spec
in one place (`Item.command`).

The steps a command is accepted at are the steps' own (`Step.accepts`, cg/steps/); its rule is the first
word of its help. This module imports nothing heavier than attrs: `plcg --help` and every read command
start without the handlers (cg/commands/) or the event classes.

The stored form of a command is unchanged: the same keys in the same order, a value not given left out
(`stored`), so old logs replay to the same digest.
"""
from __future__ import annotations

import functools
import hashlib
import os
import re
from collections.abc import Mapping
from typing import Any, Callable, ClassVar, Iterator

import attrs

from events.errors import BadInput
from events import records
from events.text import CONTROL, SHOWN, shown


class Usage(Exception):
    """Arguments that do not fit together (exit 2, as click's usage errors: cli.py raises it as one)."""


@records.frozen
class Arg:
    """One typed argument: `opt` None is a positional argument, else the option's flag."""
    key: str  # the parsed value's name
    opt: str | None = None
    store: str | None = None  # the stored command's key (default: `key`)
    metavar: str | None = None
    kind: str = "text"  # text | int | flag | file (an existing file) | filename | dirname | choice (`choices`)
    choices: tuple[str, ...] = ()
    case_sensitive: bool = True
    required: bool | None = None  # None: a positional argument is required, an option is not
    multiple: bool = False
    default: object = None  # 0 as the default is stored as no value (as `--drm 0` always was)
    show_default: bool = False
    help: str | None = None

    @property
    def stored_key(self) -> str:
        return self.store or self.key


JSON = Arg("as_json", "--json", kind="flag", help="Print JSON.")
DICE_DR = Arg("dice", "--dice", help="The DR as rolled: W,C (white, colored). Omit: the ledger rolls.")
DICE_DR1 = Arg("dice", "--dice", help="The dr as rolled: N. Omit: the ledger rolls.")
AT = Arg("at", "--at", kind="int", help="As of this seq.")
VIEWER = Arg('viewer', '--as', metavar='VIEWER', help="Who is looking (axis or allied): the other side's Dummy Minefields show as Known Minefields until the CG's end (ruling R22). Default: the side of --key in a campaign played by email, else nobody's view (everything as kept).")
LEADERSHIP_DRM = Arg('leadership', '--leadership', kind='int', help='Leadership DRM, typed only where the unit has no recorded hex (ruling R33: the ledger cannot see who stands with it); where it has one, the best leader in its hex gives it (R30) and a contradicting value is refused.')
HS_COUNTER = Arg('counter', '--counter', help="A Reduced squad's HS where the counter table lacks it (ruling R34).")
SIDE = Arg('side', metavar='SIDE')
UNIT = Arg('unit', metavar='UNIT')
HEX = Arg('hex_', store='hex', metavar='HEX')

# `plcg --help` lists the commands by the phase a player meets them in (issue 27 item 11)
START = "Start a campaign, cards"
WHERE = "Where it stands, what happened"
PURCHASES = "2.1-2.3 Purchases"
BEFORE = "2.4-2.8 Before the firefight"
END = "2.9 The firefight's end"
REPH = "3.1-3.52 Refit Phase"
PBEM = "Play by email"
CHECKING = "Checking and repair"
WEB = "The web page"
SECTIONS = (START, WHERE, PURCHASES, BEFORE, END, REPH, PBEM, CHECKING, WEB)

# who gives the command in a campaign played by email (cg/pbem.py)
SIDED_ = "sided"  # a side's own: its player gives it
# Shared facts (ruling R45): what both sides own is proposed by one and takes effect when the other
# confirms it. The firefight's end (2.9: CVP, control, losses), the 2.41 determination, and leaving a
# step where both sides act: every step where a command for a side is accepted.
SHARED_ = "shared"
# issue 25 item 8 (ruling R68; under every rules revision since issue 37 item 5): every other command that
# changes what both sides share: the Redeployment Option, the terrain the campaign keeps, a unit's end
# position, the rules revision, the weather and the night (ruling R45)
SHARED_FACT_ = "shared-fact"
OWN_ = "own"  # play by email's own protocol


def _field(a: Arg) -> Any:
    """The typed argument class's field of `a`: its default as click gives it when it is not typed."""
    if a.kind == "flag":
        return attrs.field(default=False, type=bool)
    if a.multiple:
        return attrs.field(default=(), type=tuple, converter=records.as_tuple)
    return attrs.field(default=a.default, type=int if a.kind == "int" else str)


@records.frozen(slots=False)  # slots=False: `args_class` is built once per spec, when first asked for
class CommandSpec:
    name: str
    section: str | None
    by: str | None  # SIDED_, SHARED_, SHARED_FACT_, OWN_, or None (either player, as the step says)
    help: str = ""
    params: tuple[Arg, ...] = ()
    # the typed arguments (args_class) -> the command as stored; None: every argument under its stored key, in order
    build: Callable[[Any], dict] | None = None
    module: str | None = None  # the step group that decides it (cg/commands/MODULE.py), imported when it runs
    cli: bool = True  # a command of the command line (False: one the ledger makes, e.g. a signature)
    group: bool = False  # a group of commands (card show/check, keys new): cli.py writes its click group

    @property
    def rule(self) -> str:
        """The rule that governs it: its help's first word where that is a rule number (2.36, B24.11)."""
        first = self.help.split(" ", 1)[0].rstrip(":")
        return first if re.match(r"^[A-Z]?\d+(\.\d+)*(-\d+(\.\d+)*)?$", first) else ""

    @functools.cached_property
    def args_class(self) -> type:
        """The command's typed arguments: an attrs class with one field per `Arg` (its key, its type, its
        default), keyword-only; built the first time it is asked for (start-up builds none it does not use)."""
        title = "".join(w.title() for w in re.split(r"[-_]", self.name))
        return attrs.make_class(f"{title}Args", {a.key: _field(a) for a in self.params}, frozen=True,
                                kw_only=True, repr=False)

    def args(self, **values: Any) -> Any:
        """The typed arguments (`args_class`) of `values`; the arguments not given take their defaults."""
        return self.args_class(**values)

    def command(self, values: Mapping | Any) -> dict:
        """The command as the log stores it, from the parsed arguments: `values` as click gives them (a dict)
        or the typed arguments (`args_class`) (Usage, BadInput)."""
        a = self.args_class(**values) if isinstance(values, Mapping) else values
        if self.build is not None:
            return stored(self.build(a))
        cmd: dict = {"name": self.name}
        for p in self.params:
            if p is JSON:
                continue
            v = getattr(a, p.key)
            if p.multiple:
                v = list(v)
            if p.default == 0 and p.kind == "int" and not v:
                v = None
            cmd[p.stored_key] = v
        return stored(cmd)


def stored(cmd: dict) -> dict:
    """An argument not given is left out (the handlers' defaults apply); a 0 given is kept (0 == False, so
    `in (None, False, ...)` would drop it and report --turn 0 as missing). Text is one line: the log shows
    every event on one line (the contract)."""
    cmd = {k: v for k, v in cmd.items() if v is not None and v is not False and v != () and v != []}
    for k, v in cmd.items():
        if any(isinstance(x, str) and CONTROL.search(x) for x in (v if isinstance(v, (list, tuple)) else (v,))):
            what = k.upper() if k == "text" else "--" + k.replace("_", "-")
            raise BadInput(f"{what}: one line, without control characters (newlines, tabs)")
    return cmd



SIDES = ("axis", "allied")


def side_arg(cmd: dict, key: str = "side") -> str:
    """A side as typed (any case): axis or allied; BadInput otherwise."""
    side = cmd.get(key)
    if side in SIDES:  # as the CLI writes it
        return side
    side = str(side or "").lower()
    if side not in SIDES:
        raise BadInput(f"unknown side {cmd.get(key)!r}: sides are axis and allied")
    return side


def seps(values, first: str, second: str | None = None) -> list[str]:
    """Both separators `=` and `:` accepted (issue 27 item 11): each value written with the canonical ones
    the command records (`axis:8` -> `axis=8` for --cvp-lost; `axis=I1-2.2` -> `axis:I1-2.2` for --lost;
    `axis=I1-1.1:G3` -> `axis:I1-1.1=G3` for --position). The log keeps one spelling, so a replay or an
    audit decides the same command whichever a player typed."""
    out = []
    for v in values or ():
        v = str(v)
        m = re.match(r"^([^=:]*)[=:](.*)$", v)
        if not m:
            out.append(v)
            continue
        head, rest = m.groups()
        if second is not None:
            m2 = re.match(r"^([^=:]*)[=:](.*)$", rest)
            rest = f"{m2.group(1)}{second}{m2.group(2)}" if m2 else rest
        elif first == "=" and ":" not in head:  # HEX=ITEM[:SIDE][:FACTORS]: the item's own parts keep `:`
            rest = rest.replace("=", ":")
        out.append(f"{head}{first}{rest}")
    return out


def vasl_log(path: str) -> dict:
    """`end --vasl-log FILE`: the file's name and SHA-256, read in pieces (a VASL log may be large)."""
    name = os.path.basename(path)
    if SHOWN.search(name):
        raise BadInput(f"--vasl-log {shown(name)}: the file name holds control characters; rename the file")
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            while chunk := f.read(1 << 20):
                h.update(chunk)
    except OSError as e:
        raise BadInput(f"--vasl-log {shown(path)}: cannot read it ({e.strerror})") from None
    return {"name": name, "sha256": h.hexdigest()}


def _leader(a) -> dict:
    if not a.rg and not a.generated:
        raise Usage("name the RG (2.36) or give --generated (3.45)")
    return {"name": "leader", "side": a.side, "rg": a.rg, "generated": a.generated,
            "commissar": a.commissar, "dice": a.dice, **({"hex": a.hex_} if a.hex_ else {})}


def _redeploy(a) -> dict:
    if a.done:
        if a.unit or a.to:
            raise Usage("--done takes no UNIT and no --to")
        return {"name": "redeploy", "side": a.side, "done": True}
    if not a.unit or not a.to:
        raise Usage("give UNIT and --to HEX (or --done at 2.5 Option A)")
    return {"name": "redeploy", "side": a.side, "unit": a.unit, "to": a.to, "hs": a.hs or None,
            "leadership": a.leadership, "crosses_uncontrolled": a.crosses_uncontrolled,
            "counter": a.counter, "dice": a.dice}


def _patrol(a) -> dict:
    units = a.units
    return {"name": "patrol", "side": a.side, "type": a.kind,
            "units": [u.strip() for u in units.split(",") if u.strip()] if units else None,
            "leader": a.leader, "hex": a.hex_, "elite": a.elite, "stealthy": a.stealthy,
            "inexperienced": a.inexperienced, "lax": a.lax, "enemy_adjacent": a.enemy_adjacent,
            "sw_pp": a.sw_pp, "leadership": a.leadership, "counter": a.counter, "give_up": a.give_up,
            "dice": a.dice}


def _patrol_return(a) -> dict:
    return {"name": "patrol-return", "side": a.side, "patrol": a.patrol_n, "attacked": a.attacked,
            "pinned": a.pinned, "broken": a.broken, "leadership": a.leadership, "counter": a.counter,
            "dice": a.dice, **({"trip_flares": True} if a.trip_flares else {})}


_PAIRS = ("lost", "encircled", "wounded", "shocked", "recalled", "oba_used", "hero", "captured", "exited")


def _end(a) -> dict:
    cvp: dict = {}
    for item in seps(a.cvp_lost, "="):
        if "=" not in item:
            raise BadInput(f"--cvp-lost {item!r}: SIDE=N, e.g. axis=12")
        k, v = item.split("=", 1)
        if k.strip().lower() in cvp:
            raise BadInput(f"--cvp-lost {k}: given twice")
        cvp[k.strip().lower()] = v.strip()
    pairs = {k: seps(getattr(a, k), ":") for k in _PAIRS}
    return {"name": "end", "turn": a.turn, "cvp_lost": cvp, "winner": a.winner,
            "control": seps(a.control, "="), "terrain": seps(a.terrain, "="), **pairs,
            "repair": seps(a.repair, ":", "="), "position": seps(a.position, ":", "="),
            "reduced": seps(a.reduced, ":", "="), "replaced": seps(a.replaced, ":", "="),
            **({"vasl_logs": [vasl_log(f) for f in a.vasl_log]} if a.vasl_log else {})}


# the items a map names (cg/items.py IN_HEX: tests/test_specs.py checks they agree; cg.items is not
# imported for a help text)
IN_HEX_WORDS = ("foxhole, sangar, dummy, roadblock, wire, pillbox, fortified_building, tunnel, booby_traps, at_ditch,"
                " ap_mine, at_mine, set_dc, known_minefield, dummy_minefield, cave, cave_complex, tetrahedrons, panji,"
                " trip_flares, mines, rubble, trench, flame, blaze, burning_wreck, burnt_out_wreck, wreck, shellhole,"
                " trailbreak, mousehole, breach, collapsed_hut, cleared_open_ground")

SPECS: tuple[CommandSpec, ...] = (
CommandSpec('new', START, None, help='Start a campaign from a CG Card (refuses if the file exists).', params=(
    Arg('card', '--card', required=True, help='A CG Card TOML file, or the name of a shipped card.'),
    Arg('redeployment', '--redeployment', choices=('A', 'B'), help='Redeployment Option (else chosen at 3.2).'),
    Arg('seed', '--seed', help='Roll with the seeded roller: reproducible, so predictable by whoever reads the seed (tests, demos, solo). Default: the OS random source, unforeseeable (R31).'),
    Arg('balance', '--balance', metavar='SIDE:N', multiple=True, help="1.3 Balance Provision N (1-based among SIDE's on the card) in force; repeatable."),
    Arg('axis_key', '--axis-key', help="Play by email: the axis player's public key (plcg keys new)."),
    Arg('allied_key', '--allied-key', help="Play by email: the allied player's public key."),
    Arg('dice_policy', '--dice-policy', choices=('any', 'no-typed', 'two-party'), help="The dice the campaign accepts (default any): no-typed refuses --dice (rule dice-policy); two-party: both players' values make every die (play by email)."),
    Arg('open_secrets', '--open-secrets', kind='flag', help='Play by email with open rosters: the 2.1 CP DR, 2.3 purchases, 2.36 and 3.44 rolls are not sealed (ruling R47; by default they are).'),
    Arg('rules_revision', '--rules-revision', kind='int', help='Decide the campaign under an earlier rules revision (ruling R32; default: the current one).'),
)),
CommandSpec('cards', START, None, help='List the shipped CG Cards.', params=(
    JSON,
)),
CommandSpec('card', START, None, help='Read or check a CG Card file (plcg cards lists the shipped ones).', group=True),
CommandSpec('demo', START, None, help='Play a shipped CG with the seeded roller (the sample: one firefight Idle) and print its roster.\n\n    Run again, it replaces the demo file it made before (never another campaign).', params=(
    Arg('demo_db', '--db', kind='filename', help='Where to write the demo campaign.'),
    Arg('demo_card', '--card', default='sample', show_default=True, help='The shipped card to play: sample, or bridgehead (boards, OB given, a night firefight).'),
)),
CommandSpec('import', START, None, help='Make a new campaign file from an exported JSON Lines log; audited on the way in.', params=(
    Arg('file', metavar='FILE'),
)),
CommandSpec('rules-upgrade', START, SHARED_FACT_, module='flow', help="Ruling R32: decide the campaign under this plcg's rules revision from the next firefight's 2.1 on.", params=()),
CommandSpec('status', WHERE, None, help="Where the campaign stands: firefight, step, each side's CP/ELR/SAN, what is pending.", params=(
    JSON,
    AT,
)),
CommandSpec('next', WHERE, None, module='flow', help='Leave the current step once it owes nothing (exit 3 listing what is missing).', params=()),
CommandSpec('log', WHERE, None, help='The history, one line per event (JSON Lines with --json); undone events are marked.', params=(
    JSON,
    VIEWER,
)),
CommandSpec('roster', WHERE, None, help="The CG Roster: one row per firefight and side, with the CG's running totals.", params=(
    JSON,
    AT,
)),
CommandSpec('purchases', WHERE, None, help='The RG Purchase Record of SIDE: whose record it is; a viewer of the other side sees it once revealed.', params=(
    SIDE,
    JSON,
    Arg('reveal', '--reveal', kind='flag', help="Show SIDE's purchases not yet revealed to the viewer too."),
    Arg('viewer', '--as', metavar='VIEWER', help="Who is looking (axis or allied): the other side sees SIDE's purchases once revealed (ruling R10). Default: the side of --key, else SIDE itself."),
    AT,
)),
CommandSpec('oob', WHERE, None, help='The order of battle of SIDE: every unit by RG with its status.', params=(
    SIDE,
    JSON,
    AT,
)),
CommandSpec('map', WHERE, None, help="Map control: CTHC, No Man's Land, MLR, Uncontrolled, Isolated, and the terrain kept (CG5).", params=(
    JSON,
    Arg('svg', '--svg', help='Write the map as SVG to this file (- for standard output).'),
    AT,
    VIEWER,
)),
CommandSpec('head', WHERE, None, help="The log's head as a witness, SEQ:HASH: note or post it; `audit --witness` checks it later.", params=(
    JSON,
)),
CommandSpec('export', WHERE, None, help='The raw log (JSON Lines, importable) or an After Action Report (Markdown, HTML, BBCode for a forum).', params=(
    Arg('fmt', '--format', required=True, choices=('jsonl', 'md', 'html', 'bbcode')),
    Arg('out', '-o', help='Write to this file (default, or -: standard output).'),
    Arg('url', '--url', default='aar.html', show_default=True, help='bbcode: where the HTML report is put (export --format html); the post links to it and its maps.'),
)),
CommandSpec('dice-stats', WHERE, None, help='Every roll of the CG: each die (white, colored) per side and per kind, against fair dice (chi-square).', params=(
    Arg('side', '--side', help="Only this side's rolls (axis or allied)."),
    Arg('kind', '--kind', help='Only this kind of roll: the command that rolls it (elr, cp, leader, ...).'),
    JSON,
)),
CommandSpec('dice-check', WHERE, None, help="Recompute the roll of event SEQ from the log's values, each step shown (exit 1: not the logged dice).", params=(
    Arg('seq', metavar='SEQ'),
    JSON,
)),
CommandSpec('diagram', WHERE, None, help='Print the step machine as a Mermaid stateDiagram (written from the deciding transitions machine).', params=(
    Arg('markdown', '--markdown', kind='flag', help='The whole docs/steps.md page.'),
)),
CommandSpec('cp', PURCHASES, SIDED_, module='purchase', help='2.1 CP replenishment of SIDE (no dice where the card provides CP).', params=(
    SIDE,
    DICE_DR,
    JSON,
)),
CommandSpec('weather', PURCHASES, SHARED_FACT_, module='purchase', help="2.2 At-start weather (default: the card's).", params=(
    Arg('text', required=False),
)),
CommandSpec('buy', PURCHASES, SIDED_, module='purchase', help='2.3 Buy an RG (cost after 2.34).', params=(
    SIDE,
    Arg('rg', metavar='RG'),
    Arg('mode', '--mode', choices=('on-map', 'reserve', 'entry'), case_sensitive=False, default='entry', show_default=True, help='Setup mode: on map, In Reserve or entering (2.32-2.34: it changes the cost).'),
    JSON,
)),
CommandSpec('patrols', PURCHASES, SIDED_, module='purchase', help='2.31 Buy N patrols.', params=(
    SIDE,
    Arg('count', metavar='N'),
)),
CommandSpec('attack', PURCHASES, SIDED_, module='purchase', help='2.3 Buy the Attack Option (card attack_cost; announced at 2.4).', params=(
    SIDE,
)),
CommandSpec('oba', PURCHASES, SIDED_, module='purchase', help='2.35 Ammunition DR of a bought OBA module (RG id or purchase id).', params=(
    SIDE,
    Arg('rg', metavar='RG'),
    DICE_DR,
    JSON,
)),
CommandSpec('leader', PURCHASES, SIDED_, module='purchase', help='2.36 One leader DR owed by a bought RG (3.45 generation with --generated).', build=_leader, params=(
    SIDE,
    Arg('rg', metavar='RG', required=False),
    Arg('generated', '--generated', kind='flag', help='3.45: generate a leader after `plcg leaders`.'),
    Arg('hex_', '--hex', store='hex', help='3.45, with --generated: place the leader with a friendly non-Isolated MMC on map in HEX; without it the leader enters as a reinforcement.'),
    Arg('commissar', '--commissar', kind='flag', help="Russian, 2.361 *: take a Commissar for the leader the DR gives, where the card's RG allows it (A25.22, ruling R40; a --generated leader: where any RG of the side does, ruling R92); on a row without a * the leader rolled stands (ruling R49)."),
    DICE_DR,
    JSON,
)),
CommandSpec('fortify', PURCHASES, SIDED_, module='purchase', help="2.38 Spend Fortification Points on the FP table (2.3); at 2.6, place one bought without --hex.\n\n    \x08\n    KIND, one of the 2.38 table (FP cost):\n      foxhole (3/2/1 by --capacity), sangar (2), dummy (1), hip (5/3/2/2/1 by --unit),\n      roadblock (12), wire (10), pillbox (--capacity x (--ca + --nca)), fortified_building\n      (12 per --locations), tunnel (20), booby_traps (15), at_ditch (18), ap_mine (2 per\n      --factors), at_mine (5 per --factors), set_dc (25), known_minefield (0.8 x the mines'\n      cost, ruling R22), dummy_minefield (the CG Card's dummy_minefield_fp, ruling R22;\n      refused where it states none), cave (15), cave_complex (7), tetrahedrons (15), panji\n      (2 per --hexsides), trip_flares (1)\n    ", params=(
    SIDE,
    Arg('kind', metavar='KIND'),
    Arg('hex_', '--hex', store='hex', help='Where it goes (may wait for setup, 2.38).'),
    Arg('capacity', '--capacity', kind='int', help='Foxhole/pillbox squad capacity.'),
    Arg('factors', '--factors', kind='int', help='Mine factors.'),
    Arg('unit', '--unit', help='HIP: the unit hidden.'),
    Arg('hexsides', '--hexsides', kind='int', help='Panji hexsides.'),
    Arg('locations', '--locations', kind='int', help='Fortified building Locations.'),
    Arg('ca', '--ca', kind='int', help='Pillbox CA DRM.'),
    Arg('nca', '--nca', kind='int', help='Pillbox NCA DRM.'),
)),
CommandSpec('determine', BEFORE, SHARED_, module='determination', help='2.41 Firefight type (the two drs only for a Dual Attack).', params=(
    Arg('dice', '--dice', help='Dual Attack: the dr for who sets up first.'),
    Arg('move_dice', '--move-dice', help='Dual Attack under rules revision 1 only: the dr for who moves first (revision 2: plcg moves-first at 2.6, after all setup).'),
    JSON,
)),
CommandSpec('night', BEFORE, SHARED_FACT_, module='determination', help='2.42 Night conditions.', params=(
    Arg('text'),
)),
CommandSpec('redeploy', BEFORE, SIDED_, module='deployment', help='2.5 / 3.2 Redeploy a unit (Redeployment Table, DRM from the map).', build=_redeploy, params=(
    SIDE,
    Arg('unit', metavar='UNIT', required=False),
    Arg('to', '--to', help='The hex it redeploys to (required with UNIT).'),
    Arg('hs', '--hs', kind='int', default=0, help='HS equivalents beyond one squad redeploying on the same DR (+1 each). Typed: the ledger records units one by one, not the stacks players roll for together.'),
    LEADERSHIP_DRM,
    Arg('crosses_uncontrolled', '--crosses-uncontrolled', kind='flag', help='The redeployment crosses Uncontrolled terrain from the FMLR (+1). Typed: the ledger does not record the path a unit takes.'),
    DICE_DR,
    JSON,
    Arg('counter', '--counter', help='The new counter where a Replaced/Reduced result needs one the counter table lacks (ruling R34).'),
    Arg('done', '--done', kind='flag', help='2.5 Option A: the Defender has done with its redeployment, so the Attacker may redeploy (ruling R85); no UNIT.'),
)),
CommandSpec('moves-first', BEFORE, None, module='determination', help='2.41 Dual Attack: the dr for who moves first, made after all setup (2.6).', params=(
    DICE_DR1,
    JSON,
)),
CommandSpec('setup', BEFORE, SIDED_, module='deployment', help='2.6 Record where a unit sets up (optional: roster-only players never place units).', params=(
    SIDE,
    UNIT,
    HEX,
    Arg('hip', '--hip', kind='flag', help='Set up HIP.'),
    Arg('concealed', '--concealed', kind='flag', help='Set up concealed: by email the other copy sees a "?" stack in HEX until 2.9.'),
)),
CommandSpec('patrol', BEFORE, SIDED_, module='patrols', help='2.7 Resolve a bought patrol: Detection DR (2.74).', build=_patrol, params=(
    SIDE,
    Arg('kind', '--type', store='type', help='recon | ambush | raid | anti-vehicle'),
    Arg('units', '--units', help='Comma-separated unit ids (at least one HS, at most three squads).'),
    Arg('leader', '--leader', help='The accompanying leader (unwounded).'),
    Arg('hex_', '--hex', store='hex', help='The mission hex (at most 10 hexes from the MLR).'),
    Arg('elite', '--elite', kind='int', help="Elite (-1). Rules revision 2 reads it from the RGs' quality (ruling R26): give it only under revision 1; a value contradicting the OB is refused."),
    Arg('stealthy', '--stealthy', kind='int', help="Stealthy (-1): by nationality or the card's SSR, which the ledger does not hold, so it is typed."),
    Arg('inexperienced', '--inexperienced', kind='int', help="Inexperienced (+1). Rules revision 2 reads it from the RGs' quality (ruling R26)."),
    Arg('lax', '--lax', kind='int', help="Lax (+1): by nationality or the card's SSR, which the ledger does not hold, so it is typed."),
    Arg('enemy_adjacent', '--enemy-adjacent', kind='int', help='Hexes adjacent to the mission hex holding enemy units (+1 each). Revision 2 counts them from recorded hexes; typed only where the enemy has none recorded (ruling R33).'),
    Arg('sw_pp', '--sw-pp', kind='int', help='SW PP carried (+1 per PP beyond 1). Revision 2 takes them from the counter table; typed only where it lacks a SW (ruling R33).'),
    Arg('leadership', '--leadership', kind='int', help="Leadership. Revision 2 reads the leader's counter (ruling R30); give it only under revision 1."),
    HS_COUNTER,
    Arg('give_up', '--give-up', help='Give up the next owed patrol, with the reason (ruling R15).'),
    DICE_DR,
    JSON,
)),
CommandSpec('patrol-return', BEFORE, SIDED_, module='patrols', help="2.74 Patrol Return DR (rules revision 2: the whole 2.74 DRM list, from the patrol's units).", build=_patrol_return, params=(
    SIDE,
    Arg('patrol_n', store='patrol', metavar='N'),
    Arg('attacked', '--attacked', kind='flag', help='The patrol conducted an attack (+1).'),
    Arg('pinned', '--pinned', kind='flag', help='Pinned (+1).'),
    Arg('broken', '--broken', kind='flag', help='Broken (+2).'),
    Arg('trip_flares', '--trip-flares', kind='flag', help="2.753: the enemy's Trip Flares in the mission hex went off at night (+2; ruling R88)."),
    Arg('leadership', '--leadership', kind='int', help="Leadership. Revision 2 reads the patrol leader's counter (ruling R30); give it only under revision 1."),
    HS_COUNTER,
    DICE_DR,
    JSON,
)),
CommandSpec('end', END, SHARED_, module='firefight_end', help='2.9 Firefight end: turn, CVP lost per side, winner (1.31 by default), control, casualties, terrain.', build=_end, params=(
    Arg('turn', '--turn', required=True, kind='int', help='The turn the firefight ended (CG2).'),
    Arg('cvp_lost', '--cvp-lost', required=True, multiple=True, help='SIDE=N, once per side.'),
    Arg('winner', '--winner', help='Override 1.31 (CG Objectives).'),
    Arg('control', '--control', multiple=True, help='SIDE=HEX: control of a Strategic Terrain hex now.'),
    Arg('lost', '--lost', multiple=True, help='SIDE:UNIT eliminated.'),
    Arg('terrain', '--terrain', multiple=True, help='HEX=ITEM[:SIDE][:FACTORS] kept between firefights (CG5); ITEM one of the items `map` names: ' + IN_HEX_WORDS + '.'),
    Arg('encircled', '--encircled', multiple=True, help='SIDE:UNIT Encircled (3.17).'),
    Arg('wounded', '--wounded', multiple=True, help='SIDE:LEADER wounded (3.32).'),
    Arg('shocked', '--shocked', multiple=True, help='SIDE:UNIT marked Shock/UK (3.19).'),
    Arg('recalled', '--recalled', multiple=True, help='SIDE:UNIT Recalled (3.461).'),
    Arg('repair', '--repair', multiple=True, help='SIDE:ITEM=KIND owing a 3.46 repair dr.'),
    Arg('oba_used', '--oba-used', multiple=True, help='SIDE:PURCHASE OBA module used (CG4: two at most).'),
    Arg('position', '--position', multiple=True, help='SIDE:UNIT=HEX where the unit stands at the end (3.212 reads it).'),
    Arg('hero', '--hero', multiple=True, help='SIDE:UNIT a leader turned heroic, or an MMC that created a Hero (3.43).'),
    Arg('reduced', '--reduced', multiple=True, help='SIDE:UNIT[=COUNTER] Casualty Reduction: squad to its HS (counter table), HS/crew eliminated, leader wounded.'),
    Arg('replaced', '--replaced', multiple=True, help="SIDE:UNIT[=COUNTER] ELR replacement (A19.13; default: the counter table's)."),
    Arg('captured', '--captured', multiple=True, help='SIDE:UNIT captured.'),
    Arg('exited', '--exited', multiple=True, help='SIDE:UNIT exited off a friendly edge, kept for the next firefight (CG8).'),
    Arg('vasl_log', '--vasl-log', kind='file', multiple=True, help='A VASL log the firefight was played in: its name and SHA-256 are recorded as the evidence.'),
)),
CommandSpec('position', END, SHARED_FACT_, module='firefight_end', help="2.9: where a unit stands at the firefight's end; 3.212 reads it (else its last recorded hex).", params=(
    SIDE,
    UNIT,
    HEX,
    Arg('hip', '--hip', kind='flag', help='Still hidden (HIP) at the end (3.24).'),
    Arg('concealed', '--concealed', kind='flag', help='Concealed at the end (3.218).'),
)),
CommandSpec('rubble', END, SHARED_FACT_, module='clearance', help='B24.11 rubble creation (and B24.12 falling rubble) kept on the map (CG5).', params=(
    HEX,
    Arg('kia', '--kia', required=True, kind='int', help='The KIA# of the Original IFT DR (B24.11).'),
    Arg('stone', '--stone', kind='flag', help="Stone building (+1); the card's stone hexes count anyway."),
    Arg('level', '--level', kind='int', default=0, help='Building level rubbled (>= 1: falling rubble, B24.12).'),
    Arg('dice', '--dice', help='dr, or dr,white,colored for an upper level.'),
    JSON,
)),
CommandSpec('flame', END, SHARED_FACT_, module='clearance', help='Table 23 Flame placement kept on the map (CG5).', params=(
    HEX,
    Arg('kindling', '--kindling', required=True, kind='int', help="The terrain's Kindling Number (Table 23)."),
    Arg('weapon', '--weapon', choices=('he', 'ft', 'wp'), default='he', show_default=True),
    Arg('drm', '--drm', kind='int', default=0, help='Placement DR modifiers (Table 23 notes), as stated: they depend on play the ledger does not see.'),
    DICE_DR,
    JSON,
)),
CommandSpec('concede', END, None, module='flow', help='Concede the CG (1.3).', params=(
    SIDE,
)),
CommandSpec('casualties', REPH, SIDED_, module='casualties', help="3.11 RePh losses, counted for the firefight just played; at 3.52 a clearance's Casualty Reduction.", params=(
    SIDE,
    Arg('cvp', '--cvp', kind='int', help='CVP lost in the RePh (counted for the firefight, 3.11).'),
    Arg('lost', '--lost', multiple=True, help='Unit eliminated.'),
    Arg('reduced', '--reduced', multiple=True, help="3.52 (rules revision 3): UNIT[=COUNTER], the MMC a clearance's Casualty Reduction strikes."),
)),
CommandSpec('option', REPH, SHARED_FACT_, module='deployment', help='3.2 Choose Redeployment Option A or B (kept for the CG).', params=(
    Arg('option', metavar='A|B'),
)),
CommandSpec('encircled', REPH, SIDED_, module='casualties', help='3.17 1TC of an Encircled unit (fail: eliminated).', params=(
    SIDE,
    UNIT,
    Arg('morale', '--morale', kind='int', help="The unit's morale for the 1TC (default: the one its counter shows)."),
    LEADERSHIP_DRM,
    DICE_DR,
    JSON,
)),
CommandSpec('shock', REPH, SIDED_, module='casualties', help='3.19 Shock/UK resolution dr of an AFV.', params=(
    SIDE,
    UNIT,
    DICE_DR1,
    JSON,
)),
CommandSpec('evacuate', REPH, SIDED_, module='reorganization', help='3.32 Evacuation dr of a wounded leader.', params=(
    SIDE,
    Arg('leader', metavar='LEADER'),
    DICE_DR1,
    JSON,
)),
CommandSpec('disease', REPH, SIDED_, module='reorganization', help="3.41 Disease & Starvation dr (only where the card's FSR invoke it), then the squads it Replaces.", params=(
    SIDE,
    Arg('replaced', '--replaced', help="Rules revision 3: UNIT[=COUNTER], a squad/HS the dr's result ELR Replaces (Isolated units first)."),
    DICE_DR1,
    JSON,
)),
CommandSpec('harden', REPH, SIDED_, module='reorganization', help='3.43-3.45 Battle Harden a unit (within the 3.44 / 3.45 results, once per RePh).', params=(
    SIDE,
    UNIT,
    Arg('to', '--to', help='The new counter, e.g. 4-6-8: only where the counter table lacks it (ruling R34; rules revision 1 campaigns: optional, recorded as typed).'),
)),
CommandSpec('promote', REPH, SIDED_, module='reorganization', help='3.44 Battlefield Promotion dr.', params=(
    SIDE,
    DICE_DR1,
    JSON,
)),
CommandSpec('leaders', REPH, SIDED_, module='reorganization', help='3.45 Leader Generation/Improvement dr.', params=(
    SIDE,
    DICE_DR1,
    JSON,
)),
CommandSpec('repair', REPH, SIDED_, module='reorganization', help='3.46 Repair dr.', params=(
    SIDE,
    Arg('item', metavar='ITEM'),
    Arg('kind', '--kind', help='malfunction | low_ammo | disabled | immobilized | captured_sw'),
    Arg('drm', '--drm', kind='int', default=0, help='Leadership/Inexperience/Captured Use/Ammo Shortage drm of a Disabled or Immobilized repair, as stated: the ledger does not record who makes the repair (revision 2: none on a malfunction; revision 3: the penalties only, 0 or more: Leadership comes from the OB).'),
    Arg('leadership', '--leadership', kind='int', help="Revision 3: the repairing leader's modifier, where the item has no recorded hex (ruling R33)."),
    DICE_DR1,
    JSON,
)),
CommandSpec('recall', REPH, SIDED_, module='reorganization', help='3.461 Reclaim a Recalled vehicle (dr <= 2).', params=(
    SIDE,
    Arg('vehicle', metavar='VEHICLE'),
    Arg('drm', '--drm', kind='int', default=0, help="Inexperience/Captured/Ammo Shortage drm, as stated: the ledger does not record the crew's state (revision 3: penalties only, 0 or more)."),
    DICE_DR1,
    JSON,
)),
CommandSpec('elr', REPH, SIDED_, module='reorganization', help='3.47 ELR Loss/Gain DR.', params=(
    SIDE,
    DICE_DR,
    JSON,
)),
CommandSpec('clear', REPH, SIDED_, module='clearance', help='3.52 Fortification Clearance dr (one attempt per item per Location).\n\n    ITEM: rubble, mines (all mines in the Location are one item: mines, ap_mine, at_mine, known_minefield\n    name it too), wire, roadblock, set_dc, flame, panji.\n    ', params=(
    SIDE,
    HEX,
    Arg('item', metavar='ITEM'),
    DICE_DR1,
    JSON,
)),
CommandSpec('keys', PBEM, None, help="Play by email: the players' Ed25519 keys.", group=True),
CommandSpec('sync', PBEM, None, help='Play by email in one command a turn: take in every new bundle and say what is owed; --send sends.', params=(
    Arg('git_dir', '--git', kind='dirname', help="A clone of the players' shared git repository of bundles: pulled first; --send commits and pushes."),
    Arg('folder', '--folder', kind='dirname', help='A folder of bundle files (a shared drive, the attachments of the mails).'),
    Arg('send', '--send', kind='flag', help='Bundle what the other copy lacks into the folder (and push it).'),
    Arg('note', '--note', help='With --send: one line for the other player, carried in the bundle and shown by his sync (at most 500 characters).'),
    Arg('give_way', '--give-way', kind='flag', help="Where both players sent moves at once (the copies parted): this player's moves give way, decided again after the other's (ruling R113); agree it by mail first."),
)),
CommandSpec('bundle', PBEM, None, help="Play by email: answer the other side's two-party dice, sign the head, write what the other copy lacks.", params=(
    Arg('since', '--since', kind='int', help='Only the events after this seq (0: all). Default: what the other copy has not acknowledged.'),
    Arg('out', '-o', required=True, help='The bundle file to write; - for standard output.'),
)),
CommandSpec('receive', PBEM, None, help="Play by email: check the other side's bundle (signature, chain, step order, rules) and append it.", params=(
    Arg('path', metavar='FILE'),
)),
CommandSpec('reveal', PBEM, OWN_, module='pbem', help="Play by email: reveal this side's answered two-party dice; each committed command is decided.", params=(
    JSON,
)),
CommandSpec('claim', PBEM, OWN_, module='pbem', help='Play by email: decide the two-party dice the other side withheld past its next bundle (ruling R67).', params=(
    JSON,
)),
CommandSpec('confirm', PBEM, OWN_, module='pbem', help="Play by email: agree to the other side's proposal (a shared fact); it takes effect now (ruling R45).", params=(
    JSON,
)),
CommandSpec('reject', PBEM, OWN_, module='pbem', help="Play by email: refuse the other side's proposal (or withdraw one's own), with the reason.", params=(
    Arg('reason', '--reason', required=True, help='Why: the log keeps it.'),
)),
CommandSpec('audit', CHECKING, None, help='Check the hash chain, the step order, every roll and every limit (exit 1 on any finding).', params=(
    JSON,
    Arg('witnesses', '--witness', metavar='SEQ:HASH', multiple=True, help='A head witness noted earlier (plcg head); a finding if the log no longer holds it. Repeatable.'),
    Arg('against', '--against', kind='filename', help="Play by email: compare with the other player's copy; names the first row where they part."),
)),
CommandSpec('replay', CHECKING, None, help='Rebuild the state from the log alone, print its digest, and store it as the new snapshot.', params=(
    JSON,
)),
CommandSpec('undo', CHECKING, None, help='Revert the last command (or all after --to SEQ) by appending a revert; nothing is deleted.', params=(
    Arg('to', '--to', kind='int', help='Revert everything after this seq.'),
    Arg('reason', '--reason', required=True, help='Why: the log keeps it, the audit lists it.'),
    Arg('force', '--force', kind='flag', help="Allow crossing a firefight's commencement (2.8); recorded."),
)),
CommandSpec('serve', WEB, None, help='The campaign as a local web page, with its history, until Ctrl-C: prints its URL and token.', params=(
    Arg('serve_db', '--db', metavar='PATH', help="The campaign file (default: plcg's --db, $PLCG_DB, ./campaign.plcg)."),
    Arg('serve_key', '--key', kind='filename', help="Play by email: the player's private key; the page acts for that side only."),
    Arg('port', '--port', metavar='N', kind='int', default=0, help='The port (default: a free one).'),
    Arg('host', '--host', metavar='H', help='Listen on this address instead of loopback (127.0.0.1); said on stderr.'),
    Arg('no_open', '--no-open', kind='flag', help='Do not open the page in the browser.'),
)),
    # play by email's own protocol: the commands the ledger makes itself
    *(CommandSpec(n, None, OWN_, module="pbem", cli=False) for n in ("sign", "answer", "seal", "unseal", "chain")),
)
BY_NAME = {s.name: s for s in SPECS}


def _by(kind: str) -> tuple[str, ...]:
    return tuple(s.name for s in SPECS if s.by == kind)


# who may act in a campaign played by email (cg/pbem.py), generated from the specs
SIDED = _by(SIDED_)
SHARED = _by(SHARED_)
SHARED_3 = _by(SHARED_FACT_)
OWN = _by(OWN_)
# how a `pending` command's words map to the command's keys: its positional arguments, in order
POSITIONAL = {s.name: tuple(a.stored_key for a in s.params if a.opt is None) for s in SPECS}


# ---- what a step owes or offers: a command with its arguments (status `pending` and `options`) -------------

@records.frozen
class Choose:
    """An argument the player chooses, shown as its word in the command line (HEX, UNIT, N, A|B, axis=N)."""
    word: str
    # the common ones, as the command lines of `pending` and `options` name them
    HEX: ClassVar[Choose]
    UNIT: ClassVar[Choose]
    N: ClassVar[Choose]
    SIDE: ClassVar[Choose]
    KIND: ClassVar[Choose]
    CVP_LOST: ClassVar[tuple[Choose, ...]]  # 2.9: each side's CVP lost

    def __str__(self) -> str:
        return self.word


for _w in ("HEX", "UNIT", "N", "SIDE", "KIND"):
    setattr(Choose, _w, Choose(_w))
Choose.CVP_LOST = (Choose("axis=N"), Choose("allied=N"))


@attrs.frozen(slots=False, eq=False, repr=False)  # slots=False: the contract dict is made once, when first read
class Item(Mapping[str, Any]):
    """One command a step owes (`pending`) or offers (`options`): its spec, its typed arguments (`Choose`
    where the player chooses), the rule that asks for it and its words. `runnable`: whether the command runs
    as written (None: an option, which the contract does not mark). `then`: the command that follows it in
    the same line (2.6: `plcg setup ..., then plcg next`). `cost`: a 2.3 RG's cost per setup mode.

    It reads as the contract's dict (cli-contract.md: `command`, `rule`, `what`, `runnable`, and a runnable
    command's stored form in `args`), so a script or test that reads `item["command"]` reads the same, and two
    items are equal where their dicts are. `command` is rendered from the spec here and nowhere else."""
    spec: CommandSpec
    args: Any  # the spec's args_class
    rule: str
    what: str
    runnable: bool | None = None
    then: "Item | None" = None
    cost: dict | None = None
    runnable_first: bool = False  # play by email's items name `runnable` before `what`, as they always did
    waits_for: tuple[str, ...] = ()  # the sides whose reveal it waits for (2.9, ruling R112: issue 37 item 6)

    @classmethod
    def of(cls, name: str, rule: str, what: str, runnable: bool | None = None, *, then: "Item | None" = None,
           cost: dict | None = None, runnable_first: bool = False, **values: Any) -> "Item":
        """The item of command `name` with the arguments `values` (by their keys; `Choose` where the player
        chooses). A text argument is held as the command line gives it (str)."""
        spec = BY_NAME[name]
        kinds = {a.key: a for a in spec.params}
        for k, v in values.items():
            a = kinds[k]  # KeyError: the command takes no such argument
            if a.kind not in ("int", "flag") and not a.multiple and not isinstance(v, Choose):
                values[k] = str(v)
        return cls(spec, spec.args(**values), rule, what, runnable, then, cost, runnable_first)

    def given(self) -> Iterator[tuple[Arg, Any]]:
        """The arguments given (not their defaults), in the spec's order."""
        for a in self.spec.params:
            v = getattr(self.args, a.key)
            if v is not None and v is not False and v != () and (v != a.default or isinstance(v, Choose)):
                yield a, v

    def words(self) -> list[str]:
        """The command line as the player types it, without `plcg`: its arguments, then its options."""
        arguments, options = [], []
        for a, v in self.given():
            if a.opt is None:
                arguments.append(str(v))
            elif a.kind == "flag":
                options.append(a.opt)
            elif a.multiple:
                for x in v:
                    options += [a.opt, str(x)]
            else:
                options += [a.opt, str(v)]
        return [self.spec.name, *arguments, *options]

    @functools.cached_property
    def command(self) -> str:
        return " ".join(["plcg", *self.words()]) + (f", then {self.then.command}" if self.then is not None else "")

    @property
    def side(self) -> str | None:
        """The side named among its arguments (None: a command either player gives, or SIDE to choose)."""
        side = getattr(self.args, "side", None)
        return side if side in SIDES else None

    @property
    def by(self) -> str | None:
        """The side it is owed by or offered to (None: either player may give it, e.g. `plcg end`)."""
        first = self.what.split(" ", 1)[0]
        return self.side or (first if first in SIDES else None)

    @functools.cached_property
    def contract(self) -> dict:
        """The item as status --json shows it (cli-contract.md)."""
        d: dict = {"command": self.command, "rule": self.rule}
        if self.runnable is not None and self.runnable_first:
            d["runnable"] = self.runnable
        d["what"] = self.what
        if self.runnable is not None and not self.runnable_first:
            d["runnable"] = self.runnable
        if self.runnable:  # the same command as the dict the ledger stores, for scripts
            d["args"] = self.spec.command(self.args)
        if self.cost is not None:
            d.update(side=self.args.side, rg=self.args.rg, cost=self.cost)
        if self.waits_for:
            d["waits_for"] = list(self.waits_for)
        return d

    def __getitem__(self, key: str) -> Any:
        return self.contract[key]

    def __repr__(self) -> str:  # its contract, not its spec's help
        return f"Item({self.contract!r})"

    def __iter__(self) -> Iterator[str]:
        return iter(self.contract)

    def __len__(self) -> int:
        return len(self.contract)
