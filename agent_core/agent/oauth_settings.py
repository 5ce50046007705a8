"""A remote server's ``oauth:`` block in agent.yaml: how ContextDesk gets a token (docs/mcp.md#oauth).

Only names and addresses live here. The client secret, a private key and an identity provider's ID
token are secrets: they are kept in the system keyring (``contextdesk mcp set-secret``, or the
server dialog), and a file that writes one is refused with that fix, without repeating the value.
"""

from __future__ import annotations

from typing import Any, Literal, Self
from urllib.parse import urlsplit

from pydantic import Field, field_validator, model_validator

from agent_core.agent.file_model import FileModel

__all__ = ["SECRET_KEYS", "ClientAuthMethod", "OAuthConfig", "OAuthGrant"]

#: How a token is obtained: the user signs in (browser), the app signs in as itself (machine to
#: machine), or an enterprise identity provider vouches for the user (SEP-990 cross-app access).
OAuthGrant = Literal["authorization-code", "client-credentials", "cross-app-access"]
#: How the client proves itself at the token endpoint (RFC 6749 §2.3, RFC 7523 §2.2).
ClientAuthMethod = Literal["none", "client_secret_basic", "client_secret_post", "private_key_jwt"]
#: JWS algorithms a private key can sign the client assertion with.
SigningAlgorithm = Literal["RS256", "RS384", "RS512", "PS256", "ES256", "ES384", "ES512", "EdDSA"]
#: Keys that name a secret: never in the file (camelCase as written, snake_case as Python passes them).
SECRET_KEYS = frozenset(
    {"clientSecret", "client_secret", "privateKey", "private_key", "idpIdToken", "idp_id_token"}
)
_SECRET_FIX = {
    "clientSecret": "client-secret",
    "client_secret": "client-secret",
    "privateKey": "private-key",
    "private_key": "private-key",
    "idpIdToken": "idp-id-token",
    "idp_id_token": "idp-id-token",
}


def _http_url(value: str | None, *, what: str, https_only: bool = False) -> str | None:
    if value is None:
        return None
    parts = urlsplit(value)
    schemes = ("https",) if https_only else ("http", "https")
    if parts.scheme not in schemes or not parts.netloc:
        wanted = "an https:// URL" if https_only else "an http(s):// URL"
        raise ValueError(f"{what} must be {wanted}, e.g. https://example.com/…")
    return value


class OAuthConfig(FileModel):
    """Sign in to a remote server with OAuth; the tokens and every secret live in the keyring."""

    scopes: list[str] | None = Field(
        default=None, max_length=50, description="scopes to ask for; default: what the server asks for"
    )
    client_name: str = Field(default="ContextDesk", min_length=1, max_length=200)
    grant: OAuthGrant = Field(
        default="authorization-code",
        description="authorization-code (you sign in), client-credentials (the app signs in as "
        "itself) or cross-app-access (your company's identity provider vouches for you)",
    )
    client_id: str | None = Field(
        default=None,
        min_length=1,
        max_length=500,
        description="a client registered with the server's authorization server; set, no dynamic registration",
    )
    client_metadata_url: str | None = Field(
        default=None,
        max_length=2000,
        description="https URL of this client's metadata document, used as the client id where "
        "the server supports it (client ID metadata documents)",
    )
    client_auth: ClientAuthMethod | None = Field(
        default=None,
        description="how the client proves itself; default: client_secret_basic with a stored "
        "secret, private_key_jwt with a stored key, else none",
    )
    signing_algorithm: SigningAlgorithm | None = Field(
        default=None,
        description="for private_key_jwt; default: from the key (ES256 for P-256, RS256 for RSA)",
    )
    issuer: str | None = Field(
        default=None,
        max_length=2000,
        description="the authorization server the client is registered with; default: the one the "
        "server's metadata names",
    )
    redirect_port: int | None = Field(
        default=None,
        ge=1024,
        le=65535,
        description="the loopback port registered for a pre-registered client; default: any free port",
    )
    idp_token_endpoint: str | None = Field(
        default=None, max_length=2000, description="cross-app access: the identity provider's token endpoint"
    )
    idp_client_id: str | None = Field(
        default=None,
        min_length=1,
        max_length=500,
        description="cross-app access: this client's id at the identity provider",
    )

    @model_validator(mode="before")
    @classmethod
    def _no_secret_in_the_file(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for key in SECRET_KEYS.intersection(data):
                # The value is not repeated: the message may be shown or logged.
                raise ValueError(
                    f"oauth.{key} is a secret, never kept in agent.yaml: remove it and store it in the "
                    f"keyring with `contextdesk mcp set-secret AGENT_DIR SERVER {_SECRET_FIX[key]}` "
                    "(or the server dialog)"
                )
        return data

    @field_validator("client_metadata_url")
    @classmethod
    def _metadata_url(cls, value: str | None) -> str | None:
        checked = _http_url(value, what="clientMetadataUrl", https_only=True)
        if checked is not None and urlsplit(checked).path in ("", "/"):
            raise ValueError("clientMetadataUrl must name a document, e.g. https://example.com/client.json")
        return checked

    @field_validator("issuer")
    @classmethod
    def _issuer(cls, value: str | None) -> str | None:
        return _http_url(value, what="issuer")

    @field_validator("idp_token_endpoint")
    @classmethod
    def _idp_endpoint(cls, value: str | None) -> str | None:
        return _http_url(value, what="idpTokenEndpoint")

    @model_validator(mode="after")
    def _grant_has_what_it_needs(self) -> Self:
        if self.client_id is not None and self.client_metadata_url is not None:
            raise ValueError(
                "set clientId or clientMetadataUrl, not both: a client id metadata URL is the client id"
            )
        if self.grant != "authorization-code" and self.client_id is None:
            raise ValueError(f"grant {self.grant} needs clientId: the client registered for this server")
        if self.grant == "cross-app-access" and (
            self.idp_token_endpoint is None or self.idp_client_id is None
        ):
            raise ValueError(
                "grant cross-app-access needs idpTokenEndpoint and idpClientId: where and as whom "
                "ContextDesk exchanges your identity provider's ID token"
            )
        if self.client_auth == "private_key_jwt" and self.grant != "client-credentials":
            raise ValueError("clientAuth private_key_jwt is for grant client-credentials only")
        return self
