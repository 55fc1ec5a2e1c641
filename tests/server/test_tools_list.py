"""tools/list over every transport: exactly three tools, good descriptions, the right schemas."""

from __future__ import annotations

import re

from tests.server.helpers import RunningServer

HANGUL = re.compile(r"[가-힣]")


def _tools(server: RunningServer) -> dict[str, object]:
    return {tool.name: tool for tool in server.mcp.list_tools()}


def test_exactly_three_tools(server: RunningServer) -> None:
    assert sorted(_tools(server)) == ["blog_search", "news_search", "web_search"]


def test_descriptions_are_bilingual_and_say_when_to_use(server: RunningServer) -> None:
    tools = _tools(server)
    expectations = {
        "web_search": ["general information", "일반", "news_search", "blog_search"],
        "news_search": ["recent", "sort=\"date\"", "newest", "최신", "pubDate", "originallink"],
        "blog_search": ["review", "travel", "recipe", "후기", "레시피", "bloggername", "postdate"],
    }
    for name, words in expectations.items():
        description = tools[name].description or ""
        assert HANGUL.search(description), name
        assert len(description) > 200, name
        for word in words:
            assert word in description, (name, word)
        assert not description.startswith(" ") and "\n    " not in description, "docstring not dedented"
        assert tools[name].annotations is not None and tools[name].annotations.read_only_hint is True


def test_input_schemas(server: RunningServer) -> None:
    tools = _tools(server)
    for name, tool in tools.items():
        schema = tool.input_schema
        props = schema["properties"]
        expected = {"query", "display", "start"} | ({"sort"} if name != "web_search" else set())
        assert set(props) == expected, name
        assert schema.get("required") == ["query"], name
        assert props["query"]["type"] == "string"
        assert props["display"]["type"] == "integer"
        assert (props["display"]["default"], props["display"]["minimum"], props["display"]["maximum"]) == (1 * 10, 1, 100)
        assert (props["start"]["default"], props["start"]["minimum"], props["start"]["maximum"]) == (1, 1, 1000)
        for prop in props.values():
            assert prop.get("description"), (name, prop)
        if "sort" in props:
            assert props["sort"]["enum"] == ["sim", "date"]
            assert props["sort"]["default"] == "sim"
            assert "date" in props["sort"]["description"] and "최신" in props["sort"]["description"]
