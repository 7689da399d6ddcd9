"""Test helpers shared by the reliability, store, bad-input and old-log tests."""
from __future__ import annotations

import os
import pickle
import sqlite3
import traceback

from events.codec import GENESIS, chain_hash, chain_record, loads


def as_nobody(fn, *args):
    """fn(*args) where file modes mean something: in a forked child that drops root to `nobody`
    (root ignores chmod). Returns fn's result; an exception in the child fails the caller."""
    if os.geteuid() != 0:
        return fn(*args)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: drop root, then only use what is already imported
        try:
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            result = ("ok", fn(*args))
        except BaseException as e:
            result = ("err", f"{type(e).__name__}: {e}\n{traceback.format_exc()}")
        try:
            os.write(w, pickle.dumps(result))
        finally:
            os._exit(0)
    os.close(w)
    data = b""
    while chunk := os.read(r, 65536):
        data += chunk
    os.close(r)
    os.waitpid(pid, 0)
    kind, value = pickle.loads(data)
    assert kind == "ok", value
    return value


def rechain(db: str, *statements) -> None:
    """Edit rows with SQL (a statement, or (sql, params)), then recompute the whole hash chain and drop
    the snapshot: the file as another release, or a forger who recomputed every hash, would leave it."""
    c = sqlite3.connect(db)
    for s in statements:
        c.execute(*((s,) if isinstance(s, str) else s))
    prev = GENESIS
    rows = c.execute("SELECT seq, batch, type, version, firefight, step, payload, recorded, command FROM events"
                     " ORDER BY seq").fetchall()
    for seq, batch, t, v, ff, step, payload, recorded, command in rows:
        h = chain_hash(prev, chain_record(seq, batch, t, v, ff, step, loads(payload), recorded,
                                          None if command is None else loads(command)))
        c.execute("UPDATE events SET prev_hash = ?, hash = ? WHERE seq = ?", (prev, h, seq))
        prev = h
    c.execute("DELETE FROM snapshot")
    c.commit()
    c.close()
