"""The grammar a local model's tool arguments are generated under.

llama.cpp turns a JSON schema into a GBNF grammar that keeps every required property (in order),
but its string characters are ``[^"\\]``: a raw control character (a newline, a tab, U+0000) can
be generated inside a string, and the JSON is then invalid ("Invalid control character"); asked
again, the model writes the same thing. Here the string and pattern character rules exclude
U+0000-U+001F, so a line break can only be written as the escape ``\\n``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from agent_core.errors import ProviderRequestError

__all__ = ["JSON_STRING_CHAR", "argument_grammar", "llama_argument_grammar", "missing_required_arguments"]

#: One character of a JSON string: anything but a quote, a backslash or a control character, or an escape.
JSON_STRING_CHAR = (
    r'[^"\\\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F])'
)
# Any character of a ``pattern`` string but a control character (llama.cpp's only leaves out \r and \n).
_PATTERN_CHAR = r"[^\x00-\x1F]"

# The character rules llama.cpp's converter writes, each replaced whole.
_REPLACED_RULES = {"char": JSON_STRING_CHAR, "dot": _PATTERN_CHAR}
_RULE = re.compile(r"^(?P<name>[\w-]+) ::= .*$", re.MULTILINE)


def argument_grammar(schema: Mapping[str, Any]) -> str:
    """The GBNF grammar of a JSON object following ``schema`` whose strings hold no raw control
    character.

    Raises:
        ProviderRequestError: llama.cpp cannot turn ``schema`` into a grammar.
    """
    from llama_cpp.llama_grammar import json_schema_to_gbnf  # optional dependency, loaded with the model

    try:
        grammar = json_schema_to_gbnf(json.dumps(dict(schema)))
    except (ValueError, KeyError, TypeError, NotImplementedError) as error:
        raise ProviderRequestError(
            f"The tool's input schema cannot be turned into a grammar for the local model ({error}): "
            "simplify the tool's input schema, or use a model that calls tools itself."
        ) from error

    def replace_rule(match: re.Match[str]) -> str:
        name = match.group("name")
        return f"{name} ::= {_REPLACED_RULES[name]}" if name in _REPLACED_RULES else match.group(0)

    return _RULE.sub(replace_rule, grammar)


def llama_argument_grammar(schema: Mapping[str, Any]) -> Any:
    """:func:`argument_grammar` as a llama.cpp ``LlamaGrammar``.

    Raises:
        ProviderRequestError: the grammar cannot be built from ``schema``.
    """
    from llama_cpp.llama_grammar import LlamaGrammar

    try:
        return LlamaGrammar.from_string(argument_grammar(schema), verbose=False)
    except ValueError as error:
        raise ProviderRequestError(
            f"llama.cpp did not accept the grammar of the tool's arguments ({error}): simplify the "
            "tool's input schema, or use a model that calls tools itself."
        ) from error


def missing_required_arguments(arguments: Mapping[str, Any], schema: Mapping[str, Any]) -> list[str]:
    """The required arguments the model gave no value for. The grammar makes it write each one,
    but when the message gives nothing it writes a blank or the "..." of the instruction's
    example: a string with no letter or digit counts as missing."""
    missing = []
    for name in schema.get("required", ()):
        value = arguments.get(name)
        if value is None or (isinstance(value, str) and _WORD.search(value) is None):
            missing.append(name)
    return missing


_WORD = re.compile(r"\w+")
