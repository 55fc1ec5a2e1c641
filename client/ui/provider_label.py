"""The provider and model in plain words: on the status line (short), in /help (with the local
model's note), and that note once at the start of a chat."""

from __future__ import annotations

from urllib.parse import urlsplit

from client.core.config import Settings
from client.ui import i18n


def provider_lines(s: Settings) -> tuple[str, str]:
    """(status-line prefix, /help line) naming the provider and model of `s` (the session's
    settings now: after /model, the new model). The status line stays short: the small local
    model's note is in /help and shown once at the start (`local_note`), not after every answer."""
    from client.engine.providers import get_provider

    if s.provider == "local":
        label = get_provider("local").label
        what, described = i18n.t("provider_local", model=label), i18n.t("provider_local_help", model=label)
    elif s.provider == "openai":
        what = described = i18n.t("provider_openai", model=s.model, host=urlsplit(s.base_url).netloc or s.base_url)
    else:
        what = described = i18n.t("provider_clova", model=s.model)
    return f"{what} · ", i18n.t("provider_help", what=described, budget=s.max_input_tokens)


def status_names(s: Settings) -> tuple[str, str]:
    """(model, provider) for the terminal's status line, model first: at a narrow width the
    provider goes before the model's name is cut (client/ui/render_rich.py `status_line`)."""
    if s.provider == "local":
        from client.engine.providers import get_provider

        return get_provider("local").label, i18n.t("provider_local_short")
    if s.provider == "openai":
        return s.model, urlsplit(s.base_url).netloc or s.base_url
    return s.model, "CLOVA Studio"


def local_note(s: Settings) -> str | None:
    """The small local model's note for the start of a chat; None for other providers, and when
    the start already said it (the local model chosen because no key was set: `auto_local`)."""
    if s.provider != "local" or s.provider_auto:
        return None
    from client.engine.providers import get_provider

    return i18n.t("local_note", model=get_provider("local").label)
