"""One exception type per exit code of the CLI contract (shared/docs/cli-contract.md, Exit codes).

Nothing below cli.py prints or exits: it raises one of these and the CLI maps it.
"""


class PlcgError(Exception):
    exit_code = 1


class BadInput(PlcgError):
    """Usage, unreadable or invalid file, unknown side/RG/unit/hex, bad dice (exit 2)."""

    exit_code = 2
    problems: list[tuple[str, str]]  # a card's check only (cg/card_schema._raise): (path, what) of each problem


class Refused(PlcgError):
    """Refused by the rules or the step order (exit 3); names the rule and the current step."""

    exit_code = 3

    def __init__(self, message: str, rule: str, step: str | None = None):
        self.rule = rule
        self.step = step
        where = f" (step {step})" if step else ""
        super().__init__(f"{message} [rule {rule}]{where}")


class WriteConflict(PlcgError):
    """Another writer appended first (optimistic concurrency); nothing was written (exit 4)."""

    exit_code = 4


class UnreadableRow(BadInput):
    """A row of the log the ledger cannot read (edited against the event schema): exit 2 naming its seq;
    the audit makes it a finding."""

    def __init__(self, seq, what: str):
        self.seq = seq
        super().__init__(f"row {seq} of the log cannot be read: {what} (edited by another tool?"
                         " plcg audit lists what else changed)")


# What reading an event that does not follow its schema raises (a missing key, a wrong type)
UNFOLDABLE = (KeyError, TypeError, ValueError, AttributeError, IndexError)


def unknown_row(seq, etype, e: BadInput) -> BadInput:
    """A row whose type or version this release cannot read (the upcast refused it), with its seq named.
    A type that is an event name (lower-case words) may be a newer plcg's: bad input, upgrade (exit 2,
    the audit too). Anything else (a number, a blob, odd text) no release wrote: an UnreadableRow, which
    the audit makes a finding."""
    if isinstance(etype, str) and etype.replace("_", "").isalpha() and etype.islower():
        return BadInput(f"row {seq}: {e}")
    return UnreadableRow(seq, f"its event type {etype!r} is none any plcg writes")
