"""The ledger's draws from the operating system's random source (play by email's nonces, salts and answer
values, temporary files' names, the ledger's own dice: ruling R31), as the secrets module makes them
(`token_hex`, `randbelow`: the same algorithm on os.urandom), without its import (random and base64 with it:
~0.1x `python -c pass` of every command, issue 36 item 2). One module, so a test that plays a game by email
byte for byte draws from its own seed (tests/helpers/guide.py)."""
from __future__ import annotations

import os


def token_hex(nbytes: int = 32) -> str:
    """`nbytes` random bytes as 2 * nbytes hex digits (secrets.token_hex)."""
    return os.urandom(nbytes).hex()


def randbelow(n: int) -> int:
    """A number in [0, n), each equally likely (secrets.randbelow: k random bits, drawn again while n or more)."""
    if n <= 0:
        raise ValueError("Upper bound must be positive.")
    k = n.bit_length()
    nbytes = (k + 7) // 8
    while True:
        r = int.from_bytes(os.urandom(nbytes)) >> (nbytes * 8 - k)
        if r < n:
            return r
