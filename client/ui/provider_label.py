"""The provider and model in plain words, on the status line and in /help."""

from __future__ import annotations

from urllib.parse import urlsplit

from client.core.config import Settings
from client.ui import i18n


def provider_lines(s: Settings) -> tuple[str, str]:
    """(status-line prefix, /help line) naming the provider and model of `s` (the session's
    settings now: after /model, the new model)."""
    from client.engine.providers import get_provider

    if s.provider == "local":
        what = i18n.t("provider_local", model=get_provider("local").label)
    elif s.provider == "openai":
        what = i18n.t("provider_openai", model=s.model, host=urlsplit(s.base_url).netloc or s.base_url)
    else:
        what = i18n.t("provider_clova", model=s.model)
    return f"{what} · ", i18n.t("provider_help", what=what, budget=s.max_input_tokens)

