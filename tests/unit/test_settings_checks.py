"""Every setting is checked where it is resolved (client/ui/options.py, client/ui/env_settings.py):
a value that makes no sense is a ConfigError naming the option or the variable, never a silent
default; sensible values pass. And a .env file must be UTF-8 text (client/ui/folder_trust.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from client.core.config import ConfigError
from client.ui.folder_trust import parse_env, read_user_env
from client.ui import env_settings
from client.ui.i18n import t
from client.ui.options import add_chat_options, add_common_options, resolve, resolve_lang

CLEAN = ("CLOVA_STUDIO_API_KEY", "CLOVASTUDIO_API_KEY", "MCP_CHAT_PROVIDER", "CLOVA_STUDIO_TIMEOUT", "MCP_CHAT_LANG",
         "MCP_CHAT_TEMPERATURE", "MCP_CHAT_SUMMARY_SERVER", "MCP_CHAT_LOCAL_URL", "MCP_CHAT_LOCAL_THREADS",
         "MCP_CHAT_LOCAL_KEEP_ALIVE", "MCP_CHAT_OAUTH_HEADLESS", "MCP_CHAT_DAEMON", "MCP_CHAT_DAEMON_IDLE",
         "CLOVA_STUDIO_BASE_URL", "OPENAI_BASE_URL", "MCP_CHAT_ROOTS", "MAX_TURNS_TO_KEEP", "MCP_CONFIG",
         "MCP_CHAT_STARTUP_TIMEOUT", "MCP_CHAT_STARTUP_GRACE", "MCP_CHAT_TEST_BACKOFF_SCALE")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in CLEAN:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CLOVA_STUDIO_API_KEY", "k")


def settings(*argv: str):
    p = argparse.ArgumentParser()
    add_chat_options(p)
    return resolve(p.parse_args(list(argv)), interactive=False)


def refused(*argv: str) -> str:
    """The error line: the option or variable named, and what its value must be."""
    with pytest.raises(ConfigError) as e:
        settings(*argv)
    assert e.value.key == "bad_value"
    line = t(e.value.key, **e.value.fmt)
    assert "허용: " in line and "\n" not in line, line
    return line


@pytest.mark.parametrize("value", ["-1", "0", "nan", "inf", "-inf"])
def test_timeout_must_be_a_positive_number(monkeypatch, value):
    assert "--timeout" in refused(f"--timeout={value}")
    monkeypatch.setenv("CLOVA_STUDIO_TIMEOUT", value)
    assert "CLOVA_STUDIO_TIMEOUT" in refused()


def test_a_sensible_timeout_passes(monkeypatch):
    monkeypatch.setenv("CLOVA_STUDIO_TIMEOUT", "0.5")
    assert settings().timeout == 0.5
    assert settings("--timeout", "30").timeout == 30.0  # the option wins


def test_language(monkeypatch):
    p = argparse.ArgumentParser()
    add_common_options(p)
    monkeypatch.setenv("MCP_CHAT_LANG", "en")
    assert resolve_lang(p.parse_args([])) == "en"
    assert resolve_lang(p.parse_args(["--lang", "ko"])) == "ko"
    monkeypatch.setenv("MCP_CHAT_LANG", "fr")
    with pytest.raises(ConfigError) as e:
        resolve_lang(p.parse_args([]))
    assert t(e.value.key, **e.value.fmt) == "환경 변수 MCP_CHAT_LANG='fr': 쓸 수 없는 값입니다 (허용: ko, en 중 하나). 고쳐서 다시 실행하세요."
    assert "MCP_CHAT_LANG" in refused()


@pytest.mark.parametrize("name,value", [
    ("MCP_CHAT_TEMPERATURE", "-0.1"), ("MCP_CHAT_TEMPERATURE", "3"), ("MCP_CHAT_TEMPERATURE", "warm"),
    ("MCP_CHAT_SUMMARY_SERVER", "2"), ("MCP_CHAT_LOCAL_URL", "127.0.0.1:8080"), ("MCP_CHAT_LOCAL_URL", "http://"),
    ("MCP_CHAT_LOCAL_THREADS", "-1"), ("MCP_CHAT_LOCAL_THREADS", "2.5"), ("MCP_CHAT_LOCAL_KEEP_ALIVE", "-1"),
    ("MCP_CHAT_LOCAL_KEEP_ALIVE", "soon"), ("MCP_CHAT_OAUTH_HEADLESS", "2"), ("CLOVA_STUDIO_BASE_URL", "file:///etc"),
    ("CLOVA_STUDIO_BASE_URL", "https://:443/v1"), ("MAX_TURNS_TO_KEEP", "-1"), ("MCP_CHAT_ROOTS", "/no/such/dir"),
])
def test_an_environment_setting_that_makes_no_sense_is_refused(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    assert name in refused()


def test_the_openai_base_url_is_checked_too(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "localhost:11434")
    assert "OPENAI_BASE_URL" in refused("--provider", "openai", "--model", "m")
    assert "--base-url" in refused("--provider", "openai", "--model", "m", "--base-url", "ftp://x")


@pytest.mark.parametrize("name,value", [
    ("MCP_CHAT_TEMPERATURE", "0"), ("MCP_CHAT_TEMPERATURE", "1.5"), ("MCP_CHAT_SUMMARY_SERVER", "0"),
    ("MCP_CHAT_SUMMARY_SERVER", "true"), ("MCP_CHAT_LOCAL_URL", "http://127.0.0.1:8080/v1"),
    ("MCP_CHAT_LOCAL_THREADS", "0"), ("MCP_CHAT_LOCAL_THREADS", "4"), ("MCP_CHAT_LOCAL_KEEP_ALIVE", "0"),
    ("MCP_CHAT_OAUTH_HEADLESS", "1"), ("CLOVA_STUDIO_BASE_URL", "https://example.test/v1"), ("MCP_CHAT_ROOTS", "/"),
])
def test_sensible_environment_settings_pass(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    settings()


@pytest.mark.parametrize("name,value", [("MCP_CHAT_DAEMON", "yes"), ("MCP_CHAT_DAEMON_IDLE", "0"),
                                        ("MCP_CHAT_DAEMON_IDLE", "x")])
def test_every_command_checks_the_background_process_settings(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError) as e:
        env_settings.check_every_command()
    assert name in t(e.value.key, **e.value.fmt)
    monkeypatch.setenv("MCP_CHAT_DAEMON", "0")
    monkeypatch.setenv("MCP_CHAT_DAEMON_IDLE", "120")
    env_settings.check_every_command()


def test_a_dotenv_must_be_utf8_text(tmp_path: Path):
    path = tmp_path / ".env"
    assert parse_env(path, "A=1\nB='두 단어'\n".encode()) == {"A": "1", "B": "두 단어"}
    for data, pos in ((b"A=1\nB=\xff\n", 7), (b"A=1\x00\n", 4)):
        with pytest.raises(ConfigError) as e:
            parse_env(path, data)
        assert (e.value.key, e.value.fmt) == ("env_not_utf8", {"path": str(path), "pos": pos})
    assert read_user_env(tmp_path / "missing") == {}
    path.write_bytes(b"\xfe\xff")
    with pytest.raises(ConfigError):
        read_user_env(path)


def test_the_variables_the_engine_uses_are_read_once_into_the_tuning(monkeypatch):
    """client/ui/env_settings.py reads them, with the rule above, into Settings.tuning; the engine
    gets the value and reads no variable itself (tests/unit/test_architecture.py)."""
    from client.core.config import Tuning

    assert settings().tuning == Tuning()  # unset: the defaults
    for name, value in (("MCP_CHAT_STARTUP_TIMEOUT", "12.5"), ("MCP_CHAT_STARTUP_GRACE", "0"),
                        ("MCP_CHAT_LOCAL_KEEP_ALIVE", "0"), ("MCP_CHAT_LOCAL_THREADS", "3"),
                        ("MCP_CHAT_OAUTH_HEADLESS", "yes"), ("MCP_CHAT_TEST_BACKOFF_SCALE", "0.5")):
        monkeypatch.setenv(name, value)
    assert settings().tuning == Tuning(startup_timeout=12.5, startup_grace=0.0, keep_alive=0.0, local_threads=3,
                                       oauth_headless=True, backoff_scale=0.5)
    monkeypatch.setenv("MCP_CHAT_LOCAL_THREADS", "0")  # 0: llama-server's own choice
    assert settings().tuning.local_threads is None
    monkeypatch.setenv("MCP_CHAT_TEST_BACKOFF_SCALE", "2")
    assert "MCP_CHAT_TEST_BACKOFF_SCALE" in refused()
