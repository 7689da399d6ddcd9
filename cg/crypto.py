"""The keyed operations of play by email (pyca `cryptography`): a seal's box (ChaCha20-Poly1305) and a
signature's check (Ed25519). It imports cryptography at its top, and only a campaign with keys takes it,
through cg/seal.py's `keyed()`: `status`, `head` and every command of a campaign without keys never import
cryptography (tests/test_startup.py). The private key's own operations (sign, its raw bytes) are the key
object's, loaded by cg/app/keys.py.
"""
from __future__ import annotations

from cryptography.exceptions import InvalidSignature, InvalidTag
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

_NONCE = b"\0" * 12  # a fresh key per box, used once: the all-zero AEAD nonce is safe


def box(key: bytes, text: bytes) -> bytes:
    """`text` encrypted and authenticated under `key` (32 bytes)."""
    return ChaCha20Poly1305(key).encrypt(_NONCE, text, None)


def unbox(key: bytes, boxed: bytes) -> bytes | None:
    """What `box(key, ...)` made `boxed` of; None when `key` does not open it (or it was altered)."""
    try:
        return ChaCha20Poly1305(key).decrypt(_NONCE, boxed, None)
    except InvalidTag:
        return None


def verifier(raw: bytes) -> Ed25519PublicKey:
    """The Ed25519 public key of its 32 raw bytes."""
    return Ed25519PublicKey.from_public_bytes(raw)


def verified(key: Ed25519PublicKey, sig: bytes, message: bytes) -> bool:
    """Does `sig` sign `message` under `key`?"""
    try:
        key.verify(sig, message)
        return True
    except InvalidSignature:
        return False
