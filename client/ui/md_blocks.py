"""Markdown building blocks that hold whatever text is put in them (for exports).

A message is its own block: `contained` closes a code fence it leaves open and defuses an HTML
block it never ends (both would swallow the rest of the document), `fenced` picks a fence longer
than any in the text, `code_span` a backtick run longer than any inside. Control characters are
written out first (client/ui/safe_text.py `visible`), so the file acts on no terminal.
"""

from __future__ import annotations

import re

from client.ui.safe_text import visible

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
# CommonMark HTML blocks of kinds 1-5 end only at their own marker, not at a blank line
_HTML_OPEN = [
    (re.compile(r"^ {0,3}<(?:script|pre|style|textarea)(?:\s|>|$)", re.I), re.compile(r"</(?:script|pre|style|textarea)>", re.I)),
    (re.compile(r"^ {0,3}<!--"), re.compile(r"-->")),
    (re.compile(r"^ {0,3}<\?"), re.compile(r"\?>")),
    (re.compile(r"^ {0,3}<![A-Za-z]"), re.compile(r">")),
    (re.compile(r"^ {0,3}<!\[CDATA\["), re.compile(r"\]\]>")),
]


def contained(text: str) -> str:
    """`text` as a Markdown block that ends where it ends: controls visible, an open fence closed,
    the opening line of an unended HTML block escaped (`\\<`: shown as text)."""
    lines = visible(text).split("\n")
    fence: str | None = None
    html: tuple[int, re.Pattern[str]] | None = None
    for i, line in enumerate(lines):
        if html is not None:
            if html[1].search(line):
                html = None
            continue
        m = _FENCE.match(line)
        if fence is not None:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not m.group(2).strip():
                fence = None
            continue
        if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
            fence = m.group(1)
            continue
        for start, end in _HTML_OPEN:
            s = start.match(line)
            if s:
                html = None if end.search(line, s.end()) else (i, end)
                break
    if html is not None:
        lines[html[0]] = lines[html[0]].replace("<", "\\<", 1)
    if fence is not None:
        lines.append(fence)
    return "\n".join(lines)


def fenced(text: str, info: str = "") -> list[str]:
    """Lines of a fenced code block holding `text` as is (controls visible)."""
    body = visible(text)
    longest = max((len(r) for r in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + info, body, fence]


def code_span(text: str) -> str:
    """`text` as inline code on one line, whatever backticks it holds."""
    body = " ".join(visible(text).split())
    longest = max((len(r) for r in re.findall(r"`+", body)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if body.startswith("`") or body.endswith("`") else ""
    return f"{ticks}{pad}{body}{pad}{ticks}"


def inline(text: str) -> str:
    """`text` on one line (a summary, a sampling request): whitespace runs become one space."""
    return " ".join(visible(text).split())
