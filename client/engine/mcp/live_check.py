"""A call is checked against the server's live definition before it runs (issue 48).

The model may have been offered a tool from a saved list (saved_tools.py) or the shipped one of the
bundled server (bundled.py), before the server was up, or from a listing the server has changed
since. What it was offered never authorizes anything: the tool must still be in the server's live
list with the same approval fingerprint (client/core/toolprint.py: description and title, input
schema, annotations), and the arguments must fit the live input schema. Otherwise the call is not
run and the model reads one sentence (fixed English, as every tool error); the turn goes on, and
the next request carries the live definition, whose approval is asked for again where it changed
(permissions.py binds approvals to that fingerprint).
"""

from __future__ import annotations

from typing import Any

from mcp import types

from client.core.schema_args import args_problem
from client.core.toolprint import changed_parts, tool_print
from client.engine.mcp.permissions import Verdict

GONE = "The tool {tool} is no longer offered by MCP server {server}, so this call was not run."
REDEFINED = ("The tool {tool} of MCP server {server} changed ({what}) since its definition was sent to you, so "
             "this call was not run; its current definition comes with the user's next message.")
UNREACHABLE = "MCP server {server} could not be reached to check the tool {tool} ({err}), so this call was not run."
BAD_ARGS = "The arguments do not fit the input schema of {tool} on MCP server {server} ({err}), so this call was not run."


def tool_definition(tool: types.Tool) -> dict[str, Any]:
    """What an approval is bound to, as plain data (client/core/toolprint.py): the SDK's field
    names stop here."""
    hints = tool.annotations
    # by_alias: the wire names (readOnlyHint, ...), as SDK 1.x dumped them, so approvals saved before stay bound
    return {"description": tool.description, "title": tool.title, "input_schema": tool.input_schema,
            "annotations": hints.model_dump(mode="json", by_alias=True, exclude_none=True) if hints else {}}


def check(server: str, offered: types.Tool, live: types.Tool | None, args: dict) -> Verdict | None:
    """None when the call may go on to the permission check; else why it does not run."""
    if live is None:
        return Verdict(False, "gone", text=GONE.format(tool=offered.name, server=server))
    changed = changed_parts(tool_print(tool_definition(live)), tool_print(tool_definition(offered)))
    if changed:
        return Verdict(False, "redefined", changed=changed,
                       text=REDEFINED.format(tool=offered.name, server=server, what=", ".join(changed)))
    problem = args_problem(live.input_schema, args)
    if problem:
        return Verdict(False, "bad_args", text=BAD_ARGS.format(tool=live.name, server=server, err=problem))
    return None


def unreachable(server: str, tool: str, err: str) -> Verdict:
    return Verdict(False, "unreachable", text=UNREACHABLE.format(tool=tool, server=server, err=err))
