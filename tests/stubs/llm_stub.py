"""A local OpenAI-compatible chat-completions server that records every request.

Real HTTP on 127.0.0.1, in a background thread. Tests assert on `requests`
(the parsed JSON bodies the endpoint received), never on client internals.

Answers, in order of precedence:
1. `push(...)`-queued replies, first in first out; a reply with "for": "memory" answers only a
   memory request, which takes no other (background passes run when a test does not choose) (dicts: {"text": ...} | {"tool_calls": [(name, args), ...]} (args a str: sent
   as the raw argument text, e.g. malformed JSON)
   | {"status": 500, "body": {...}, "headers": {...}} | {"delay": s, ...} | {"cut": True, "text": ...}
   | {"stall": s, ...} (no bytes at all for s seconds) | {"empty": True} (a stream with no chunk at all,
   as llama-server sometimes sends: "No generations found in stream.")
   | {"hold": threading.Event(), ...} (no bytes until the test sets the event, at most 60 s: a request
   in flight for exactly as long as a test needs))
   | {"midway": threading.Event(), "at": n, ...} (the stream stops after about n characters, half the
   text by default, until the test sets the event, at most 120 s: an answer paused mid-way).
2. Rules, so a scripted conversation needs no queue:
   - memory requests: bullet extraction ("장기 기억 후보") -> `- [turn] <user line>`
     for every user line of 5+ characters (an over-eager extractor), else 없음; scoring ("유용성")
     -> 0.9 for lines with HIGH_VALUE words, 0.2 otherwise.
   - no `tools` in the body and a summarizer's system prompt (요약, "You summarize") -> a summary
     that lists the first words of each user line it was given ("요약: ...").
   - looping model: while `tools` are offered and the turn's user text has "[loop]" (or
     `stub.loop` is set), call web_search again after every result, with new arguments each
     time ("[loop]") or the same ones ("[loop:same]"); without tools, answer as below.
   - last message is a tool result -> "도구 결과 요약: <first 60 chars of it>".
   - last user text with a directive:
       "[tool:NAME {json args}]"  -> one call of NAME ("?": the first tool the request offers); a
                                     streamed request without tools gets it too (a model naming
                                     a tool it used before)
       "[echo-schema:A->B]"       -> a call of B with {"schema": the parameters the request gave A}
       "[parallel]"               -> two web_search calls at once
       "검색" or "search"           -> web_search(query=<the text>)
       "[slow:S]"                 -> answer after S seconds (streams slowly)
       "[fail:CODE]"              -> HTTP CODE with an OpenAI-style error body
       "[brief]"                  -> "답변 N: <first 40 characters of the text>" (long lines, short answers)
   - otherwise -> "답변 N: <user text>" where N counts requests.
Usage: prompt_tokens = characters of all message contents // 2 + 7 per message
+ characters of the tools JSON // 4;
completion_tokens = characters of the answer. Streaming (SSE) when asked, with a
final usage chunk when `stream_options.include_usage` is set.

Run alone: python -m tests.stubs.llm_stub --port 8011
"""

from __future__ import annotations

import argparse
import json
import re
import threading
import time
import uuid
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def prompt_tokens_of(body: dict) -> int:
    msgs = body.get("messages", [])
    tools = len(json.dumps(body.get("tools", []), ensure_ascii=False)) // 4
    return sum(len(_content_text(m.get("content"))) for m in msgs) // 2 + 7 * len(msgs) + tools


def is_memory_request(body: dict) -> bool:
    """An extraction ("장기 기억 후보") or scoring ("유용성") request of the memory pass."""
    msgs = body.get("messages", [])
    system = _content_text(msgs[0].get("content")) if msgs and msgs[0].get("role") == "system" else ""
    return not body.get("tools") and ("장기 기억 후보" in system or "유용성" in system)


def is_summary_system(system: str) -> bool:
    """A context summary's (or its compression's) system prompt, Korean or English."""
    return any(k in system for k in ("요약", "You summarize", "Shorten the following summary"))


HIGH_VALUE = ("나는", "저는", "내 ", "제 ", "좋아", "싫어", "기억")  # scored 0.9; others 0.2


class LLMStub:
    def __init__(self, host: str = "127.0.0.1", port: int = 0, answer_chars: int = 0) -> None:
        self.answer_chars = answer_chars  # pad plain answers to this length (benchmarks)
        self.require_key: str | None = None  # when set, other bearer keys get 401
        self.report_usage = True  # False: no `usage` in answers (the client cannot calibrate)
        self.arrivals: list[float] = []  # time.monotonic() when each request arrived
        self.loop: str | None = None  # "new" | "same" | "always" (even without tools): web_search again
        self.models: list[str] | None = ["stub"]  # GET /models; None: the route answers 404
        self.requests: list[dict] = []
        self.replies: list[dict] = []  # what each request was answered with, in the same order
        self.headers: list[dict] = []
        self.queue: deque[dict] = deque()
        self.lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def log_message(self, *a: Any) -> None:  # quiet
                pass

            def _denied(self) -> bool:
                if stub.require_key and self.headers.get("Authorization") != f"Bearer {stub.require_key}":
                    self._json(401, {"error": {"message": "invalid api key", "code": "40100"}})
                    return True
                return False

            def do_GET(self) -> None:
                if self._denied():
                    return
                if self.path.rstrip("/").endswith("/models") and stub.models is not None:
                    self._json(200, {"object": "list", "data": [{"id": m, "object": "model"} for m in stub.models]})
                else:
                    self._json(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if self._denied():
                    return
                try:
                    body = json.loads(raw)
                except ValueError:
                    self._json(400, {"error": {"message": "bad json"}})
                    return
                with stub.lock:
                    stub.arrivals.append(time.monotonic())
                    stub.requests.append(body)
                    stub.headers.append({k.lower(): v for k, v in self.headers.items()})
                    n = len(stub.requests)
                    reply = stub.take(body) or stub.rule(body, n)
                    stub.replies.append(reply)
                stub.respond(self, body, reply)

            def _json(self, status: int, obj: dict, headers: dict | None = None) -> None:
                data = json.dumps(obj, ensure_ascii=False).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, str(v))
                self.end_headers()
                self.wfile.write(data)

        self.Handler = Handler
        self.server = ThreadingHTTPServer((host, port), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.base_url = f"http://{host}:{self.port}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    # -- lifecycle ---------------------------------------------------------
    def start(self) -> "LLMStub":
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> "LLMStub":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # -- scripting ---------------------------------------------------------
    def push(self, *replies: dict) -> None:
        with self.lock:
            self.queue.extend(replies)

    def take(self, body: dict) -> dict | None:
        """The first queued reply meant for this request (call with the lock held). Memory passes
        run in the background, at moments a test does not choose: they take only replies pushed
        with "for": "memory"; every other request takes only replies without it."""
        memory = is_memory_request(body)
        for i, reply in enumerate(self.queue):
            if (reply.get("for") == "memory") == memory:
                del self.queue[i]
                return reply
        return None

    def clear(self) -> None:
        with self.lock:
            self.requests.clear()
            self.replies.clear()
            self.arrivals.clear()
            self.headers.clear()
            self.queue.clear()

    def chat_requests(self) -> list[dict]:
        """Requests that carried tools (agent turns), in order."""
        return [r for r in self.requests if r.get("tools")]

    def turn_requests(self) -> list[dict]:
        """The agent's requests, in order, with or without tools: at a terminal a message can go
        before an MCP server is up (issue 41), and its request then carries no tools."""
        def system(r: dict) -> str:
            msgs = r.get("messages", [])
            return _content_text(msgs[0].get("content")) if msgs and msgs[0].get("role") == "system" else ""

        return [r for r in self.requests if r.get("tools")
                or not (is_memory_request(r) or is_summary_system(system(r)))]

    def plain_requests(self) -> list[dict]:
        """Requests without tools (summaries, memory)."""
        return [r for r in self.requests if not r.get("tools")]

    def answer_to(self, request: dict) -> str:
        """The text the stub answered `request` with (one of `requests`)."""
        with self.lock:
            i = next(i for i, r in enumerate(self.requests) if r is request)
            return self.replies[i].get("text", "")

    def summary_requests(self) -> list[dict]:
        """Context-summary requests (not memory ones)."""
        return [r for r in self.plain_requests() if is_summary_system(_content_text(r["messages"][0].get("content")))
                and "장기 기억" not in _content_text(r["messages"][0].get("content"))]

    # -- behaviour ---------------------------------------------------------
    def memory_requests(self) -> list[dict]:
        """Long-term memory requests (extraction, scoring), in order."""
        return [r for r in self.requests if is_memory_request(r)]

    def rule(self, body: dict, n: int) -> dict:
        msgs = body.get("messages", [])
        system = _content_text(msgs[0].get("content")) if msgs and msgs[0].get("role") == "system" else ""
        last = msgs[-1] if msgs else {}
        if not body.get("tools") and "장기 기억 후보" in system:
            found = re.findall(r"^\[턴 (\d+)\] 사용자: (.+)$", _content_text(last.get("content")), re.M)
            keep = [f"- [{t}] {text.strip()}" for t, text in found if len(text.strip()) >= 5]
            return {"text": "\n".join(keep) or "없음"}
        if not body.get("tools") and "유용성" in system:
            items = re.findall(r"^(\d+)\. (.+)$", _content_text(last.get("content")), re.M)
            return {"text": "\n".join(f"{i}: {0.9 if any(k in x for k in HIGH_VALUE) else 0.2}" for i, x in items)}
        if not body.get("tools") and is_summary_system(system):
            body = _content_text(last.get("content"))
            convo = re.split(r"\[(?:대화|Conversation)\]\n", body)[-1]
            users = [
                line.split(":", 1)[1].strip()[:20]
                for line in convo.splitlines()
                # the user's lines ("사용자:", "User:", or the user's name when two people talk)
                if line.startswith(("사용자:", "User:")) or re.match(r"^[A-Z][a-z]{1,20}: ", line) and not line.startswith(
                    ("Assistant:", "Tool call:", "Tool result"))
            ]
            prev = re.search(r"\[이전 요약\]\n(.*?)\n\n", _content_text(last.get("content")), re.S)
            head = (prev.group(1) + " / ") if prev else ""
            summary = f"요약: {head}" + "; ".join(users)
            return {"text": summary if len(summary) <= 600 else "요약: …" + summary[-594:]}
        user = next((_content_text(m.get("content")) for m in reversed(msgs) if m.get("role") == "user"), "")
        if self.loop == "always":  # a stand-in that calls the tool even when none is offered
            return {"tool_calls": [("web_search", {"query": f"loop {n}"})]}
        if body.get("tools") and (self.loop or "[loop" in user):
            same = self.loop == "same" or "[loop:same]" in user
            return {"tool_calls": [("web_search", {"query": "loop" if same else f"loop {n}"})]}
        if last.get("role") == "tool":
            return {"text": "도구 결과 요약: " + _content_text(last.get("content"))[:60]}
        text = _content_text(last.get("content"))
        m = re.search(r"\[fail:(\d{3})\]", text)
        if m:
            return {"status": int(m.group(1)), "body": {"error": {"message": "stub failure"}}}
        delay = 0.0
        m = re.search(r"\[slow:([\d.]+)\]", text)
        if m:
            delay = float(m.group(1))
        m = re.search(r"\[tool:(\S+) (\{.*?\})\]", text)
        if m and m.group(1) != "?" and not body.get("tools") and body.get("stream"):
            # a model naming a tool the request does not offer (it called it earlier in the thread):
            # at a terminal, a message can go before the server that brings it is up (issue 41)
            return {"tool_calls": [(m.group(1), json.loads(m.group(2)))], "delay": delay}
        if body.get("tools"):
            offered = {t["function"]["name"]: t["function"] for t in body["tools"] if t.get("type") == "function"}
            if m:
                name = next(iter(offered), "") if m.group(1) == "?" else m.group(1)
                return {"tool_calls": [(name, json.loads(m.group(2)))], "delay": delay}
            m = re.search(r"\[echo-schema:(\S+)->(\S+)\]", text)
            if m:
                return {"tool_calls": [(m.group(2), {"schema": offered.get(m.group(1), {}).get("parameters")})]}
            if "[parallel]" in text:
                return {"tool_calls": [("web_search", {"query": "첫째"}), ("web_search", {"query": "둘째"})]}
            if "검색" in text or "search" in text.lower():
                return {"tool_calls": [("web_search", {"query": text[:50]})], "delay": delay}
        answer = f"답변 {n}: {text[:40] if '[brief]' in text else text}"
        if len(answer) < self.answer_chars:
            filler = " 자세한 설명을 이어서 드리면 다음과 같습니다."
            answer += (filler * (self.answer_chars // len(filler) + 1))[: self.answer_chars - len(answer)]
        return {"text": answer, "delay": delay}

    def respond(self, h: BaseHTTPRequestHandler, body: dict, reply: dict) -> None:
        if reply.get("stall"):  # nothing at all for a while (client timeouts)
            time.sleep(reply["stall"])
        if reply.get("hold") is not None:  # in flight until the test lets it answer
            reply["hold"].wait(60)
        if reply.get("delay") and not body.get("stream"):
            time.sleep(reply["delay"])
        if "status" in reply:
            h._json(reply["status"], reply.get("body", {}), reply.get("headers"))  # type: ignore[attr-defined]
            return
        text = reply.get("text", "")
        calls = [
            {
                "id": f"call_{uuid.uuid4().hex[:12]}",
                "type": "function",
                "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)},
            }
            for name, args in reply.get("tool_calls", [])
        ]
        usage = {
            "prompt_tokens": prompt_tokens_of(body),
            "completion_tokens": len(text) + 5 * len(calls),
        }
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        cid = f"chatcmpl-{uuid.uuid4().hex[:10]}"
        model = body.get("model", "stub")
        if not body.get("stream"):
            msg: dict[str, Any] = {"role": "assistant", "content": text}
            if calls:
                msg["tool_calls"] = calls
            doc = {
                "id": cid, "object": "chat.completion", "created": int(time.time()), "model": model,
                "choices": [{"index": 0, "message": msg, "finish_reason": "tool_calls" if calls else "stop"}],
            }
            if self.report_usage:
                doc["usage"] = usage
            h._json(200, doc)  # type: ignore[attr-defined]
            return
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.send_header("Connection", "close")
        h.end_headers()

        def send(delta: dict, finish: str | None = None, extra: dict | None = None) -> None:
            chunk = {"id": cid, "object": "chat.completion.chunk", "created": int(time.time()),
                     "model": model, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
            if extra:
                chunk.update(extra)
            h.wfile.write(f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n".encode())
            h.wfile.flush()

        try:
            if reply.get("empty"):  # no chunk at all, just the end marker
                h.wfile.write(b"data: [DONE]\n\n")
                h.wfile.flush()
                return
            send({"role": "assistant", "content": ""})
            pieces = [text[i : i + 8] for i in range(0, len(text), 8)] or [""]
            step = (reply.get("delay") or 0) / max(1, len(pieces))
            for i, p in enumerate(pieces):
                if reply.get("cut") and i == len(pieces) // 2:
                    return  # connection dropped mid-answer
                if reply.get("midway") is not None and i == reply.get("at", len(text) // 2) // 8:
                    reply["midway"].wait(120)  # the model stalls mid-answer
                if step:
                    time.sleep(step)
                if p:
                    send({"content": p})
            for i, c in enumerate(calls):
                send({"tool_calls": [{"index": i, **c}]})
            send({}, "tool_calls" if calls else "stop")
            if self.report_usage and (body.get("stream_options") or {}).get("include_usage"):
                h.wfile.write(("data: " + json.dumps({"id": cid, "object": "chat.completion.chunk",
                              "created": int(time.time()), "model": model, "choices": [],
                              "usage": usage}) + "\n\n").encode())
            h.wfile.write(b"data: [DONE]\n\n")
            h.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=8011)
    args = ap.parse_args()
    stub = LLMStub(port=args.port)
    print(f"LLM stub on {stub.base_url}", flush=True)
    try:
        stub.server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
