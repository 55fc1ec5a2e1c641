"""The provider options, kept light: they are parsed before any model code is imported."""

from __future__ import annotations

import argparse

from client.ui.i18n import tr

PROVIDERS = ("clova", "openai", "local")


def add_provider_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--provider", choices=PROVIDERS,
                   help=tr("모델 제공자 (env MCP_CHAT_PROVIDER): clova (키가 있으면 기본), openai (호환 서버), local (이 컴퓨터의 소형 모델)",
                           "model provider (env MCP_CHAT_PROVIDER): clova (default with a key), openai (compatible server), "
                           "local (a small model on this machine)"))
    p.add_argument("--base-url", metavar="URL",
                   help=tr("openai: OpenAI 호환 서버 주소 (env OPENAI_BASE_URL), 예: http://127.0.0.1:11434/v1",
                           "openai: OpenAI-compatible server address (env OPENAI_BASE_URL), e.g. http://127.0.0.1:11434/v1"))
