"""Which JWS algorithm a stored private key signs a client assertion with (private_key_jwt).

The key is parsed only to learn its type; it is never logged, and no message repeats it.
"""

from __future__ import annotations

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from cryptography.hazmat.primitives.serialization import load_pem_private_key

from agent_core.mcp.sign_in_errors import SignInRequiredError

__all__ = ["signing_algorithm"]

_CURVES = {"secp256r1": "ES256", "secp384r1": "ES384", "secp521r1": "ES512"}


def signing_algorithm(server: str, pem: str) -> str:
    """ES256/ES384/ES512 for an EC key on P-256/384/521, RS256 for RSA, EdDSA for Ed25519.

    Raises:
        SignInRequiredError: the stored key is not an unencrypted PEM private key of those kinds.
    """
    try:
        key = load_pem_private_key(pem.encode(), password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm) as error:
        raise SignInRequiredError(
            server,
            f"MCP server '{server}': the stored private key cannot be read ({type(error).__name__}: not an "
            "unencrypted PEM private key). Fix: store the key as PEM without a passphrase "
            f"(`contextdesk mcp set-secret AGENT_DIR {server} private-key --from-file KEY.pem`).",
        ) from None
    if isinstance(key, ec.EllipticCurvePrivateKey) and key.curve.name in _CURVES:
        return _CURVES[key.curve.name]
    if isinstance(key, rsa.RSAPrivateKey):
        return "RS256"
    if isinstance(key, ed25519.Ed25519PrivateKey):
        return "EdDSA"
    raise SignInRequiredError(
        server,
        f"MCP server '{server}': the stored private key is of a kind ContextDesk cannot sign with. Fix: use "
        "an EC (P-256, P-384, P-521), RSA or Ed25519 key, or set oauth.signingAlgorithm.",
    )
