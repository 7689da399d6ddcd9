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
from cg.evolve import reverted_seqs
from cg.ledger import VERSION, Ledger
from cg.options import options
from cg.revision import END_CVP_CHECK, conventions, revision
from cg.machine import mermaid
from cg.steps import BY_ID, STEPS, owed_by, pending
from events import outpath
from events.errors import BadInput, PlcgError, UNFOLDABLE, UnreadableRow
from cg.sequence import StepId
from cg import specs
from cg.specs import SPECS, Arg, CommandSpec, Usage
from events.text import SHOWN as _SHOWN, shown
from projections.digest import digest, headline_lines
from projections.maps import map_json, map_svg, map_text
from projections.oob import oob_rows, oob_text
from projections.purchases import fortification_rows, purchase_rows, purchase_text
from projections.roster import roster_rows, roster_text, totals as roster_totals
from projections import verdict
from cg.app.replay import refresh_snapshot
from cg.app.sync import Sync, Voice
from projections.medium import turn_words
from projections.status import dice_shown, player_status, status_dict, status_text  # noqa: F401  (bench, tests)
from projections.auditview import audit_lines
from projections.dicecheck import check_log, check_text
from projections.logview import log_chunks
from projections.recorded import recorded_json, recorded_lines
from projections.words import TYPE, generation_why, seen_command, summary

INTERNAL_ERROR = 5  # extension of the contract: a bug, never a rule or input problem


# ---- click plumbing ----------------------------------------------------------------------------------

def _usage_exit(ctx, e: click.UsageError):
    """A usage error in one line (the contract: one or two lines, exit 2), with where to look."""
    where = e.ctx.command_path if e.ctx is not None else "plcg"
    click.echo(f"plcg: {' '.join(e.format_message().split())} (see: {where} --help)", err=True)
    ctx.exit(e.exit_code)


# `plcg --help` lists the commands by the phase a player meets them in (issue 27 item 11): a spec's command
# in its spec's section (cg/specs.py), these in theirs; a command named nowhere is listed under "Other
# commands", so none is ever left out
_SECTION_OF = {specs.START: ("new", "cards", "card", "demo", "import"),
               specs.WHERE: ("status", "log", "roster", "purchases", "oob", "map", "head", "export", "dice-stats",
                             "dice-check", "diagram"),
               specs.PBEM: ("keys", "sync", "bundle", "receive", "reveal", "claim"),
               specs.CHECKING: ("audit", "replay"), specs.WEB: ("serve",)}


def help_sections() -> tuple:
    """(title, command names) in the order `plcg --help` lists them."""
    out = []
    for title in specs.SECTIONS:
        names = list(_SECTION_OF.get(title, ()))
        for s in SPECS:
            if s.section == title and s.cli:
                names.insert(names.index(s.after) + 1 if s.after in names else len(names), s.name)
        out.append((title, tuple(names)))
    return tuple(out)


class PlcgGroup(click.Group):
    """Maps the ledger's errors to the contract's exit codes; no traceback reaches the user."""

    def format_commands(self, ctx, formatter):
        """The commands grouped by phase (HELP_SECTIONS), each once, the rest under "Other commands"."""
        names = [n for n in self.list_commands(ctx) if not self.get_command(ctx, n).hidden]
        placed = set()
        limit = formatter.width - 6 - max((len(n) for n in names), default=0)
        listed = help_sections()
        sections = [(title, [n for n in members if n in names]) for title, members in listed]
        sections.append(("Other commands", [n for n in names if all(n not in m for _t, m in listed)]))
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
        except (outpath.OutputFailed, BrokenPipeError) as e:  # issue 25: a full disk, a file size limit, a closed pipe
            err = e.__cause__ if isinstance(e, outpath.OutputFailed) and e.__cause__ is not None else e
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
    outpath.guard_stdout()


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
    from cg.pbem import load_private  # lazy: play by email only (cg.pbem ~0.7 ms)

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
    """Run one step command (as stored: cg/specs.py): decide, append in one transaction, print what was recorded."""
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
    """What a command recorded: JSON, or each event in words (projections/recorded.py)."""
    if as_json:
        _echo_json(recorded_json(stored))
        return
    for line in recorded_lines(stored, getattr(led, "sealed_events", None), led.state_after, key):
        click.echo(line)


def web_site(db: str, key_path: str | None, key, token: str | None = None):
    """The page `plcg serve` serves (issue 34): the commands' catalogue and their in-process run, and the
    status a player of `key` reads (player_status); the tests serve the same one."""
    from projections.web.app import Site  # lazy: starlette and jinja2 only for `plcg serve`

    return Site(db, catalogue=command_catalogue(), run=in_process(db, key_path),
                status_of=lambda st: player_status(st, key), token=token, key=key)


def _echo_shown(text: str) -> None:
    """A text view printed line by line with control characters escaped (names come from the card in the
    log, which the other copy wrote)."""
    click.echo("\n".join(shown(line) for line in text.split("\n")))


JSON_OPT = click.option("--json", "as_json", is_flag=True, help="Print JSON.")


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
                        specs.seps(balance, ":"), pbem=pbem, rules_revision=rules_revision)
    st = led.state()
    witness = led.head_witness()
    led.close()
    _recorded(witness[0])
    click.echo(f"campaign {st.card.campaign.name!r} started in {_db(ctx)}: firefight 1 of "
               f"{len(st.card.firefights)}, step {st.step}; dice: {dice_shown(st)}")
    click.echo(f"head witness {witness[0]}:{witness[1]}")


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


VIEWER_HELP = ("Who is looking (axis or allied): the other side's Dummy Minefields show as Known Minefields until "
               "the CG's end (ruling R22). Default: the side of --key in a campaign played by email, else nobody's "
               "view (everything as kept).")


def _viewer(ctx, st, given):
    """`--as VIEWER` (ruling R22), else the side of --key in a campaign played by email, else None."""
    if given is not None:
        return specs.side_arg({"side": given})
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
        for text in log_chunks(led, as_json, viewer):
            click.echo(text, nl=False)
    finally:
        led.close()


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
        refresh_snapshot(_db(ctx), st, head)  # (cg/bulk.py), each record built once for both
        d = digest(st)
    if as_json:
        _echo_json(d)
        return
    click.echo(f"digest {d['digest']}")
    for line in headline_lines(d):
        click.echo(line)


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
    from projections.audit import compare_copies, run_audit  # lazy: projections.audit (~70 ms)

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
        for line in audit_lines(report, against is not None, len(wit)):
            click.echo(line)
    if report["findings"]:
        ctx.exit(1)


# ---- play by email ----------------------------------------------------------------------------------------

@main.group()
def keys():
    """Play by email: the players' Ed25519 keys."""


@keys.command("new")
@click.option("-o", "out", required=True, help="The private key file (mode 0600); - for standard output.")
def keys_new(out):
    """Make a key pair: the private key in FILE (mode 0600), the public key alone on stdout."""
    from cg.pbem import new_keypair  # lazy: play by email only (cg.pbem ~0.7 ms)

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
    Sync(_db(ctx), _key(ctx), _voice(ctx)).bundle(since, out)


@main.command()
@click.argument("path", metavar="FILE")
@click.pass_context
def receive(ctx, path):
    """Play by email: check the other side's bundle (signature, chain, step order, rules) and append it."""
    Sync(_db(ctx), _key(ctx), _voice(ctx)).receive(path)


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
    Sync(_db(ctx), _key(ctx), _voice(ctx)).run(git_dir, folder, send, give_way, note)


@main.command()
@JSON_OPT
@click.pass_context
def reveal(ctx, as_json):
    """Play by email: reveal this side's answered two-party dice; each committed command is decided."""
    _player_run(ctx, Ledger.reveal, as_json)


def _voice(ctx) -> Voice:
    """How play by email's application layer (cg/app/sync.py) speaks on the command line."""
    from projections.audit import audit_store, audit_tail  # lazy: projections.audit (~70 ms), play by email only

    return Voice(say=lambda text, err=False: click.echo(text, err=err), recorded=_recorded, words=summary,
                 stored=lambda led, stored, key: _print_stored(led, stored, False, key), turn=turn_words,
                 audit=(audit_store, audit_tail), protected=_protected(ctx), out_bytes=_stdout_bytes)


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


@main.command("dice-stats")
@click.option("--side", "side", help="Only this side's rolls (axis or allied).")
@click.option("--kind", "kind", help="Only this kind of roll: the command that rolls it (elr, cp, leader, ...).")
@JSON_OPT
@click.pass_context
def dice_stats(ctx, side, kind, as_json):
    """Every roll of the CG: each die (white, colored) per side and per kind, against fair dice (chi-square)."""
    from projections.dicestats import rolls_of, stats, stats_text  # lazy: ~0.2 ms, only `plcg dice-stats`

    if side is not None:
        side = specs.side_arg({"side": side})
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
    d = check_log(lambda: Ledger(_db(ctx), key=lambda: _key(ctx)), seq)
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
    side = specs.side_arg({"side": side})
    viewer = specs.side_arg({"side": viewer}) if viewer is not None else None
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
    side = specs.side_arg({"side": side})
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
            pieces = aar.export_batches(led, fmt, url)
            if out:  # by a new temporary name, renamed into place once whole (events/outpath.py)
                outpath.write(out, pieces, protected=_protected(ctx))
                click.echo(aar.wrote(fmt, out, os.path.getsize(out)))
            else:
                for text in pieces:
                    click.echo(text, nl=False)
    finally:
        led.close()


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
    from cg.demo import is_demo, play, replace  # lazy: ~0.2 ms, only `plcg demo`

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


# ---- step commands (cli-contract.md, Step commands): generated from their specs (cg/specs.py) ---------

_TYPES = {"int": click.INT, "file": click.Path(exists=True, dir_okay=False)}


def _param(a: Arg) -> click.Parameter:
    """The click parameter of a spec's argument."""
    if a.opt is None:
        return click.Argument([a.key], metavar=a.metavar, **({} if a.required is None else {"required": a.required}))
    kw: dict = {"help": a.help, "metavar": a.metavar}
    if a.kind == "flag":
        kw["is_flag"] = True
    elif a.choices:
        kw["type"] = click.Choice(a.choices, case_sensitive=a.case_sensitive)
    elif a.kind in _TYPES:
        kw["type"] = _TYPES[a.kind]
    for k in ("required", "multiple", "show_default"):
        if getattr(a, k):
            kw[k] = True
    if a.default is not None:
        kw["default"] = a.default
    return click.Option([a.opt, a.key], **kw)


def _end_said(ctx, cmd: dict, as_json: bool) -> list:
    """`end`: the units' CVP as the end found them (issue 38), and the head witness to note or post."""
    before = Ledger(_db(ctx), key=lambda: _key(ctx))
    try:
        st = before.state()
    finally:
        before.close()
    stored = _step(ctx, cmd)
    if stored and conventions(st, END_CVP_CHECK):
        from cg.commands.firefight_end import cvp_words  # lazy: only `plcg end`

        for line in cvp_words(st, cmd):
            click.echo(line)
    if stored:  # note it or post it: `plcg audit --witness` catches a log cut or rewritten before it
        click.echo(f"head witness {stored[-1].seq}:{stored[-1].hash[:16]}")
    return stored


def _leaders_said(ctx, cmd: dict, as_json: bool) -> list:
    """`leaders`: why fewer than the dr's result (the leaders lost, the MMC on board)."""
    stored = _step(ctx, cmd, as_json)
    rolled = [s.payload for s in stored if s.type == "leaders_rolled" and isinstance(s.payload.get("roll"), dict)]
    if rolled and not as_json:
        from cg.commands.reorganization import generation_limits  # lazy: as in purchases

        led = Ledger(_db(ctx), key=lambda: _key(ctx))
        st = led.state()
        led.close()
        p = rolled[-1]
        why = generation_why(p["roll"]["outcome"], *generation_limits(st, p["side"]))
        if why:
            click.echo(f"  {why}")
    return stored


_SAID = {"end": _end_said, "leaders": _leaders_said}  # a command that says more than what it recorded


def spec_command(spec: CommandSpec) -> click.Command:
    """The click command of a spec: its arguments parsed, the command it stores run (`_step`)."""
    def run(**values):
        try:
            cmd = spec.command(values)
        except Usage as e:
            raise click.UsageError(str(e)) from None
        return _SAID.get(spec.name, _step)(click.get_current_context(), cmd, values.get("as_json", False))

    return click.Command(spec.name, callback=run, params=[_param(a) for a in spec.params], help=spec.help)


for _spec in SPECS:
    if _spec.cli:
        main.add_command(spec_command(_spec))


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
