"""The one way from the engine to the screen (client/engine/frontend.py): the default declines,
the terminal's frontend shows through the renderer and asks only once the REPL reads a terminal."""

from __future__ import annotations

import io
import webbrowser

from client.engine.frontend import ApprovalRequest, Field, Frontend, SetupNote, ToolProgress
from client.ui import i18n
from client.ui.frontend import TerminalFrontend
from client.ui.render import Renderer

REQ = ApprovalRequest("fs", "node fs.js", "write_file", "{}")
FIELD = Field("n", "integer", "N", "", None, None, True)


async def test_the_default_frontend_shows_nothing_and_declines_every_question(capsys):
    f = Frontend()
    assert await f.approve(REQ) is None
    assert await f.ask_form("srv", "m", [FIELD]) is None
    assert await f.confirm("sampling", "srv", "hi") is None
    f.notice("sampling_denied", {"server": "srv"})
    f.progress(ToolProgress("t", 1, 2))
    f.setup(SetupNote("local_weights_ok"))
    f.open_url("http://127.0.0.1:9/login")
    assert capsys.readouterr() == ("", "")


async def test_the_terminal_frontend_asks_only_with_a_reader(monkeypatch):
    monkeypatch.setattr(i18n, "_lang", "en")
    out, err = io.StringIO(), io.StringIO()
    nobody = TerminalFrontend(Renderer(out=out, err=err))  # a pipe or -p: no reader
    assert await nobody.confirm("sampling", "srv", "hello") is None  # nobody to ask
    assert await nobody.ask_form("srv", "m", [FIELD]) is None
    answers = iter(["y", "7", "y"])

    async def read(prompt: str) -> str:
        return next(answers)

    front = TerminalFrontend(Renderer(out=out, err=err), read)  # piped renderer, but someone to ask
    assert await front.confirm("sampling", "srv", "hello") is True
    assert await front.ask_form("srv", "m", [FIELD]) == ("accept", {"n": 7})
    assert await front.approve(REQ) is None  # the one-key question needs the rich renderer of a terminal
    front.notice("sampling_denied", {"server": "srv"})
    assert i18n.t("sampling_denied", server="srv") in err.getvalue()  # notices: stderr in a pipe
    opened: list = []
    monkeypatch.setattr(webbrowser, "open", lambda *a, **k: opened.append(a))
    front.open_url("http://127.0.0.1:9/login")
    assert opened == []  # not a person at a terminal: the URL notice is enough
