"""The model behind a session: build it (with its agent and middleware), list the
provider's models (`GET {base_url}/models`), switch for the rest of a session (/model)."""

from __future__ import annotations

from typing import Any

from client.core.config import Settings
from client.engine.providers import apply_model_window, build_model, get_provider


def build_stack(settings: Settings, tools: list, checkpointer: Any, gate: Any = None) -> tuple[Any, Any, Any]:
    """(agent, context middleware, summarizer) for settings.model; `gate` asks before unsafe tool calls."""
    from client.engine.agent import build_agent

    provider = get_provider(settings.provider)
    model = build_model(settings, with_tools=bool(tools))
    summarizer = build_model(settings, with_tools=False, role="summary")
    agent, mw = build_agent(model, tools, checkpointer, settings.max_input_tokens, settings.debug,
                            max_model_calls=settings.max_model_calls, max_tool_calls=settings.max_tool_calls, gate=gate,
                            tools_tokens=provider.tools_tokens(tools), calibration_prior=provider.calibration_prior)
    return agent, mw, summarizer


async def list_models(settings: Settings, timeout: float = 10.0) -> list[str] | None:
    """Model ids the endpoint lists; None when it has no /models route. Raises on other faults."""
    import httpx

    headers = {"Authorization": f"Bearer {settings.api_key}"} if settings.api_key else {}
    async with httpx.AsyncClient(timeout=timeout) as client:
        r = await client.get(settings.base_url.rstrip("/") + "/models", headers=headers)
    if r.status_code in (404, 405):
        return None
    r.raise_for_status()
    doc = r.json()
    items = doc.get("data", doc.get("models")) if isinstance(doc, dict) else doc
    ids = [str(m.get("id") or m.get("name")) for m in items or [] if isinstance(m, dict) and (m.get("id") or m.get("name"))]
    return sorted(set(ids))


def switch_model(session: Any, tools: list, name: str, gate: Any = None) -> None:
    """Rebuild the session's model, agent and summarizer for `name`; the thread stays."""
    s = session.settings
    s.model = name
    apply_model_window(s)  # window and output reserve of the new model (an explicit budget is kept)
    agent, mw, summarizer = build_stack(s, tools, session.store.checkpointer, gate)
    session.agent, session.mw, session.summarizer = agent, mw, summarizer
    if session.memory is not None:
        session.memory.model = summarizer
