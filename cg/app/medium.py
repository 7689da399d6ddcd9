"""Play by email's medium (issue 26, `plcg sync`): a folder of bundle files, or a git clone of one.

Either player writes his bundles into the same folder (a shared drive, a folder of mail attachments,
or a clone of a shared git repository) under names that say what they hold; `sync` takes in every
bundle the copy lacks, in the order of the history, whatever order the files arrived in and however
often: `order` sorts them. The bundle's own checks (events/bundle.read, cg/app/receiving.receive) decide what is
taken; this module only finds the files, names them, and drives git. (Its words, whose move it is, are
projections/medium.py's.)
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING
import subprocess
from pathlib import Path

from events.errors import BadInput

if TYPE_CHECKING:  # the bundles' type only: events.bundle is read by whoever found them
    from events.bundle import Bundle

SUFFIX = ".bundle"


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


def next_to_take(bundles: list[tuple[str, Bundle]], head: tuple[int, str | None]) -> tuple[str, Bundle] | None:
    """Of (path, Bundle) pairs, the one that continues a copy ending at `head` (seq, hash) furthest,
    None when no bundle holds anything past the head and starts at or before it."""
    fits = [(p, b) for p, b in bundles if b.since <= head[0] < b.head[0]]
    return max(fits, key=lambda pb: (pb[1].head[0], -pb[1].since), default=None)


def waiting(bundles: list[tuple[str, Bundle]], head: int) -> list[tuple[str, Bundle]]:
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
