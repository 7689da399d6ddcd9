"""Where plcg writes what a player asks for (`export -o`, `bundle -o`, `map --svg`, `keys new -o`): the
contract's output paths (shared/docs/cli-contract.md, "Added in the third round"), and the words for a
path that is a symbolic link going nowhere.

A PATH is written as a regular file by a new temporary name in its folder (created with O_EXCL, which
follows no symbolic link), and renamed onto PATH only once whole and on disk: a full disk, a closed
file or a kill leaves PATH as it was. PATH is refused (BadInput: exit 2, nothing written) when it is a
symbolic link, a FIFO, a device, a socket or a folder, when it is the campaign or a key file given to
this run (`protected`), and when it holds a SQLite file or a private key (another campaign, a key): an
output never replaces what the ledger or a player cannot make again. `-` is standard output.

The temporary file is `.NAME.out-PID-HEX` beside PATH: an error or an interrupt removes it, and a
later write to PATH removes what a killed process left there (as `new` and `import` do with theirs,
events/store.sweep_temps).
"""
from __future__ import annotations

import errno
import io
import os
import re
import sys
import stat

from events import osrandom
from events.errors import BadInput

STDOUT = "-"

_SQLITE = b"SQLite format 3\x00"


def link_problem(path: str) -> str | None:
    """What is wrong with PATH when it is a symbolic link that leads nowhere (a loop, or a target that
    does not exist), in words; None otherwise (no link, or one that leads to something)."""
    if not os.path.islink(path):
        return None
    try:
        os.stat(path)
    except OSError as e:
        if e.errno == errno.ELOOP:
            return f"{path} is a symbolic link in a loop (it leads back to itself): give the real path"
        if e.errno == errno.ENOENT:
            return f"{path} is a symbolic link to {os.readlink(path)}, which does not exist: give the real path"
        return f"{path} is a symbolic link that cannot be followed ({e.strerror})"
    return None


def _kind(mode: int) -> str | None:
    for test, what in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a device"),
                       (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder")):
        if test(mode):
            return what
    return None


def _not_regular(path: str, kind: str) -> str:
    return f"{path} is {kind}: plcg writes output to a regular file or a new name only (- for standard output); nothing written"


def check_target(path: str, protected: dict[str, str] | None = None) -> None:
    """BadInput unless PATH may be written: a new name, or a regular file that is none of `protected`
    (path -> what it is, e.g. the campaign, the key) and holds no SQLite file or private key."""
    if not path:
        raise BadInput("-o: give a file name (or - for standard output)")
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise BadInput(f"cannot write {path}: no folder {folder}") from None
        return
    except OSError as e:
        raise BadInput(f"cannot write {path}: {e.strerror}") from None
    kind = _kind(st.st_mode)
    if kind is not None:
        raise BadInput(_not_regular(path, kind))
    for other, what in (protected or {}).items():
        try:
            o = os.stat(other)
        except (OSError, TypeError, ValueError):
            continue
        if (o.st_dev, o.st_ino) == (st.st_dev, st.st_ino):
            raise BadInput(f"{path} is {what}: refused, nothing written (give another file name)")
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        head = b""
    if head.startswith(_SQLITE):
        raise BadInput(f"{path} holds a SQLite file (a campaign?): plcg never writes output over it; nothing written")
    if b"PRIVATE KEY-----" in head:
        raise BadInput(f"{path} holds a private key: plcg never writes output over it; nothing written")


def write(path: str, pieces, *, protected: dict[str, str] | None = None, mode: int = 0o644,
          replace: bool = True) -> None:
    """Write `pieces` (str or bytes) to PATH (checked by check_target) by a new temporary file renamed
    into place once whole and synced. replace=False: never over an existing file (`keys new`)."""
    problem = link_problem(path)
    if problem is not None:
        raise BadInput(f"{problem}; nothing written")
    if not replace and os.path.lexists(path):
        kind = _kind(os.lstat(path).st_mode)
        raise BadInput(_not_regular(path, kind) if kind else f"{path} already exists; nothing overwritten")
    check_target(path, protected)
    folder = os.path.dirname(os.path.abspath(path))
    sweep(path)
    tmp: str | None  # None once it is in place
    fd, tmp = _open_temp(folder, os.path.basename(path), mode)
    try:
        try:
            for piece in pieces:
                _write_all(fd, piece.encode() if isinstance(piece, str) else piece)
            os.fsync(fd)
            if replace:
                os.replace(tmp, path)
            else:
                try:
                    os.link(tmp, path)  # never over a file that appeared meanwhile
                except FileExistsError:
                    raise BadInput(f"{path} already exists (it appeared meanwhile); nothing overwritten") from None
                os.unlink(tmp)
            tmp = None
            _sync_folder(folder)
        except OSError as e:
            raise BadInput(f"cannot write {path}: {e.strerror or e}; nothing written") from None
    finally:
        os.close(fd)
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _write_all(fd: int, data: bytes) -> None:
    """Every byte, or an OSError: os.write may write part of it (a full disk, a file size limit)."""
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        if n <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        view = view[n:]


def _temp_name(folder: str, base: str) -> str:
    return os.path.join(folder, f".{base}.out-{os.getpid()}-{osrandom.token_hex(4)}")


def _open_temp(folder: str, base: str, mode: int) -> tuple[int, str]:
    """(fd, its name): a new name opened with O_EXCL (no link followed, nothing replaced)."""
    tmp = _temp_name(folder, base)
    try:
        return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), mode), tmp
    except OSError as e:
        raise BadInput(f"cannot write in {folder}: {e.strerror}") from None


def _sync_folder(folder: str) -> None:
    try:
        dfd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


def sweep(path: str) -> None:
    """Remove what a killed write to PATH left beside it: `.NAME.out-PID-HEX` of a process that is gone,
    and the `.NAME.PID.tmp` of the releases before."""
    sweep_temps(path, kinds=("out",), legacy=True)


def remove_file(path: str) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            os.unlink(path + suffix)
        except OSError:
            pass


def sweep_temps(db_path: str, kinds: tuple = ("new", "import"), legacy: bool = False) -> None:
    """Remove what a `new` or `import` (or another of `kinds`: `out`, events/outpath.py) killed before
    it finished left beside db_path (its process gone); legacy: also the `.NAME.PID.tmp` of an export
    of the releases before."""
    d, base = os.path.split(os.path.abspath(db_path))
    pat = re.compile(r"\." + re.escape(base) + r"\.(?:(?:" + "|".join(kinds) + r")-(\d+)-[0-9a-f]{8}"
                     + (r"|(\d+)\.tmp" if legacy else "") + ")$")
    try:
        names = os.listdir(d)
    except OSError:  # no directory to sweep
        names = []
    for name in names:
        m = pat.match(name)
        if m is None:
            continue
        p = os.path.join(d, name)
        pid = int(m.group(1) or m.group(2))
        if pid != os.getpid():
            try:
                os.kill(pid, 0)
                continue  # still running: its own file
            except ProcessLookupError:
                pass
            except OSError:
                continue
        remove_file(p)


# ---- standard output (issue 25) ----------------------------------------------------------------------

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


def guard_stdout() -> None:
    """The process's own standard output (not a test runner's) through _AllOrError."""
    out = sys.stdout
    if out is not sys.__stdout__ or out is None:  # a test runner's, or guarded already
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
