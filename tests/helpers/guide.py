"""The player's guide (docs/guide.md): one whole firefight and its RePh on the shipped sample card, then the
same card's first firefight and its RePh played by email by two players with `sync` (BY_EMAIL, its RePh REPH),
each command with what it really prints. `python tests/helpers/guide.py` writes the guide;
tests/test_docs.py runs the same commands and checks the guide still shows what they print.

Each step is (what the player reads before the command, the command's words, how many lines of its
output the guide shows: None for all). Dice are the campaign's seeded ones or typed, so the output is
the same on every run but for the chain hashes (a row's hash covers the time it was recorded), which
the guide shows as `…`.
"""
from __future__ import annotations

import os
import random
import re
import secrets
import shlex
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

HASH = re.compile(r"\b[0-9a-f]{16}\b…?")  # a hash shown cut (`dice-check`) is one `…` too
BYTES = re.compile(r", [0-9]+ bytes,")  # a bundle's size: compressed, it moves with the row hashes' time

# The by-email chapter: two players, each with his own copy and key, one shared folder (`box`). Each step is
# (what the player reads first, whose command it is, its words, how many lines of its output the guide shows).
# The guide's keys and random salts are fixed (by_email_run) so that what it prints is the same on every run;
# a bundle's size in bytes (compressed, so it moves with the row hashes' time) is shown as `…`.
AXIS_PUB = "ed25519:8a88e3dd7409f195fd52db2d3cba5d72ca6709bf1d94121bf3748801b40f6f5c"
ALLIED_PUB = "ed25519:8139770ea87d175f56a35466c34c7ecccb8d8a91b4ee37a25df60f5b8fc9b394"
BY_EMAIL: list[tuple[str, str, str, int | None]] = [
    ("Each player makes his key pair once. The private key stays in its file (mode 0600); the public key, the "
     "line `keys new` prints, is mailed to the other player. (The guide's keys are fixed; yours are random.)",
     "axis", "keys new -o axis.key", None),
    ("", "allied", "keys new -o allied.key", None),
    ("The Axis player starts the campaign with both public keys: every command is then signed by the key that "
     "gave it, the dice are two-party (both players' values make every die, so neither can choose one), and the "
     "2.1, 2.3 and 3.44 secrets are sealed.",
     "axis", f"new --card sample --axis-key {AXIS_PUB} --allied-key {ALLIED_PUB}", None),
    ("The players share one folder (a synced folder, or mail the `.bundle` files into it). `sync --send` writes "
     "what the other copy lacks into it as one signed bundle; `--note` carries one line of text to the other player.",
     "axis", "sync --folder box --send --note 'Your move: the weather'", None),
    ("The Allied player's first `sync` makes his copy from the Axis bundle (his key must be one the campaign "
     "names), shows the note, and says whose move it is.", "allied", "sync --folder box", None),
    ("", "allied", "weather", None),
    ("", "allied", "next", None),
    ("", "allied", "sync --folder box --send", None),
    ("", "axis", "sync --folder box", None),
    ("2.3 by email: a purchase is sealed. The other copy holds a salted hash and a box only the buyer's key opens, "
     "and sees only that a purchase was made, until 2.6 reveals it.", "axis", "buy axis I1 --mode on-map", None),
    ("A roll by email is two-party: the roller commits to it now; the other copy's answer (from the chain of "
     "answers it committed to) and the roller's reveal make the dice. Neither player can see the result before "
     "both values are fixed, or take it back afterwards.", "axis", "leader axis I1-1", None),
    ("", "axis", "sync --folder box --send", None),
    ("Two players who both think it is their move act at once: the Allied player buys before he has taken in "
     "the Axis bundle, so the two copies part.", "allied", "buy allied I1", None),
    ("His `sync` joins them (ruling R113): his commands that he had not sent are decided again after the Axis "
     "moves, each named; his copy as it was is kept beside it. Nothing is lost and nobody mends anything by hand. "
     "His copy has answered the Axis roll too: the answer goes with his next bundle.", "allied", "sync --folder box",
     None),
    ("", "allied", "leader allied I1-1", None),
    ("", "allied", "next", None),
    ("", "allied", "sync --folder box --send", None),
    ("The Axis `sync` reveals its roll now that the answer is in: its leader DR is made of both values "
     "(`dice-check` recomputes it from them).", "axis", "sync --folder box", None),
    ("", "axis", "confirm", None),
    ("", "axis", "sync --folder box --send", None),
    ("", "allied", "sync --folder box", None),
    ("2.4: the determination is a shared fact, given by one player and confirmed by the other's next command.",
     "axis", "determine", None),
    ("", "axis", "sync --folder box --send", None),
    ("", "allied", "sync --folder box", None),
    ("", "allied", "next", None),
    ("2.6 reveals both sides' purchases (the bundle makes the reveal): setup shows the order of battle.",
     "allied", "sync --folder box --send", None),
    ("", "axis", "sync --folder box", None),
    ("A unit set up concealed shows the other copy a \"?\" in its hex, not the unit (A12.1); a HIP one shows "
     "nothing. Both are revealed at 2.9, the firefight's own revelation (ruling R112).",
     "axis", "setup axis I1-1.1 M5", None),
    ("", "axis", "setup axis I1-1.2 M6 --concealed", None),
    ("", "axis", "next", None),
    ("", "axis", "sync --folder box --send", None),
    ("", "allied", "sync --folder box", None),
    ("The Allied platoon was bought to enter during the firefight (`--mode entry`): it sets up nothing, and the "
     "Allied `next` confirms the Axis leave.", "allied", "next", None),
    ("", "allied", "sync --folder box --send", None),
    ("", "axis", "sync --folder box", None),
    ("2.7: neither side bought a patrol.", "axis", "next", None),
    ("", "axis", "sync --folder box --send", None),
    ("", "allied", "sync --folder box", None),
    ("The firefight is played in VASL. 2.9 waits for the concealed setup's reveal, which the Axis `sync` makes.",
     "allied", "next", None),
    ("", "allied", "sync --folder box --send", None),
    ("The Axis `sync` takes in the Allied moves and makes the reveal the firefight owes (ruling R112) by "
     "itself; its `--send` carries it. (`sync --send` never sends over moves this copy has not taken in: that "
     "would fork the history, so it is always `sync` first, then send.)", "axis", "sync --folder box", None),
    ("", "axis", "sync --folder box --send", None),
    ("", "allied", "sync --folder box", None),
    ("The Allied player gives the firefight's end, with the VASL log it was played in (`ff1.vlog`): its name and "
     "SHA-256 are the firefight's evidence, in the log and the AAR.",
     "allied", "end --turn 6 --cvp-lost axis=2 --cvp-lost allied=0 --control allied=M5 --lost axis:I1-1.1 "
               "--vasl-log ff1.vlog", None),
    ("", "allied", "sync --folder box --send --note 'Turn 6: your 4-6-7 in M5 fell, M5 is mine'", None),
    ("", "axis", "sync --folder box", None),
    ("A disputed result: the Axis player does not agree that I1-1.1 was eliminated. `reject` undoes the end and "
     "what followed it, and the log keeps why.",
     "axis", "reject --reason 'I1-1.1 broke and routed to M6, it was not eliminated'", None),
    ("", "axis", "sync --folder box --send", None),
    ("", "allied", "sync --folder box", None),
    ("The Allied player gives the end again as agreed (by mail, or after both looked at the VASL log).",
     "allied", "end --turn 6 --cvp-lost axis=0 --cvp-lost allied=0 --control allied=M5 --vasl-log ff1.vlog", None),
    ("", "allied", "sync --folder box --send", None),
    ("", "axis", "sync --folder box", None),
    ("The Axis player's next command confirms it.", "axis", "next", None),
    ("", "axis", "sync --folder box --send", None),
    ("", "allied", "sync --folder box", None),
    ("At any time either player can check that the two copies agree, given the other's file: every row, hash and "
     "signature (exit 1 and the first difference where they do not).", "axis", "audit --against allied.plcg", None),
]
SEND, TAKE = "sync --folder box --send", "sync --folder box"
# The RePh of that firefight by email, from 3.1 to firefight 2's 2.1: the later RePh rolls committed ahead of their
# steps (ruling R121), each decided at its own step, and a 3.44 result that still allows its side something holding
# the other side's leave (ruling R127).
REPH: list[tuple[str, str, str, int | None]] = [
    ("The Reorganization Phase by email. Each player does all he can at a step before he sends; a `next` the other "
     "copy has not seen is provisional, and the other player's next command confirms it. 3.2: the Axis player "
     "chooses the Redeployment Option for both sides and redeploys first the unit 3.214 names; its DR is two-party, "
     "so the 3.217 one waits until the Allied answer has decided it.", "axis", "next", None),
    ("", "axis", "option A", None),
    ("", "axis", "redeploy axis I1-1.1 --to L4", None),
    ("", "axis", SEND, None),
    ("", "allied", TAKE, None),
    ("", "allied", SEND, None),
    ("", "axis", TAKE, None),
    ("", "axis", "redeploy axis I1-1.2 --to L4", None),
    ("", "axis", SEND, None),
    ("The Allied copy answers the roll as it takes it in, which decides it; nothing else is owed at 3.2.",
     "allied", TAKE, None),
    ("", "allied", "next", None),
    ("", "allied", SEND, None),
    ("3.3 records the TVP. At 3.41 `sync` names the rolls the Axis player may commit now, ahead of their steps "
     "(ruling R121; this card has no Disease, so 3.41 owes nothing): his 3.44 Battlefield Promotion dr, 3.45 Leader "
     "Generation dr and 3.47 ELR DR. Their DRMs are fixed since the firefight ended, so he gives all three at once, "
     "and they travel in one bundle.", "axis", TAKE, None),
    ("", "axis", "next", None),
    ("", "axis", TAKE, None),
    ("", "axis", "promote axis", None),
    ("", "axis", "leaders axis", None),
    ("", "axis", "elr axis", None),
    ("", "axis", "next", None),
    ("", "axis", SEND, None),
    ("The Allied player's first command answers the three Axis rolls; he commits his own three in the same bundle.",
     "allied", TAKE, None),
    ("", "allied", "promote allied", None),
    ("", "allied", "leaders allied", None),
    ("", "allied", "elr allied", None),
    ("", "allied", "next", None),
    ("", "allied", SEND, None),
    ("The Axis `sync` answers them. The answers decide nothing yet: each roll is decided at its own step. At 3.44 "
     "the Axis dr, sealed (ruling R47), is made and revealed by his `sync`. It allows him 3 MMC to Battle Harden; "
     "he hardens none. The Allied dr, not yet revealed, may allow the Allied player something, so the Axis `next` "
     "is a proposal that waits for him (ruling R127), not a leave.", "axis", TAKE, None),
    ("", "axis", "next", None),
    ("", "axis", TAKE, None),
    ("", "axis", "next", None),
    ("", "axis", SEND, None),
    ("The Allied `sync` makes and reveals his own 3.44 dr; his `next` confirms the Axis proposal and leaves his "
     "own result unused. At 3.45 both leader drs are decided by his first command there, his `sync`; at 3.47 both "
     "ELR DRs by his first command there, the `next` that leaves it. Nothing else is owed, so he walks on to firefight 2.", "allied", TAKE, None),
    ("", "allied", "next", None),
    ("", "allied", TAKE, None),
    *[("", "allied", "next", None)] * 6,
    ("", "allied", SEND, None),
    ("", "axis", TAKE, None),
]
REPH_BUNDLES = sum(words == SEND for _, _, words, _ in REPH)
BY_EMAIL += REPH + [
    ("`dice-check` shows how a roll committed ahead was made: the Axis ELR DR, committed at 3.41, answered in the "
     "next Allied bundle, decided at 3.47.", "axis", "dice-check 117", None),
    (f"The RePh took {REPH_BUNDLES} bundles, 3.1 to 2.1. The Axis player's first command of firefight 2 confirms "
     "the Allied leave; 2.1's CP DR is sealed, as at the start.", "axis", "cp axis", None),
]


def run_guide() -> list[tuple[str, str, str]]:
    """Play the guide's commands in a fresh campaign: (text, command, its output as the guide shows it)."""
    from click.testing import CliRunner

    import cli

    out = []
    with tempfile.TemporaryDirectory() as d:
        db = str(Path(d) / "mill.plcg")
        for text, words, keep in STEPS:
            r = CliRunner().invoke(cli.main, ["--db", db, *words.split()])
            out.append((text, words, _shown(r, words, keep, (db, "mill.plcg"))))
    return out


def _shown(r, words: str, keep: int | None, path: tuple[str, str]) -> str:
    """A command's output as the guide shows it: its chain hashes (and a bundle's size) as `…`, its first `keep`
    lines; `path` (the temporary folder, its name in the guide) replaced. A command that failed stops the guide."""
    shown = (r.stdout + (r.stderr if r.exit_code else "")).replace(*path)
    if r.exit_code:
        raise AssertionError(f"the guide's `plcg {words}` exited {r.exit_code}: {shown}")
    lines = BYTES.sub(", … bytes,", HASH.sub("…", shown)).rstrip("\n").splitlines()
    if keep is not None and len(lines) > keep:
        lines = lines[:keep] + ["..."]
    return "\n".join(lines)


def by_email_run() -> list[tuple[str, str, str, str]]:
    """Play the by-email chapter in a fresh folder, each command in its player's copy with his key: (text,
    player, command, its output as the guide shows it). Keys and salts are fixed for the run (restored after)."""
    from click.testing import CliRunner
    from cryptography.hazmat.primitives.asymmetric import ed25519

    import cli
    from events import osrandom

    rng = random.Random("guide by email")
    made = iter(bytes([i + 1]) * 32 for i in range(2))
    saved = secrets.token_hex, ed25519.Ed25519PrivateKey.__dict__["generate"], os.getcwd(), osrandom.token_hex
    # the ledger's nonces, salts and temporary names (events/osrandom.py) and sqlite-utils' savepoints, in turn
    secrets.token_hex = osrandom.token_hex = lambda n=32: rng.getrandbits(8 * n).to_bytes(n, "big").hex()
    ed25519.Ed25519PrivateKey.generate = staticmethod(lambda: ed25519.Ed25519PrivateKey.from_private_bytes(next(made)))
    out = []
    try:
        with tempfile.TemporaryDirectory() as d:
            os.chdir(d)
            os.mkdir("box")
            Path("ff1.vlog").write_bytes(b"the VASL log of firefight 1\n")
            for text, who, words, keep in BY_EMAIL:
                r = CliRunner().invoke(cli.main, ["--db", f"{who}.plcg", "--key", f"{who}.key", *shlex.split(words)])
                out.append((text, who, words, _shown(r, f"{who}$ {words}", keep, (d, "."))))
    finally:
        secrets.token_hex, ed25519.Ed25519PrivateKey.generate, osrandom.token_hex = saved[0], saved[1], saved[3]
        os.chdir(saved[2])
    return out


BY_EMAIL_INTRO = [
    "## By email: two players, two copies, one shared folder", "",
    "Two players, each with his own copy of the campaign and his own key, play the sample's first firefight and "
    "its RePh by email through a shared folder `box`. The Axis player sets `export PLCG_DB=axis.plcg PLCG_KEY=axis.key` once, "
    "the Allied player `export PLCG_DB=allied.plcg PLCG_KEY=allied.key`; `axis$` and `allied$` below say whose "
    "command it is. One command a turn does the mail: `plcg sync --folder box` takes in what the other sent and "
    "says whose move it is; `plcg sync --folder box --send` sends (with a shared git repository, `--git CLONE` "
    "instead of `--folder`). Every output is the real one (checked by `tests/test_docs.py`; chain hashes and "
    "bundle sizes shown as `…`).", ""]


def markdown(played, by_email=None) -> str:
    parts = ["# A player's guide: one firefight and its Reorganization Phase", "",
             "Every command below was run on the shipped sample card as printed here (the guide is checked "
             "against the real commands by `tests/test_docs.py`; chain hashes are shown as `…`). Set "
             "`export PLCG_DB=mill.plcg` once, or give `--db` to every command.", ""]
    for text, words, output in played:
        if text:
            parts += [text, ""]
        parts += ["```", f"$ plcg {words}", *(output.splitlines() if output else []), "```", ""]
    if by_email:
        parts += BY_EMAIL_INTRO
        for text, who, words, output in by_email:
            if text:
                parts += [text, ""]
            parts += ["```", f"{who}$ plcg {words}", *(output.splitlines() if output else []), "```", ""]
    return "\n".join(parts).rstrip("\n") + "\n"


if __name__ == "__main__":
    GUIDE.write_text(markdown(run_guide(), by_email_run()))
    print(f"wrote {GUIDE}")
