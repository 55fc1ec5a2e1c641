"""A fake Naver Search API: a real HTTP server on 127.0.0.1 (free port) in a background thread.

Usage::

    from tests.stubs.naver_stub import start_naver_stub

    with start_naver_stub() as stub:          # starts in a few ms; stops on exit
        env = {"NAVER_API_BASE_URL": stub.base_url,
               "NAVER_CLIENT_ID": stub.client_id, "NAVER_CLIENT_SECRET": stub.client_secret}
        ...                                   # run the server / client against it
        stub.set_mode("status", status=429)   # switch behaviour at any time
        stub.requests[-1]["params"]["query"]  # what the stub received

Endpoints: GET /v1/search/{webkr,news,blog}.json with query, display, start, sort (like Naver).
Every request is recorded in `stub.requests` as a dict:
    {"method", "path", "kind", "params": {name: value}, "headers": {lower-case name: value}, "client": "ip:port"}
The X-Naver-Client-Id / X-Naver-Client-Secret headers must equal `client_id` / `client_secret`
(default "test-id" / "test-secret"; settable with the constructor or as attributes), otherwise
401 with Naver's error JSON. Then parameters are checked like Naver does (SE01..SE04, 400) and the
path (SE05, 404). Modes, set with `set_mode(mode, **kw)`; `reset()` goes back to "ok" and clears
the requests:
    "ok"          default: deterministic Korean items derived from the query, with <b> tags and
                  entities (&quot; &amp; &lt;); total=1234 (kw total=N); news items add pubDate and
                  originallink, blog items add bloggername, bloggerlink, postdate
    "empty"       total 0, no items
    "status"      status=401|403|429|500|... ; body=dict|str (default: Naver-like error JSON)
    "naver_error" code="SE01".."SE99"; status default 400 (404 for SE05, 500 for SE99)
    "slow"        delay=seconds before an "ok" answer (for client timeouts)
    "not_json"    200 with an HTML body
    "unexpected"  200 with JSON that has no "items"
    "huge"        count=N items (default 100, ignores display) with item_chars long descriptions
                  (default 1000)
Run it by hand for a demo:  python -m tests.stubs.naver_stub --port 8089
"""

from __future__ import annotations

import argparse
import json
import re
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

_PATH_RE = re.compile(r"^/v1/search/(webkr|news|blog)\.json$")
_STATUS_CODES = {401: "024", 403: "024", 429: "010"}
_NAVER_ERROR_STATUS = {"SE05": 404, "SE99": 500}


class NaverStub:
    """The fake API; see the module docstring. Context manager: `with NaverStub() as stub`."""

    def __init__(self, client_id: str = "test-id", client_secret: str = "test-secret", port: int = 0) -> None:
        self.client_id = client_id
        self.client_secret = client_secret
        self._credentials = (client_id, client_secret)  # what reset() restores (a shared stub)
        self.requests: list[dict[str, Any]] = []
        self.mode = "ok"
        self.options: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.stub = self  # type: ignore[attr-defined]
        self.port: int = self._httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}"
        self._thread: threading.Thread | None = None
        self._connections: set[Any] = set()  # open client sockets, closed on stop()

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> NaverStub:
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes "slow" handlers
        self._httpd.shutdown()
        self._httpd.server_close()
        for conn in list(self._connections):  # end idle keep-alive connections too
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> NaverStub:
        return self.start() if self._thread is None else self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- control -----------------------------------------------------------------------------
    def set_mode(self, mode: str, **kw: Any) -> None:
        if mode not in ("ok", "empty", "status", "naver_error", "slow", "not_json", "unexpected", "huge"):
            raise ValueError(f"unknown stub mode {mode!r}")
        with self._lock:
            self.mode, self.options = mode, dict(kw)

    def reset(self) -> None:
        """Back to "ok" with the credentials it was started with: a test that changes them on the
        session's shared stub must not leave the shared search server's key wrong for the next."""
        self.set_mode("ok")
        self.client_id, self.client_secret = self._credentials
        self.requests.clear()

    # -- request handling ----------------------------------------------------------------------
    def handle(self, req: BaseHTTPRequestHandler) -> tuple[int, str, str]:
        """Return (status, content type, body) for one request."""
        url = urlsplit(req.path)
        params = {k: v[0] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        match = _PATH_RE.match(url.path)
        kind = match.group(1) if match else None
        self.requests.append(
            {
                "method": req.command,
                "path": url.path,
                "kind": kind,
                "params": params,
                "headers": {k.lower(): v for k, v in req.headers.items()},
                "client": f"{req.client_address[0]}:{req.client_address[1]}",
            }
        )
        with self._lock:
            mode, opts = self.mode, dict(self.options)
        if mode == "slow":
            self._stopping.wait(float(opts.get("delay", 5.0)))
        if req.headers.get("X-Naver-Client-Id") != self.client_id or (
            req.headers.get("X-Naver-Client-Secret") != self.client_secret
        ):
            return _error(401, "024", "Authentication failed. (인증에 실패했습니다.)")
        if kind is None:
            return _error(404, "SE05", "Invalid Search API (존재하지 않는 검색 api 입니다.)")
        if mode == "status":
            status = int(opts.get("status", 500))
            body = opts.get("body")
            if body is None:
                return _error(status, _STATUS_CODES.get(status, str(status)), f"HTTP {status} from stub")
            text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)
            return status, "application/json; charset=utf-8", text
        if mode == "naver_error":
            code = str(opts.get("code", "SE01"))
            return _error(int(opts.get("status", _NAVER_ERROR_STATUS.get(code, 400))), code, f"stub error {code}")
        if mode == "not_json":
            return 200, "text/html; charset=utf-8", "<html><body>Service Unavailable</body></html>"
        if mode == "unexpected":
            return _json(200, {"result": "no items here"})
        params = dict(params)  # keep the recorded copy as received
        invalid = _check_params(kind, params)
        if invalid is not None:
            return invalid
        query, display, start = params["query"], int(params["display"]), int(params["start"])
        if mode == "empty":
            return _json(200, _envelope(0, start, []))
        if mode == "huge":
            count, size = int(opts.get("count", 100)), int(opts.get("item_chars", 1000))
            items = [_item(kind, query, n, filler=size) for n in range(1, count + 1)]
            return _json(200, _envelope(count * 10, start, items))
        total = int(opts.get("total", 1234))
        count = max(0, min(display, total - start + 1))
        return _json(200, _envelope(total, start, [_item(kind, query, start + i) for i in range(count)]))


def _check_params(kind: str, params: dict[str, str]) -> tuple[int, str, str] | None:
    """Validate like Naver: SE01 query, SE02 display, SE03 start, SE04 sort."""
    if not params.get("query", "").strip():
        return _error(400, "SE01", "Incorrect query request (잘못된 쿼리요청입니다.)")
    params.setdefault("display", "10")
    params.setdefault("start", "1")
    if not params["display"].isdigit() or not 1 <= int(params["display"]) <= 100:
        return _error(400, "SE02", "Invalid display value (부적절한 display 값입니다.)")
    if not params["start"].isdigit() or not 1 <= int(params["start"]) <= 1000:
        return _error(400, "SE03", "Invalid start value (부적절한 start 값입니다.)")
    if kind != "webkr" and params.get("sort", "sim") not in ("sim", "date"):
        return _error(400, "SE04", "Invalid sort value (부적절한 sort 값입니다.)")
    return None


def _envelope(total: int, start: int, items: list[dict[str, str]]) -> dict[str, Any]:
    return {
        "lastBuildDate": "Mon, 02 Jun 2025 10:00:00 +0900",
        "total": total,
        "start": start,
        "display": len(items),
        "items": items,
    }


def _item(kind: str, query: str, n: int, filler: int = 0) -> dict[str, str]:
    """Deterministic raw item #n, marked up the way Naver marks it up."""
    description = f"&quot;<b>{query}</b>&quot;에 대한   {n}번째 결과 &amp; 설명입니다. &lt;참고&gt;"
    if filler:
        description += " " + ("가나다라마바사 " * (filler // 8 + 1))[:filler]
    item = {
        "title": f"<b>{query}</b> 관련 {'웹 문서' if kind == 'webkr' else '뉴스' if kind == 'news' else '블로그'} {n}",
        "link": f"https://example.com/{kind}/{n}?q={quote(query)}",
        "description": description,
    }
    if kind == "news":
        item["originallink"] = f"https://press.example.com/article/{n}"
        item["pubDate"] = f"Mon, 02 Jun 2025 09:{n % 60:02d}:00 +0900"
    elif kind == "blog":
        item["bloggername"] = f"여행 블로거 {n}"
        item["bloggerlink"] = f"https://blog.example.com/user{n}"
        item["postdate"] = f"202506{n % 28 + 1:02d}"
    return item


def _json(status: int, body: dict[str, Any]) -> tuple[int, str, str]:
    return status, "application/json; charset=utf-8", json.dumps(body, ensure_ascii=False)


def _error(status: int, code: str, message: str) -> tuple[int, str, str]:
    return _json(status, {"errorMessage": message, "errorCode": code})


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, so clients can reuse connections
    disable_nagle_algorithm = True  # headers and body go out in separate writes: avoid 40 ms stalls

    def setup(self) -> None:
        super().setup()
        self.server.stub._connections.add(self.connection)  # type: ignore[attr-defined]

    def finish(self) -> None:
        self.server.stub._connections.discard(self.connection)  # type: ignore[attr-defined]
        try:
            super().finish()
        except OSError:
            pass

    def do_GET(self) -> None:  # noqa: N802 (http.server naming)
        status, ctype, text = self.server.stub.handle(self)  # type: ignore[attr-defined]
        data = text.encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # client gave up (e.g. timeout)
            self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass


def start_naver_stub(client_id: str = "test-id", client_secret: str = "test-secret", port: int = 0) -> NaverStub:
    """Start a stub (already serving); use as a context manager or call `.stop()`."""
    return NaverStub(client_id, client_secret, port).start()


def main() -> None:
    parser = argparse.ArgumentParser(description="Fake Naver Search API on 127.0.0.1 for demos and tests.")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--client-id", default="test-id")
    parser.add_argument("--client-secret", default="test-secret")
    parser.add_argument("--mode", default="ok", help="initial mode (see module docstring)")
    args = parser.parse_args()
    stub = start_naver_stub(args.client_id, args.client_secret, args.port)
    stub.set_mode(args.mode)
    print(f"Naver stub on {stub.base_url} (NAVER_API_BASE_URL={stub.base_url}, "
          f"NAVER_CLIENT_ID={args.client_id}, NAVER_CLIENT_SECRET={args.client_secret}); Ctrl-C stops", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        stub.stop()


if __name__ == "__main__":
    main()
