"""A tool call wrapped in a made-up dispatcher, unwrapped (pure).

Small local models often call a tool through a dispatcher that does not exist:
`call_tool(function_name="read_text_file", arguments={"path": "notes.txt"})`, or
`use_tool(name="web_search", query="...")`. The 1.5B model did it on every try in a first session
with a filesystem server, failed twice and gave up. When the name is no tool and its arguments
name exactly one tool that is, the call is that tool's: the model could have called it directly,
and the permission gate still decides whether it runs. Anything less clear stays as it was (the
model gets the usual "no such tool" error): an unknown key beside the two, a second name, inner
arguments that are not an object.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from client.core.toolargs import BadToolArgs, parse_tool_args

NAME_KEYS = ("function_name", "tool_name", "name", "tool", "function")
ARGS_KEYS = ("arguments", "args", "parameters", "params", "input", "tool_input", "kwargs")


def unwrapped(name: str, args: Mapping[str, Any], known: Callable[[str], bool]) -> tuple[str, dict[str, Any]] | None:
    """(tool, arguments) when `name` is no tool and `args` names one that is; else None."""
    if known(name) or not isinstance(args, Mapping):
        return None
    names = [k for k in NAME_KEYS if k in args]
    if len(names) != 1 or not isinstance(args[names[0]], str) or not known(args[names[0]]):
        return None
    tool = args[names[0]]
    rest = {k: v for k, v in args.items() if k != names[0]}
    inner = [k for k in ARGS_KEYS if k in rest]
    if not inner:  # use_tool(name="web_search", query="...")
        return tool, rest
    if len(inner) > 1 or len(rest) > 1:
        return None
    value = rest[inner[0]]
    if isinstance(value, str):  # the arguments as JSON text: read as strictly as any call's
        try:
            value = parse_tool_args(value)
        except BadToolArgs:
            return None
    return (tool, dict(value)) if isinstance(value, Mapping) else None
