"""Play by email's medium (issue 26, `plcg sync`): a folder of bundle files, or a git clone of one.

Either player writes his bundles into the same folder (a shared drive, a folder of mail attachments,
or a clone of a shared git repository) under names that say what they hold; `sync` takes in every
bundle the copy lacks, in the order of the history, whatever order the files arrived in and however
often: `order` sorts them. The bundle's own checks (events/bundle.read, Ledger.receive) decide what is
taken; this module only finds the files, names them, and drives git.
"""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

from cg.steps import owed_by as owner
from events.errors import BadInput
from projections.words import provisional_words

SUFFIX = ".bundle"
SIDES = ("axis", "allied")


def bundle_files(folder: str) -> list[str]:
    """Every bundle file in `folder` (not its subfolders), by name."""
    try:
        names = sorted(os.listdir(folder))
    except OSError as e:
        raise BadInput(f"{folder}: cannot read the folder of bundles ({e.strerror})") from None
    return [os.path.join(folder, n) for n in names if n.endswith(SUFFIX) and os.path.isfile(os.path.join(folder, n))]


def bundle_name(side: str, since: int, head: int) -> str:
    """`000124-000139-axis.bundle`: the seqs it holds and its author; names sort as the history runs."""
    return f"{since + 1:06d}-{head:06d}-{side}{SUFFIX}"


def next_to_take(bundles: list[tuple[str, object]], head: tuple[int, str | None]) -> tuple[str, object] | None:
    """Of (path, Bundle) pairs, the one that continues a copy ending at `head` (seq, hash) furthest,
    None when no bundle holds anything past the head and starts at or before it."""
    fits = [(p, b) for p, b in bundles if b.since <= head[0] < b.head[0]]
    return max(fits, key=lambda pb: (pb[1].head[0], -pb[1].since), default=None)


def waiting(bundles: list[tuple[str, object]], head: int) -> list[tuple[str, object]]:
    """The bundles that start after `head`: one sent before them has not arrived yet."""
    return sorted(((p, b) for p, b in bundles if b.since > head), key=lambda pb: pb[1].since)


# ---- git -------------------------------------------------------------------------------------------

def git(repo: str, *args: str) -> str:
    """Run git in `repo`; its output, or BadInput with git's last line (exit 2)."""
    try:
        r = subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, timeout=300,
                           env={**os.environ, "GIT_TERMINAL_PROMPT": "0"})
    except FileNotFoundError:
        raise BadInput("--git: git is not installed (use --folder DIR with a shared folder instead)") from None
    except subprocess.TimeoutExpired:
        raise BadInput(f"--git {repo}: git {args[0]} took more than 5 minutes; nothing more done") from None
    if r.returncode != 0:
        last = (r.stderr.strip() or r.stdout.strip() or f"exit {r.returncode}").splitlines()[-1]
        raise BadInput(f"--git {repo}: git {args[0]} failed: {last}")
    return r.stdout


def is_repo(repo: str) -> bool:
    return Path(repo).is_dir() and subprocess.run(["git", "-C", repo, "rev-parse", "--git-dir"],
                                                  capture_output=True).returncode == 0


def has_upstream(repo: str) -> bool:
    return bool(git(repo, "remote").strip())


def pull(repo: str) -> None:
    """Take the other player's pushed bundles (nothing to do without a remote or before a first commit
    on it)."""
    if not has_upstream(repo):
        return
    remote_heads = git(repo, "ls-remote", "--heads", "origin").strip()
    if not remote_heads:
        return  # an empty shared repository: nothing pushed yet
    git(repo, *_who(repo), "pull", "-q", "--rebase", "origin", _branch(repo, remote_heads))


def _who(repo: str) -> tuple:
    """The player's own git identity if he has one, else a neutral one (a commit or rebase needs one)."""
    named = subprocess.run(["git", "-C", repo, "config", "user.email"], capture_output=True).returncode == 0
    return () if named else ("-c", "user.name=plcg", "-c", "user.email=plcg@localhost")


def _branch(repo: str, remote_heads: str) -> str:
    mine = git(repo, "symbolic-ref", "--short", "-q", "HEAD").strip()
    names = [line.split("refs/heads/", 1)[1] for line in remote_heads.splitlines() if "refs/heads/" in line]
    return mine if mine in names or not names else names[0]


def commit_and_push(repo: str, path: str, message: str) -> None:
    """Commit the bundle at `path` and push it; pulled again and pushed once more if the other
    player pushed in between (bundles are new files: a rebase never conflicts)."""
    git(repo, "add", "--", os.path.relpath(path, repo))
    git(repo, *_who(repo), "commit", "-q", "-m", message)
    push(repo)


def push(repo: str) -> None:
    if not has_upstream(repo):
        return
    branch = git(repo, "symbolic-ref", "--short", "-q", "HEAD").strip() or "main"
    try:
        git(repo, "push", "-q", "origin", f"HEAD:{branch}")
    except BadInput:
        pull(repo)
        git(repo, "push", "-q", "origin", f"HEAD:{branch}")


def mend(repo: str) -> list[str]:
    """What a stopped `sync --git` left (issue 37 F1), put right before anything else: a rebase it was
    killed in is given up (the pull that follows does it again), and the bundles it wrote or staged but
    never committed are committed (a bundle is this player's own, a new file no one else writes). Other
    changes of the clone are the player's and left as they are. The names of the bundles committed."""
    gitdir = Path(repo, git(repo, "rev-parse", "--git-dir").strip())
    if (gitdir / "rebase-merge").exists() or (gitdir / "rebase-apply").exists():
        git(repo, "rebase", "--abort")
    stray = [line[3:] for line in git(repo, "status", "--porcelain", "--untracked-files=all", "--", "*" + SUFFIX
                                      ).splitlines() if line[:2] in ("??", "A ", "AM")]
    if stray:
        git(repo, "add", "--", *stray)
        git(repo, *_who(repo), "commit", "-q", "-m", "plcg: the bundles a stopped sync left uncommitted")
    return [os.path.basename(s) for s in stray]


def unpushed(repo: str) -> int:
    """How many commits of the clone the shared repository lacks (0 without a remote)."""
    if not has_upstream(repo):
        return 0
    branch = git(repo, "symbolic-ref", "--short", "-q", "HEAD").strip() or "main"
    there = git(repo, "ls-remote", "--heads", "origin", branch).split()
    if not there:
        return int(git(repo, "rev-list", "--count", "HEAD").strip() or 0)
    known = subprocess.run(["git", "-C", repo, "cat-file", "-e", there[0] + "^{commit}"], capture_output=True)
    if known.returncode != 0:  # the other player pushed since: a pull brings it
        return 1
    return int(git(repo, "rev-list", "--count", f"{there[0]}..HEAD").strip() or 0)


# ---- whose move ----------------------------------------------------------------------------------

def turn_lines(pending: list[dict], me: str | None, proposal: dict | None = None,
               provisional: dict | None = None) -> list[str]:
    """`pending` in words for the player `me`: what he owes now, what the other player owes."""
    other = None if me is None else ("allied" if me == "axis" else "axis")
    mine = [p for p in pending if owner(p) in (me, None)]
    theirs = [p for p in pending if other is not None and owner(p) == other]
    out = []
    if provisional is not None and provisional.side != me:  # rulings R71, R73

        out.append(f"{provisional_words(provisional.side, provisional.command)}: your next"
                   " command confirms it; `plcg reject --reason TEXT` undoes it")
    if mine:
        out.append(f"your move ({me}):" if me else "owed now:")
        out += [f"  {p['what']}: {p['command']} ({p['rule']})" for p in mine]
    if theirs:
        out.append(f"{other} owes:")
        out += [f"  {p['what']}" for p in theirs]
    if not pending:
        if proposal is not None and proposal.side != me:
            out.append(f"your move ({me}): {proposal.side}'s proposal awaits you: your commands at the step, then"
                       " `plcg next` (it confirms the proposal), or `plcg reject --reason TEXT`")
        elif proposal is not None:
            out.append(f"waiting for {other}: your proposal awaits his answer; send it (plcg sync --send)")
        else:
            out.append(f"your move ({me}): your optional commands, then `plcg next`" if me else
                       "nothing owed: the optional commands, then `plcg next`")
    return out


def whose_move(pending: list[dict], pb: dict) -> list[str]:
    """`status` in a campaign played by email (status_dict's `pbem`): who owes what, who waits."""
    by: dict[str, list[str]] = {}
    for p in pending:
        by.setdefault(owner(p) or "either player", []).append(p["what"])
    out = [f"{who} to move: " + "; ".join(whats) for who, whats in by.items()]
    for side in SIDES:
        if side not in by and by:
            out.append(f"{side} waits for {' and '.join(w for w in by if w in SIDES) or 'the step to be done'}")
    prop, prov = pb.get("proposal"), pb.get("provisional")
    if prop is not None and not pending:
        other = "allied" if prop["side"] == "axis" else "axis"
        out.append(f"{other} to move: {prop['side']}'s proposal ({prop['command']}) awaits its answer")
    if prov is not None:
        other = "allied" if prov["side"] == "axis" else "axis"
        said = f"{prov['side']} left step {prov['step']} provisionally" if prov.get("command", "next") == "next" \
            else f"{prov['side']} gave {prov['command']} provisionally at step {prov['step']}"  # ruling R73
        out.append(f"{said} (seq {prov['seq']}): {other}'s next command confirms it, `plcg reject --reason TEXT`"
                   " undoes it")
    return out
