"""Which file paths a message names: read conservatively, with bounded work."""

from __future__ import annotations

import time

import pytest

from agent_core.context.file_mentions import MAX_PATHS, path_of_uri, paths_in_message


@pytest.mark.parametrize(
    ("message", "paths"),
    [
        ("Add a loading state to src/components/Button.tsx please", ["src/components/Button.tsx"]),
        ("why does utils.py fail?", ["utils.py"]),
        ("see `app/main.ts`, line 3", ["app/main.ts"]),
        ("the error is at (lib/net.rs:42:7).", ["lib/net.rs"]),
        ("open ./src/app/page.tsx#L10-L20", ["src/app/page.tsx"]),
        ("on Windows: C:\\work\\app\\main.py", ["C:/work/app/main.py"]),
        ("https://github.com/acme/app/blob/main/src/api.ts", ["github.com/acme/app/blob/main/src/api.ts"]),
        ("update the Dockerfile", ["Dockerfile"]),
        ("`.env` holds the keys", [".env"]),
        ("`settings.toml` then settings.toml again", ["settings.toml"]),
    ],
)
def test_paths_and_file_names_in_a_message_are_found(message: str, paths: list[str]) -> None:
    assert paths_in_message(message) == paths


@pytest.mark.parametrize(
    "message",
    [
        "How do I center a div?",
        "We use Node.js 20, e.g. for version 1.2 of the API.",
        "Thanks. Done!",
        "the @rule:sql-style rule",
    ],
)
def test_words_that_are_not_files_are_not_paths(message: str) -> None:
    assert paths_in_message(message) == []


def test_a_huge_message_is_read_in_bounded_time_and_paths() -> None:
    message = " ".join(f"src/module{i}/file{i}.py" for i in range(50_000)) + " " + "x" * 1_000_000
    started = time.perf_counter()
    paths = paths_in_message(message)
    assert len(paths) == MAX_PATHS
    assert time.perf_counter() - started < 2.0


@pytest.mark.parametrize(
    ("uri", "path"),
    [
        ("file:///home/me/app/src/main.ts", "/home/me/app/src/main.ts"),
        ("repo://acme/app/src/components/Button.tsx", "acme/app/src/components/Button.tsx"),
        ("file:///C:/work/my%20app/main.py", "/C:/work/my app/main.py"),
        ("demo://greeting", None),
    ],
)
def test_the_path_of_an_attached_resource_is_what_follows_its_scheme(uri: str, path: str | None) -> None:
    assert path_of_uri(uri) == path
