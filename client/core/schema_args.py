"""Do a call's arguments fit the tool's live input schema? Pure (issue 48).

The schema is the server's (untrusted): it is only read by jsonschema, which fetches nothing (a
`$ref` it cannot resolve makes the schema one we cannot check). Regular expressions of the schema
(`pattern`, `patternProperties`) are not run: a hostile pattern would hold the client's one thread
(Python's `re` has no timeout); the server checks its own patterns. A type error the server's usual
lax parsing would accept (`"10"` for an integer, `1` for a boolean) is no error here either, nor is
null for an optional argument (models send it for "not given"; MCP's SEP-2243 defines it as omitted).
"""

from __future__ import annotations

import functools
import re
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError

MAX_TEXT = 200
_NUMBER = re.compile(r"\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*")
_INTEGER = re.compile(r"\s*[+-]?\d+\s*")
_BOOLEAN = {"true", "false", "1", "0", "yes", "no", "on", "off"}


def _skip(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
    return iter(())


def _extras(validator: Any, extra: Any, instance: Any, schema: Any) -> Any:
    """additionalProperties, unless the node also has patternProperties (not run, see above)."""
    if "patternProperties" in schema:
        return iter(())
    return Draft202012Validator.VALIDATORS["additionalProperties"](validator, extra, instance, schema)


@functools.cache
def _lenient(cls: type) -> type:
    return validators.extend(cls, {"pattern": _skip, "patternProperties": _skip, "additionalProperties": _extras})


def _coercible(instance: Any, wanted: Any) -> bool:
    kinds = wanted if isinstance(wanted, list) else [wanted]
    for kind in kinds:
        if kind == "integer" and (isinstance(instance, float) and instance.is_integer()
                                  or isinstance(instance, str) and _INTEGER.fullmatch(instance)):
            return True
        if kind == "number" and isinstance(instance, str) and _NUMBER.fullmatch(instance):
            return True
        if kind == "boolean" and (instance in (0, 1) and not isinstance(instance, float)
                                  or isinstance(instance, str) and instance.strip().lower() in _BOOLEAN):
            return True
    return False


def args_problem(schema: Any, args: Any) -> str | None:
    """One line saying why `args` do not fit `schema`; None when they do, or the schema cannot be checked."""
    if not isinstance(schema, dict):
        return None
    try:
        cls = _lenient(validators.validator_for(schema, default=Draft202012Validator))
        for err in cls(schema).iter_errors(args):
            if err.validator == "type" and (_coercible(err.instance, err.validator_value)
                                            or _omitted(schema, list(err.absolute_path), err.instance)):
                continue
            return _describe(err)
    except Exception:  # noqa: BLE001 - a schema jsonschema cannot use (unresolvable $ref, bad keyword)
        return None
    return None


def _omitted(schema: dict, path: list, instance: Any) -> bool:
    """A top-level optional argument given as null."""
    required = schema.get("required")
    return instance is None and len(path) == 1 and not (isinstance(required, list) and path[0] in required)


def _describe(err: ValidationError) -> str:
    where = ".".join(str(p) for p in err.absolute_path)
    line = " ".join((f"{where}: {err.message}" if where else err.message).split())
    return line if len(line) <= MAX_TEXT else line[: MAX_TEXT - 1] + "…"
