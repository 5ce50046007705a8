"""The client command the MCP conformance suite runs: ContextDesk's own command line, used as a user would.

The suite starts a test server for one scenario and runs ``client.py URL`` with the scenario's name in
``MCP_CONFORMANCE_SCENARIO`` (and its data in ``MCP_CONFORMANCE_CONTEXT``). This script writes a
temporary agent folder whose one server is that URL (with the OAuth client the scenario hands out, its
secrets kept with ``contextdesk mcp set-secret``), trusts it (``contextdesk agent trust``), signs in
where the scenario wants OAuth (``contextdesk mcp login --no-browser``, following the printed URL as a
browser would: the suite's authorization server approves at once and redirects to ContextDesk's
loopback listener), lists the tools (``contextdesk agent show --json``) and calls what the scenario
asks for (``contextdesk mcp call``), answering forms with their defaults like a user pressing Enter.

Every command runs in a child process of this checkout's code with its own config folder and a
keyring in a file of the temporary folder, never the real one. The first command that fails ends
the run with exit code 1; what each command printed goes to stderr, which the suite keeps per scenario.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

import httpx2

REPO_ROOT = Path(__file__).resolve().parents[2]
SERVER = "conformance"
COMMAND_TIMEOUT_SECONDS = 60.0  # the tests give a scenario 120 s (tests/support/conformance.py)

# What the CLI writes when it waits for the user: a sign-in URL, a form field, the form's last question.
_SIGN_IN_AT = "needs you to sign in at:"
_FIELD_PROMPT = re.compile(r"  > [^\n]*: $")
_SEND_PROMPT = "[s]end / [d]ecline / [c]ancel: "

# Scenario → the tool calls a user makes after listing the tools (name, arguments).
_CALLS: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "tools_call": [("add_numbers", {"a": 5, "b": 3})],
    "request-metadata": [("add_numbers", {"a": 5, "b": 3})],
    "http-standard-headers": [("add_numbers", {"a": 5, "b": 3})],
    "sse-retry": [("test_reconnection", {})],
    "elicitation-sep1034-client-defaults": [("test_client_elicitation_defaults", {})],
    "sep-2322-client-request-state": [
        ("test_mrtr_echo_state", {}),
        ("test_mrtr_unrelated", {}),
        ("test_mrtr_no_state", {}),
        ("test_mrtr_no_result_type", {}),
    ],
}
# The client ID metadata document the suite's CIMD scenario expects as the client id (its fixture's URL).
CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"
# The grants of the optional OAuth extensions, by the scenarios that use them.
_GRANTS = {
    "auth/client-credentials-basic": "client-credentials",
    "auth/client-credentials-jwt": "client-credentials",
    "auth/enterprise-managed-authorization": "cross-app-access",
}
# Scenarios whose server only answers tools/list.
_LIST_ONLY = {"initialize", "json-schema-ref-no-deref"}


class User:
    """One person at a terminal, with a browser, trying one server in a fresh agent folder."""

    def __init__(self, folder: Path, url: str, scenario: str) -> None:
        self.agent = folder / "agent"
        self.scenario = scenario
        self.signs_in = scenario.startswith("auth/")
        self.env = {
            **os.environ,
            "CONTEXTDESK_HOME": str(folder / "home"),
            "PYTHON_KEYRING_BACKEND": "tests.support.file_keyring.FileKeyring",
            "CONTEXTDESK_TEST_KEYRING": str(folder / "keyring.json"),
            "PYTHONPATH": str(REPO_ROOT),
        }
        self.agent.mkdir()
        self.context: dict[str, Any] = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
        oauth, self.secrets = _oauth_settings(scenario, self.context)
        server = {"type": "streamable-http", "url": url, **({"oauth": oauth} if self.signs_in else {})}
        (self.agent / "agent.yaml").write_text(
            json.dumps({"name": "Conformance", "mcpServers": {SERVER: server}}), encoding="utf-8"
        )

    def run(self) -> int:
        self.contextdesk("agent", "trust", str(self.agent))
        for kind, value in self.secrets.items():
            self.contextdesk("mcp", "set-secret", str(self.agent), SERVER, kind, typed=value)
        if self.signs_in:
            self.contextdesk("mcp", "login", str(self.agent), SERVER, "--no-browser")
        # `mcp call` lists the tools itself; `agent show` is for finding out which ones there are.
        tools = [] if self.scenario in _CALLS else self.list_tools()
        for name, arguments in self.calls(tools):
            self.contextdesk(
                "mcp", "call", str(self.agent), SERVER, name, "--args", json.dumps(arguments), "--no-browser"
            )
        return 0

    def list_tools(self) -> list[dict[str, Any]]:
        shown = json.loads(self.contextdesk("agent", "show", str(self.agent), "--json"))
        server = next(s for s in shown["mcpServers"] if s["name"] == SERVER)
        if server["status"]["state"] != "ready":
            raise Failed(f"the server is {server['status']['state']}: {server['status']['reason']}")
        tools: list[dict[str, Any]] = server["availableTools"]
        return tools

    def calls(self, tools: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
        if self.scenario in _CALLS:
            return _CALLS[self.scenario]
        if self.scenario in _LIST_ONLY:
            return []
        if self.scenario == "http-custom-headers":
            listed = {tool["name"] for tool in tools}
            return [
                (c["name"], c.get("arguments") or {})
                for c in self.context.get("toolCalls", [])
                if c["name"] in listed
            ]
        if self.scenario == "json-schema-2020-12-preservation":
            focal = next(tool for tool in tools if tool["name"] == "json_schema_2020_12_tool")
            return [("json_schema_echo", {"schema": focal["inputSchema"]})]
        if self.scenario == "http-invalid-tool-headers":
            return [(tool["name"], _stub_arguments(tool.get("inputSchema") or {})) for tool in tools]
        # The auth scenarios and any other: call the first tool, as the SDKs' own conformance clients do.
        return [(tools[0]["name"], {})] if tools else []

    def contextdesk(self, *arguments: str, typed: str | None = None) -> str:
        """Run one command, answering what it asks as the user (or giving it ``typed`` on its
        standard input); its stdout, or Failed."""
        command = [sys.executable, "-m", "agent_core.cli.main", *arguments]
        print(f"$ contextdesk {' '.join(arguments)}", file=sys.stderr, flush=True)
        with tempfile.TemporaryFile() as out:
            process = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=out,
                stderr=subprocess.PIPE,
                env=self.env,
                cwd=REPO_ROOT,
            )
            if typed is not None:
                assert process.stdin is not None
                process.stdin.write(typed.encode())
                process.stdin.close()
            reader = threading.Thread(target=self._answer, args=(process,), daemon=True)
            reader.start()
            try:
                code = process.wait(timeout=COMMAND_TIMEOUT_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
                raise Failed(f"`contextdesk {arguments[0]} {arguments[1]}` did not end in time") from None
            reader.join(timeout=5)
            out.seek(0)
            printed = out.read().decode("utf-8", "replace")
        print(printed, file=sys.stderr, flush=True)
        if code != 0:
            raise Failed(f"`contextdesk {arguments[0]} {arguments[1]}` exited with {code}")
        return printed

    def _answer(self, process: subprocess.Popen[bytes]) -> None:
        """Read what the command writes to stderr (echoed to ours) and answer it like the user."""
        assert process.stderr is not None and process.stdin is not None
        seen = ""
        while chunk := os.read(process.stderr.fileno(), 4096):
            text = chunk.decode("utf-8", "replace")
            sys.stderr.write(text)
            seen += text
            if _SIGN_IN_AT in seen:
                after = seen.split(_SIGN_IN_AT, 1)[1]
                if "\n" in after.lstrip("\n"):
                    url = after.strip().splitlines()[0].strip()
                    seen = ""
                    _open_in_browser(url)
            elif _FIELD_PROMPT.search(seen) or seen.endswith(_SEND_PROMPT):
                answer = "s\n" if seen.endswith(_SEND_PROMPT) else "\n"  # Enter takes each default
                seen = ""
                try:
                    process.stdin.write(answer.encode())
                    process.stdin.flush()
                except BrokenPipeError:
                    return


class Failed(Exception):
    """A command failed; the message says which."""


def _oauth_settings(scenario: str, context: dict[str, Any]) -> tuple[dict[str, Any] | bool, dict[str, str]]:
    """The server's ``oauth`` block a user writes for the scenario's authorization server, and the
    secrets they store with ``contextdesk mcp set-secret`` (kind → value), from what the scenario
    hands out (its context: a client registered beforehand, its secret or key, an identity provider)."""
    oauth: dict[str, Any] = {}
    secrets: dict[str, str] = {}
    if scenario == "auth/basic-cimd":
        oauth["clientMetadataUrl"] = CLIENT_METADATA_URL
    if scenario in _GRANTS:
        oauth["grant"] = _GRANTS[scenario]
    if "client_id" in context:
        oauth["clientId"] = context["client_id"]
    if "client_secret" in context:
        secrets["client-secret"] = context["client_secret"]
    if "private_key_pem" in context:
        secrets["private-key"] = context["private_key_pem"]
        if "signing_algorithm" in context:
            oauth["signingAlgorithm"] = context["signing_algorithm"]
    if "idp_token_endpoint" in context:
        oauth["idpTokenEndpoint"] = context["idp_token_endpoint"]
        oauth["idpClientId"] = context["idp_client_id"]
        secrets["idp-id-token"] = context["idp_id_token"]
    return oauth or True, secrets


def _open_in_browser(url: str) -> None:
    """The browser: the authorization server answers with a redirect to the loopback listener."""
    print(f"(browser) GET {url}", file=sys.stderr, flush=True)
    with httpx2.Client(timeout=10) as browser:
        page = browser.get(url)
        location = page.headers.get("location")
        if page.is_redirect and location:
            landed = browser.get(location)
            print(f"(browser) {landed.status_code} {landed.text[:200]}", file=sys.stderr, flush=True)
        else:
            print(f"(browser) {page.status_code} {page.text[:200]}", file=sys.stderr, flush=True)


def _stub_arguments(schema: dict[str, Any]) -> dict[str, Any]:
    """Values for a tool's required arguments, as a user would type something of the asked type."""
    by_type = {"string": "x", "integer": 0, "number": 0, "boolean": False, "object": {}, "array": []}
    properties = schema.get("properties", {})
    return {
        name: by_type.get(properties.get(name, {}).get("type"), "x") for name in schema.get("required", [])
    }


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: client.py SERVER_URL (run by the MCP conformance suite)", file=sys.stderr)
        return 2
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    with tempfile.TemporaryDirectory(prefix="contextdesk-conformance-") as folder:
        try:
            return User(Path(folder), argv[-1], scenario).run()
        except Failed as failure:
            print(f"conformance client: {failure}", file=sys.stderr)
            return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
