"""The random hex strings the ledger draws (play by email's nonces, salts and answer values, temporary files'
names): `secrets.token_hex`'s, from os.urandom, without the secrets module's import (random and base64 with it:
~0.1x `python -c pass` of every command, issue 36 item 2). One function, so a test that plays a game by email
byte for byte draws them all from its own seed (tests/helpers/guide.py)."""
from __future__ import annotations

import os


def token_hex(nbytes: int = 32) -> str:
    """`nbytes` random bytes as 2 * nbytes hex digits (secrets.token_hex)."""
    return os.urandom(nbytes).hex()
