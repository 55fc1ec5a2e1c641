"""Which tool schemas a request carries when there are many (issue 41). Pure.

Every schema goes out with every request, so many servers crowd out the conversation (200
tools are about 30K tokens; bench/tools_bench.py). When the schemas would take more than
DEFER_SHARE of the request budget (or there are more than MAX_TOOLS_PER_REQUEST), a request
carries instead:
1. the search tool (client/engine/tool_search.py), first;
2. the tools the thread has called so far, in the order of their first call. A resumed thread
   derives them from its transcript, so its 20th request is the one it would have sent anyway,
   and a tool joins at the end of the list: the prefix a provider's prompt cache keeps holds;
3. the tools this turn's searches found (in the order they were found), so the model can call
   them in its next step.
2 and 3 share a cap of DEFER_SHARE of the budget: past it the least recently used or found go
first; the newest search's matches stay up to MAX_TOOL_SHARE of the budget (its first match always).
A tool whose schema alone takes more than MAX_TOOL_SHARE of the budget is offered in no mode at
all (`oversized`), so nothing a search finds can make a request too big. A tool missing from the list still runs when the
model names it (the agent knows every tool): it then counts as used. A call of a name that is no
tool (a small model writes `create_issue` or `search` for `tool_search`) counts as a search for
its name's words and its text arguments: the tools it meant are attached to the next request.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Collection, Iterable, Mapping, Sequence

from langchain_core.messages import AIMessage, BaseMessage

from client.core.context.turns import is_turn_start
from client.core.tool_search import DEFAULT_RESULTS, MAX_QUERY_CHARS, MAX_RESULTS, Index

MODES = ("auto", "on", "off")  # auto: by the rules below; on: always deferred; off: never
DEFER_SHARE = 0.10  # of the request budget, as Claude Code's tool search does of the window
MIN_DEFERRED_TOOLS = 10  # fewer schemas are small in absolute terms: a search round trip costs more
MAX_TOOLS_PER_REQUEST = 128  # OpenAI's chat API refuses more functions; compatible servers copy it
SEARCH_TOOL = "tool_search"
MAX_TOOL_SHARE = 0.25  # one tool's schema alone may take at most this share of a request's budget


def oversized(sizes: Mapping[str, int], budget: int) -> list[str]:
    """The tools whose schema alone (tokens in `sizes`) is too big to offer in requests of `budget`
    (0: no budget, nothing is)."""
    return [n for n, size in sizes.items() if budget > 0 and size > MAX_TOOL_SHARE * budget]


def should_defer(mode: str, count: int, tokens: int, budget: int) -> bool:
    """Do `count` tools whose schemas take `tokens` go out deferred, in requests of `budget`?"""
    if mode == "off" or count == 0:
        return False
    if mode == "on":
        return True
    return count >= MIN_DEFERRED_TOOLS and (tokens > DEFER_SHARE * budget or count > MAX_TOOLS_PER_REQUEST)


def search_tool_name(taken: Collection[str]) -> str:
    """`tool_search`, unless a server's tool has that name already."""
    name, n = SEARCH_TOOL, 2
    while name in taken:
        name, n = f"{SEARCH_TOOL}_{n}", n + 1
    return name


@dataclass(frozen=True)
class ToolUse:
    """The tools a thread called: in the order of first call, and from least to most recent."""

    first: tuple[str, ...] = ()
    recent: tuple[str, ...] = ()

    def add(self, names: Iterable[str]) -> ToolUse:
        first, recent = list(self.first), list(self.recent)
        seen = set(first)
        for n in names:
            if n not in seen:
                first.append(n)
                seen.add(n)
            else:
                recent.remove(n)
            recent.append(n)
        return ToolUse(tuple(first), tuple(recent))


def tool_calls(messages: Iterable[BaseMessage]) -> list[str]:
    """The names of every tool call in `messages`, in order (repeats kept)."""
    return [tc["name"] for m in messages if isinstance(m, AIMessage) for tc in m.tool_calls
            if isinstance(tc.get("name"), str) and tc["name"]]


def search_args(args: Any) -> tuple[str, int] | None:
    """(query, how many) of a search call's arguments; None when there is no query string."""
    if not isinstance(args, dict) or not isinstance(args.get("query"), str) or not args["query"].strip():
        return None
    limit = args.get("max_results", DEFAULT_RESULTS)
    if isinstance(limit, bool) or not isinstance(limit, int):
        limit = DEFAULT_RESULTS
    return args["query"], max(1, min(limit, MAX_RESULTS))


def stand_in_query(name: str, args: Any) -> str:
    """The search a call of a name that is no tool stands for: the name and its text arguments."""
    texts = [v[:100] for v in (args.values() if isinstance(args, dict) else []) if isinstance(v, str)]
    return " ".join([name, *texts[:5]])[:MAX_QUERY_CHARS]


def turn_searches(messages: Sequence[BaseMessage], search: str, index: Index) -> list[list[str]]:
    """What each search of the running turn (after its user message) found, in order: the search
    tool's calls, and calls of names that are no tool (stand_in_query)."""
    start = max((i for i, m in enumerate(messages) if is_turn_start(m)), default=-1)
    out = []
    for m in messages[start + 1:]:
        if isinstance(m, AIMessage):
            for tc in m.tool_calls:
                name, args = tc.get("name") or "", tc.get("args")
                if name == search:
                    parsed = search_args(args)
                elif name not in index.pos:
                    parsed = (stand_in_query(name, args), DEFAULT_RESULTS)
                else:
                    parsed = None
                if parsed:
                    out.append(index.search(parsed[0], parsed[1]).names)
    return out


def request_tools(catalog: Sequence[str], sizes: Mapping[str, int], use: ToolUse,
                  found: Sequence[Sequence[str]], cap: int, *, found_cap: int) -> list[str]:
    """The catalog tools a deferred request carries besides the search tool (see the module):
    the newest search's matches up to `found_cap` tokens (its first match always), then the others
    while all of them stay within `cap`."""
    known = set(catalog)
    newest = [n for n in (found[-1] if found else []) if n in known]
    kept: set[str] = set()
    spent = 0
    for i, n in enumerate(newest):
        if i == 0 or spent + sizes.get(n, 0) <= found_cap:
            kept.add(n)
            spent += sizes.get(n, 0)
    older = [n for batch in reversed(found[:-1]) for n in batch]
    for n in [*older, *reversed(use.recent)]:
        if n in known and n not in kept and spent + sizes.get(n, 0) <= cap:
            kept.add(n)
            spent += sizes.get(n, 0)
    order = [*use.first, *(n for batch in found for n in batch)]
    return [n for n in dict.fromkeys(order) if n in kept]
