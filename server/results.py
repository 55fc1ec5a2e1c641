"""Result cleaning (tags, entities, whitespace), compact JSON rendering and the size cap."""

from __future__ import annotations

import html
import json
import re
from typing import Any

_TAG_RE = re.compile(r"</?[A-Za-z][A-Za-z0-9]*(?:\s[^<>]*)?/?>")
_WS_RE = re.compile(r"\s+")
# Extra fields kept per kind, besides title/link/description.
EXTRA_FIELDS: dict[str, tuple[str, ...]] = {
    "webkr": (),
    "news": ("pubDate", "originallink"),
    "blog": ("bloggername", "postdate"),
}
TEXT_FIELDS = ("title", "description", "bloggername")  # fields that may carry markup


def clean_text(value: Any) -> str:
    """Strip tags (before and after unescaping), unescape entities, collapse whitespace."""
    if value is None:
        return ""
    text = _TAG_RE.sub("", str(value))
    text = _TAG_RE.sub("", html.unescape(text))
    return _WS_RE.sub(" ", text).strip()


def clean_item(kind: str, raw: dict[str, Any]) -> dict[str, str]:
    item: dict[str, str] = {}
    for field in ("title", "link", "description", *EXTRA_FIELDS[kind]):
        value = raw.get(field, "")
        item[field] = clean_text(value) if field in TEXT_FIELDS else str(value or "").strip()
    return item


def render(header: dict[str, Any], items: list[dict[str, Any]]) -> str:
    """Compact JSON with one item per line (valid JSON, Korean kept as characters)."""
    head = json.dumps(header, ensure_ascii=False)[:-1]  # drop the closing brace
    if not items:
        return head + ', "items": []}'
    body = ",\n  ".join(json.dumps(item, ensure_ascii=False) for item in items)
    return head + ', "items": [\n  ' + body + "\n]}"


def _note(n: int, m: int, start: int, shortened: bool) -> str:
    if shortened and m == n:
        ko, en = "결과가 길어 항목의 설명을 줄였습니다", "result too long: description shortened"
    elif shortened:
        ko = f"결과가 길어 {n}개 중 {m}개만 포함하고 설명을 줄였습니다"
        en = f"results truncated: {m} of {n} items shown, description shortened"
    else:
        ko = f"결과가 길어 {n}개 중 {m}개만 포함했습니다"
        en = f"results truncated: {m} of {n} items shown"
    if m < n:
        ko += f"; 나머지는 start={start + m}로 다시 요청하세요"
    return f"{ko} ({en})"


def _cut(item: dict[str, Any], field: str, overflow: int) -> bool:
    """Shorten item[field] by about `overflow` characters; False if nothing is left to cut."""
    value = item.get(field, "")
    if not value:
        return False
    keep = max(0, len(value) - overflow - 1)
    item[field] = value[:keep] + "…" if keep else ""
    return True


def fit_result(header: dict[str, Any], items: list[dict[str, Any]], max_chars: int) -> str:
    """Render, dropping items from the end (then shortening the last one) to fit `max_chars`."""
    text = render(header, items)
    if len(text) <= max_chars:
        return text
    n, start = len(items), int(header.get("start") or 1)
    for m in range(n - 1, 0, -1):
        text = render({**header, "truncated": True, "note": _note(n, m, start, False)}, items[:m])
        if len(text) <= max_chars:
            return text
    if n:
        item = dict(items[0])
        head = {**header, "truncated": True, "note": _note(n, 1, start, True)}
        for field in ("description", "title", "link", "originallink", "bloggername"):
            for _ in range(8):  # JSON escaping may need another pass
                text = render(head, [item])
                if len(text) <= max_chars:
                    return text
                if not _cut(item, field, len(text) - max_chars):
                    break
    note = _note(n, 0, start, False) if n else "검색어가 길어 줄여서 표시했습니다 (query echo shortened)"
    head = {**header, "truncated": True, "note": note}
    if len(str(head.get("query", ""))) > 100:
        head["query"] = str(head["query"])[:99] + "…"
    return render(head, [])
