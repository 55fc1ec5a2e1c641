"""The one parser of a model's tool-call arguments: strict JSON, one object, or nothing runs.

The OpenAI-compatible wire carries a call's arguments as raw text. LangChain's partial-JSON
parser repairs what it can (`{not json` becomes `{}`, the last duplicate key wins, trailing text
is ignored), which would run a tool with values the model never sent. Here the text must be
exactly one JSON object with unique keys and finite numbers (empty text: no arguments; `1e400`,
which Python reads as inf, is as malformed as NaN); anything else is a BadToolArgs whose `why`
is fixed English text for the model to correct its call.
"""

from __future__ import annotations

import json
import math
from typing import Any


class BadToolArgs(ValueError):
    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


NOT_JSON = "are not valid JSON"
DUPLICATE = "name the same key twice"
TRAILING = "have text after the JSON object"
NOT_OBJECT = "are not a JSON object"
NOT_FINITE = "contain NaN or Infinity, which JSON does not allow"
TOO_LARGE = "hold a number too large to use"
TOO_DEEP = "are nested too deeply"


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise BadToolArgs(DUPLICATE)
        out[k] = v
    return out


def _no_constant(name: str) -> Any:
    raise BadToolArgs(NOT_FINITE)


def _finite(text: str) -> float:
    """A JSON number with a fraction or exponent; one Python cannot hold (`1e400` is inf) is malformed."""
    value = float(text)
    if not math.isfinite(value):
        raise BadToolArgs(NOT_FINITE)
    return value


def parse_tool_args(raw: str | None) -> dict[str, Any]:
    """The arguments as a dict, or BadToolArgs."""
    if raw is None or not raw.strip():
        return {}
    decoder = json.JSONDecoder(object_pairs_hook=_unique, parse_constant=_no_constant, parse_float=_finite)
    try:
        value, end = decoder.raw_decode(raw.lstrip())
    except json.JSONDecodeError:
        raise BadToolArgs(NOT_JSON) from None
    except BadToolArgs:
        raise
    except ValueError:  # an integer of more digits than int() takes (sys.get_int_max_str_digits)
        raise BadToolArgs(TOO_LARGE) from None
    except RecursionError:
        raise BadToolArgs(TOO_DEEP) from None
    if raw.lstrip()[end:].strip():
        raise BadToolArgs(TRAILING)
    if not isinstance(value, dict):
        raise BadToolArgs(NOT_OBJECT)
    return value


def refusal_text(tool: str, why: str) -> str:
    """The tool result the model gets instead of running the call."""
    return (f"This call of {tool} was not run: its arguments {why}. "
            "Send the call again with the arguments as a single JSON object that matches the tool's schema.")
