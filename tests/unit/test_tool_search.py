"""Deferred tool schemas, the pure half: the search ranking (client/core/tool_search.py) and which
schemas a request carries (client/core/context/deferred_tools.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from client.core.context.deferred_tools import (DEFER_SHARE, MAX_TOOLS_PER_REQUEST, MIN_DEFERRED_TOOLS, MODES,
                                                ToolUse, oversized, request_tools, search_args, search_tool_name, should_defer, stand_in_query,
                                                tool_calls, turn_searches)
from client.core.tool_search import (MAX_QUERY_CHARS, MAX_RESULTS, Index, ToolCard, brief, parse_query, result_text,
                                     search_description, terms)
from client.ui.env_settings import TOOL_SEARCH_MODES
from tests.stubs.many_tools_server import DOMAINS, catalog


def cards() -> list[ToolCard]:
    return [ToolCard(t["name"], t["description"], d, tuple(p for p, _, _ in t["params"]))
            for d in DOMAINS for t in catalog(d)]


INDEX = Index(cards())


# -- the search ----------------------------------------------------------------------------------
def test_terms_split_names_and_fold_plurals_and_hangul():
    assert terms("createPullRequest") == ["create", "pull", "request"]
    assert terms("github_list_issues") == ["github", "list", "issue"]
    assert terms("the status of a class") == ["status", "class"]  # stop words go; -us/-ss kept
    assert "날씨" in terms("날씨를")  # syllable bigrams: a particle does not hide the word


def test_keywords_find_the_tool_that_does_it():
    assert INDEX.search("github create issue").names[0] == "github_create_issue"
    assert set(INDEX.search("send a slack message", 2).names) == {"slack_create_message", "slack_list_message"}
    assert INDEX.search("list kubernetes pods").names[0] == "kubernetes_list_pod"
    assert INDEX.search("stripe refunds").names[0] in ("stripe_create_refund", "stripe_list_refund")
    assert set(INDEX.search("weather forecast", 2).names) == {"weather_list_forecast", "weather_create_forecast"}


def test_required_words_and_exact_names():
    found = INDEX.search("+gitlab issue", 10).names
    assert found and all(n.startswith("gitlab_") for n in found)
    assert INDEX.search("issue").names[0] != "linear_create_issue"
    assert INDEX.search("linear_create_issue").names[0] == "linear_create_issue"  # the exact name first


def test_select_loads_exact_names_in_order_and_reports_the_rest():
    found = INDEX.search("select: slack_list_channel, GITHUB_CREATE_ISSUE,nope")
    assert found.names == ["slack_list_channel", "github_create_issue"]
    assert found.missing == ["nope"]
    text = result_text(found, INDEX)
    assert "slack_list_channel [slack]:" in text and "No tool is named: nope" in text


def test_no_match_says_what_to_try():
    found = INDEX.search("zzzz qqqq")
    assert found.names == []
    assert "No tool matched" in result_text(found, INDEX)


def test_results_are_capped():
    assert len(INDEX.search("list", 1_000).names) == MAX_RESULTS
    assert len(INDEX.search("list", 0).names) == 1


@given(st.text(max_size=2_000))
def test_any_query_is_safe(text):
    """Model output as a query: no exception, no pattern compiled from it, names from the catalog."""
    q = parse_query(text)
    assert len(q.text) <= MAX_QUERY_CHARS
    found = INDEX.search(q, 5)
    assert set(found.names) <= {c.name for c in INDEX.cards} and len(found.names) <= 5


def test_regex_like_queries_are_only_words():
    assert INDEX.search("(a+)+$" * 50).names == []  # nothing to backtrack: words only
    assert INDEX.search(".*").names == []


def test_brief_drops_control_and_invisible_characters():
    assert brief("Sends\x1b[31m mail\u200b\n\nnow\x07") == "Sends [31m mail now"
    assert brief("x" * 500, 20) == "x" * 19 + "…"


def test_search_description_names_the_servers_with_counts():
    text = search_description(cards())
    assert "200 tools" in text and "github (8)" in text and "select:" in text


# -- when to defer -----------------------------------------------------------------------------
def test_defer_above_the_share_of_the_budget_or_too_many_tools():
    budget = 100_000
    share = int(DEFER_SHARE * budget)
    assert not should_defer("auto", 50, share, budget)
    assert should_defer("auto", 50, share + 1, budget)
    assert not should_defer("auto", MIN_DEFERRED_TOOLS - 1, budget, budget)  # few tools: never
    assert should_defer("auto", MAX_TOOLS_PER_REQUEST + 1, 10, budget)
    assert should_defer("on", 1, 1, budget) and not should_defer("off", 500, budget, budget)
    assert not should_defer("on", 0, 0, budget)
    assert tuple(TOOL_SEARCH_MODES) == MODES


def test_the_search_tool_name_never_takes_a_servers_tool_name():
    assert search_tool_name({"a"}) == "tool_search"
    assert search_tool_name({"tool_search", "tool_search_2"}) == "tool_search_3"


# -- which schemas a request carries -------------------------------------------------------------
def call(name: str, **args) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": f"c-{name}-{len(args)}"}])


def result(name: str) -> ToolMessage:
    return ToolMessage(content="ok", tool_call_id=f"c-{name}", name=name)


NAMES = [c.name for c in INDEX.cards]
SIZES = {n: 100 for n in NAMES}


def test_tool_use_keeps_first_use_order_and_recency():
    use = ToolUse().add(["a", "b", "a", "c"])
    assert use.first == ("a", "b", "c") and use.recent == ("b", "a", "c")
    assert use.add(["b"]).first == ("a", "b", "c") and use.add(["b"]).recent == ("a", "c", "b")


def test_search_arguments_are_checked():
    assert search_args({"query": "x", "max_results": 3}) == ("x", 3)
    assert search_args({"query": "x", "max_results": True}) == ("x", 5)  # a bool is no count
    assert search_args({"query": "x", "max_results": 99}) == ("x", MAX_RESULTS)
    assert search_args({"query": " "}) is None and search_args({"query": 3}) is None and search_args("x") is None


def test_used_then_found_and_only_this_turns_searches():
    old = [SystemMessage("s"), HumanMessage("one"), call("tool_search", query="gmail draft"), result("tool_search"),
           call("gmail_create_draft", title="t"), result("gmail_create_draft"), AIMessage("done")]
    now = [HumanMessage("two"), call("tool_search", query="github create issue", max_results=2)]
    msgs = old + now
    use = ToolUse().add(tool_calls(msgs))
    found = turn_searches(msgs, "tool_search", INDEX)
    assert found == [INDEX.search("github create issue", 2).names]  # not the last turn's search
    chosen = request_tools(NAMES, SIZES, use, found, cap=10_000, found_cap=10_000)
    assert chosen[0] == "gmail_create_draft" and chosen[1:] == found[0]


def test_a_call_of_a_name_that_is_no_tool_counts_as_a_search():
    msgs = [HumanMessage("now"), call("create_issue", title="Build fails", repo="github", n=3)]
    assert stand_in_query("create_issue", {"title": "x" * 500, "n": 3}) == "create_issue " + "x" * 100
    [found] = turn_searches(msgs, "tool_search", INDEX)
    assert "github_create_issue" in found[:3]
    assert turn_searches([HumanMessage("now"), call("github_create_issue")], "tool_search", INDEX) == []


def test_the_cap_drops_least_recent_but_keeps_the_newest_matches():
    use = ToolUse().add(["a_old", "b_mid", "c_new"])
    names = ["a_old", "b_mid", "c_new", "x", "y"]
    chosen = request_tools(names, {n: 100 for n in names}, use, [["x", "y"]], cap=300, found_cap=200)
    assert chosen == ["c_new", "x", "y"]  # x, y (200) within their own cap; then the most recent use that fits
    assert request_tools(names, {n: 100 for n in names}, use, [["x", "y"]], cap=0, found_cap=200) == ["x", "y"]


def test_a_search_cannot_attach_more_than_its_share():
    """Issue 50: whatever a search finds, a request carries its matches up to their own cap (the
    best one always: oversized() keeps any one tool below that cap), so no later request fails."""
    names = ["big", "mid", "small", "used"]
    sizes = {"big": 900, "mid": 600, "small": 100, "used": 50}
    use = ToolUse().add(["used"])
    assert request_tools(names, sizes, use, [["big", "mid", "small"]], cap=50, found_cap=1_000) == ["big", "small"]
    assert request_tools(names, sizes, use, [["mid", "big"]], cap=0, found_cap=1_000) == ["mid"]
    assert oversized({"a": 250, "b": 251, "c": 10**6}, 1_000) == ["b", "c"] and oversized({"a": 10**6}, 0) == []


def test_unknown_names_never_reach_a_request():
    use = ToolUse().add(["ghost", "a"])
    assert request_tools(["a"], {"a": 1}, use, [["phantom", "a"]], cap=100, found_cap=100) == ["a"]


names = st.sampled_from(NAMES[:30])
turns = st.lists(st.lists(st.one_of(names.map(lambda n: ("call", n)),
                                    st.sampled_from(["github issue", "slack message", "select:drive_list_file"])
                                    .map(lambda q: ("search", q))), max_size=4), min_size=1, max_size=8)


def thread_of(plan: list[list[tuple[str, str]]]) -> list:
    msgs: list = [SystemMessage("s")]
    for i, steps in enumerate(plan):
        msgs.append(HumanMessage(f"turn {i}"))
        for kind, x in steps:
            msgs += [call(x) if kind == "call" else call("tool_search", query=x), result(x)]
        msgs.append(AIMessage("answer"))
    return msgs


@given(turns, turns)
def test_a_tool_list_only_grows_at_its_end_across_turns(before, after):
    """Without the cap, what a turn's first request carries is a prefix of every later turn's
    (a prompt cache over tools + system message holds), and every used tool is there."""
    first = thread_of(before)
    later = thread_of(before + after)

    def first_request(msgs):
        head = msgs + [HumanMessage("next")]
        return request_tools(NAMES, SIZES, ToolUse().add(tool_calls(head)), turn_searches(head, "tool_search", INDEX),
                             cap=10**9, found_cap=10**9)

    a, b = first_request(first), first_request(later)
    assert b[: len(a)] == a
    assert set(b) == {n for n in tool_calls(later) if n in SIZES}


@given(turns, st.integers(0, 3_000), st.integers(0, 3_000))
def test_chosen_tools_fit_the_caps(plan, cap, found_cap):
    msgs = thread_of(plan)
    tail_search = [HumanMessage("now"), call("tool_search", query="calendar event")]
    msgs += tail_search
    found = turn_searches(msgs, "tool_search", INDEX)
    chosen = request_tools(NAMES, SIZES, ToolUse().add(tool_calls(msgs)), found, cap, found_cap=found_cap)
    newest = found[-1]
    assert newest[0] in chosen and len(chosen) == len(set(chosen))
    if sum(SIZES[n] for n in newest) <= found_cap:
        assert set(newest) <= set(chosen)
    assert sum(SIZES[n] for n in chosen) <= max(cap, found_cap, SIZES[newest[0]])


# -- the hook (client/engine/tool_search.py) over plain tools ----------------------------------------
async def test_the_hook_reads_a_threads_history_once_and_survives_a_failing_store():
    from langchain_core.tools import StructuredTool

    from client.engine.tool_search import ToolSearch

    async def run(**kw):
        return "ok"

    tools = [StructuredTool(name=c.name, description=c.description, coroutine=run,
                            args_schema={"type": "object", "properties": {p: {"type": "string"} for p in c.params}})
             for c in INDEX.cards]
    reads: list[str] = []

    async def history(thread_id: str):
        reads.append(thread_id)
        if len(reads) == 1:
            raise OSError("database is locked")
        return [HumanMessage("old"), call("gmail_create_draft", title="t"), call("no_such_tool")]

    hook = ToolSearch(tools, 10_000, lambda ts: 100 * len(ts), history)
    msgs = [SystemMessage("s"), HumanMessage("hi")]
    assert [t.name for t in await hook.selected(msgs, "t")] == ["tool_search"]  # the store failed: this once
    assert [t.name for t in await hook.selected(msgs, "t")] == ["tool_search", "gmail_create_draft"]
    await hook.selected(msgs + [call("slack_list_channel")], "t")
    assert reads == ["t", "t"]  # read once it worked; the requests keep it current from then on
    assert [t.name for t in await hook.selected(msgs, "t")] == ["tool_search", "gmail_create_draft", "slack_list_channel"]
    assert "200 tools" in hook.search_tool.description
