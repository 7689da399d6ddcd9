"""`plcg audit`'s report in words (issue 33 item 5: out of cli.py); the report itself is cg/app/audit.py's."""
from __future__ import annotations

from events.text import shown


def audit_lines(report: dict, against: bool, witnesses: int) -> list[str]:
    """The findings, the notes, the dice and rolls by source and side, and the verdict."""
    out = []
    for f in report["findings"]:
        out.append(f"FINDING seq {f['seq']} [{f['rule']}]: {shown(f['what'])}")
    for n in report["notes"]:
        out.append(f"note seq {n['seq']}: {shown(n['what'])}")
    dice = report.get("dice")
    if dice:
        out.append(f"dice: {dice['shown']}, policy {dice['policy']}; " + _counts("rolls", dice["rolls"])
                   + (("; " + _counts("made again after an undo", dice["rerolls"])) if dice["rerolls"] else ""))
    if report.get("rolls"):
        out.append("rolls: " + "; ".join(f"{side} " + ", ".join(f"{n} {src}" for src, n in sorted(by.items()))
                                         for side, by in sorted(report["rolls"].items())))
    if not report["findings"]:
        out.append(f"the copies agree ({report['events']} events here)" if against else
                   f"audit clean: {report['events']} events, hash chain intact"
                   + (f", {witnesses} witness(es) held" if witnesses else ""))
    return out


def _counts(what: str, by_source: dict) -> str:
    if not by_source:
        return f"no {what}"
    return f"{what}: " + ", ".join(
        f"{src} " + "/".join(f"{side} {n}" for side, n in sorted(sides.items()))
        for src, sides in sorted(by_source.items()))
