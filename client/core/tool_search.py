"""Finding tools by what they do: the search behind the `tool_search` tool (issue 41). Pure.

A query is keywords ("slack send message"; `+slack` makes a word required) or `select:a,b`
(exact names, in the order given). Keywords are ranked with BM25 over each tool's words: the
name's words count three times, the server's twice, the description's and parameter names' once
(a name says most about a tool). Words are split at case changes, `_`, `-` and punctuation,
lower-cased, with a plain English plural folded ("issues" -> "issue"); Hangul words are also
indexed as syllable bigrams so "날씨를" finds "날씨". The query is model output: it is cut to
MAX_QUERY_CHARS and only ever compared as words, never compiled into a pattern.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from typing import Sequence

from client.core.invisible import INVISIBLE_RE

MAX_QUERY_CHARS = 500
DEFAULT_RESULTS = 5
MAX_RESULTS = 10
BRIEF_CHARS = 240  # of a description, in a search result
WEIGHTS = {"name": 3.0, "server": 2.0, "description": 1.0, "params": 1.0}
K1, B = 1.2, 0.75
STOP = frozenset("a an and are as at be by for from in into is it of on or the this that to use used "
                 "using with you your can will tool tools".split())
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_WORD = re.compile(r"[a-z0-9]+|[\uac00-\ud7a3]+|[^\W\d_a-z\uac00-\ud7a3]+")


@dataclass(frozen=True)
class ToolCard:
    """What the search knows of one tool: plain data, no schema."""

    name: str
    description: str = ""
    server: str = ""
    params: tuple[str, ...] = ()


@dataclass(frozen=True)
class Query:
    select: tuple[str, ...] = ()  # exact names (select:...)
    words: tuple[str, ...] = ()  # every keyword, required ones included
    required: tuple[str, ...] = ()  # +word
    text: str = ""  # as given (cut): a tool's exact name ranks first


@dataclass(frozen=True)
class Found:
    names: list[str] = field(default_factory=list)  # best first
    missing: list[str] = field(default_factory=list)  # select: names that are no tool


def _fold(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def terms(text: str) -> list[str]:
    """The index terms of `text` (names, descriptions and queries alike)."""
    text = _CAMEL.sub(" ", text).lower()
    out: list[str] = []
    for w in _WORD.findall(text):
        if w in STOP:
            continue
        if "\uac00" <= w[0] <= "\ud7a3":
            out.append(w)
            out.extend(w[i:i + 2] for i in range(len(w) - 1) if len(w) > 2)
        else:
            out.append(_fold(w))
    return out


def parse_query(text: str) -> Query:
    text = text[:MAX_QUERY_CHARS].strip()
    if text.lower().startswith("select:"):
        names = [n.strip() for n in text[len("select:"):].split(",")]
        return Query(select=tuple(dict.fromkeys(n for n in names if n)))
    words, required = [], []
    for raw in text.split():
        found = terms(raw.lstrip("+"))
        words.extend(found)
        if raw.startswith("+") and found:
            required.append(found[0])
    return Query(words=tuple(dict.fromkeys(words)), required=tuple(dict.fromkeys(required)), text=text)


class Index:
    """BM25 over a fixed list of cards (build once per catalog, search many times)."""

    def __init__(self, cards: Sequence[ToolCard]) -> None:
        self.cards = list(cards)
        self.pos = {c.name: i for i, c in reversed(list(enumerate(self.cards)))}
        self.by_lower = {c.name.lower(): c.name for c in reversed(self.cards)}
        self.docs: list[Counter[str]] = []
        for c in self.cards:
            tf: Counter[str] = Counter()
            for fieldname, text in (("name", c.name), ("server", c.server), ("description", c.description),
                                    ("params", " ".join(c.params))):
                for t in terms(text):
                    tf[t] += WEIGHTS[fieldname]  # type: ignore[assignment]
            self.docs.append(tf)
        self.lengths = [sum(d.values()) for d in self.docs]
        self.avg = (sum(self.lengths) / len(self.lengths)) if self.lengths else 1.0
        df: Counter[str] = Counter(t for d in self.docs for t in d)
        n = len(self.docs)
        self.idf = {t: math.log(1 + (n - k + 0.5) / (k + 0.5)) for t, k in df.items()}

    def search(self, query: Query | str, limit: int = DEFAULT_RESULTS) -> Found:
        q = parse_query(query) if isinstance(query, str) else query
        limit = max(1, min(limit, MAX_RESULTS))
        if q.select:
            names, missing = [], []
            for n in q.select:
                hit = n if n in self.pos else self.by_lower.get(n.lower())
                (names if hit else missing).append(hit or n)
            return Found(list(dict.fromkeys(names)), missing)
        scored: list[tuple[float, int]] = []
        for i, doc in enumerate(self.docs):
            if any(r not in doc for r in q.required):
                continue
            norm = K1 * (1 - B + B * self.lengths[i] / self.avg)
            s = sum(self.idf[t] * doc[t] * (K1 + 1) / (doc[t] + norm) for t in q.words if t in doc)
            if s > 0:
                scored.append((-s, i))
        scored.sort()
        names = [self.cards[i].name for _, i in scored[:limit]]
        exact = self.by_lower.get(q.text.lower())
        if exact and exact not in names[:1] and all(r in self.docs[self.pos[exact]] for r in q.required):
            names = [exact, *[n for n in names if n != exact]][:limit]
        return Found(names)


def brief(text: str, chars: int = BRIEF_CHARS) -> str:
    """A description as one short line: no control or invisible characters, whitespace collapsed."""
    text = INVISIBLE_RE.sub("", text)
    text = "".join(" " if unicodedata.category(ch)[0] in "CZ" else ch for ch in text)
    text = " ".join(text.split())
    return text if len(text) <= chars else text[: chars - 1].rstrip() + "…"


MAX_LISTED_SERVERS = 40  # in the search tool's description


def search_description(cards: Sequence[ToolCard]) -> str:
    """The search tool's description: what it finds, among which servers' tools, and how to ask."""
    per = Counter(c.server for c in cards if c.server)
    servers = ", ".join(f"{s} ({n})" for s, n in list(per.items())[:MAX_LISTED_SERVERS])
    more = ", …" if len(per) > MAX_LISTED_SERVERS else ""
    where = f" from these MCP servers (tools each): {servers}{more}" if servers else ""
    return (f"Finds tools to call. {len(cards)} tools are available{where}; only some of their definitions "
            "are loaded. Search with keywords for what the tool should do (e.g. \"github create issue\"); "
            "+word requires a word; \"select:name1,name2\" loads exact names. The matching tools' "
            "definitions are attached to your next step: call them then, directly.")


SEARCH_SCHEMA = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "Keywords, or select:name1,name2 for exact tool names"},
        "max_results": {"type": "integer", "minimum": 1, "maximum": MAX_RESULTS, "default": DEFAULT_RESULTS,
                        "description": "How many tools at most"},
    },
    "required": ["query"],
}


def result_text(found: Found, index: Index) -> str:
    """What the model reads back from a search: fixed English, whatever --lang says."""
    lines: list[str] = []
    if found.names:
        lines.append(f"Found {len(found.names)} tool(s); their definitions are attached now, call them directly:")
        for n in found.names:
            card = index.cards[index.pos[n]]
            where = f" [{card.server}]" if card.server else ""
            lines.append(f"- {n}{where}: {brief(card.description)}")
    else:
        lines.append("No tool matched. Try other keywords (what the tool does, or its server's name), "
                     "or select:<exact name>.")
    if found.missing:
        lines.append("No tool is named: " + ", ".join(brief(m, 64) for m in found.missing))
    return "\n".join(lines)
