"""The server dialog's OAuth part: whether a remote server signs in, how, and as which client.

Its secrets (client secret, identity provider's ID token) are typed in password boxes and handed
to the caller to keep in the system keyring; they are never part of the server's settings. Left
empty, a secret stored before stays as it is.
"""

from __future__ import annotations

from pydantic import ValidationError
from PySide6.QtWidgets import QCheckBox, QComboBox, QFormLayout, QGroupBox, QLineEdit, QWidget

from agent_core.agent.oauth_settings import OAuthConfig, OAuthGrant
from agent_core.mcp.oauth_storage import OAuthSecretKind

__all__ = ["GRANTS", "OAuthSection"]

#: The grants offered, sign-in first (the default).
GRANTS: tuple[tuple[str, OAuthGrant], ...] = (
    ("I sign in, in the browser", "authorization-code"),
    ("The app signs in as itself (client credentials)", "client-credentials"),
    ("My company's identity provider (cross-app access)", "cross-app-access"),
)
_KEEP_STORED = "kept in the system keyring; leave empty to keep the one stored"


class OAuthSection(QGroupBox):
    """``config()`` gives the ``oauth`` value for the server (False when it does not sign in);
    ``secrets()`` what was typed for the keyring."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("OAuth", parent)
        self._original: OAuthConfig | None = None
        form = QFormLayout(self)
        self.enabled = QCheckBox("The server asks me to sign in (OAuth)")
        self.grant = QComboBox()
        for label, grant in GRANTS:
            self.grant.addItem(label, grant)
        self.client_id = QLineEdit()
        self.client_id.setPlaceholderText("a client registered for you; empty: ContextDesk registers itself")
        self.client_secret = QLineEdit()
        self.client_secret.setEchoMode(QLineEdit.EchoMode.Password)
        self.client_secret.setPlaceholderText(_KEEP_STORED)
        self.metadata_url = QLineEdit()
        self.metadata_url.setPlaceholderText("https://… client metadata document, used as the client id")
        self.issuer = QLineEdit()
        self.issuer.setPlaceholderText("the authorization server; empty: the one the server names")
        self.idp_endpoint = QLineEdit()
        self.idp_endpoint.setPlaceholderText("https://idp.example.com/oauth2/token")
        self.idp_client_id = QLineEdit()
        self.id_token = QLineEdit()
        self.id_token.setEchoMode(QLineEdit.EchoMode.Password)
        self.id_token.setPlaceholderText(_KEEP_STORED)
        form.addRow(self.enabled)
        form.addRow("Grant", self.grant)
        form.addRow("Client id", self.client_id)
        form.addRow("Client secret", self.client_secret)
        form.addRow("Client metadata URL", self.metadata_url)
        form.addRow("Issuer", self.issuer)
        form.addRow("Identity provider token URL", self.idp_endpoint)
        form.addRow("Identity provider client id", self.idp_client_id)
        form.addRow("Identity provider ID token", self.id_token)
        self._form = form
        self.enabled.toggled.connect(lambda _on: self._show())
        self.grant.currentIndexChanged.connect(lambda _i: self._show())
        self._show()

    def lines(self) -> tuple[QLineEdit, ...]:
        """The settings typed in (the secrets are not checked, so not among them)."""
        return (self.client_id, self.metadata_url, self.issuer, self.idp_endpoint, self.idp_client_id)

    def load(self, oauth: bool | OAuthConfig) -> None:
        """Show a server's ``oauth`` setting."""
        self.enabled.setChecked(bool(oauth))
        if isinstance(oauth, OAuthConfig):
            self._original = oauth
            self.grant.setCurrentIndex(max(0, self.grant.findData(oauth.grant)))
            for line, value in (
                (self.client_id, oauth.client_id),
                (self.metadata_url, oauth.client_metadata_url),
                (self.issuer, oauth.issuer),
                (self.idp_endpoint, oauth.idp_token_endpoint),
                (self.idp_client_id, oauth.idp_client_id),
            ):
                line.setText(value or "")
        self._show()

    def config(self) -> bool | OAuthConfig:
        """The server's ``oauth`` value: False, True (sign in, all defaults) or the settings.

        Raises:
            ValueError: the settings cannot work; the message says which and why.
        """
        if not self.enabled.isChecked():
            return False
        typed = {
            "grant": self.grant.currentData(),
            "client_id": self.client_id.text().strip() or None,
            "client_metadata_url": self.metadata_url.text().strip() or None,
            "issuer": self.issuer.text().strip() or None,
            "idp_token_endpoint": self.idp_endpoint.text().strip() or None,
            "idp_client_id": self.idp_client_id.text().strip() or None,
        }
        # What the form does not show (scopes, client name, client auth…) stays as the file has it.
        kept = self._original.model_dump(exclude=set(typed), exclude_unset=True) if self._original else {}
        settings = {**kept, **{key: value for key, value in typed.items() if value is not None}}
        if settings == {"grant": "authorization-code"} and not kept:
            return True
        try:
            return OAuthConfig.model_validate(settings)
        except ValidationError as error:
            first = error.errors(include_url=False)[0]
            raise ValueError(f"OAuth: {first['msg'].removeprefix('Value error, ')}") from None

    def secrets(self) -> dict[OAuthSecretKind, str]:
        """The secrets typed now, to keep in the keyring (an empty box changes nothing)."""
        if not self.enabled.isChecked():
            return {}
        typed: dict[OAuthSecretKind, str] = {
            "client-secret": self.client_secret.text().strip(),
            "idp-id-token": self.id_token.text().strip(),
        }
        return {kind: value for kind, value in typed.items() if value}

    def _show(self) -> None:
        on = self.enabled.isChecked()
        grant = self.grant.currentData()
        visible = {
            self.grant: on,
            self.client_id: on,
            self.client_secret: on,
            self.metadata_url: on and grant == "authorization-code",
            self.issuer: on and grant != "authorization-code",
            self.idp_endpoint: on and grant == "cross-app-access",
            self.idp_client_id: on and grant == "cross-app-access",
            self.id_token: on and grant == "cross-app-access",
        }
        for field, shown in visible.items():
            self._form.setRowVisible(field, shown)
