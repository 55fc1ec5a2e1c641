"""Strict readers of the two transcript formats mcp-chat imports.

- Our own JSON export (`mcp-chat export ID --format json`): `{"thread_id", "title", "turns",
  "messages": [{"role", "content", "tool_calls"?, "tool_call_id"?, "name"?, "synthetic"?}]}`.
  System messages are not imported (the thread gets the importing user's system prompt); tool
  results must answer a call of the assistant message right before them; a summary pair stays a
  pair (both marked synthetic, as stored).
- LoCoMo (a list of samples, or one): `conversation` holds `speaker_a`, `speaker_b`, `session_N`
  (turns `{speaker, text, blip_caption?}`) and `session_N_date_time`. Speaker A is the user,
  speaker B the assistant; consecutive turns of one speaker are one message; each session's
  first message carries a dated note (`[Session 3 · 1:56 pm on 8 May, 2023]`, a user message of
  its own when B speaks first); a shared photo's caption becomes text. `qa` and the authors'
  annotations (`session_summary`, `event_summary`, `observation`) are never read.

Anything else, or a field of the wrong type, is an ImportFormatError naming it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from client.core.context.quality import detect_lang
from client.core.context.speakers import session_note
from client.core.context.turns import SUMMARY_REQUEST, SYNTHETIC_KEY
from client.core.transcripts.model import (MAX_CONVERSATIONS, MAX_FILE_BYTES, MAX_MESSAGES, MAX_NAME_CHARS,
                                           MAX_TEXT_CHARS, Imported, ImportFormatError)

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # C0/C1 controls but tab and newline
_SESSION = re.compile(r"session_(\d{1,4})")
ROLES = ("system", "user", "assistant", "tool")
PHOTO = {"en": "[shares a photo: {caption}]", "ko": "[사진 공유: {caption}]"}


def parse_text(raw: bytes, *, conversation: str | None = None, sessions: int | None = None) -> list[Imported]:
    """The conversations a file's bytes hold (see parse_document)."""
    if len(raw) > MAX_FILE_BYTES:
        raise ImportFormatError("import_too_large", f"{len(raw)} bytes")
    try:
        doc = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise ImportFormatError("import_not_json", _short(str(e))) from None
    return parse_document(doc, conversation=conversation, sessions=sessions)


def parse_document(doc: Any, *, conversation: str | None = None, sessions: int | None = None) -> list[Imported]:
    """Our export (one conversation) or LoCoMo samples; `conversation`: only the sample with this
    id (LoCoMo) or thread id (export); `sessions`: only a LoCoMo conversation's first K sessions."""
    if sessions is not None and sessions < 1:
        raise ImportFormatError("import_bad_value", f"sessions={sessions}")
    if isinstance(doc, dict) and "messages" in doc:
        out = [_export(doc)]
    elif isinstance(doc, dict) and "conversation" in doc:
        out = [_locomo(doc, 0, sessions)]
    elif isinstance(doc, list) and doc and all(isinstance(d, dict) and "conversation" in d for d in doc):
        if len(doc) > MAX_CONVERSATIONS:
            raise ImportFormatError("import_too_large", f"{len(doc)} conversations")
        out = [_locomo(d, i, sessions) for i, d in enumerate(doc)]
    else:
        raise ImportFormatError("import_unknown_format")
    if conversation is not None:
        out = [c for c in out if c.source_id == conversation]
        if not out:
            raise ImportFormatError("import_no_conversation", conversation)
    return out


# -- our export -------------------------------------------------------------------
def _export(doc: dict) -> Imported:
    items = _list(doc, "messages", "messages")
    if len(items) > MAX_MESSAGES:
        raise ImportFormatError("import_too_large", f"{len(items)} messages")
    title = _opt_str(doc, "title", "title") or ""
    tid = _opt_str(doc, "thread_id", "thread_id") or ""
    out: list[BaseMessage] = []
    open_calls: set[str] = set()  # ids of the last assistant message's calls not answered yet
    for i, item in enumerate(items):
        where = f"messages[{i}]"
        if not isinstance(item, dict):
            raise ImportFormatError("import_bad_field", where)
        role = item.get("role")
        if role not in ROLES:
            raise ImportFormatError("import_bad_field", f"{where}.role")
        content = _text(item.get("content"), f"{where}.content")
        synthetic = item.get("synthetic", False)
        if not isinstance(synthetic, bool):
            raise ImportFormatError("import_bad_field", f"{where}.synthetic")
        if role != "tool":
            open_calls = set()
        if role == "system":
            continue
        if role == "user":
            if synthetic and content.strip() != SUMMARY_REQUEST:
                raise ImportFormatError("import_bad_field", f"{where}.content")
            out.append(HumanMessage(content=content, additional_kwargs={SYNTHETIC_KEY: True} if synthetic else {}))
        elif role == "assistant":
            calls = _tool_calls(item.get("tool_calls", []), where)
            if synthetic and (calls or not _after_summary_request(out)):
                raise ImportFormatError("import_bad_field", f"{where}.synthetic")
            out.append(AIMessage(content=content, tool_calls=calls,
                                 additional_kwargs={SYNTHETIC_KEY: True} if synthetic else {}))
            open_calls = {c["id"] for c in calls}
        else:
            call_id = item.get("tool_call_id")
            if not isinstance(call_id, str) or call_id not in open_calls:
                raise ImportFormatError("import_bad_field", f"{where}.tool_call_id")
            open_calls.discard(call_id)
            name = _opt_str(item, "name", f"{where}.name")
            error = item.get("error", False)
            if not isinstance(error, bool):
                raise ImportFormatError("import_bad_field", f"{where}.error")
            out.append(ToolMessage(content=content, tool_call_id=call_id, name=name, status="error" if error else "success"))
        if synthetic and role == "user" and (i + 1 >= len(items) or not _synthetic_answer(items[i + 1])):
            raise ImportFormatError("import_bad_field", f"{where}.synthetic")
    if not any(isinstance(m, HumanMessage) and not m.additional_kwargs.get(SYNTHETIC_KEY) for m in out):
        raise ImportFormatError("import_empty")
    return Imported(title=title, messages=out, lang=detect_lang(_texts(out)), source_id=tid)


def _after_summary_request(out: list[BaseMessage]) -> bool:
    return bool(out) and isinstance(out[-1], HumanMessage) and bool(out[-1].additional_kwargs.get(SYNTHETIC_KEY))


def _synthetic_answer(item: Any) -> bool:
    return isinstance(item, dict) and item.get("role") == "assistant" and item.get("synthetic") is True


def _tool_calls(calls: Any, where: str) -> list[dict]:
    if not isinstance(calls, list) or len(calls) > 64:
        raise ImportFormatError("import_bad_field", f"{where}.tool_calls")
    out = []
    for j, c in enumerate(calls):
        w = f"{where}.tool_calls[{j}]"
        if not isinstance(c, dict) or not isinstance(c.get("name"), str) or not c["name"] or len(c["name"]) > 128:
            raise ImportFormatError("import_bad_field", f"{w}.name")
        if not isinstance(c.get("id"), str) or not c["id"] or len(c["id"]) > 128:
            raise ImportFormatError("import_bad_field", f"{w}.id")
        args = c.get("args", {})
        if not isinstance(args, dict):
            raise ImportFormatError("import_bad_field", f"{w}.args")
        out.append({"name": c["name"], "args": args, "id": c["id"], "type": "tool_call"})
    return out


# -- LoCoMo -------------------------------------------------------------------------
def _locomo(sample: dict, index: int, limit: int | None) -> Imported:
    where = f"[{index}]"
    sid = _opt_str(sample, "sample_id", f"{where}.sample_id") or f"conversation-{index + 1}"
    conv = sample.get("conversation")
    if not isinstance(conv, dict):
        raise ImportFormatError("import_bad_field", f"{where}.conversation")
    a = _name(conv, "speaker_a", where)
    b = _name(conv, "speaker_b", where)
    if a == b:
        raise ImportFormatError("import_bad_field", f"{where}.speaker_b")
    numbers = sorted(int(m.group(1)) for k in conv if (m := _SESSION.fullmatch(k)))
    if not numbers:
        raise ImportFormatError("import_empty", sid)
    numbers = numbers[:limit] if limit else numbers
    turns: list[tuple[int, str, str]] = []  # (session, speaker, text)
    for n in numbers:
        w = f"{where}.conversation.session_{n}"
        session = conv[f"session_{n}"]
        if not isinstance(session, list):
            raise ImportFormatError("import_bad_field", w)
        for j, t in enumerate(session):
            if not isinstance(t, dict) or t.get("speaker") not in (a, b):
                raise ImportFormatError("import_bad_field", f"{w}[{j}].speaker")
            text = _text(t.get("text", ""), f"{w}[{j}].text").strip()
            caption = _opt_str(t, "blip_caption", f"{w}[{j}].blip_caption")
            turns.append((n, t["speaker"], text, caption or ""))  # type: ignore[arg-type]
    if len(turns) > MAX_MESSAGES:
        raise ImportFormatError("import_too_large", f"{len(turns)} turns")
    lang = detect_lang(t[2] for t in turns)
    msgs = _locomo_messages(conv, turns, a, lang, where)
    if not msgs:
        raise ImportFormatError("import_empty", sid)
    return Imported(title=f"{sid}: {a} & {b}", messages=msgs, lang=lang, participants=(a, b), source_id=sid,
                    sessions=len({t[0] for t in turns}))


def _locomo_messages(conv: dict, turns: list, a: str, lang: str, where: str) -> list[BaseMessage]:
    msgs: list[BaseMessage] = []
    last: tuple[int, str] | None = None  # (session, speaker) of the message being written
    for n, speaker, text, caption in turns:
        if caption:
            text = f"{text} {PHOTO[lang].format(caption=' '.join(caption.split()))}".strip()
        if not text:
            continue
        if last is not None and last == (n, speaker):  # the same speaker goes on: one message
            msgs[-1].content = f"{msgs[-1].content}\n{text}"
            continue
        if last is None or last[0] != n:  # a new session: its dated note first
            date = _opt_str(conv, f"session_{n}_date_time", f"{where}.conversation.session_{n}_date_time")
            note = session_note(n, " ".join((date or "").split()) or None, lang)  # type: ignore[arg-type]
            if speaker == a:
                text = f"{note}\n{text}"
            else:
                msgs.append(HumanMessage(content=note))
        msgs.append(HumanMessage(content=text) if speaker == a else AIMessage(content=text))
        last = (n, speaker)
    return msgs


# -- fields --------------------------------------------------------------------------
def _name(d: dict, key: str, where: str) -> str:
    v = d.get(key)
    if not isinstance(v, str) or not v.strip() or len(v) > MAX_NAME_CHARS or _CONTROL.search(v) or "\n" in v:
        raise ImportFormatError("import_bad_field", f"{where}.conversation.{key}")
    return " ".join(v.split())


def _text(v: Any, where: str) -> str:
    if not isinstance(v, str) or len(v) > MAX_TEXT_CHARS:
        raise ImportFormatError("import_bad_field", where)
    return _CONTROL.sub("", v)


def _opt_str(d: dict, key: str, where: str) -> str | None:
    v = d.get(key)
    if v is None:
        return None
    if not isinstance(v, str) or len(v) > 1_000:
        raise ImportFormatError("import_bad_field", where)
    return _CONTROL.sub("", v)


def _list(d: dict, key: str, where: str) -> list:
    v = d.get(key)
    if not isinstance(v, list):
        raise ImportFormatError("import_bad_field", where)
    return v


def _texts(msgs: list[BaseMessage]) -> list[str]:
    return [m.content for m in msgs if isinstance(m, HumanMessage) and isinstance(m.content, str)]


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _short(text: str, n: int = 120) -> str:
    return " ".join(text.split())[:n]
