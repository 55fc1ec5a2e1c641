"""The local provider's setup reports keys and progress; the ui words them in either language."""

from __future__ import annotations

import io

import pytest

from client.engine.frontend import SetupNote, SetupProgress, SetupSink, ignore
from client.engine.local.progress import Progress
from client.engine.local.weights import SetupError
from client.ui import i18n
from client.ui.local_setup import StartFrontend


@pytest.fixture
def shown():
    """(what the ui printed, the events, the report the setup is given: the frontend's `setup`)."""
    out = io.StringIO()  # not a terminal: plain lines
    events: list = []
    front = StartFrontend(out)

    def sink(event):
        events.append(event)
        front.setup(event)

    return out, events, sink


def _run_setup(report: SetupSink = ignore) -> None:
    """What client/engine/local/weights.py reports while it fetches."""
    report(SetupNote("local_weights_fetch", {"source": "pkg/x", "gib": "1.04"}))
    with Progress("local_weights_label", total=10, unit="bytes", report=report) as bar:
        for _ in range(2):
            bar.advance(5, note="1/2")
    report(SetupNote("local_weights_ok", {"sha": "abc123", "path": "/c/m.gguf"}))


def test_events_are_data(shown):
    _, events, report = shown
    _run_setup(report)
    assert events[0] == SetupNote("local_weights_fetch", {"source": "pkg/x", "gib": "1.04"})
    states = [e.state for e in events if isinstance(e, SetupProgress)]
    assert states == ["start", "advance", "advance", "done"]


@pytest.mark.parametrize("lang, first, pct, done, last", [
    ("ko", "모델 가중치를 내려받습니다: pkg/x (1.04 GiB, 한 번만)", "모델 내려받기: 50% (1/2)", "모델 내려받기: 완료 (",
     "모델 검증 완료 (sha256 abc123…): /c/m.gguf"),
    ("en", "Downloading the model weights: pkg/x (1.04 GiB, once)", "Downloading the model: 50% (1/2)",
     "Downloading the model: done (", "Model verified (sha256 abc123…): /c/m.gguf"),
])
def test_plain_lines_in_each_language(shown, monkeypatch, lang, first, pct, done, last):
    monkeypatch.setattr(i18n, "_lang", lang)
    out, _, report = shown
    _run_setup(report)
    lines = out.getvalue().splitlines()
    assert lines[0] == first and pct in lines and lines[-1] == last
    assert any(line.startswith(done) for line in lines)


def test_no_report_is_silent(capsys):
    _run_setup()  # no process-wide sink: what nobody was given goes nowhere
    assert capsys.readouterr() == ("", "")


def test_a_provider_notice_before_the_chat_is_a_line(shown, monkeypatch):
    monkeypatch.setattr(i18n, "_lang", "en")
    out = io.StringIO()
    StartFrontend(out).notice("auto_local", {"model": "M"})
    assert out.getvalue().strip() == i18n.t("auto_local", model="M")


def test_setup_error_is_a_key_the_ui_words(monkeypatch):
    e = SetupError("local_server_exited", code=3, log="/c/server.log")
    assert (e.key, e.fmt) == ("local_server_exited", {"code": 3, "log": "/c/server.log"})
    monkeypatch.setattr(i18n, "_lang", "en")
    assert i18n.t(e.key, **e.fmt) == "llama-server did not start (exit code 3, log: /c/server.log)"
