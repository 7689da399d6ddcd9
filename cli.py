"""plcg: the command line of the Platoon Leader 2.5 campaign ledger (the CLI contract, shared/docs/cli-contract.md).

Click only: every command's arguments, help and help section are its spec's (cg/specs.py), and the group
builds only the command invoked from it. A step command's parsed arguments become the command the log
stores, which the ledger decides and appends in one transaction (cg/app/ledger.py); a read command asks a
read model (projections/) and prints; play by email's sync runs in the application layer (cg/app/).
Errors map to the contract's exit codes: 2 bad input, 3 refused by a rule or the step order, 4 another
writer first, 1 audit findings.
"""
from __future__ import annotations

import os
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

import gc  # paused while the start-up's ~37,000 objects are made, frozen at the end (cg.bulk.freeze_start_up)
_COLLECTING = gc.isenabled()
gc.disable()

import contextlib  # after the handler, as every import below: an interrupt while they load is one line too
import importlib
import io
import re
import threading

import click
import orjson
from click.core import ParameterSource

from cg import pbem, snapshot, specs
from cg.bulk import freeze_start_up, gc_paused
from cg.card_schema import load_card, shipped_cards
from cg.app.ledger import VERSION, Ledger
from cg.specs import SPECS, Arg, CommandSpec, Usage
from cg.steps import STEPS
from events import outpath
from events.errors import BadInput, PlcgError
from events.text import shown
from projections import verdict
from projections.status import dice_shown, player_status, status_dict, status_text, viewer_of  # noqa: F401  (bench)
from projections.words import summary

INTERNAL_ERROR = 5  # extension of the contract: a bug, never a rule or input problem

# What a command reads or runs beyond the ledger (its read model, or an application service), imported when
# it runs: `plcg status` imports no map, audit, report or transport (issue 36 item 2). tests/test_layers.py
# reads this table as cli's imports.
USES = {"audit": "cg.app.audit", "auditview": "projections.auditview", "aar": "projections.aar",
        "cardview": "projections.cardview", "demo": "cg.app.demo", "dicecheck": "projections.dicecheck",
        "dicestats": "projections.dicestats", "digest": "projections.digest", "keys": "cg.app.keys", "logview": "projections.logview",
        "machine": "cg.machine", "maps": "projections.maps", "medium": "projections.medium",
        "oob": "projections.oob", "purchases": "projections.purchases", "recorded": "projections.recorded",
        "replay": "cg.app.replay", "roster": "projections.roster", "server": "projections.web.server",
        "site": "projections.web.app", "sync": "cg.app.sync", "tables": "projections.tables",
        "transfer": "projections.transfer"}


def _uses(name: str):
    return importlib.import_module(USES[name])


# ---- click plumbing ----------------------------------------------------------------------------------

def _usage_exit(ctx, e: click.UsageError):
    """A usage error in one line (the contract: one or two lines, exit 2), with where to look."""
    where = e.ctx.command_path if e.ctx is not None else "plcg"
    click.echo(f"plcg: {' '.join(e.format_message().split())} (see: {where} --help)", err=True)
    ctx.exit(e.exit_code)


def help_sections() -> tuple:
    """(title, command names) as `plcg --help` lists them: by the phase a player meets them in (issue 27
    item 11), in the specs' order (cg/specs.py)."""
    return tuple((title, tuple(s.name for s in SPECS if s.section == title and s.cli)) for title in specs.SECTIONS)


RUNS: dict = {}  # a command's name -> what it runs (ctx, its parsed arguments); a step command: _step


def runs(name: str):
    """The function that runs command `name` (its arguments and help are its spec's, cg/specs.py)."""
    def wrap(fn):
        RUNS[name] = fn
        return fn

    return wrap


class PlcgGroup(click.Group):
    """Builds only the command invoked, from its spec (click's "lazily loading subcommands"), and maps the
    ledger's errors to the contract's exit codes; no traceback reaches the user."""

    def list_commands(self, ctx):
        return sorted({*self.commands, *GROUPS, *(s.name for s in SPECS if s.cli)})

    def get_command(self, ctx, name):
        if name not in self.commands and name in GROUPS:  # the groups written by hand (card, keys)
            self.add_command(GROUPS[name]())
        elif name not in self.commands and name in specs.BY_NAME and specs.BY_NAME[name].cli:
            self.add_command(spec_command(specs.BY_NAME[name]))  # once
        elif name not in self.commands:  # no such command: click's "Did you mean" looks among those built
            for known in self.list_commands(ctx):
                self.get_command(ctx, known)
        return self.commands.get(name)

    def format_commands(self, ctx, formatter):
        """The commands grouped by phase (HELP_SECTIONS), each once, the rest under "Other commands"."""
        names = [n for n in self.list_commands(ctx) if not self.get_command(ctx, n).hidden]
        placed: set = set()
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
    return _uses("keys").load_private(path) if path else None


def _protected(ctx) -> dict:
    """What an output path must never be (events/outpath.py): the campaign and the acting player's key."""
    root = ctx.find_root().obj or {}
    out = {root.get("db") or "campaign.plcg": "the campaign file"}
    if root.get("key"):
        out[root["key"]] = "the private key given with --key"
    return out


def _stdout_bytes(data: bytes) -> None:
    """Bytes on standard output (`-o -`), through click's stream (a test runner's too)."""
    (stream := click.get_binary_stream("stdout")).write(data)
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


def _state(ctx, **how):
    """The campaign's state (cg/app/ledger.py: `at`, `lazy`, `use_snapshot`)."""
    led = Ledger(_db(ctx), key=lambda: _key(ctx))
    try:
        return led.state(**how)
    finally:
        led.close()


def _print_stored(led, stored, as_json: bool = False, key=None) -> None:
    """What a command recorded: JSON, or each event in words (projections/recorded.py)."""
    if as_json:
        _echo_json(_uses("recorded").recorded_json(stored))
        return
    for line in _uses("recorded").recorded_lines(stored, getattr(led, "sealed_events", None), led.state_after, key):
        click.echo(line)


def web_site(db: str, key_path: str | None, key, token: str | None = None):
    """The page `plcg serve` serves (issue 34): the commands' catalogue and their in-process run, and the
    status a player of `key` reads (player_status); the tests serve the same one."""
    return _uses("site").Site(db, catalogue=command_catalogue(), run=in_process(db, key_path),
                status_of=lambda st, items=None: player_status(st, key, items), token=token, key=key)


def _echo_shown(text: str) -> None:
    """A text view printed line by line with control characters escaped (names come from the card in the
    log, which the other copy wrote)."""
    click.echo("\n".join(shown(line) for line in text.split("\n")))


# ---- managing and reading ------------------------------------------------------------------------------

@runs('new')
def new(ctx, card, redeployment, seed, balance, axis_key, allied_key, dice_policy, open_secrets, rules_revision):
    settings = pbem.settings(axis_key, allied_key, dice_policy, sealed=not open_secrets)
    led = Ledger.create(_db(ctx), card, seed, redeployment, "no-typed" if dice_policy == "no-typed" else "any",
                        specs.seps(balance, ":"), pbem=settings, rules_revision=rules_revision)
    st = led.state()
    witness = led.head_witness()
    led.close()
    _recorded(witness[0])
    click.echo(f"campaign {st.card.campaign.name!r} started in {_db(ctx)}: firefight 1 of "
               f"{len(st.card.firefights)}, step {st.step}; dice: {dice_shown(st)}")
    click.echo(f"head witness {witness[0]}:{witness[1]}")


@runs('head')
def head(ctx, as_json):
    led = Ledger(_db(ctx), key=lambda: _key(ctx))
    try:
        seq, h = led.head_witness()
    finally:
        led.close()
    click.echo(orjson.dumps({"seq": seq, "hash": h}, option=orjson.OPT_INDENT_2).decode() if as_json else f"{seq}:{h}")


def parse_witness(text: str) -> tuple[int, str]:
    """`SEQ:HASH` as `plcg head` prints it (ruling R42)."""
    m = re.fullmatch(r"\s*(\d{1,18}):([0-9a-fA-F]{16})\s*", text or "")
    if m is None:
        raise BadInput(f"--witness {text!r}: SEQ:HASH, the HASH 16 hex digits as `plcg head` prints it")
    return int(m.group(1)), m.group(2).lower()


@runs('cards')
def cards(ctx, as_json):
    rows = shipped_cards()
    if as_json:
        _echo_json([{"name": n, "campaign": c, "description": d} for n, c, d in rows])
        return
    for n, c, d in rows:
        click.echo(f"{n:12} {c} — {d}")


def _card_group() -> click.Group:  # written by hand (a group): built when invoked or listed, as every command
    @click.group("card")
    def card_group():
        """Read or check a CG Card file (plcg cards lists the shipped ones)."""

    @card_group.command("show")
    @click.argument("ref", metavar="NAME-or-FILE")
    @click.option("--json", "as_json", is_flag=True, help="Print JSON.")
    def card_show(ref, as_json):
        """A CG Card: sides, RGs with cost, limits and availability, the OB given, firefights, map."""
        cardview = _uses("cardview")
        card = load_card(ref)
        if as_json:
            _echo_json(cardview.card_json(card))
        else:
            click.echo(cardview.card_text(card))

    @card_group.command("check")
    @click.argument("path", metavar="FILE")
    def card_check(path):
        """Check a CG Card file: exit 0, or 2 with every problem as `path: what is wrong`."""
        card = load_card(path)
        click.echo(f"card {path} is sound: {card.campaign.name}")
    return card_group


@runs('status')
def status(ctx, as_json, at):
    st = _state(ctx, lazy=True) if at is None else _state(ctx, at=at)
    d = player_status(st, _key(ctx))
    if as_json:
        _echo_json(d)
        return
    _echo_shown(status_text({**d, "campaign": shown(d["campaign"])}).rstrip("\n"))


@runs('log')
def log(ctx, as_json, viewer):
    led = Ledger(_db(ctx), key=lambda: _key(ctx))
    try:
        if viewer is not None or (_key(ctx) is not None and led.store.head()[0]):  # ruling R22: who reads it
            st = led.state()
            viewer = None if st.ended else viewer_of(st, _key(ctx), viewer)
        for text in _uses("logview").log_chunks(led, as_json, viewer):
            click.echo(text, nl=False)
    finally:
        led.close()


@runs('replay')
def replay(ctx, as_json):
    led = Ledger(_db(ctx), key=lambda: _key(ctx))
    st = led.state(use_snapshot=False)
    head = led.store.head()
    led.close()
    with gc_paused(), snapshot.shared():  # the snapshot's and the digest's dumps: many acyclic objects
        _uses("replay").refresh_snapshot(_db(ctx), st, head)  # (cg/bulk.py), each record built once for both
        d = _uses("digest").digest(st)
    if as_json:
        _echo_json(d)
        return
    click.echo("\n".join([f"digest {d['digest']}", *_uses("digest").headline_lines(d)]))


@runs('audit')
def audit(ctx, as_json, witnesses, against):
    audit = _uses("audit")  # only audit (and import) decide again: the other reads skip every handler
    wit = [parse_witness(w) for w in witnesses]
    led = Ledger(_db(ctx), key=lambda: _key(ctx))
    try:
        if against is not None:
            other = Ledger(against)
            try:
                report = audit.compare_copies(led.store, other.store, (_db(ctx), against))
            finally:
                other.close()
        else:
            report = audit.run_audit(led, wit)
    finally:
        led.close()
    if report["findings"]:  # before printing: a reader that leaves early does not turn it into 0
        ctx.find_root().obj["exit_code"] = 1
    if as_json:
        _echo_json(report)
    else:
        for line in _uses("auditview").audit_lines(report, against is not None, len(wit)):
            click.echo(line)
    if report["findings"]:
        ctx.exit(1)


# ---- play by email ----------------------------------------------------------------------------------------

def _keys_group() -> click.Group:  # as _card_group
    @click.group()
    def keys():
        """Play by email: the players' Ed25519 keys."""

    @keys.command("new")
    @click.option("-o", "out", required=True, help="The private key file (mode 0600); - for standard output.")
    def keys_new(out):
        """Make a key pair: the private key in FILE (mode 0600), the public key alone on stdout."""
        pem, pub = _uses("keys").new_keypair()
        if out == outpath.STDOUT:  # the private key on standard output, the public line beside it on stderr
            _stdout_bytes(pem)
            click.echo(pub, err=True)
            return
        # issue 25: by a new temporary name, linked into place once whole (a full disk leaves no empty key)
        outpath.write(out, [pem], protected=_protected(click.get_current_context()), mode=0o600, replace=False)
        click.echo(pub)
    return keys


GROUPS = {"card": _card_group, "keys": _keys_group}  # (PlcgGroup builds one when it is invoked or listed)


@runs('bundle')
def bundle(ctx, since, out):
    _sync(ctx).bundle(since, out)


@runs('receive')
def receive(ctx, path):
    _sync(ctx).receive(path)


@runs('sync')
def sync(ctx, git_dir, folder, send, give_way, note):
    _sync(ctx).run(git_dir, folder, send, give_way, note)


@runs('reveal')
def reveal(ctx, as_json):
    _player_run(ctx, Ledger.reveal, as_json)


def _sync(ctx):
    """Play by email's application service (cg/app/sync.py), speaking on the command line."""
    sync = _uses("sync")
    voice = sync.Voice(say=lambda text, err=False: click.echo(text, err=err), recorded=_recorded, words=summary,
                       stored=lambda led, stored, key: _print_stored(led, stored, False, key),
                       turn=_uses("medium").turn_words,
                       protected=_protected(ctx), out_bytes=_stdout_bytes)
    return sync.Sync(_db(ctx), _key(ctx), voice)


def _player_run(ctx, method, as_json: bool) -> None:
    """A play-by-email command the ledger makes from the player's key (reveal, claim), printed."""
    led = Ledger(_db(ctx), write=True, key=lambda: _key(ctx))
    try:
        stored = method(led, _key(ctx))
    finally:
        led.close()
    _recorded(stored)
    _print_stored(led, stored, as_json)


@runs('claim')
def claim(ctx, as_json):
    _player_run(ctx, Ledger.claim, as_json)


@runs('dice-stats')
def dice_stats(ctx, side, kind, as_json):
    dicestats = _uses("dicestats")
    if side is not None:
        side = specs.side_arg({"side": side})
    led = Ledger(_db(ctx), key=lambda: _key(ctx))
    try:
        rolls = dicestats.rolls_of(((r.seq, r.batch, r.type, r.payload, r.command) for r in led.store.read()), led.opener())
    finally:
        led.close()
    if kind is not None and kind not in {r["kind"] for r in rolls}:
        raise BadInput(f"--kind {kind!r}: the log holds no roll of that kind (it holds: "
                       f"{', '.join(sorted({r['kind'] for r in rolls})) or 'none'})")
    d = dicestats.stats(rolls, side, kind)
    if as_json:
        _echo_json(d)
    else:
        click.echo(dicestats.stats_text(d))


@runs('dice-check')
def dice_check(ctx, seq, as_json):
    dicecheck = _uses("dicecheck")
    d = dicecheck.check_log(lambda: Ledger(_db(ctx), key=lambda: _key(ctx)), seq)
    if as_json:
        _echo_json(d)
    else:
        click.echo(dicecheck.check_text(d))
    if not d["ok"]:
        ctx.exit(1)


@runs('roster')
def roster(ctx, as_json, at):
    st = _state(ctx, at=at)
    roster = _uses("roster")
    rows = roster.roster_rows(st)
    if as_json:  # the rows, their totals and the CG's verdict (contract: victory, ruling R74)
        _echo_json({"rows": rows, "totals": roster.totals(rows), "victory": verdict.victory(st)})
    else:
        _echo_shown(_uses("tables").roster_text(st, rows) + "\n" + verdict.victory_line(st))


@runs('purchases')
def purchases(ctx, side, as_json, reveal, viewer, at):
    side = specs.side_arg({"side": side})
    viewer = specs.side_arg({"side": viewer}) if viewer is not None else None
    st = _state(ctx, at=at)
    if viewer is None and st.pbem is not None and not st.pbem.sealing and _key(ctx) is not None:
        # open secrets: the key says who looks (with sealed secrets the copy already shows only what the
        # rules revealed to its player, ruling R47)
        viewer = pbem.side_of_key(st.pbem, _key(ctx))
    purchases = _uses("purchases")
    rows = purchases.purchase_rows(st, side, reveal, viewer)
    forts = purchases.fortification_rows(st, side, reveal, viewer, viewer_of(st, _key(ctx), None))  # ruling R22: the key's side too
    if as_json:
        _echo_json({"purchases": rows, "fortifications": forts})
    else:
        _echo_shown(_uses("tables").purchase_text(rows, forts))


@runs('oob')
def oob(ctx, side, as_json, at):
    side = specs.side_arg({"side": side})
    st = _state(ctx, at=at)
    oob = _uses("oob")
    rows = oob.oob_rows(st, side)
    if as_json:
        _echo_json(rows)
    else:
        _echo_shown(_uses("tables").oob_text(rows))


@runs('map')
def map_(ctx, as_json, svg, at, viewer):
    maps = _uses("maps")
    st = _state(ctx, at=at)
    viewer = viewer_of(st, _key(ctx), viewer)
    if svg == outpath.STDOUT:
        click.echo(maps.map_svg(st, viewer=viewer), nl=False)
    elif svg:
        outpath.write(svg, [maps.map_svg(st, viewer=viewer)], protected=_protected(ctx))
    if as_json:
        _echo_json(maps.map_json(st, viewer))
    elif not svg:
        _echo_shown(maps.map_text(st, viewer))


@runs('export')
def export(ctx, fmt, out, url):
    aar = _uses("aar")  # the report imports every projection, charts and maps (~50 ms)
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


@runs('import')
def import_(ctx, file):
    n = _uses("transfer").import_jsonl(file, _db(ctx))
    _recorded(n)
    click.echo(f"imported {n} events into {_db(ctx)}; audit clean")


def steps_doc() -> str:
    """docs/steps.md: the step table and the machine's own Mermaid drawing."""
    rows = "\n".join(f"| {s.id} | {s.name} | {s.rule} |" for s in STEPS)
    return (
        "# The step machine\n\n"
        "Generated from the steps (`cg/steps/`) and the machine built from them (`cg/machine.py`) by\n"
        "`plcg diagram --markdown > docs/steps.md` (the Mermaid text is written from the deciding transitions\n"
        "machine's own states and transitions); `tests/test_docs.py` fails when this file and the machine disagree.\n\n| step | name | rule |\n|---|---|---|\n" + rows + "\n\n```mermaid\n" + _uses("machine").mermaid() + "\n```\n"
    )


@runs('diagram')
def diagram(ctx, markdown):
    click.echo(steps_doc() if markdown else _uses("machine").mermaid(), nl=not markdown)


@runs('demo')
def demo(ctx, demo_db, demo_card):
    demo = _uses("demo")
    root = ctx.find_root()
    explicit = root.get_parameter_source("db") in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)
    path = demo_db or (_db(ctx) if explicit else "demo.plcg")
    if os.path.exists(path):
        if not demo.is_demo(path):
            raise BadInput(f"{path} exists and is not a demo campaign: give --db NEWFILE "
                           "(the demo replaces only a file it made)")
        demo.replace(path)
        click.echo(f"replacing the earlier demo campaign in {path}")
    n = demo.play(path, echo=lambda line: click.echo(line), describe=summary, card=demo_card)
    led = Ledger(path)
    st = led.state()
    led.close()
    click.echo("")
    roster = _uses("roster")
    click.echo(_uses("tables").roster_text(st, roster.roster_rows(st)))
    click.echo(verdict.victory_line(st))  # the demo ends naming its winner (ruling R74)
    click.echo(f"\n{n} commands recorded in {path}. Next: plcg --db {path} log; plcg --db {path} audit; "
               f"plcg --db {path} export --format html -o aar.html")


# ---- step commands (cli-contract.md, Step commands): generated from their specs (cg/specs.py) ---------

_TYPES = {"int": click.INT, "file": click.Path(exists=True, dir_okay=False), "filename": click.Path(dir_okay=False),
          "dirname": click.Path(file_okay=False)}


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
    st = _state(ctx)  # the units as the end finds them: their CVP (issue 38)
    stored = _step(ctx, cmd)
    for line in _uses("recorded").end_lines(st, cmd, stored):
        click.echo(line)
    return stored


def _leaders_said(ctx, cmd: dict, as_json: bool) -> list:
    stored = _step(ctx, cmd, as_json)
    for line in [] if as_json else _uses("recorded").leaders_lines(lambda: _state(ctx), stored):
        click.echo(line)
    return stored


_SAID = {"end": _end_said, "leaders": _leaders_said}  # a command that says more than what it recorded


def spec_command(spec: CommandSpec) -> click.Command:
    """The click command of a spec: its arguments parsed; what it runs (RUNS), or the command it stores
    (`_step`). --help says which options may be given more than once."""
    if spec.group:  # written by hand (GROUPS)
        return GROUPS[spec.name]()
    fn = RUNS.get(spec.name)

    def run(**values):
        ctx = click.get_current_context()
        if fn is not None:
            return fn(ctx, **values)
        try:
            cmd = spec.command(values)
        except Usage as e:
            raise click.UsageError(str(e)) from None
        return _SAID.get(spec.name, _step)(ctx, cmd, values.get("as_json", False))

    params = [_param(a) for a in spec.params]
    for p in params:
        if isinstance(p, click.Option) and p.multiple and "repeatable" not in (p.help or "").lower():
            p.help = (p.help or "").rstrip() + " Repeatable."
    return click.Command(spec.name, callback=run, params=params, help=spec.help)


# ---- the web page (issue 34) ------------------------------------------------------------------------

@runs('serve')
def serve(ctx, serve_db, serve_key, port, host, no_open):
    server = _uses("server")  # uvicorn only for `plcg serve`
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
    server.start(lambda token: web_site(db, root.get("key"), _key(ctx), token), host, port, no_open,
                 say=lambda text, err=False: click.echo(text, err=err))


def command_catalogue() -> dict:
    """Each command's own definition as the page builds its forms from it: click's parameters (name,
    argument or option, flag, type, choices, multiple, required, help, metavar, default)."""
    out = {}
    for name in main.list_commands(None):
        cmd = main.get_command(None, name)
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


freeze_start_up(_COLLECTING, frozen="pytest" not in sys.modules)  # (a test runner's objects are its own)

if __name__ == "__main__":
    main()
