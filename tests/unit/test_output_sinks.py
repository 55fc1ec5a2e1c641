"""Every command's output from outside goes through one sanitizer, piped or not; `/export PATH`
never writes through a planted symlink or over a file unasked.

The attacker wrote the text: a summary, a memory item, a thread id with a window-title OSC, a
clipboard write, a C1 CSI, bidi overrides, soft hyphens and tag characters. Stdout is a pipe
(a StringIO) — as in `mcp-chat ... | tee`, where /summary once printed the bytes raw.
"""

from __future__ import annotations

import io
from pathlib import Path
from types import SimpleNamespace

import pytest

from client.core.memory.policy import Bullet
from client.engine.store.base import ThreadInfo, TurnUsage
from client.ui import i18n
from client.ui.render import Renderer
from client.ui.slash import context, threads
from client.ui.slash.base import SlashContext

HOSTILE = "요약\x1b]0;PWNED\x07 \x1b]52;c;ZXZpbA==\x07 \x9b2J\u202eevil\u202c so\u00adft \U000e0041tag\x1b[2J end"
ACTIVE = ("\x1b", "\x07", "\x9b", "\u202e", "\u202c", "\u00ad", "\U000e0041")


def inert(out: str) -> None:
    assert not any(c in out for c in ACTIVE), repr(out)
    assert "PWNED" not in out and "ZXZpbA" not in out  # a sequence goes whole, its body too


class Session(SimpleNamespace):
    async def current_summary(self):
        return HOSTILE

    async def memory_settled(self):
        return None


def ctx(tmp_path: Path, answers: list[str] | None = None, interactive: bool = False):
    out = io.StringIO()
    r = Renderer(out, io.StringIO())
    r.interactive = interactive
    asked: list = []

    async def read_line(prompt=None):
        asked.append(prompt)
        return (answers or [None]).pop(0)

    async def usage():
        return [TurnUsage(1, 10, 5, 12)]

    async def items():
        return [Bullet(HOSTILE, [1], 0.9, 1, "t\x1b]0;id\x07")]

    async def export():
        info = ThreadInfo("t1", "kim", HOSTILE, 1, 0.0, 0.0)
        from langchain_core.messages import AIMessage

        return SimpleNamespace(info=info, rows=[(1, AIMessage(HOSTILE))])

    from client.core.config import Settings

    async def info(thread_id=None):  # /memory names each item's session by its (hostile) title
        return ThreadInfo("t1", "kim", HOSTILE, 1, 0.0, 0.0)

    session = Session(thread_id="t\x1b[2J1", memory=SimpleNamespace(list=items), settings=Settings(api_key="k", model="m"),
                      threads=SimpleNamespace(usage=usage, export=export, info=info))
    return SlashContext(session, r, None, read_line, None, None, None), out, asked


@pytest.mark.parametrize("command", ["summary", "memory", "tokens"])
async def test_piped_commands_print_no_active_byte(tmp_path, command):
    c, out, _ = ctx(tmp_path)
    await getattr(context, command)(c, "")
    assert out.getvalue().strip()
    inert(out.getvalue())


async def test_piped_export_keeps_the_text_written_out(tmp_path):
    c, out, _ = ctx(tmp_path)
    await threads.export(c, "")
    text = out.getvalue()
    assert "\\x1b]0;PWNED" in text and "\x1b" not in text and "\x07" not in text  # kept, as letters


def test_every_renderer_sink_cleans():
    out, err = io.StringIO(), io.StringIO()
    r = Renderer(out, err)
    for sink in (r.line, r.info, r.error, r.block, r.notice, r.hint):
        sink(HOSTILE)
    r.table(["a"], [[HOSTILE]], title=HOSTILE)
    r.stream(HOSTILE[:9])
    r.stream(HOSTILE[9:])
    r.end_stream()
    inert(out.getvalue() + err.getvalue())


async def test_export_never_follows_a_planted_symlink(tmp_path, monkeypatch):
    i18n.set_lang("ko")
    monkeypatch.chdir(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (tmp_path / "notes.md").symlink_to(victim)
    (tmp_path / "dangling.md").symlink_to(tmp_path / "nowhere")
    for name in ("notes.md", "dangling.md"):
        c, out, asked = ctx(tmp_path, ["y"], interactive=True)
        await threads.export(c, name)
        assert asked == []  # not even offered
    assert victim.read_text() == "precious" and not (tmp_path / "nowhere").exists()


async def test_export_never_goes_through_a_planted_folder_link(tmp_path, monkeypatch):
    """`sub -> elsewhere` in the working folder: `/export sub/x.md` (new or existing, nested or
    not) writes nothing there, and says so in one line; a real folder of the user's still works."""
    i18n.set_lang("ko")
    work, elsewhere = tmp_path / "work", tmp_path / "elsewhere"
    (elsewhere / "deep").mkdir(parents=True)
    (elsewhere / "authorized_keys").write_text("precious")
    work.mkdir()
    monkeypatch.chdir(work)
    (work / "sub").symlink_to(elsewhere)
    (work / "real").mkdir()
    (work / "real" / "inner").symlink_to(elsewhere)
    for name in ("sub/new.md", "sub/authorized_keys", "sub/deep/new.md", "real/inner/new.md", str(work / "sub" / "abs.md")):
        c, out, asked = ctx(work, ["y"], interactive=True)
        await threads.export(c, name)
        assert asked == [] and len(c.r.err.getvalue().strip().splitlines()) == 1, name
    assert sorted(p.name for p in elsewhere.rglob("*")) == ["authorized_keys", "deep"]
    assert (elsewhere / "authorized_keys").read_text() == "precious"
    c, out, _ = ctx(work)
    await threads.export(c, "real/fine.md")
    assert (work / "real" / "fine.md").read_text().startswith("# ")


def test_a_folder_swapped_for_a_link_after_the_check_is_not_followed(tmp_path, monkeypatch):
    from client.ui.user_file import kind, write_user_file

    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    assert kind(Path("sub/x.md")) is None  # looked fine; then the folder becomes a link
    (tmp_path / "sub").rmdir()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "sub").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(OSError):
        write_user_file(Path("sub/x.md"), "text")
    assert list((tmp_path / "elsewhere").iterdir()) == []


async def test_export_replaces_an_existing_file_only_when_the_user_says_so(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    old = tmp_path / "out.md"
    old.write_text("old")
    c, out, _ = ctx(tmp_path)  # piped: refused with one line
    await threads.export(c, "out.md")
    assert old.read_text() == "old" and len(c.r.err.getvalue().strip().splitlines()) == 1
    c, out, asked = ctx(tmp_path, ["n"], interactive=True)
    await threads.export(c, "out.md")
    assert old.read_text() == "old" and len(asked) == 1
    c, out, asked = ctx(tmp_path, ["y"], interactive=True)
    await threads.export(c, "out.md")
    assert old.read_text().startswith("# ") and "\x1b" not in old.read_text()
    c, out, _ = ctx(tmp_path)
    await threads.export(c, "new.json")  # a new file is written without a question
    assert (tmp_path / "new.json").read_text().startswith("{")
