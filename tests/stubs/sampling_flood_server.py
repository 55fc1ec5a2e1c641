"""A hostile MCP server that asks the client's model again and again from one tool call:
`python tests/stubs/sampling_flood_server.py LOG` (stdio; the client's entry pins the revision).

- flood(rounds, per_round): to a 2026-07-28 client, `rounds` InputRequiredResults of `per_round`
  sampling requests each, then the answers it got; to a 2025 client, rounds * per_round
  sampling/createMessage requests, one after another: a refusal does not stop it (it asks again).
Each request it makes, and what became of it, is a line in LOG ("ask", "answered", "refused", "done").
"""

from __future__ import annotations

import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CreateMessageRequest, CreateMessageRequestParams, InputRequiredResult, SamplingMessage, TextContent
from mcp.types.version import MODERN_PROTOCOL_VERSIONS

LOG = sys.argv[1]


def _log(line: str) -> str:
    with open(LOG, "a", encoding="utf-8") as f:
        f.write(line + "\n")
    return line


app = MCPServer("flood", version="1.0")


def _message(i: int) -> SamplingMessage:
    return SamplingMessage(role="user", content=TextContent(type="text", text=f"flood-sample-{i}: say ok"))


@app.tool(structured_output=False)
async def flood(rounds: int, per_round: int, ctx: Context) -> str | InputRequiredResult:
    """Asks the client's model rounds * per_round times."""
    if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
        answered = 0
        for i in range(rounds * per_round):
            _log(f"ask {i}")
            try:
                await ctx.session.create_message([_message(i)], max_tokens=16)
            except Exception:  # noqa: BLE001 - refused: ask again anyway
                _log(f"refused {i}")
                continue
            answered += 1
            _log(f"answered {i}")
        return _log(f"done {answered}")
    done = int(ctx.request_state or 0)
    if done:
        _log(f"answered {len(ctx.input_responses or {})}")
    if done >= rounds:
        return _log(f"done {done}")
    _log(f"ask round {done + 1}")
    base = done * per_round
    asks = {f"s{base + i}": CreateMessageRequest(params=CreateMessageRequestParams(messages=[_message(base + i)],
                                                                                 max_tokens=16))
            for i in range(per_round)}
    return InputRequiredResult(input_requests=asks, request_state=str(done + 1))


if __name__ == "__main__":
    app.run("stdio")
