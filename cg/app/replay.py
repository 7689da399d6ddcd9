"""`plcg replay`'s write (issue 33 item 5: out of cli.py): the snapshot is derived data, rebuilt from the log
alone where the file can be written."""
from __future__ import annotations

from cg import seal, snapshot
from cg.app.ledger import Ledger
from events.errors import BadInput


def refresh_snapshot(path: str, st, head: tuple) -> None:
    """The snapshot is derived data: replay rebuilds it where the file can be written (a snapshot of
    older fold code is otherwise ignored until the next command); a read-only file keeps its own."""
    try:
        w = Ledger(path, write=True)
    except BadInput:
        return
    try:
        if head[0] == st.seq and not seal.opened_secrets(st):  # the player's own secrets stay out of it
            w.store.put_snapshot(head[0], head[1], snapshot.dump_split(st, w.store.cold_token()))
    except BadInput:
        pass
    finally:
        w.close()
