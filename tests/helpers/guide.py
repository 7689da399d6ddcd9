"""The player's guide (docs/guide.md): one whole firefight and its RePh on the shipped sample card, each
command with what it really prints. `python tests/helpers/guide.py` writes the guide;
tests/test_docs.py runs the same commands and checks the guide still shows what they print.

Each step is (what the player reads before the command, the command's words, how many lines of its
output the guide shows: None for all). Dice are the campaign's seeded ones or typed, so the output is
the same on every run but for the chain hashes (a row's hash covers the time it was recorded), which
the guide shows as `…`.
"""
from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

GUIDE = ROOT / "docs" / "guide.md"

STEPS: list[tuple[str, str, int | None]] = [
    ("Start a campaign from the shipped sample card. `--seed` makes the ledger's dice reproducible (as "
     "in this guide); leave it out in a real campaign, and the dice cannot be foreseen (ruling R31). Keep "
     "the head witness it prints: `plcg audit --witness` checks that nobody rewrote the log since.",
     "new --card sample --seed guide", None),
    ("`status` says where the campaign stands and what the step still owes.", "status", 10),
    ("2.2: the at-start weather (the card's, unless you type another), then `next` leaves the step.",
     "weather", None),
    ("", "next", None),
    ("2.3: each side buys Reinforcement Groups with its CP (2.34: on map, In Reserve or entering).",
     "buy axis I1 --mode on-map", None),
    ("", "buy allied I1", None),
    ("An infantry platoon owes its 2.36 leader DR; the ledger rolls (or type the dice with `--dice W,C`).",
     "leader axis I1-1", None),
    ("", "leader allied I1-1", None),
    ("Any player can check a roll: `dice-check SEQ` makes it again from what the log holds, each step shown "
     "(here from the seed and the roll's place; in a campaign by email from both players' values, the "
     "commitment and the chain of answers). Exit 1 if the log's dice are not what those values make.",
     "dice-check 6", None),
    ("", "next", None),
    ("2.4: the Initial Firefight's attacker is the card's (ruling R2); `determine` records it.",
     "determine", None),
    ("", "next", None),
    ("2.6: setting up is optional: a unit with no hex stands in its side's friendly MLR.", "next", None),
    ("2.7 patrols (none bought), 2.8 the firefight commences:", "next", None),
    ("", "next", None),
    ("2.9: play the firefight on the table, then record its end: the turn it ended, the CVP each side "
     "lost, the Strategic Terrain each side controls, the units lost.",
     "end --turn 6 --cvp-lost axis=4 --cvp-lost allied=6 --control axis=I5 --lost allied:I1-1.1", None),
    ("`map`: who controls what, one line per row, and why each Strategic Terrain hex is one.", "map", 36),
    ("The Reorganization Phase begins. `status` lists what each RePh step owes.", "next", None),
    ("", "status", 8),
    ("3.2: the Redeployment Option is chosen once for the CG.", "next", None),
    ("", "option A", None),
    ("", "next", None),
    ("3.3 records the TVP; 3.41-3.43 owe nothing here; each roll is refused at another step, so `next` "
     "leads from step to step.", "next", None),
    ("", "next", None),
    ("", "next", None),
    ("", "next", None),
    ("3.44: each side's Battlefield Promotion dr (the ledger derives its DRMs from the campaign).",
     "promote axis", None),
    ("", "promote allied", None),
    ("", "next", None),
    ("3.45: Leader Generation.", "leaders axis", None),
    ("", "leaders allied", None),
    ("", "next", None),
    ("", "next", None),
    ("", "next", None),
    ("3.47: each side's ELR Loss/Gain DR.", "elr axis", None),
    ("", "elr allied", None),
    ("3.51 SAN, 3.52 the clearance of fortifications, then firefight 2 begins at 2.1 with the CP DR.",
     "next", None),
    ("", "next", None),
    ("", "next", None),
    ("2.1 of firefight 2: each side's CP DR (2.12), its DRMs from how firefight 1 went.", "cp axis", None),
    ("", "cp allied", None),
    ("", "status", 7),
    ("What was decided, in the CG Roster:", "roster", None),
    ("and every event, in words:", "log", 12),
    ("The audit decides every command again from the log alone: exit 0 and nothing to report.",
     "audit", None),
]

HASH = re.compile(r"\b[0-9a-f]{16}\b")


def run_guide() -> list[tuple[str, str, str]]:
    """Play the guide's commands in a fresh campaign: (text, command, its output as the guide shows it)."""
    from click.testing import CliRunner

    import cli

    out = []
    with tempfile.TemporaryDirectory() as d:
        db = str(Path(d) / "mill.plcg")
        for text, words, keep in STEPS:
            r = CliRunner().invoke(cli.main, ["--db", db, *words.split()])
            shown = (r.stdout + (r.stderr if r.exit_code else "")).replace(db, "mill.plcg")
            lines = HASH.sub("…", shown).rstrip("\n").splitlines()
            if keep is not None and len(lines) > keep:
                lines = lines[:keep] + ["..."]
            if r.exit_code:
                raise AssertionError(f"the guide's `plcg {words}` exited {r.exit_code}: {shown}")
            out.append((text, words, "\n".join(lines)))
    return out


def markdown(played) -> str:
    parts = ["# A player's guide: one firefight and its Reorganization Phase", "",
             "Every command below was run on the shipped sample card as printed here (the guide is checked "
             "against the real commands by `tests/test_docs.py`; chain hashes are shown as `…`). Set "
             "`export PLCG_DB=mill.plcg` once, or give `--db` to every command.", ""]
    for text, words, output in played:
        if text:
            parts += [text, ""]
        parts += ["```", f"$ plcg {words}", *(output.splitlines() if output else []), "```", ""]
    return "\n".join(parts).rstrip("\n") + "\n"


if __name__ == "__main__":
    GUIDE.write_text(markdown(run_guide()))
    print(f"wrote {GUIDE}")
