"""Play by email's key files (the application layer: files, not rules): a new key pair for `plcg keys new`,
and the private key a player names with --key FILE / $PLCG_KEY, read. What a key does (seals, signatures,
two-party dice) is play by email's rules, in cg/pbem.py and cg/seal.py; this module only makes and reads
the files. It imports cryptography at its top: only commands that handle a key import it."""
from __future__ import annotations

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cg.seal import public_line
from events.errors import BadInput


def new_keypair() -> tuple[bytes, str]:
    """(the private key as PEM, PKCS#8; the public key as one line `ed25519:HEX`)."""
    sk = Ed25519PrivateKey.generate()
    pem = sk.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                           serialization.NoEncryption())
    return pem, public_line(sk)


def load_private(path: str):
    """The private key in the file at `path` (PEM as `plcg keys new` writes it); BadInput otherwise."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise BadInput(f"--key {path}: cannot read it ({e.strerror})") from None
    try:
        sk = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError):
        raise BadInput(f"--key {path}: not a private key made by `plcg keys new`") from None
    if not isinstance(sk, Ed25519PrivateKey):
        raise BadInput(f"--key {path}: not an Ed25519 key (`plcg keys new` makes one)")
    return sk
