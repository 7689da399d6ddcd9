"""plcg: the command line of the Platoon Leader 2.5 campaign ledger (the CLI contract, shared/docs/cli-contract.md).

A thin shell: it opens the campaign file, loads the state (snapshot + tail), asks `cg.commands.decide`
for the events, appends them in one transaction and prints. Errors map to the contract's exit codes:
2 bad input, 3 refused by a rule or the step order, 4 another writer first, 1 audit findings.
"""
from __future__ import annotations

import io
import os
import re
import sys

# An interrupt (Ctrl-C, SIGINT) while plcg starts or ends: one line and 130 (128 + SIGINT), never a
# traceback nor 1, the audit's "finding" (issue 25). Inside a command (PlcgGroup.invoke) it unwinds
# it: its transaction rolled back, its temporary files removed. Installed first, before the imports
# below (most of the start-up); not where a test runner imported plcg (its own Ctrl-C stays).
_INTERRUPT = {"in_command": False, "taken": False}


def _interrupted(signum, frame):
    if _INTERRUPT["in_command"] and not _INTERRUPT["taken"]:
        _INTERRUPT["taken"] = True
        raise KeyboardInterrupt
    os.write(2, b"plcg: interrupted; nothing half-written (each command is one transaction)\n")
    os._exit(130)


if "pytest" not in sys.modules:
    import signal

    try:
        signal.signal(signal.SIGINT, _interrupted)
    except ValueError:  # not the main thread: a host program's own handling stays
        pass

import click
import orjson
from click.core import ParameterSource

from cg import seal, snapshot
from cg.bulk import gc_paused
from cg.card_schema import load_card, shipped_cards
from cg.items import IN_HEX
from cg.evolve import reverted_seqs
from cg.app.ledger import VERSION, Ledger
from cg.options import options
from cg.revision import END_CVP_CHECK, conventions, revision
from cg.machine import mermaid
from cg.steps import BY_ID, STEPS, owed_by, pending
from events import outpath
from events.errors import BadInput, PlcgError, UNFOLDABLE, UnreadableRow
from cg.sequence import StepId
from projections.digest import digest
from projections.maps import map_json, map_svg, map_text
from projections.oob import oob_rows, oob_text
from projections.purchases import fortification_rows, purchase_rows, purchase_text
from projections.roster import roster_rows, roster_text, totals as roster_totals
from projections import verdict
from projections.words import TYPE, generation_why, seen_command, summary

INTERNAL_ERROR = 5  # extension of the contract: a bug, never a rule or input problem


# ---- click plumbing ----------------------------------------------------------------------------------

def _usage_exit(ctx, e: click.UsageError):
    """A usage error in one line (the contract: one or two lines, exit 2), with where to look."""
    where = e.ctx.command_path if e.ctx is not None else "plcg"
    click.echo(f"plcg: {' '.join(e.format_message().split())} (see: {where} --help)", err=True)
    ctx.exit(e.exit_code)


# `plcg --help` lists the commands by the phase a player meets them in (issue 27 item 11); a command not
# named here is listed under "Other commands", so none is ever left out
HELP_SECTIONS = (
    ("Start a campaign, cards", ("new", "cards", "card", "demo", "import", "rules-upgrade")),
    ("Where it stands, what happened", ("status", "next", "log", "roster", "purchases", "oob", "map", "head",
                                        "export", "dice-stats", "dice-check", "diagram")),
    ("2.1-2.3 Purchases", ("cp", "weather", "buy", "patrols", "attack", "oba", "leader", "fortify")),
    ("2.4-2.8 Before the firefight", ("determine", "night", "redeploy", "moves-first", "setup", "patrol",
                                      "patrol-return")),
    ("2.9 The firefight's end", ("end", "position", "rubble", "flame", "concede")),
    ("3.1-3.52 Refit Phase", ("casualties", "option", "encircled", "shock", "evacuate", "disease", "harden",
                              "promote", "leaders", "repair", "recall", "elr", "clear")),
    ("Play by email", ("keys", "sync", "bundle", "receive", "reveal", "claim", "confirm", "reject")),
    ("Checking and repair", ("audit", "replay", "undo")),
    ("The web page", ("serve",)),
)


class PlcgGroup(click.Group):
    """Maps the ledger's errors to the contract's exit codes; no traceback reaches the user."""

    def format_commands(self, ctx, formatter):
        """The commands grouped by phase (HELP_SECTIONS), each once, the rest under "Other commands"."""
        names = [n for n in self.list_commands(ctx) if not self.get_command(ctx, n).hidden]
        placed = set()
        limit = formatter.width - 6 - max((len(n) for n in names), default=0)
        sections = [(title, [n for n in members if n in names]) for title, members in HELP_SECTIONS]
        sections.append(("Other commands", [n for n in names if all(n not in m for _t, m in HELP_SECTIONS)]))
        for title, members in sections:
            rows = [(n, self.get_command(ctx, n).get_short_help_str(limit)) for n in members if n not in placed]
            placed.update(members)
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)

    def parse_args(self, ctx, args):
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as e:  # the group's own options (plcg --bogus)
            _usage_exit(ctx, e)

    def invoke(self, ctx):
        _INTERRUPT["in_command"] = True
        try:
            out = super().invoke(ctx)
            sys.stdout.flush()  # what is left of the output written now: a failure is still this command's
            return out
        except click.UsageError as e:  # a command's arguments, or no such command
            _usage_exit(ctx, e)
        except PlcgError as e:
            for i, line in enumerate(str(e).splitlines() or [""]):
                line = shown(line)  # a value quoted from a file or a bundle reaches no terminal raw
                click.echo(f"plcg: {line}" if i == 0 else f"  {line}", err=True)
            ctx.exit(e.exit_code)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except (OutputFailed, BrokenPipeError) as e:  # issue 25: a full disk, a file size limit, a closed pipe
            err = e.__cause__ if isinstance(e, OutputFailed) and e.__cause__ is not None else e
            devnull = os.open(os.devnull, os.O_WRONLY)  # nothing more is tried on the dead output
            try:
                os.dup2(devnull, sys.stdout.fileno())
            except (OSError, ValueError):
                pass
            why = "the reader closed the pipe" if isinstance(err, BrokenPipeError) else \
                getattr(err, "strerror", None) or str(err)
            if (ctx.obj or {}).get("recorded"):  # issue 37 F3: exit 2 would say nothing was written
                click.echo(f"plcg: warning: cannot write the output ({why}); the command was recorded, up to"
                           f" seq {ctx.obj['recorded']} (plcg log shows it): do not run it again", err=True)
                ctx.exit(0)
            click.echo(f"plcg: cannot write the output ({why}): what was written is cut short", err=True)
            # exit 2 (the contract), but a finding stays 1: `plcg audit | true` on a file with findings
            ctx.exit((ctx.obj or {}).get("exit_code") or 2)
        except KeyboardInterrupt:
            click.echo("plcg: interrupted; nothing half-written (each command is one transaction)", err=True)
            ctx.exit(130)
        except Exception as e:  # a bug: say so in one line, never a traceback
            click.echo(f"plcg: internal error: {type(e).__name__}: {e} (please report it)", err=True)
            ctx.exit(INTERNAL_ERROR)
        finally:
            _INTERRUPT["in_command"] = False


class OutputFailed(Exception):
    """Standard output could not take what plcg wrote (its OSError as the cause): exit 2 (issue 25)."""


class _AllOrError(io.RawIOBase):
    """Standard output written whole or not at all: every byte of each write, or OutputFailed. Python's
    own unbuffered stdout (PYTHONUNBUFFERED) drops what a short write left (a full disk: exit 0 with
    8 KB of 63 KB written); an OSError would be an internal error (5)."""

    def __init__(self, fd: int):
        super().__init__()
        self._fd = fd

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def write(self, b) -> int:
        view = memoryview(b).cast("B")
        done = 0
        try:
            while done < len(view):
                n = os.write(self._fd, view[done:])
                if n <= 0:
                    raise OSError(28, os.strerror(28))  # ENOSPC
                done += n
        except OSError as e:
            raise OutputFailed(str(e)) from e
        return done


def _guard_stdout() -> None:
    """The process's own standard output (not a test runner's) through _AllOrError."""
    out = sys.stdout
    if out is None or out is not sys.__stdout__:  # a test runner's, or guarded already
        return
    try:
        fd = out.fileno()
    except (OSError, ValueError):  # io.UnsupportedOperation is both
        return
    try:
        out.flush()
    except OSError:
        pass
    sys.stdout = io.TextIOWrapper(io.BufferedWriter(_AllOrError(fd), 1 << 16), encoding=out.encoding,
                                  errors=out.errors, line_buffering=out.line_buffering)


@click.group(cls=PlcgGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--db", "db", envvar="PLCG_DB", default="campaign.plcg", show_default=True,
              help="The campaign file (SQLite); also $PLCG_DB.")
@click.option("--key", "key", envvar="PLCG_KEY", type=click.Path(dir_okay=False),
              help="Play by email: the acting player's private key (plcg keys new); also $PLCG_KEY.")
@click.version_option(VERSION, prog_name="plcg")
@click.pass_context
def main(ctx, db, key):
    """plcg — the campaign ledger for Platoon Leader 2.5 (ASL campaign games).

    Exit codes: 0 done; 1 audit found a problem; 2 bad input (nothing written); 3 refused by the
    rules or the step order (nothing written); 4 another writer appended first, retry (nothing
    written); 5 internal error.
    """
    ctx.obj = {"db": db, "key": key}
    _guard_stdout()


def _db(ctx) -> str:
    return ctx.find_root().obj["db"]


def _recorded(stored) -> None:
    """What the command wrote is in the file from here on (`stored`: its events, or the seq it reached):
    output that fails after this is a warning and exit 0, never exit 2's "nothing written" (issue 37 F3)."""
    seq = stored if isinstance(stored, int) else (stored[-1].seq if stored else None)
    if seq:
        click.get_current_context().find_root().obj["recorded"] = seq


def _key(ctx):
    """The private key named by --key / $PLCG_KEY, loaded (None when none is named)."""
    path = ctx.find_root().obj.get("key")
    if not path:
        return None
    from cg.app.keys import load_private  # lazy: cryptography (~4-6 ms), play by email only

    return load_private(path)


def _protected(ctx) -> dict:
    """What an output path must never be (events/outpath.py): the campaign and the acting player's key."""
    root = ctx.find_root().obj or {}
    out = {root.get("db") or "campaign.plcg": "the campaign file"}
    if root.get("key"):
        out[root["key"]] = "the private key given with --key"
    return out


def _stdout_bytes(data: bytes) -> None:
    """Bytes on standard output (`-o -`), through click's stream (a test runner's too)."""
    stream = click.get_binary_stream("stdout")
    stream.write(data)
    stream.flush()


def _echo_json(obj) -> None:
    click.echo(orjson.dumps(obj, option=orjson.OPT_INDENT_2).decode())


def _step(ctx, cmd: dict, as_json: bool = False) -> list:
    """Run one step command: decide, append in one transaction, print what was recorded."""
    # an option not given is left out (the handlers' defaults apply); a 0 given is kept: 0 == False,
    # so `in (None, False, ...)` would drop it and report --turn 0 as missing
    cmd = {k: v for k, v in cmd.items() if v is not None and v is not False and v != () and v != []}
    for k, v in cmd.items():  # the log shows every event on one line (the contract): text is one line
        if any(isinstance(x, str) and _CONTROL.search(x) for x in (v if isinstance(v, (list, tuple)) else (v,))):
            what = k.upper() if k == "text" else "--" + k.replace("_", "-")
            raise BadInput(f"{what}: one line, without control characters (newlines, tabs)")
    led = Ledger(_db(ctx), write=True, key=lambda: _key(ctx))
    key = _key(ctx)
    try:
        stored = led.run(cmd, key=key)
    finally:
        led.close()
    _recorded(stored)
    _print_stored(led, stored, as_json, key)
    return stored


def _print_stored(led, stored, as_json: bool = False, key=None) -> None:
    if as_json:
        _echo_json([{"seq": s.seq, "type": s.type, "summary": summary(s.type, s.payload), **(
            {"roll": s.payload["roll"]} if isinstance(s.payload.get("roll"), dict) else {})} for s in stored])
        return stored
    # each event in words, in seq order; the steps left as one line (where the campaign now stands)
    lines = [(s.seq, summary(s.type, s.payload)) for s in stored if s.type != "step_left"]
    inner = getattr(led, "sealed_events", None)  # ruling R47: what the acting player sealed, in his words
    if inner:
        lines += [(seq, f"{summary(t, p)} (sealed: the other side sees it when the rules reveal it)")
                  for seq, evs in inner.items() for t, p in evs]
    st = led.state_after
    moved = [s for s in stored if s.type == "step_left"]
    if moved:
        lines.append((moved[-1].seq, "the CG has ended" if st.ended else
                      f"now at step {st.step} {BY_ID[st.step].name} (firefight {st.firefight})"))
        if any(s.payload.get("step") == StepId.PURCHASE for s in moved) and not st.ended:
            # ruling R3: unspent CP carry over to the next RePh (2.1)
            # (a side whose CP this copy does not know, e.g. sealed in play by email, is left out)
            # (in a play-by-email copy, only the acting player's own: the other's CP are his secret, 2.3)
            own = None
            if st.pbem and key is not None:
                from cg.pbem import side_of_key  # lazy: only a play-by-email copy has keys

                own = side_of_key(st.pbem, key)
            carried = ", ".join(f"{side} {sd.cp} CP" for side, sd in st.sides.items()
                                if isinstance(sd.cp, int) and (not st.pbem or side == own))
            if carried:
                lines.append((moved[-1].seq, f"carried over, unspent (ruling R3): {carried}"))
        if not st.ended:  # 3.44 / 3.45 results nobody used are lost: said, as R3 says of CP (issue 27 item 10)
            from projections.entitlements import unused_after  # lazy: ~0.2 ms, only after a step with 3.44/3.45 results


            sides = [s for s in ("axis", "allied") if not st.pbem or (key is not None and _own_side(st, key) == s)]
            lines += [(m.seq, text) for m in moved for text in unused_after(st, m.payload.get("step"), sides)]
    for seq, text in sorted(lines, key=lambda x: x[0]):
        click.echo(f"[{seq}] {shown(text)}")
    return stored


def own_options(opts: list[dict], me: str | None) -> list[dict]:
    """The options of a keyed copy's own side (and either player's): a player gives no command for the
    other side (ruling R43), so his copy does not offer them."""
    return opts if me is None else [o for o in opts if owed_by(o) in (me, None)]


def web_site(db: str, key_path: str | None, key, token: str | None = None):
    """The page `plcg serve` serves (issue 34): the commands' catalogue and their in-process run, and the
    status a player of `key` reads (player_status); the tests serve the same one."""
    from projections.web.app import Site  # lazy: starlette and jinja2 only for `plcg serve`

    return Site(db, catalogue=command_catalogue(), run=in_process(db, key_path),
                status_of=lambda st: player_status(st, key), token=token, key=key)


def player_status(st, key) -> dict:
    """`status --json` as the player of `key` reads it: a copy by email lists his own side's options only
    (issue 38); the web page shows the same (issue 34)."""
    d = status_dict(st)
    if st.pbem is not None and key is not None:
        d["options"] = own_options(d["options"], _own_side(st, key))
    return d


def _own_side(st, key):
    from cg.pbem import side_of_key  # lazy: only a play-by-email copy has keys

    return side_of_key(st.pbem, key)


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_SHOWN = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")  # C0, DEL, C1, and the two Unicode line breaks


def _echo_shown(text: str) -> None:
    """A text view printed line by line with control characters escaped (names come from the card in the
    log, which the other copy wrote)."""
    click.echo("\n".join(shown(line) for line in text.split("\n")))


def shown(text: str) -> str:
    """Text as printed: control characters escaped (\\x1b, \\n), so that text from the other copy,
    a bundle or a file forges no line and sends no escape code to the terminal (issue 25 item 12)."""
    return _SHOWN.sub(lambda m: m.group().encode("unicode_escape").decode(), text)
JSON_OPT = click.option("--json", "as_json", is_flag=True, help="Print JSON.")
DICE_DR = click.option("--dice", help="The DR as rolled: W,C (white, colored). Omit: the ledger rolls.")
DICE_DR1 = click.option("--dice", help="The dr as rolled: N. Omit: the ledger rolls.")


# ---- managing and reading ------------------------------------------------------------------------------

@main.command()
@click.option("--card", "card", required=True, help="A CG Card TOML file, or the name of a shipped card.")
@click.option("--redeployment", type=click.Choice(["A", "B"]), help="Redeployment Option (else chosen at 3.2).")
@click.option("--seed", help="Roll with the seeded roller: reproducible, so predictable by whoever reads the"
                            " seed (tests, demos, solo). Default: the OS random source, unforeseeable (R31).")
@click.option("--balance", "balance", multiple=True, metavar="SIDE:N",
              help="1.3 Balance Provision N (1-based among SIDE's on the card) in force; repeatable.")
@click.option("--axis-key", "axis_key", help="Play by email: the axis player's public key (plcg keys new).")
@click.option("--allied-key", "allied_key", help="Play by email: the allied player's public key.")
@click.option("--dice-policy", "dice_policy", type=click.Choice(["any", "no-typed", "two-party"]),
              help="The dice the campaign accepts (default any): no-typed refuses --dice (rule dice-policy);"
                   " two-party: both players' values make every die (play by email).")
@click.option("--open-secrets", "open_secrets", is_flag=True,
              help="Play by email with open rosters: the 2.1 CP DR, 2.3 purchases, 2.36 and 3.44 rolls are not"
                   " sealed (ruling R47; by default they are).")
@click.option("--rules-revision", "rules_revision", type=int,
              help="Decide the campaign under an earlier rules revision (ruling R32; default: the current one).")
@click.pass_context
def new(ctx, card, redeployment, seed, balance, axis_key, allied_key, dice_policy, open_secrets, rules_revision):
    """Start a campaign from a CG Card (refuses if the file exists)."""
    from cg.pbem import settings  # lazy: play by email only (cg.pbem ~0.7 ms)

    pbem = settings(axis_key, allied_key, dice_policy, sealed=not open_secrets)
    led = Ledger.create(_db(ctx), card, seed, redeployment, "no-typed" if dice_policy == "no-typed" else "any",
                        _seps(balance, ":"), pbem=pbem, rules_revision=rules_revision)
    st = led.state()
    witness = led.head_witness()
    led.close()
    _recorded(witness[0])
    click.echo(f"campaign {st.card.campaign.name!r} started in {_db(ctx)}: firefight 1 of "
               f"{len(st.card.firefights)}, step {st.step}; dice: {dice_shown(st)}")
    click.echo(f"head witness {witness[0]}:{witness[1]}")


def dice_shown(st) -> str:
    """The campaign's roller as players see it (ruling R31; play by email's two-party dice, R44)."""
    if st.pbem is not None and st.pbem.dice_policy == "two-party":
        return "two-party (both players' values make every die; typed dice refused)"
    shown = "ledger (unforeseeable)" if st.dice_mode == "ledger" else "seeded (predictable)"
    return shown + (", typed dice refused" if st.dice_policy == "no-typed" else "")


@main.command()
@JSON_OPT
@click.pass_context
def head(ctx, as_json):
    """The log's head as a witness, SEQ:HASH: note or post it; `audit --witness` checks it later."""
    led = Ledger(_db(ctx), key=lambda: _key(ctx))
    try:
        seq, h = led.head_witness()
    finally:
        led.close()
    if as_json:
        _echo_json({"seq": seq, "hash": h})
    else:
        click.echo(f"{seq}:{h}")


def parse_witness(text: str) -> tuple[int, str]:
    """`SEQ:HASH` as `plcg head` prints it (ruling R42)."""
    m = re.fullmatch(r"\s*(\d{1,18}):([0-9a-fA-F]{16})\s*", text or "")
    if m is None:
        raise BadInput(f"--witness {text!r}: SEQ:HASH, the HASH 16 hex digits as `plcg head` prints it")
    return int(m.group(1)), m.group(2).lower()


@main.command()
@JSON_OPT
def cards(as_json):
    """List the shipped CG Cards."""
    rows = shipped_cards()
    if as_json:
        _echo_json([{"name": n, "campaign": c, "description": d} for n, c, d in rows])
        return
    for n, c, d in rows:
        click.echo(f"{n:12} {c} — {d}")


@main.group("card")
def card_group():
    """Read or check a CG Card file (plcg cards lists the shipped ones)."""


@card_group.command("show")
@click.argument("ref", metavar="NAME-or-FILE")
@JSON_OPT
def card_show(ref, as_json):
    """A CG Card: sides, RGs with cost, limits and availability, the OB given, firefights, map."""
    from projections.cardview import card_json, card_text  # lazy: ~0.2 ms, only `plcg card show`

    card = load_card(ref)
    if as_json:
        _echo_json(card_json(card))
    else:
        click.echo(card_text(card))


@card_group.command("check")
@click.argument("path", metavar="FILE")
def card_check(path):
    """Check a CG Card file: exit 0, or 2 with every problem as `path: what is wrong`."""
    card = load_card(path)
    click.echo(f"card {path} is sound: {card.campaign.name}")


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


def status_dict(st) -> dict:
    ff = st.ff
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
        "pending": pending(st),
        "options": options(st, has_command=lambda name: name in main.commands),
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
            "revealed": dict(pb.revealed_n)}


@main.command()
@JSON_OPT
@click.option("--at", "at", type=int, help="As of this seq.")
@click.pass_context
def status(ctx, as_json, at):
    """Where the campaign stands: firefight, step, each side's CP/ELR/SAN, what is pending."""
    led = Ledger(_db(ctx), key=lambda: _key(ctx))
    try:
        st = led.state(lazy=True) if at is None else led.state(at=at)
    finally:
        led.close()
    d = player_status(st, _key(ctx))
    if as_json:
        _echo_json(d)
        return
    _echo_shown(status_text({**d, "campaign": shown(d["campaign"])}).rstrip("\n"))


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
        from projections.medium import whose_move  # lazy: projections.medium (~1.7 ms) only for the turn words

        lines += whose_move(d["pending"], d["pbem"])
    owed = {p["command"] for p in d["pending"]}
    more = [o for o in d["options"] if o["command"] not in owed]  # `end` is owed and offered: said once
    if more:
        lines.append("you may also:")
        for o in more:
            lines.append(f"  {o['command']:48} ({o['rule']}) {o['what']}")
    return "\n".join(lines) + "\n"


@main.command("rules-upgrade")
@click.pass_context
def rules_upgrade(ctx):
    """Ruling R32: decide the campaign under this plcg's rules revision from the next firefight's 2.1 on."""
    _step(ctx, {"name": "rules-upgrade"})


@main.command("next")
@click.pass_context
def next_(ctx):
    """Leave the current step once it owes nothing (exit 3 listing what is missing)."""
    _step(ctx, {"name": "next"})


VIEWER_HELP = ("Who is looking (axis or allied): the other side's Dummy Minefields show as Known Minefields until "
               "the CG's end (ruling R22). Default: the side of --key in a campaign played by email, else nobody's "
               "view (everything as kept).")


def _viewer(ctx, st, given):
    """`--as VIEWER` (ruling R22), else the side of --key in a campaign played by email, else None."""
    from cg.commands import side_arg  # lazy: cg.commands brings every handler and the event classes (~40 ms)

    if given is not None:
        return side_arg({"side": given})
    if st.pbem is not None and _key(ctx) is not None:
        from cg.pbem import side_of_key  # lazy: play by email only

        return side_of_key(st.pbem, _key(ctx))
    return None


@main.command()
@JSON_OPT
@click.option("--as", "viewer", metavar="VIEWER", help=VIEWER_HELP)
@click.pass_context
def log(ctx, as_json, viewer):
    """The history, one line per event (JSON Lines with --json); undone events are marked."""
    led = Ledger(_db(ctx), key=lambda: _key(ctx))
    try:
        if viewer is not None or (_key(ctx) is not None and led.store.head()[0]):  # ruling R22: who reads it
            st = led.state()
            viewer = None if st.ended else _viewer(ctx, st, viewer)
        last = led.store.head()[0]
        undone = reverted_seqs(led.store.reverts(until=last))
        # streamed: a chunk of rows at a time, written as one string (no object per row kept, no
        # whole log in memory, one write per chunk instead of one echo per line)
        # the command of the current batch: a roll's source (two-party: a reveal's); parsed only when a
        # roll asks for it (most rows have none)
        cmd_text, batch_cmd = None, {}
        _FACT.clear()

        def batch_command() -> dict:  # the batch's command, parsed the first time a roll asks for it
            nonlocal batch_cmd
            if batch_cmd is None:
                batch_cmd = _command_of(cmd_text)
            return batch_cmd

        cols = ("seq", "firefight", "step", "type", "payload", "recorded", "command")
        for chunk in _gc_paused_each(led.store.read_rows(0, last, cols, parse=True)):
            out = []
            for seq, ff, step, etype, p, recorded, command in chunk:
                if command is not None:
                    cmd_text, batch_cmd = command, None
                try:
                    said = summary(etype, p, viewer,
                                   _option_by(etype, p, batch_command) if etype in _OPTION_BY else None)
                except UNFOLDABLE as e:  # a row edited against its schema: exit 2 naming it, never 5
                    raise UnreadableRow(seq, f"{type(e).__name__}: {e}") from None
                if as_json:
                    line = {"seq": seq, "firefight": ff, "step": step, "type": etype, "side": p.get("side"),
                            "summary": said, "reverted": seq in undone, "recorded": recorded}
                    if isinstance(p.get("roll"), dict):  # with its source (ruling R31; derived in an old log)
                        line["roll"] = _sourced(p["roll"], batch_command())
                    elif etype == "sealed":  # ruling R47: the other side's secret shows as null until revealed
                        opening = led.opener()(p["commitment"], p.get("nonce"), p.get("box"))
                        line["sealed"] = opening is None
                        line["what"] = p["what"]
                        line["command"] = None if opening is None else \
                            seen_command(_cmd_public(opening["command"]), viewer)  # ruling R22
                        if opening is not None:  # the events it holds, with their rolls and sources
                            inner_cmd = opening["command"]
                            line["events"] = [{"type": t, "summary": summary(t, q, viewer), **(
                                {"roll": _sourced(q["roll"], inner_cmd)} if isinstance(q.get("roll"), dict) else {})}
                                for t, q in opening.get("events") or ()]
                        if opening is None and p["what"] in ("cp", "promote") and not p.get("opens"):
                            line["roll"] = {"dice": None, "final": None, "outcome": None, "sealed": True}
                    elif p.get("rolls"):  # Dual Attack's two drs, rubble's creation and falling rolls
                        cmd = batch_command()
                        line["rolls"] = [_sourced(x, cmd) if isinstance(x, dict) else x for x in p["rolls"]]
                        line["roll"] = line["rolls"][0]
                    out.append(orjson.dumps(line).decode())
                else:
                    out.append((seq, ff, step, said, " (undone)" if seq in undone else ""))
            if not as_json:  # a summary with a control character is escaped (shown); one search a chunk
                clean = _SHOWN.search("".join([x[3] for x in out])) is None
                out = [f"{seq:>5} ff{ff} {step:>5}  {said if clean else shown(said)}{mark}"
                       for seq, ff, step, said, mark in out]
            out.append("")
            click.echo("\n".join(out), nl=False)
    finally:
        led.close()


_OPTION_BY = ("redeployment_option", "fact_confirmed", "fact_proposed")
_FACT = {}  # the last shared fact read by `log` (a Redeployment Option confirmed names its proposer)


def _option_by(etype: str, p: dict, batch_command) -> str | None:
    """The side that chose the Redeployment Option (3.2): its `option` command's, or the proposer's of the
    fact confirmed just before it (play by email, ruling R68); None in a campaign without keys."""
    if etype != "redeployment_option":
        _FACT["command"] = p.get("command") if isinstance(p.get("command"), dict) else None
        return None
    cmd = batch_command()
    if cmd.get("name") != "option":
        cmd = _FACT.get("command") or {}
    return cmd.get("by") if cmd.get("name") == "option" else None


def _gc_paused_each(chunks):
    """The chunks, each read and written with the cyclic collector paused (cg/bulk.py): a row's dicts
    and strings form no cycle and die by reference counting, and the collector's walks over them were
    ~12% of `log --json` at 111k events. Resumed between chunks (a reader may stop at any one)."""
    it = iter(chunks)
    while True:
        with gc_paused():
            try:
                chunk = next(it)
            except StopIteration:
                return
            yield chunk


def _cmd_public(cmd: dict) -> dict:
    """A sealed command as its opening holds it, without the dice commitment's own fields."""
    return {k: v for k, v in cmd.items() if k not in ("commit", "nonce")}


def _command_of(text) -> dict:
    try:
        cmd = orjson.loads(text)
    except (TypeError, ValueError):
        return {}
    return cmd if isinstance(cmd, dict) else {}


def _sourced(roll: dict, cmd: dict) -> dict:
    """A roll with its `source` (contract)."""
    from projections.dicestats import roll_source  # lazy: ~0.2 ms, only rolls shown with their source

    return {**roll, "source": roll_source(roll, cmd)}


@main.command()
@click.option("--to", "to", type=int, help="Revert everything after this seq.")
@click.option("--reason", required=True, help="Why: the log keeps it, the audit lists it.")
@click.option("--force", is_flag=True, help="Allow crossing a firefight's commencement (2.8); recorded.")
@click.pass_context
def undo(ctx, to, reason, force):
    """Revert the last command (or all after --to SEQ) by appending a revert; nothing is deleted."""
    _step(ctx, {"name": "undo", "to": to, "reason": reason, "force": force})


@main.command()
@JSON_OPT
@click.pass_context
def replay(ctx, as_json):
    """Rebuild the state from the log alone, print its digest, and store it as the new snapshot."""
    led = Ledger(_db(ctx), key=lambda: _key(ctx))
    st = led.state(use_snapshot=False)
    head = led.store.head()
    led.close()
    with gc_paused(), snapshot.shared():  # the snapshot's and the digest's dumps: many acyclic objects
        _refresh_snapshot(_db(ctx), st, head)  # (cg/bulk.py), each record built once for both
        d = digest(st)
    if as_json:
        _echo_json(d)
        return
    click.echo(f"digest {d['digest']}")
    for k, v in d["headline"].items():
        click.echo(f"  {k}: {_words(v)}")


def _words(v) -> str:
    """A value as a player reads it: never a Python word (True, False, None)."""
    if v is True or v is False:
        return "yes" if v else "no"
    return "none" if v is None else str(v)


def _refresh_snapshot(path: str, st, head: tuple) -> None:
    """The snapshot is derived data: replay rebuilds it where the file can be written (a snapshot of
    older fold code is otherwise ignored until the next command); a read-only file keeps its own."""
    try:
        w = Ledger(path, write=True)
    except BadInput:
        return
    try:
        if head[0] == st.seq and not seal.opened_secrets(st):  # the player's own secrets stay out of it
            w.store.put_snapshot(head[0], head[1], snapshot.dump_split(st, w.store.cold_token()))
    except BadInput:
        pass
    finally:
        w.close()


@main.command()
@JSON_OPT
@click.option("--witness", "witnesses", multiple=True, metavar="SEQ:HASH",
              help="A head witness noted earlier (plcg head); a finding if the log no longer holds it. Repeatable.")
@click.option("--against", "against", type=click.Path(dir_okay=False),
              help="Play by email: compare with the other player's copy; names the first row where they part.")
@click.pass_context
def audit(ctx, as_json, witnesses, against):
    """Check the hash chain, the step order, every roll and every limit (exit 1 on any finding)."""
    # lazy: only audit (and import) decide again: the other reads skip every handler, the event
    # classes and cattrs (~60 ms, -X importtime)
    from cg.app.audit import compare_copies, run_audit  # lazy: cg.app.audit (~70 ms)

    wit = [parse_witness(w) for w in witnesses]
    led = Ledger(_db(ctx), key=lambda: _key(ctx))
    try:
        if against is not None:
            other = Ledger(against)
            try:
                report = compare_copies(led.store, other.store, (_db(ctx), against))
            finally:
                other.close()
        else:
            report = run_audit(led, wit)
    finally:
        led.close()
    if report["findings"]:  # before printing: a reader that leaves early does not turn it into 0
        ctx.find_root().obj["exit_code"] = 1
    if as_json:
        _echo_json(report)
    else:
        for f in report["findings"]:
            click.echo(f"FINDING seq {f['seq']} [{f['rule']}]: {shown(f['what'])}")
        for n in report["notes"]:
            click.echo(f"note seq {n['seq']}: {shown(n['what'])}")
        dice = report.get("dice")
        if dice:
            click.echo(f"dice: {dice['shown']}, policy {dice['policy']}; " + _counts("rolls", dice["rolls"])
                       + (("; " + _counts("made again after an undo", dice["rerolls"])) if dice["rerolls"] else ""))
        if report.get("rolls"):
            click.echo("rolls: " + "; ".join(f"{side} " + ", ".join(f"{n} {src}" for src, n in sorted(by.items()))
                                             for side, by in sorted(report["rolls"].items())))
        if not report["findings"]:
            click.echo(f"the copies agree ({report['events']} events here)" if against is not None else
                       f"audit clean: {report['events']} events, hash chain intact"
                       + (f", {len(wit)} witness(es) held" if wit else ""))
    if report["findings"]:
        ctx.exit(1)


def _counts(what: str, by_source: dict) -> str:
    if not by_source:
        return f"no {what}"
    return f"{what}: " + ", ".join(
        f"{src} " + "/".join(f"{side} {n}" for side, n in sorted(sides.items()))
        for src, sides in sorted(by_source.items()))


# ---- play by email ----------------------------------------------------------------------------------------

@main.group()
def keys():
    """Play by email: the players' Ed25519 keys."""


@keys.command("new")
@click.option("-o", "out", required=True, help="The private key file (mode 0600); - for standard output.")
def keys_new(out):
    """Make a key pair: the private key in FILE (mode 0600), the public key alone on stdout."""
    from cg.app.keys import new_keypair  # lazy: cryptography (~4-6 ms), play by email only

    pem, pub = new_keypair()
    if out == outpath.STDOUT:  # the private key on standard output, the public line beside it on stderr
        _stdout_bytes(pem)
        click.echo(pub, err=True)
        return
    # issue 25: by a new temporary name, linked into place once whole (a full disk leaves no empty key)
    outpath.write(out, [pem], protected=_protected(click.get_current_context()), mode=0o600, replace=False)
    click.echo(pub)


@main.command()
@click.option("--since", "since", type=int, help="Only the events after this seq (0: all). Default: what the"
                                                  " other copy has not acknowledged.")
@click.option("-o", "out", required=True, help="The bundle file to write; - for standard output.")
@click.pass_context
def bundle(ctx, since, out):
    """Play by email: answer the other side's two-party dice, sign the head, write what the other copy lacks."""
    from events import bundle as bundles  # lazy: play by email only (events.bundle ~0.7 ms)

    if out != outpath.STDOUT:
        outpath.check_target(out, _protected(ctx))  # before anything is signed or answered (issue 25)
    led = Ledger(_db(ctx), write=True, key=lambda: _key(ctx))
    try:
        stored = led.sign(_key(ctx))
        _recorded(stored)
        if since is None:  # issue 26: only what the other copy has not acknowledged
            since = led.acknowledged(_key(ctx))
        rows, campaign = led.bundle_rows(since)
    finally:
        led.close()
    _said_answers(stored, err=out == outpath.STDOUT)
    data, b = bundles.encode(rows, since, campaign)
    if out == outpath.STDOUT:
        _stdout_bytes(data)
    else:
        outpath.write(out, [data], protected=_protected(ctx))
    click.echo(f"bundle {out}: seq {since + 1} to {b.head[0]}, signed by {_signer(rows[-1])}",
               err=out == outpath.STDOUT)


def _said_answers(stored, err: bool = False) -> None:
    """The answers a bundle gives to the other side's two-party dice, in the log's words."""
    for s in stored:
        if s.type == "dice_answered":
            made = "made now (ruling R83)" if any(t.type == "dice_revealed" and t.payload.get("request") ==
                                                  s.payload.get("request") for t in stored) else "made at its reveal"
            click.echo(f"[{s.seq}] {summary(s.type, s.payload)}: the other side's roll is {made}", err=err)


def _signer(row) -> str:
    return orjson.loads(row[6]).get("side", "?") if row[2] == "head_signed" else "nobody"


def _checked_text(b):
    """The bundle, if what the other side typed passes the command line's text checks (issue 25 item 12):
    every command and payload, the card of row 1 too (its names reach every view); BadInput otherwise."""
    from projections.transfer import typed_text  # lazy: ~0.2 ms, play by email only

    for row in b.rows:
        try:
            bad = (row[8] is not None and typed_text(orjson.loads(row[8]))) or typed_text(orjson.loads(row[6]))
        except RecursionError:
            raise BadInput(f"row {row[0]} of the bundle: nested too deep to be a row of the log") from None
        if bad:
            raise BadInput(f"row {row[0]} of the bundle: a command's text holds control characters (newlines,"
                           " escape codes): the command line refuses them; refused")
    return b


@main.command()
@click.argument("path", metavar="FILE")
@click.pass_context
def receive(ctx, path):
    """Play by email: check the other side's bundle (signature, chain, step order, rules) and append it."""
    from events import bundle as bundles  # lazy: play by email only (events.bundle ~0.7 ms)

    b = _checked_text(bundles.read(path))
    start = _head(_db(ctx))
    n = Ledger.receive(_db(ctx), b)
    _recorded(b.head[0] if n else None)
    if n == 0:
        click.echo(f"bundle {path}: already held (seq {b.since + 1} to {b.head[0]}); nothing written")
    else:
        click.echo(f"bundle {path}: {n} events received, now at seq {b.head[0]}")
        _said_taken(_db(ctx), start, _key(ctx), heading=False)  # the other player's moves in the log's words
        _said_note(_db(ctx), b)
        led = Ledger(_db(ctx), key=lambda: _key(ctx))
        try:
            from cg.pbem import pending_items  # lazy: play by email only (cg.pbem ~0.7 ms)

            for item in pending_items(led.state(lazy=True)):
                click.echo(f"  owed: {shown(item['what'])}")
        finally:
            led.close()


@main.command()
@click.option("--git", "git_dir", type=click.Path(file_okay=False),
              help="A clone of the players' shared git repository of bundles: pulled first; --send commits and pushes.")
@click.option("--folder", "folder", type=click.Path(file_okay=False),
              help="A folder of bundle files (a shared drive, the attachments of the mails).")
@click.option("--send", is_flag=True, help="Bundle what the other copy lacks into the folder (and push it).")
@click.option("--note", "note", help="With --send: one line for the other player, carried in the bundle and"
                                     " shown by his sync (at most 500 characters).")
@click.option("--give-way", "give_way", is_flag=True,
              help="Where both players sent moves at once (the copies parted): this player's moves give way,"
                   " decided again after the other's (ruling R113); agree it by mail first.")
@click.pass_context
def sync(ctx, git_dir, folder, send, give_way, note):
    """Play by email in one command a turn: take in every new bundle and say what is owed; --send sends."""
    from projections import medium  # lazy: projections.medium (~1.7 ms) only for the turn words

    if (git_dir is None) == (folder is None):
        raise BadInput("sync: name where the bundles are: --git DIR (a clone of the shared repository) or"
                       " --folder DIR")
    where = git_dir or folder
    if not os.path.isdir(where):
        raise BadInput(f"sync: {where} is not a folder")
    if git_dir is not None and not medium.is_repo(where):
        raise BadInput(f"sync --git {where}: not a git clone (git clone the shared repository there first)")
    key = _key(ctx)
    if key is None:
        raise BadInput("sync: play by email needs the player's key (--key FILE or $PLCG_KEY)")
    if git_dir is not None:
        for name in medium.mend(where):
            click.echo(f"sync: committed {name}, which a stopped sync had left uncommitted")
        medium.pull(where)
    if send and give_way:
        raise BadInput("sync: --give-way takes the other player's moves in; send afterwards with --send")
    if note is not None:
        _check_note(note, send)
    if send:
        _sync_send(ctx, where, git_dir is not None, key, note)
    else:
        _sync_take(ctx, where, key, give_way)


def _check_note(note: str, send: bool) -> None:
    """`sync --send --note`: one line of text for the other player, bounded (exit 2 before anything is done)."""
    from events.bundle import NOTE_MAX  # lazy: play by email only (events.bundle ~0.7 ms)

    if not send:
        raise BadInput("sync --note: a note travels with what you send: sync --send --note TEXT")
    if not note.strip():
        raise BadInput("sync --note: give some text")
    if _SHOWN.search(note):
        raise BadInput("sync --note: one line of text: no newlines or control characters")
    if len(note) > NOTE_MAX:
        raise BadInput(f"sync --note: at most {NOTE_MAX} characters ({len(note)} given)")


def _said_note(db: str, b) -> None:
    """The note a bundle carries (`sync --send --note`), shown as text if its author's key signed it."""
    from cg import pbem  # lazy: play by email only (cg.pbem ~0.7 ms)

    if b.note is None:
        return
    signer = _signer(b.rows[-1])
    led = Ledger(db)
    try:
        keys = (next(iter(led.store.read(until=1))).payload.get("pbem") or {}).get("keys") or {}
    finally:
        led.close()
    n = b.note
    if signer in keys and pbem.verify_note(keys[signer], b.campaign, b.head[0], b.head[1], n["text"], n["sig"]):
        click.echo(f"note from {signer}: {shown(n['text'])}")
    else:
        click.echo("sync: a note in the bundle is not signed by its author's key: not shown", err=True)


SYNC_MAX = 32 * 2**20  # bytes of text a bundle `sync` takes in may hold (a whole CG from seq 1 holds a few MB)


def _skipped(path: str, why: str) -> None:
    click.echo(f"sync: skipped {os.path.basename(path)}: {why}", err=True)


def _bundles_in(where: str, db: str, key) -> list:
    """(path, header) of the bundles of this campaign in `where`, their rows unread (events.bundle.peek):
    a file that is no bundle, or another campaign's, is skipped with one line naming it, so no file
    a folder holds can keep the real bundles out (issue 37 attack 4)."""
    from events import bundle as bundles  # lazy: play by email only (events.bundle ~0.7 ms)
    from projections import medium  # lazy: projections.medium (~1.7 ms) only for the turn words

    found = []
    for p in medium.bundle_files(where):
        try:
            found.append((p, bundles.peek(p, SYNC_MAX)))
        except PlcgError as e:
            _skipped(p, str(e).removeprefix(f"{p}: ").removeprefix(p).strip())
    campaign = _campaign_of(db, found, key)
    mine = []
    for p, h in found:
        if h.campaign == campaign:
            mine.append((p, h))
        else:
            _skipped(p, "a bundle of another campaign")
    return mine


def _campaign_of(db: str, found: list, key) -> str | None:
    """The hash of this copy's row 1; for a copy not made yet, the campaign of the bundles from seq 1
    whose players' keys hold this player's (one read whole at a time)."""
    from cg import pbem  # lazy: play by email only (cg.pbem ~0.7 ms)
    from events import bundle as bundles  # lazy: play by email only (events.bundle ~0.7 ms)

    if os.path.exists(db):
        led = Ledger(db)
        try:
            return led.store.hash_at(1)
        finally:
            led.close()
    firsts = {h.campaign: p for p, h in found if h.since == 0}
    if len(firsts) <= 1:
        return next(iter(firsts), None)
    me = pbem.public_line(key)
    for campaign, p in firsts.items():
        try:
            keys = (orjson.loads(bundles.read(p, SYNC_MAX).rows[0][6]).get("pbem") or {}).get("keys") or {}
        except (PlcgError, ValueError, AttributeError):
            continue
        if me in keys.values():
            return campaign
    return None


def _sync_take(ctx, where: str, key, give_way: bool = False) -> None:
    """Receive every bundle of `where` the copy lacks, in the history's order; say what came and what is owed."""
    from events import bundle as bundles  # lazy: play by email only (events.bundle ~0.7 ms)
    from projections import medium  # lazy: projections.medium (~1.7 ms) only for the turn words

    db = _db(ctx)
    found = _bundles_in(where, db, key)
    start = _head(db)
    head, taken, deferred, notes = start, set(), [], []

    def take(path, h, last: bool = False) -> None:
        nonlocal start
        taken.add(path)
        try:  # read whole only now, one bundle at a time: the folder's memory is one bundle's
            b = _checked_text(bundles.read(path, SYNC_MAX))
        except PlcgError as e:
            _skipped(path, str(e).removeprefix(f"{path}: ").removeprefix(path).strip())
            return
        try:
            fork = Ledger.fork_point(db, b) if os.path.exists(db) else None
            if fork is not None:  # the copies parted: both players acted at once (issue 37 F2, ruling R113)
                me, signer = _player_side(db, key), _signer(b.rows[-1])
                if _superseded(db, b, key):
                    _skipped(path, f"{signer}'s bundle from before the copies were joined (ruling R113): the"
                                   " history has gone on from the joined copy; the file may be deleted")
                    return
                if not (give_way or last) and Ledger.signed_after(db, fork, me):
                    deferred.append((path, h))  # both sent: unless a later bundle of his joined them already
                    return
                done = Ledger.rejoin(db, b, key, give_way)
                start = (done["fork"], None)  # the log from the parting on, as it now stands
                _rejoined(db, path, done)
                notes.append(bundles.Bundle(b.campaign, b.since, b.head, b.rows[-1:], b.note))  # its note, the rows let go
            elif Ledger.receive(db, b):
                _recorded(b.head[0])
                notes.append(bundles.Bundle(b.campaign, b.since, b.head, b.rows[-1:], b.note))
        except PlcgError:
            _said_taken(db, start, key)
            click.echo(f"sync: refused {os.path.basename(path)}; nothing of it written", err=True)
            raise

    while True:
        left = [pb for pb in found if pb[0] not in taken]
        # what the copy holds already: a bundle that differs from it parts from it (taken first, the earliest
        # first: ruling R113 joins the copies there, and the bundles after it continue the joined copy)
        forks = sorted(_differing(db, [pb for pb in left if pb[1].head[0] <= head[0]]), key=lambda pb: pb[1].since)
        nxt = forks[0] if forks else medium.next_to_take(left, head)
        if nxt is None:
            break
        take(*nxt)
        head = _head(db)
    for p, h in deferred:
        take(p, h, last=True)  # skipped if his bundle from the joined copy came meanwhile; else refused, exit 2
    if head[0] == 0:
        raise BadInput(f"sync: {where} holds no bundle from seq 1 to make this copy from")
    _said_taken(db, start, key)
    for b in notes:
        _said_note(db, b)
    for p, b in medium.waiting(found, head[0]):
        click.echo(f"waiting: {os.path.basename(p)} starts at seq {b.since + 1}; the bundle with seq"
                   f" {head[0] + 1}-{b.since} has not arrived yet")
    _answer_owed(db, key)
    _reveal_owed(db, key)
    _say_turn(db, key)


def _superseded(db: str, b, key) -> bool:
    """A bundle from before two copies were joined (ruling R113): this player's own, or one whose author has
    signed this copy since the parting."""
    fork = Ledger.fork_point(db, b) if b is not None else None
    if fork is None:
        return False
    signer = _signer(b.rows[-1])
    return signer == _player_side(db, key) or Ledger.signed_after(db, fork, signer)


def _read_or_none(path: str):
    from events import bundle as bundles  # lazy: play by email only (events.bundle ~0.7 ms)

    try:
        return bundles.read(path, SYNC_MAX)
    except PlcgError:
        return None


def _player_side(db: str, key) -> str | None:
    led = Ledger(db)
    try:
        return led._player(key)[1]
    finally:
        led.close()


def _rejoined(db: str, path: str, done: dict) -> None:
    """What ruling R113's join did, in words: the player's own moves after the other's, each refused or held one
    named, and where the copy as it was is kept."""
    _recorded(_head(db)[0])
    click.echo(f"sync: the copies parted after row {done['fork']}: {os.path.basename(path)} holds the other"
               " player's moves from there (both of you acted at once); your moves since, never sent, are"
               " decided again after his (ruling R113):")
    for cmd in done["redone"]:
        click.echo(f"  redone: {_typed(cmd)}")
    for cmd, why in done["refused"]:
        click.echo(f"  refused: {_typed(cmd)}: {shown(why)}")
    for cmd, why in done["held"]:
        click.echo(f"  held back: {_typed(cmd)}: {shown(why)}")
    if not any(done[k] for k in ("redone", "refused", "held")):
        click.echo("  (no command of yours to decide again)")
    click.echo(f"  this copy as it was is kept in {done['kept']} (plcg --db {done['kept']} log)")


_POSITIONAL = ("side", "rg", "unit", "text")  # a command's arguments typed without a flag, in this order


def _typed(cmd: dict) -> str:
    """A recorded command as the player typed it, near enough to type again."""
    words = [str(cmd.get("name", "?"))] + [str(cmd[k]) for k in _POSITIONAL if cmd.get(k) is not None]
    for k, v in cmd.items():
        if k in ("name", *_POSITIONAL) or v is None or v is False or v == [] or v == {}:
            continue
        flag = "--" + k.replace("_", "-")
        if v is True:
            words.append(flag)
        else:
            words.append(f"{flag} {v if not isinstance(v, (list, dict)) else orjson.dumps(v).decode()}")
    return shown(" ".join(words))


def _answer_owed(db: str, key) -> None:
    """Answer the other side's two-party dice now (ruling R83: a roll from a chain is decided by it)."""
    from cg import pbem  # lazy: cg.pbem (~0.7 ms), play by email only

    led = Ledger(db, write=True, key=lambda: key)
    try:
        st = led.state(lazy=True)
        by = pbem.side_of_key(st.pbem, key) if st.pbem else None
        if by is None or not pbem.unanswered(st, by) or pbem.provisional(st) is not None:
            return  # a step left provisionally by the other side: his player may still reject it (R71)
        stored = led.answer(key)
    finally:
        led.close()
    _recorded(stored)
    _said_answers(stored)
    _print_stored(led, [s for s in stored if s.type != "dice_answered"], False, key)


def _head(db: str) -> tuple:
    if not os.path.exists(db):
        return (0, None)
    led = Ledger(db)
    try:
        return led.store.head()
    finally:
        led.close()


def _differing(db: str, found: list) -> list:
    """Of (path, header) pairs whose head this copy's seqs reach, those whose head row differs from this copy's."""
    if not found:
        return []
    led = Ledger(db)
    try:
        return [(p, h) for p, h in found if led.store.hash_at(h.head[0]) != h.head[1]]
    finally:
        led.close()


def _hash_at(db: str, seq: int) -> str | None:
    led = Ledger(db)
    try:
        return led.store.hash_at(seq)
    finally:
        led.close()


def _said_taken(db: str, start: tuple, key, heading: bool = True) -> None:
    """The rows after `start` in the log's words: the other player's moves (signatures and dice
    answers are the medium's, left out)."""
    if not os.path.exists(db):
        return
    led = Ledger(db, key=lambda: key)
    try:
        recs = [r for r in led.store.read(since=start[0])
                if r.type not in ("head_signed", "dice_answered", "dice_chain")]
        head = led.store.head()[0]
    finally:
        led.close()
    if heading and head == start[0]:
        click.echo(f"nothing new: this copy is at seq {head}")
        return
    if heading:
        click.echo(f"received seq {start[0] + 1} to {head}:")
    for r in recs:
        click.echo(f"[{r.seq}] {summary(r.type, r.payload)}")


def _reveal_owed(db: str, key) -> None:
    """Reveal what the player owes (two-party dice the other side answered, sealed secrets the rules
    reveal now): nothing to decide, so `sync` does it for him."""
    from cg import pbem, seal  # lazy: play by email only (cg.pbem ~0.7 ms)

    led = Ledger(db, write=True, key=lambda: key)
    try:
        for _ in range(3):
            st = led.state(lazy=True)
            by = pbem.side_of_key(st.pbem, key) if st.pbem else None
            if by is None or not (pbem.open_requests(st, side=by, answered=True) or seal.owed(st, by)):
                break
            led.sealed_events = None  # what this reveal sealed, printed once
            stored = led.reveal(key)
            _recorded(stored)
            _print_stored(led, stored, False, key)
    finally:
        led.close()


def _say_turn(db: str, key) -> None:
    from cg import pbem  # lazy: play by email only (cg.pbem ~0.7 ms)
    from projections import medium  # lazy: projections.medium (~1.7 ms) only for the turn words

    led = Ledger(db, key=lambda: key)
    try:
        st = led.state(lazy=True)
    finally:
        led.close()
    me = pbem.side_of_key(st.pbem, key) if st.pbem else None
    click.echo(f"now at firefight {st.firefight}, step {st.step} {BY_ID[st.step].name}" if not st.ended
               else "the CG has ended")
    for line in medium.turn_lines(pending(st), me, st.pbem.proposal if st.pbem else None,
                                  st.pbem.provisional if st.pbem else None):
        click.echo(line)
    if me is not None:  # ruling R111: what a decided roll of his now allows, before his `next`
        from projections.entitlements import allowed_now  # lazy: only for the turn words

        for line in allowed_now(st, me):
            click.echo(line)


def _sync_send(ctx, where: str, git: bool, key, note: str | None = None) -> None:
    """Reveal what is owed, answer the other side's dice, sign, and write what the other copy lacks."""
    from events import bundle as bundles  # lazy: play by email only (events.bundle ~0.7 ms)
    from cg import pbem  # lazy: play by email only (cg.pbem ~0.7 ms)
    from projections import medium  # lazy: projections.medium (~1.7 ms) only for the turn words

    db = _db(ctx)
    if not os.path.exists(db):
        raise BadInput(f"sync --send: {db} does not exist (plcg sync takes the first bundle in)")
    mine = _head(db)
    for p, b in _bundles_in(where, db, key):  # the other player sent more since this copy last took his bundles in
        if not (b.head[0] <= mine[0] and _hash_at(db, b.head[0]) == b.head[1]) and not _superseded(db, _read_or_none(p), key):
            raise BadInput(f"sync --send: {os.path.basename(p)} holds moves this copy has not taken in: run"
                           " `plcg sync` first (sending now would fork the history); nothing sent")
    _reveal_owed(db, key)
    led = Ledger(db, write=True, key=lambda: key)
    try:
        stored = led.sign(key)
        _recorded(stored)
        since = led.acknowledged(key)
        rows, campaign = led.bundle_rows(since)
        by = pbem.side_of_key(led.state(lazy=True).pbem, key)
    finally:
        led.close()
    _said_answers(stored)
    path = os.path.join(where, medium.bundle_name(by, since, rows[-1][0]))
    try:  # a file of that name that is no bundle is replaced (outpath.write: a new file renamed over it)
        there = os.path.exists(path) and bundles.peek(path).head == (rows[-1][0], rows[-1][-1])
    except PlcgError:
        there = False
    if there:
        if note is not None:
            click.echo("sync: the note was not sent: the other player has these moves already (a note travels with"
                       " new moves)", err=True)
        if git and medium.unpushed(where):  # issue 37 F1: committed here, never pushed
            medium.push(where)
            click.echo(f"sent again: {os.path.basename(path)} (seq {since + 1} to {rows[-1][0]}) had not reached"
                       " the shared repository, pushed")
        else:
            click.echo(f"{os.path.basename(path)} is in {where} already (seq {since + 1} to {rows[-1][0]})")
        return
    signed = None if note is None else {"text": note, "sig": pbem.sign_note(key, campaign, rows[-1][0], rows[-1][-1],
                                                                            note)}
    b = bundles.write(path, rows, since, campaign, protected=_protected(click.get_current_context()), note=signed)
    if git:
        medium.commit_and_push(where, path, f"{by}: seq {since + 1} to {b.head[0]}")
    click.echo(f"sent {os.path.basename(path)}: seq {since + 1} to {b.head[0]}, {os.path.getsize(path)} bytes,"
               f" signed by {by}" + (", pushed" if git else ""))
    _say_turn(db, key)


@main.command()
@JSON_OPT
@click.pass_context
def reveal(ctx, as_json):
    """Play by email: reveal this side's answered two-party dice; each committed command is decided."""
    _player_run(ctx, Ledger.reveal, as_json)


def _player_run(ctx, method, as_json: bool) -> None:
    """A play-by-email command the ledger makes from the player's key (reveal, claim), printed."""
    led = Ledger(_db(ctx), write=True, key=lambda: _key(ctx))
    try:
        stored = method(led, _key(ctx))
    finally:
        led.close()
    _recorded(stored)
    _print_stored(led, stored, as_json)


@main.command()
@JSON_OPT
@click.pass_context
def claim(ctx, as_json):
    """Play by email: decide the two-party dice the other side withheld past its next bundle (ruling R67)."""
    _player_run(ctx, Ledger.claim, as_json)


@main.command()
@JSON_OPT
@click.pass_context
def confirm(ctx, as_json):
    """Play by email: agree to the other side's proposal (a shared fact); it takes effect now (ruling R45)."""
    _step(ctx, {"name": "confirm"}, as_json)


@main.command()
@click.option("--reason", required=True, help="Why: the log keeps it.")
@click.pass_context
def reject(ctx, reason):
    """Play by email: refuse the other side's proposal (or withdraw one's own), with the reason."""
    _step(ctx, {"name": "reject", "reason": reason})


@main.command("dice-stats")
@click.option("--side", "side", help="Only this side's rolls (axis or allied).")
@click.option("--kind", "kind", help="Only this kind of roll: the command that rolls it (elr, cp, leader, ...).")
@JSON_OPT
@click.pass_context
def dice_stats(ctx, side, kind, as_json):
    """Every roll of the CG: each die (white, colored) per side and per kind, against fair dice (chi-square)."""
    from projections.dicestats import rolls_of, stats, stats_text  # lazy: ~0.2 ms, only `plcg dice-stats`

    if side is not None:
        from cg.commands import side_arg  # lazy: cg.commands (~33 ms) for a side name

        side = side_arg({"side": side})
    led = Ledger(_db(ctx), key=lambda: _key(ctx))
    try:
        rolls = rolls_of(((r.seq, r.batch, r.type, r.payload, r.command) for r in led.store.read()), led.opener())
    finally:
        led.close()
    if kind is not None and kind not in {r["kind"] for r in rolls}:
        raise BadInput(f"--kind {kind!r}: the log holds no roll of that kind (it holds: "
                       f"{', '.join(sorted({r['kind'] for r in rolls})) or 'none'})")
    d = stats(rolls, side, kind)
    if as_json:
        _echo_json(d)
    else:
        click.echo(stats_text(d))


@main.command("dice-check")
@click.argument("seq", metavar="SEQ")
@JSON_OPT
@click.pass_context
def dice_check(ctx, seq, as_json):
    """Recompute the roll of event SEQ from the log's values, each step shown (exit 1: not the logged dice)."""
    from projections.dicecheck import check, check_text  # lazy: only `plcg dice-check`

    try:
        n = int(seq)
    except ValueError:
        raise BadInput(f"SEQ {seq!r}: the seq of an event that holds a roll (plcg log shows them)") from None
    led = Ledger(_db(ctx), key=lambda: _key(ctx))
    try:
        rows = []
        for r in led.store.read():  # up to SEQ and the rest of its batch (the roll may come before its reveal)
            if r.seq > n and (not rows or r.batch != rows[-1].batch or rows[-1].seq < n):
                break
            rows.append(r)

        def anchor_of(commit, at):  # the chain a roll committed at `at` named (ruling R83)
            req = led.state(at=at).pbem.requests.get(commit)
            return None if req is None else req.anchor

        try:
            d = check(rows, n, led.opener(), anchor_of)
        except LookupError as e:
            raise BadInput(f"SEQ {n}: {e.args[0]}") from None
    finally:
        led.close()
    if as_json:
        _echo_json(d)
    else:
        click.echo(check_text(d))
    if not d["ok"]:
        ctx.exit(1)


@main.command()
@JSON_OPT
@click.option("--at", "at", type=int, help="As of this seq.")
@click.pass_context
def roster(ctx, as_json, at):
    """The CG Roster: one row per firefight and side, with the CG's running totals."""
    led = Ledger(_db(ctx), key=lambda: _key(ctx))
    st = led.state(at=at)
    led.close()
    rows = roster_rows(st)
    if as_json:  # the rows, their totals and the CG's verdict (contract: victory, ruling R74)
        _echo_json({"rows": rows, "totals": roster_totals(rows), "victory": verdict.victory(st)})
    else:
        _echo_shown(roster_text(st, rows) + "\n" + verdict.victory_line(st))


@main.command()
@click.argument("side", metavar="SIDE")
@JSON_OPT
@click.option("--reveal", is_flag=True, help="Show SIDE's purchases not yet revealed to the viewer too.")
@click.option("--as", "viewer", metavar="VIEWER",
              help="Who is looking (axis or allied): the other side sees SIDE's purchases once revealed (ruling R10)."
                   " Default: the side of --key, else SIDE itself.")
@click.option("--at", "at", type=int, help="As of this seq.")
@click.pass_context
def purchases(ctx, side, as_json, reveal, viewer, at):
    """The RG Purchase Record of SIDE: whose record it is; a viewer of the other side sees it once revealed."""
    from cg.commands import side_arg  # lazy: cg.commands brings every handler and the event classes (~40 ms)

    side = side_arg({"side": side})
    viewer = side_arg({"side": viewer}) if viewer is not None else None
    led = Ledger(_db(ctx), key=lambda: _key(ctx))
    st = led.state(at=at)
    led.close()
    if viewer is None and st.pbem is not None and not st.pbem.sealing and _key(ctx) is not None:
        # open secrets: the key says who looks (with sealed secrets the copy already shows only what the
        # rules revealed to its player, ruling R47)
        from cg.pbem import side_of_key  # lazy: play by email only

        viewer = side_of_key(st.pbem, _key(ctx))
    rows = purchase_rows(st, side, reveal, viewer)
    forts = fortification_rows(st, side, reveal, viewer, _viewer(ctx, st, None))  # ruling R22: the key's side too
    if as_json:
        _echo_json({"purchases": rows, "fortifications": forts})
    else:
        _echo_shown(purchase_text(rows, forts))


@main.command()
@click.argument("side", metavar="SIDE")
@JSON_OPT
@click.option("--at", "at", type=int, help="As of this seq.")
@click.pass_context
def oob(ctx, side, as_json, at):
    """The order of battle of SIDE: every unit by RG with its status."""
    from cg.commands import side_arg  # lazy: as in purchases

    side = side_arg({"side": side})
    led = Ledger(_db(ctx), key=lambda: _key(ctx))
    st = led.state(at=at)
    led.close()
    rows = oob_rows(st, side)
    if as_json:
        _echo_json(rows)
    else:
        _echo_shown(oob_text(rows))


@main.command("map")
@JSON_OPT
@click.option("--svg", "svg", help="Write the map as SVG to this file (- for standard output).")
@click.option("--at", "at", type=int, help="As of this seq.")
@click.option("--as", "viewer", metavar="VIEWER", help=VIEWER_HELP)
@click.pass_context
def map_(ctx, as_json, svg, at, viewer):
    """Map control: CTHC, No Man's Land, MLR, Uncontrolled, Isolated, and the terrain kept (CG5)."""
    led = Ledger(_db(ctx), key=lambda: _key(ctx))
    st = led.state(at=at)
    led.close()
    viewer = _viewer(ctx, st, viewer)
    if svg == outpath.STDOUT:
        click.echo(map_svg(st, viewer=viewer), nl=False)
    elif svg:
        outpath.write(svg, [map_svg(st, viewer=viewer)], protected=_protected(ctx))
    if as_json:
        _echo_json(map_json(st, viewer))
    elif not svg:
        _echo_shown(map_text(st, viewer))


@main.command()
@click.option("--format", "fmt", type=click.Choice(["jsonl", "md", "html", "bbcode"]), required=True)
@click.option("-o", "out", help="Write to this file (default, or -: standard output).")
@click.option("--url", default="aar.html", show_default=True,
              help="bbcode: where the HTML report is put (export --format html); the post links to it and its maps.")
@click.pass_context
def export(ctx, fmt, out, url):
    """The raw log (JSON Lines, importable) or an After Action Report (Markdown, HTML, BBCode for a forum)."""
    from projections import aar  # lazy: the report imports every projection, charts and maps (~50 ms)

    if out == outpath.STDOUT:
        out = None
    if out:  # refused before the log is read (issue 25: the campaign, a key, a FIFO, a device, a link)
        outpath.check_target(out, _protected(ctx))
    led = Ledger(_db(ctx), key=lambda: _key(ctx))
    try:
        # the log is read and checked before the first piece: the file is opened only then, and the
        # report is written a piece at a time (it is never in memory whole)
        # the report allocates a few objects per row, none in a cycle, beside the whole folded state it
        # keeps: the cyclic collector would walk that state again and again (~10% at 111k events, and a
        # cost per event that grows with the log); paused, as for the fold (cg/bulk.py)
        with gc_paused():
            pieces = aar.export_chunks(led, fmt, url)
            if out:  # by a new temporary name, renamed into place once whole (events/outpath.py)
                outpath.write(out, _batched(pieces), protected=_protected(ctx))
                click.echo(f"wrote {EXPORT_WHAT.get(fmt, fmt)} to {out} ({_size(os.path.getsize(out))})")
            else:
                for text in _batched(pieces):
                    click.echo(text, nl=False)
    finally:
        led.close()


EXPORT_WHAT = {"jsonl": "the raw log (JSON Lines)", "md": "the After Action Report (Markdown)",
               "html": "the After Action Report (HTML)"}


def _size(n: int) -> str:
    """A file's size as a player reads it: '812 bytes', '41 KB', '2.3 MB'."""
    if n < 1024:
        return f"{n} byte{'s' if n != 1 else ''}"
    if n < 1024 * 1024:
        return f"{n / 1024:.0f} KB"
    return f"{n / (1024 * 1024):.1f} MB"


def _batched(pieces, size: int = 1 << 16):
    """Text pieces joined into strings of about `size` characters: one write each."""
    buf, n = [], 0
    for p in pieces:
        buf.append(p)
        n += len(p)
        if n >= size:
            yield "".join(buf)
            buf, n = [], 0
    if buf:
        yield "".join(buf)


@main.command("import")
@click.argument("file", metavar="FILE")
@click.pass_context
def import_(ctx, file):
    """Make a new campaign file from an exported JSON Lines log; audited on the way in."""
    from projections.transfer import import_jsonl  # lazy: ~0.2 ms, only `plcg import`

    n = import_jsonl(file, _db(ctx))
    _recorded(n)
    click.echo(f"imported {n} events into {_db(ctx)}; audit clean")


def steps_doc() -> str:
    """docs/steps.md: the step table and the machine's own Mermaid drawing."""
    rows = "\n".join(f"| {s.id} | {s.name} | {s.rule} |" for s in STEPS)
    return (
        "# The step machine\n\n"
        "Generated from the steps (`cg/steps/`) and the machine built from them (`cg/machine.py`) by\n"
        "`plcg diagram --markdown > docs/steps.md` (transitions draws the Mermaid diagram itself, no\n"
        "graphviz); `tests/test_docs.py` fails when this file and the machine disagree.\n\n| step | name | rule |\n|---|---|---|\n" + rows + "\n\n```mermaid\n" + mermaid() + "\n```\n"
    )


@main.command("diagram")
@click.option("--markdown", is_flag=True, help="The whole docs/steps.md page.")
def diagram(markdown):
    """Print the step machine as a Mermaid stateDiagram (drawn by transitions)."""
    click.echo(steps_doc() if markdown else mermaid(), nl=not markdown)


@main.command()
@click.option("--db", "demo_db", type=click.Path(dir_okay=False), help="Where to write the demo campaign.")
@click.option("--card", "demo_card", default="sample", show_default=True,
              help="The shipped card to play: sample, or bridgehead (boards, OB given, a night firefight).")
@click.pass_context
def demo(ctx, demo_db, demo_card):
    """Play a shipped CG with the seeded roller (the sample: one firefight Idle) and print its roster.

    Run again, it replaces the demo file it made before (never another campaign)."""
    from cg.app.demo import is_demo, play, replace  # lazy: ~0.2 ms, only `plcg demo`

    root = ctx.find_root()
    explicit = root.get_parameter_source("db") in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)
    path = demo_db or (_db(ctx) if explicit else "demo.plcg")
    if os.path.exists(path):
        if not is_demo(path):
            raise BadInput(f"{path} exists and is not a demo campaign: give --db NEWFILE "
                           "(the demo replaces only a file it made)")
        replace(path)
        click.echo(f"replacing the earlier demo campaign in {path}")
    n = play(path, echo=lambda line: click.echo(line), describe=summary, card=demo_card)
    led = Ledger(path)
    st = led.state()
    led.close()
    click.echo("")
    click.echo(roster_text(st, roster_rows(st)))
    click.echo(verdict.victory_line(st))  # the demo ends naming its winner (ruling R74)
    click.echo(f"\n{n} commands recorded in {path}. Next: plcg --db {path} log; plcg --db {path} audit; "
               f"plcg --db {path} export --format html -o aar.html")


# ---- step commands (cli-contract.md, Step commands) -------------------------------------------------

@main.command()
@click.argument("side", metavar="SIDE")
@DICE_DR
@JSON_OPT
@click.pass_context
def cp(ctx, side, dice, as_json):
    """2.1 CP replenishment of SIDE (no dice where the card provides CP)."""
    _step(ctx, {"name": "cp", "side": side, "dice": dice}, as_json)


@main.command()
@click.argument("text", required=False)
@click.pass_context
def weather(ctx, text):
    """2.2 At-start weather (default: the card's)."""
    _step(ctx, {"name": "weather", "text": text})


@main.command()
@click.argument("side", metavar="SIDE")
@click.argument("rg", metavar="RG")
@click.option("--mode", type=click.Choice(["on-map", "reserve", "entry"], case_sensitive=False), default="entry",
              show_default=True, help="Setup mode: on map, In Reserve or entering (2.32-2.34: it changes the cost).")
@JSON_OPT
@click.pass_context
def buy(ctx, side, rg, mode, as_json):
    """2.3 Buy an RG (cost after 2.34)."""
    _step(ctx, {"name": "buy", "side": side, "rg": rg, "mode": mode}, as_json)


@main.command()
@click.argument("side", metavar="SIDE")
@click.argument("count", metavar="N")
@click.pass_context
def patrols(ctx, side, count):
    """2.31 Buy N patrols."""
    _step(ctx, {"name": "patrols", "side": side, "count": count})


@main.command()
@click.argument("side", metavar="SIDE")
@click.argument("rg", metavar="RG")
@DICE_DR
@JSON_OPT
@click.pass_context
def oba(ctx, side, rg, dice, as_json):
    """2.35 Ammunition DR of a bought OBA module (RG id or purchase id)."""
    _step(ctx, {"name": "oba", "side": side, "rg": rg, "dice": dice}, as_json)


@main.command()
@click.argument("side", metavar="SIDE")
@click.argument("rg", metavar="RG", required=False)
@click.option("--generated", is_flag=True, help="3.45: generate a leader after `plcg leaders`.")
@click.option("--hex", "hex_", help="3.45, with --generated: place the leader with a friendly non-Isolated MMC on map "
                                    "in HEX; without it the leader enters as a reinforcement.")
@click.option("--commissar", is_flag=True,
              help="Russian, 2.361 *: take a Commissar for the leader the DR gives, where the card's RG allows it "
                   "(A25.22, ruling R40; a --generated leader: where any RG of the side does, ruling R92); on a row "
                   "without a * the leader rolled stands (ruling R49).")
@DICE_DR
@JSON_OPT
@click.pass_context
def leader(ctx, side, rg, generated, hex_, commissar, dice, as_json):
    """2.36 One leader DR owed by a bought RG (3.45 generation with --generated)."""
    if not rg and not generated:
        raise click.UsageError("name the RG (2.36) or give --generated (3.45)")
    _step(ctx, {"name": "leader", "side": side, "rg": rg, "generated": generated, "commissar": commissar,
                "dice": dice, **({"hex": hex_} if hex_ else {})}, as_json)


@main.command()
@click.argument("side", metavar="SIDE")
@click.argument("kind", metavar="KIND")
@click.option("--hex", "hex_", help="Where it goes (may wait for setup, 2.38).")
@click.option("--capacity", type=int, help="Foxhole/pillbox squad capacity.")
@click.option("--factors", type=int, help="Mine factors.")
@click.option("--unit", help="HIP: the unit hidden.")
@click.option("--hexsides", type=int, help="Panji hexsides.")
@click.option("--locations", type=int, help="Fortified building Locations.")
@click.option("--ca", type=int, help="Pillbox CA DRM.")
@click.option("--nca", type=int, help="Pillbox NCA DRM.")
@click.pass_context
def fortify(ctx, side, kind, hex_, capacity, factors, unit, hexsides, locations, ca, nca):
    """2.38 Spend Fortification Points on the FP table (2.3); at 2.6, place one bought without --hex.

    \b
    KIND, one of the 2.38 table (FP cost):
      foxhole (3/2/1 by --capacity), sangar (2), dummy (1), hip (5/3/2/2/1 by --unit),
      roadblock (12), wire (10), pillbox (--capacity x (--ca + --nca)), fortified_building
      (12 per --locations), tunnel (20), booby_traps (15), at_ditch (18), ap_mine (2 per
      --factors), at_mine (5 per --factors), set_dc (25), known_minefield (0.8 x the mines'
      cost, ruling R22), dummy_minefield (the CG Card's dummy_minefield_fp, ruling R22;
      refused where it states none), cave (15), cave_complex (7), tetrahedrons (15), panji
      (2 per --hexsides), trip_flares (1)
    """
    _step(ctx, {"name": "fortify", "side": side, "kind": kind, "hex": hex_, "capacity": capacity,
                "factors": factors, "unit": unit, "hexsides": hexsides, "locations": locations,
                "ca": ca, "nca": nca})


@main.command()
@click.argument("side", metavar="SIDE")
@click.pass_context
def attack(ctx, side):
    """2.3 Buy the Attack Option (card attack_cost; announced at 2.4)."""
    _step(ctx, {"name": "attack", "side": side})


@main.command()
@click.option("--dice", help="Dual Attack: the dr for who sets up first.")
@click.option("--move-dice", "move_dice",
              help="Dual Attack under rules revision 1 only: the dr for who moves first (revision 2: plcg moves-first "
                   "at 2.6, after all setup).")
@JSON_OPT
@click.pass_context
def determine(ctx, dice, move_dice, as_json):
    """2.41 Firefight type (the two drs only for a Dual Attack)."""
    _step(ctx, {"name": "determine", "dice": dice, "move_dice": move_dice}, as_json)


@main.command("moves-first")
@DICE_DR1
@JSON_OPT
@click.pass_context
def moves_first(ctx, dice, as_json):
    """2.41 Dual Attack: the dr for who moves first, made after all setup (2.6)."""
    _step(ctx, {"name": "moves-first", "dice": dice}, as_json)


@main.command()
@click.argument("text")
@click.pass_context
def night(ctx, text):
    """2.42 Night conditions."""
    _step(ctx, {"name": "night", "text": text})


@main.command()
@click.argument("option", metavar="A|B")
@click.pass_context
def option(ctx, option):
    """3.2 Choose Redeployment Option A or B (kept for the CG)."""
    _step(ctx, {"name": "option", "option": option})


@main.command()
@click.argument("side", metavar="SIDE")
@click.argument("unit", metavar="UNIT", required=False)
@click.option("--to", "to", help="The hex it redeploys to (required with UNIT).")
@click.option("--hs", type=int, default=0,
              help="HS equivalents beyond one squad redeploying on the same DR (+1 each). Typed: the ledger records "
                   "units one by one, not the stacks players roll for together.")
@click.option("--leadership", type=int, default=None,
              help="Leadership DRM, typed only where the unit has no recorded hex (ruling R33: the ledger cannot see who stands with it); where it has one, the best leader in its hex gives it (R30) and a contradicting value is refused.")
@click.option("--crosses-uncontrolled", "crosses_uncontrolled", is_flag=True,
              help="The redeployment crosses Uncontrolled terrain from the FMLR (+1). Typed: the ledger does not "
                   "record the path a unit takes.")
@DICE_DR
@JSON_OPT
@click.option("--counter", help="The new counter where a Replaced/Reduced result needs one the counter table "
                                "lacks (ruling R34).")
@click.option("--done", is_flag=True, help="2.5 Option A: the Defender has done with its redeployment, so the "
                                          "Attacker may redeploy (ruling R85); no UNIT.")
@click.pass_context
def redeploy(ctx, side, unit, to, hs, leadership, crosses_uncontrolled, counter, dice, as_json, done):
    """2.5 / 3.2 Redeploy a unit (Redeployment Table, DRM from the map)."""
    if done:
        if unit or to:
            raise click.UsageError("--done takes no UNIT and no --to")
        _step(ctx, {"name": "redeploy", "side": side, "done": True}, as_json)
        return
    if not unit or not to:
        raise click.UsageError("give UNIT and --to HEX (or --done at 2.5 Option A)")
    _step(ctx, {"name": "redeploy", "side": side, "unit": unit, "to": to, "hs": hs or None,
                "leadership": leadership, "crosses_uncontrolled": crosses_uncontrolled, "counter": counter,
                "dice": dice}, as_json)


@main.command()
@click.argument("side", metavar="SIDE")
@click.argument("unit", metavar="UNIT")
@click.argument("hex_", metavar="HEX")
@click.option("--hip", is_flag=True, help="Set up HIP.")
@click.pass_context
def setup(ctx, side, unit, hex_, hip):
    """2.6 Record where a unit sets up (optional: roster-only players never place units)."""
    _step(ctx, {"name": "setup", "side": side, "unit": unit, "hex": hex_, "hip": hip})


@main.command()
@click.argument("side", metavar="SIDE")
@click.option("--type", "kind", help="recon | ambush | raid | anti-vehicle")
@click.option("--units", help="Comma-separated unit ids (at least one HS, at most three squads).")
@click.option("--leader", help="The accompanying leader (unwounded).")
@click.option("--hex", "hex_", help="The mission hex (at most 10 hexes from the MLR).")
@click.option("--elite", type=int, default=None,
              help="Elite (-1). Rules revision 2 reads it from the RGs' quality (ruling R26): give it only under revision "
                   "1; a value contradicting the OB is refused.")
@click.option("--stealthy", type=int, default=None,
              help="Stealthy (-1): by nationality or the card's SSR, which the ledger does not hold, so it is typed.")
@click.option("--inexperienced", type=int, default=None,
              help="Inexperienced (+1). Rules revision 2 reads it from the RGs' quality (ruling R26).")
@click.option("--lax", type=int, default=None,
              help="Lax (+1): by nationality or the card's SSR, which the ledger does not hold, so it is typed.")
@click.option("--enemy-adjacent", "enemy_adjacent", type=int, default=None,
              help="Hexes adjacent to the mission hex holding enemy units (+1 each). Revision 2 counts them from recorded "
                   "hexes; typed only where the enemy has none recorded (ruling R33).")
@click.option("--sw-pp", "sw_pp", type=int, default=None,
              help="SW PP carried (+1 per PP beyond 1). Revision 2 takes them from the counter table; typed only where it "
                   "lacks a SW (ruling R33).")
@click.option("--leadership", type=int, default=None,
              help="Leadership. Revision 2 reads the leader's counter (ruling R30); give it only under revision 1.")
@click.option("--counter", help="A Reduced squad's HS where the counter table lacks it (ruling R34).")
@click.option("--give-up", "give_up", help="Give up the next owed patrol, with the reason (ruling R15).")
@DICE_DR
@JSON_OPT
@click.pass_context
def patrol(ctx, side, kind, units, leader, hex_, elite, stealthy, inexperienced, lax, enemy_adjacent, sw_pp,
           leadership, counter, give_up, dice, as_json):
    """2.7 Resolve a bought patrol: Detection DR (2.74)."""
    _step(ctx, {"name": "patrol", "side": side, "type": kind,
                "units": [u.strip() for u in units.split(",") if u.strip()] if units else None,
                "leader": leader, "hex": hex_, "elite": elite, "stealthy": stealthy,
                "inexperienced": inexperienced, "lax": lax, "enemy_adjacent": enemy_adjacent, "sw_pp": sw_pp,
                "leadership": leadership, "counter": counter, "give_up": give_up, "dice": dice}, as_json)


@main.command("patrol-return")
@click.argument("side", metavar="SIDE")
@click.argument("patrol_n", metavar="N")
@click.option("--attacked", is_flag=True, help="The patrol conducted an attack (+1).")
@click.option("--pinned", is_flag=True, help="Pinned (+1).")
@click.option("--broken", is_flag=True, help="Broken (+2).")
@click.option("--trip-flares", "trip_flares", is_flag=True,
              help="2.753: the enemy's Trip Flares in the mission hex went off at night (+2; ruling R88).")
@click.option("--leadership", type=int, default=None,
              help="Leadership. Revision 2 reads the patrol leader's counter (ruling R30); give it only under revision 1.")
@click.option("--counter", help="A Reduced squad's HS where the counter table lacks it (ruling R34).")
@DICE_DR
@JSON_OPT
@click.pass_context
def patrol_return(ctx, side, patrol_n, attacked, pinned, broken, trip_flares, leadership, counter, dice, as_json):
    """2.74 Patrol Return DR (rules revision 2: the whole 2.74 DRM list, from the patrol's units)."""
    _step(ctx, {"name": "patrol-return", "side": side, "patrol": patrol_n, "attacked": attacked,
                "pinned": pinned, "broken": broken, "leadership": leadership, "counter": counter,
                "dice": dice, **({"trip_flares": True} if trip_flares else {})}, as_json)


def _seps(values, first: str, second: str | None = None) -> list[str]:
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


def _vasl_log(path: str) -> dict:
    """`end --vasl-log FILE`: the file's name and SHA-256, read in pieces (a VASL log may be large)."""
    import hashlib  # lazy: only `end --vasl-log`

    name = os.path.basename(path)
    if _SHOWN.search(name):
        raise BadInput(f"--vasl-log {shown(name)}: the file name holds control characters; rename the file")
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            while chunk := f.read(1 << 20):
                h.update(chunk)
    except OSError as e:
        raise BadInput(f"--vasl-log {shown(path)}: cannot read it ({e.strerror})") from None
    return {"name": name, "sha256": h.hexdigest()}


@main.command()
@click.option("--turn", type=int, required=True, help="The turn the firefight ended (CG2).")
@click.option("--cvp-lost", "cvp_lost", multiple=True, required=True, help="SIDE=N, once per side.")
@click.option("--winner", help="Override 1.31 (CG Objectives).")
@click.option("--control", multiple=True, help="SIDE=HEX: control of a Strategic Terrain hex now.")
@click.option("--lost", multiple=True, help="SIDE:UNIT eliminated.")
@click.option("--terrain", multiple=True,
              help="HEX=ITEM[:SIDE][:FACTORS] kept between firefights (CG5); ITEM one of the items `map` names: "
                   + ", ".join(IN_HEX) + ".")
@click.option("--encircled", multiple=True, help="SIDE:UNIT Encircled (3.17).")
@click.option("--wounded", multiple=True, help="SIDE:LEADER wounded (3.32).")
@click.option("--shocked", multiple=True, help="SIDE:UNIT marked Shock/UK (3.19).")
@click.option("--recalled", multiple=True, help="SIDE:UNIT Recalled (3.461).")
@click.option("--repair", multiple=True, help="SIDE:ITEM=KIND owing a 3.46 repair dr.")
@click.option("--oba-used", "oba_used", multiple=True, help="SIDE:PURCHASE OBA module used (CG4: two at most).")
@click.option("--position", multiple=True, help="SIDE:UNIT=HEX where the unit stands at the end (3.212 reads it).")
@click.option("--hero", multiple=True, help="SIDE:UNIT a leader turned heroic, or an MMC that created a Hero (3.43).")
@click.option("--reduced", multiple=True,
              help="SIDE:UNIT[=COUNTER] Casualty Reduction: squad to its HS (counter table), HS/crew eliminated, "
                   "leader wounded.")
@click.option("--replaced", multiple=True, help="SIDE:UNIT[=COUNTER] ELR replacement (A19.13; default: the counter table's).")
@click.option("--captured", multiple=True, help="SIDE:UNIT captured.")
@click.option("--exited", multiple=True, help="SIDE:UNIT exited off a friendly edge, kept for the next firefight (CG8).")
@click.option("--vasl-log", "vasl_log", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="A VASL log the firefight was played in: its name and SHA-256 are recorded as the evidence.")
@click.pass_context
def end(ctx, turn, cvp_lost, winner, control, lost, terrain, encircled, wounded, shocked, recalled, repair,
        oba_used, position, hero, reduced, replaced, captured, exited, vasl_log):
    """2.9 Firefight end: turn, CVP lost per side, winner (1.31 by default), control, casualties, terrain."""
    cvp = {}
    for item in _seps(cvp_lost, "="):
        if "=" not in item:
            raise BadInput(f"--cvp-lost {item!r}: SIDE=N, e.g. axis=12")
        k, v = item.split("=", 1)
        if k.strip().lower() in cvp:
            raise BadInput(f"--cvp-lost {k}: given twice")
        cvp[k.strip().lower()] = v.strip()
    pairs = {k: _seps(v, ":") for k, v in (("lost", lost), ("encircled", encircled), ("wounded", wounded),
             ("shocked", shocked), ("recalled", recalled), ("oba_used", oba_used), ("hero", hero),
             ("captured", captured), ("exited", exited))}
    cmd = {"name": "end", "turn": turn, "cvp_lost": cvp, "winner": winner, "control": _seps(control, "="),
           "terrain": _seps(terrain, "="), **pairs, "repair": _seps(repair, ":", "="),
           "position": _seps(position, ":", "="), "reduced": _seps(reduced, ":", "="),
           "replaced": _seps(replaced, ":", "="), **({"vasl_logs": [_vasl_log(f) for f in vasl_log]} if vasl_log else {})}
    before = Ledger(_db(ctx), key=lambda: _key(ctx))  # the units as the end finds them: their CVP (issue 38)
    try:
        st = before.state()
    finally:
        before.close()
    stored = _step(ctx, dict(cmd))
    if stored and conventions(st, END_CVP_CHECK):
        from cg.commands.firefight_end import cvp_words  # lazy: only `plcg end`

        for line in cvp_words(st, cmd):
            click.echo(line)
    if stored:  # note it or post it: `plcg audit --witness` catches a log cut or rewritten before it
        click.echo(f"head witness {stored[-1].seq}:{stored[-1].hash[:16]}")


@main.command()
@click.argument("side", metavar="SIDE")
@click.argument("unit", metavar="UNIT")
@click.argument("hex_", metavar="HEX")
@click.option("--hip", is_flag=True, help="Still hidden (HIP) at the end (3.24).")
@click.option("--concealed", is_flag=True, help="Concealed at the end (3.218).")
@click.pass_context
def position(ctx, side, unit, hex_, hip, concealed):
    """2.9: where a unit stands at the firefight's end; 3.212 reads it (else its last recorded hex)."""
    _step(ctx, {"name": "position", "side": side, "unit": unit, "hex": hex_, "hip": hip, "concealed": concealed})


@main.command()
@click.argument("side", metavar="SIDE")
@click.option("--cvp", type=int, help="CVP lost in the RePh (counted for the firefight, 3.11).")
@click.option("--lost", multiple=True, help="Unit eliminated.")
@click.option("--reduced", multiple=True,
              help="3.52 (rules revision 3): UNIT[=COUNTER], the MMC a clearance's Casualty Reduction strikes.")
@click.pass_context
def casualties(ctx, side, cvp, lost, reduced):
    """3.11 RePh losses, counted for the firefight just played; at 3.52 a clearance's Casualty Reduction."""
    _step(ctx, {"name": "casualties", "side": side, "cvp": cvp, "lost": list(lost), "reduced": list(reduced)})


@main.command()
@click.argument("side", metavar="SIDE")
@click.argument("unit", metavar="UNIT")
@click.option("--morale", type=int, help="The unit's morale for the 1TC (default: the one its counter shows).")
@click.option("--leadership", type=int, default=None,
              help="Leadership DRM, typed only where the unit has no recorded hex (ruling R33: the ledger cannot see who stands with it); where it has one, the best leader in its hex gives it (R30) and a contradicting value is refused.")
@DICE_DR
@JSON_OPT
@click.pass_context
def encircled(ctx, side, unit, morale, leadership, dice, as_json):
    """3.17 1TC of an Encircled unit (fail: eliminated)."""
    _step(ctx, {"name": "encircled", "side": side, "unit": unit, "morale": morale,
                "leadership": leadership, "dice": dice}, as_json)


@main.command()
@click.argument("side", metavar="SIDE")
@click.argument("unit", metavar="UNIT")
@DICE_DR1
@JSON_OPT
@click.pass_context
def shock(ctx, side, unit, dice, as_json):
    """3.19 Shock/UK resolution dr of an AFV."""
    _step(ctx, {"name": "shock", "side": side, "unit": unit, "dice": dice}, as_json)


@main.command()
@click.argument("side", metavar="SIDE")
@click.argument("leader", metavar="LEADER")
@DICE_DR1
@JSON_OPT
@click.pass_context
def evacuate(ctx, side, leader, dice, as_json):
    """3.32 Evacuation dr of a wounded leader."""
    _step(ctx, {"name": "evacuate", "side": side, "leader": leader, "dice": dice}, as_json)


@main.command()
@click.argument("side", metavar="SIDE")
@click.option("--replaced", help="Rules revision 3: UNIT[=COUNTER], a squad/HS the dr's result ELR Replaces "
                                 "(Isolated units first).")
@DICE_DR1
@JSON_OPT
@click.pass_context
def disease(ctx, side, replaced, dice, as_json):
    """3.41 Disease & Starvation dr (only where the card's FSR invoke it), then the squads it Replaces."""
    _step(ctx, {"name": "disease", "side": side, "replaced": replaced, "dice": dice}, as_json)


@main.command()
@click.argument("side", metavar="SIDE")
@DICE_DR1
@JSON_OPT
@click.pass_context
def promote(ctx, side, dice, as_json):
    """3.44 Battlefield Promotion dr."""
    _step(ctx, {"name": "promote", "side": side, "dice": dice}, as_json)


@main.command()
@click.argument("side", metavar="SIDE")
@DICE_DR1
@JSON_OPT
@click.pass_context
def leaders(ctx, side, dice, as_json):
    """3.45 Leader Generation/Improvement dr."""
    stored = _step(ctx, {"name": "leaders", "side": side, "dice": dice}, as_json)
    rolled = [s.payload for s in stored if s.type == "leaders_rolled" and isinstance(s.payload.get("roll"), dict)]
    if rolled and not as_json:  # why fewer than the dr's result: the leaders lost, the MMC on board
        from cg.commands.reorganization import generation_limits  # lazy: as in purchases

        led = Ledger(_db(ctx), key=lambda: _key(ctx))
        st = led.state()
        led.close()
        p = rolled[-1]
        why = generation_why(p["roll"]["outcome"], *generation_limits(st, p["side"]))
        if why:
            click.echo(f"  {why}")


@main.command()
@click.argument("side", metavar="SIDE")
@click.argument("unit", metavar="UNIT")
@click.option("--to", "to", help="The new counter, e.g. 4-6-8: only where the counter table lacks it (ruling R34; "
                                 "rules revision 1 campaigns: optional, recorded as typed).")
@click.pass_context
def harden(ctx, side, unit, to):
    """3.43-3.45 Battle Harden a unit (within the 3.44 / 3.45 results, once per RePh)."""
    _step(ctx, {"name": "harden", "side": side, "unit": unit, "to": to})


@main.command()
@click.argument("side", metavar="SIDE")
@click.argument("item", metavar="ITEM")
@click.option("--kind", help="malfunction | low_ammo | disabled | immobilized | captured_sw")
@click.option("--drm", type=int, default=0,
              help="Leadership/Inexperience/Captured Use/Ammo Shortage drm of a Disabled or Immobilized repair, as "
                   "stated: the ledger does not record who makes the repair (revision 2: none on a malfunction; "
                   "revision 3: the penalties only, 0 or more: Leadership comes from the OB).")
@click.option("--leadership", type=int,
              help="Revision 3: the repairing leader's modifier, where the item has no recorded hex (ruling R33).")
@DICE_DR1
@JSON_OPT
@click.pass_context
def repair(ctx, side, item, kind, drm, leadership, dice, as_json):
    """3.46 Repair dr."""
    _step(ctx, {"name": "repair", "side": side, "item": item, "kind": kind, "drm": drm or None,
                "leadership": leadership, "dice": dice}, as_json)


@main.command()
@click.argument("side", metavar="SIDE")
@click.argument("vehicle", metavar="VEHICLE")
@click.option("--drm", type=int, default=0,
              help="Inexperience/Captured/Ammo Shortage drm, as stated: the ledger does not record the crew's state "
                   "(revision 3: penalties only, 0 or more).")
@DICE_DR1
@JSON_OPT
@click.pass_context
def recall(ctx, side, vehicle, drm, dice, as_json):
    """3.461 Reclaim a Recalled vehicle (dr <= 2)."""
    _step(ctx, {"name": "recall", "side": side, "vehicle": vehicle, "drm": drm or None, "dice": dice}, as_json)


@main.command()
@click.argument("side", metavar="SIDE")
@DICE_DR
@JSON_OPT
@click.pass_context
def elr(ctx, side, dice, as_json):
    """3.47 ELR Loss/Gain DR."""
    _step(ctx, {"name": "elr", "side": side, "dice": dice}, as_json)


@main.command()
@click.argument("side", metavar="SIDE")
@click.argument("hex_", metavar="HEX")
@click.argument("item", metavar="ITEM")
@DICE_DR1
@JSON_OPT
@click.pass_context
def clear(ctx, side, hex_, item, dice, as_json):
    """3.52 Fortification Clearance dr (one attempt per item per Location).

    ITEM: rubble, mines (all mines in the Location are one item: mines, ap_mine, at_mine, known_minefield
    name it too), wire, roadblock, set_dc, flame, panji.
    """
    _step(ctx, {"name": "clear", "side": side, "hex": hex_, "item": item, "dice": dice}, as_json)


@main.command()
@click.argument("side", metavar="SIDE")
@click.pass_context
def concede(ctx, side):
    """Concede the CG (1.3)."""
    _step(ctx, {"name": "concede", "side": side})


@main.command()
@click.argument("hex_", metavar="HEX")
@click.option("--kia", type=int, required=True, help="The KIA# of the Original IFT DR (B24.11).")
@click.option("--stone", is_flag=True, help="Stone building (+1); the card's stone hexes count anyway.")
@click.option("--level", type=int, default=0, help="Building level rubbled (>= 1: falling rubble, B24.12).")
@click.option("--dice", help="dr, or dr,white,colored for an upper level.")
@JSON_OPT
@click.pass_context
def rubble(ctx, hex_, kia, stone, level, dice, as_json):
    """B24.11 rubble creation (and B24.12 falling rubble) kept on the map (CG5)."""
    _step(ctx, {"name": "rubble", "hex": hex_, "kia": kia, "stone": stone, "level": level or None,
                "dice": dice}, as_json)


@main.command()
@click.argument("hex_", metavar="HEX")
@click.option("--kindling", type=int, required=True, help="The terrain's Kindling Number (Table 23).")
@click.option("--weapon", type=click.Choice(["he", "ft", "wp"]), default="he", show_default=True)
@click.option("--drm", type=int, default=0,
              help="Placement DR modifiers (Table 23 notes), as stated: they depend on play the ledger does not see.")
@DICE_DR
@JSON_OPT
@click.pass_context
def flame(ctx, hex_, kindling, weapon, drm, dice, as_json):
    """Table 23 Flame placement kept on the map (CG5)."""
    _step(ctx, {"name": "flame", "hex": hex_, "kindling": kindling, "weapon": weapon, "drm": drm or None,
                "dice": dice}, as_json)


# ---- the web page (issue 34) ------------------------------------------------------------------------

@main.command()
@click.option("--db", "serve_db", metavar="PATH", help="The campaign file (default: plcg's --db, $PLCG_DB, ./campaign.plcg).")
@click.option("--key", "serve_key", type=click.Path(dir_okay=False),
              help="Play by email: the player's private key; the page acts for that side only.")
@click.option("--port", type=int, default=0, metavar="N", help="The port (default: a free one).")
@click.option("--host", default=None, metavar="H", help="Listen on this address instead of loopback (127.0.0.1); said on stderr.")
@click.option("--no-open", "no_open", is_flag=True, help="Do not open the page in the browser.")
@click.pass_context
def serve(ctx, serve_db, serve_key, port, host, no_open):
    """The campaign as a local web page, with its history, until Ctrl-C: prints its URL and token."""
    import secrets  # lazy: only `plcg serve` makes a token
    import webbrowser  # lazy: only `plcg serve` opens a browser

    from projections.web import server  # lazy: uvicorn only for `plcg serve`

    root = ctx.find_root().obj
    if serve_db:
        root["db"] = serve_db
    if serve_key:
        root["key"] = serve_key
    db = _db(ctx)
    if not os.path.isfile(db):
        raise BadInput(f"{db}: no campaign file there (plcg new --card NAME makes one, or give --db)")
    led = Ledger(db, key=lambda: _key(ctx))
    try:
        led.state(lazy=True)  # a file plcg cannot read is said now, not on the first request
    finally:
        led.close()
    token = secrets.token_urlsafe(24)
    site = web_site(db, root.get("key"), _key(ctx), token)
    addr = host or "127.0.0.1"
    try:
        sock = server.bind(addr, port)
    except OSError as e:
        raise BadInput(f"serve: cannot listen on {addr}:{port} ({e.strerror or e})") from None
    bound = sock.getsockname()[1]
    shown_host = f"[{addr}]" if ":" in addr else addr
    url = f"http://{shown_host}:{bound}/?token={token}"
    if host is not None:
        click.echo(f"plcg serve: listening on {addr}, not loopback only: whoever reaches it and has the token"
                   " can act on the campaign", err=True)
    try:
        click.echo(url)
        sys.stdout.flush()
        if not no_open:
            webbrowser.open(url)
        site.warm()
        server.serve(site.app(), sock)
    except KeyboardInterrupt:  # Ctrl-C, even before the server took the signal over: a clean end (exit 0)
        sock.close()


def command_catalogue() -> dict:
    """Each command's own definition as the page builds its forms from it: click's parameters (name,
    argument or option, flag, type, choices, multiple, required, help, metavar, default)."""
    out = {}
    for name, cmd in main.commands.items():
        if isinstance(cmd, click.Group) or name == "serve":
            continue
        params = []
        for p in cmd.params:
            if p.name == "as_json":
                continue
            d = {"name": p.name, "required": bool(p.required), "multiple": bool(getattr(p, "multiple", False)),
                 "metavar": p.metavar, "help": getattr(p, "help", None) or "",
                 "type": "int" if isinstance(p.type, click.types.IntParamType) else
                         "choice" if isinstance(p.type, click.Choice) else "text",
                 "choices": list(p.type.choices) if isinstance(p.type, click.Choice) else None,
                 "default": p.default if isinstance(p.default, (str, int)) and not isinstance(p.default, bool) else None}
            if isinstance(p, click.Argument):
                d["kind"] = "argument"
            else:
                d["kind"] = "flag" if p.is_flag else "option"
                d["opt"] = max(p.opts, key=len)
            params.append(d)
        out[name] = {"help": (cmd.help or "").split("\n")[0], "params": params}
    return out


def in_process(db: str, key_path: str | None):
    """run(argv) -> (exit code, words): the CLI's own command run in this process, as `plcg --db DB
    [--key KEY] ARGV...` runs it (the same checks, exit codes and words), one at a time."""
    import contextlib  # lazy: only `plcg serve` runs commands in process
    import threading  # lazy: as contextlib

    lock = threading.Lock()

    def run(argv: list[str]) -> tuple[int, str]:
        out = io.StringIO()
        head = ["--db", db, *(["--key", key_path] if key_path else [])]
        with lock, contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            try:
                rv = main.main(args=[*head, *argv], prog_name="plcg", standalone_mode=False)
            except click.exceptions.Exit as e:
                rv = e.exit_code
            except click.ClickException as e:
                e.show()
                rv = e.exit_code
            except click.Abort:
                rv = 1
        code = rv if isinstance(rv, int) and not isinstance(rv, bool) else 0
        return code, out.getvalue()

    return run


def _say_repeatable(group: click.Group) -> None:
    """--help says which options may be given more than once."""
    for cmd in group.commands.values():
        for p in cmd.params:
            if isinstance(p, click.Option) and p.multiple and "repeatable" not in (p.help or "").lower():
                p.help = (p.help or "").rstrip() + " Repeatable."


_say_repeatable(main)

if __name__ == "__main__":
    main()
