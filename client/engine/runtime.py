"""What a provider's runtime learns while the chat runs; the Settings stay what was resolved."""

from __future__ import annotations

from dataclasses import dataclass

from client.core.config import Settings


@dataclass
class Runtime:
    """`base_url`: where the chat model answers (local: the server it started); `chat_slot`: the
    server slot the chat keeps (its prompt cache; summaries use the other); `summary_base_url`:
    the niced server for background summaries, set once it answers (read when a summary starts);
    `uds`, `summary_uds`: the unix sockets of the local model's servers (client/engine/http.py).
    Passed along (client/engine/models.py reads it at each build), never written into Settings.
    """

    base_url: str
    chat_slot: int | None = None
    summary_base_url: str = ""
    api_key: str | None = None  # local: the key its server requires (client/engine/local/keeper.py)
    uds: str = ""  # local: the unix socket every request goes through (base_url's host is then a name)
    summary_uds: str = ""

    @classmethod
    def of(cls, s: Settings) -> Runtime:
        """Nothing learnt: the endpoint the settings name."""
        return cls(s.base_url)

    def summary_server(self) -> Runtime | None:
        """The runtime of the summary server, once it is ready (None before)."""
        if not self.summary_base_url:
            return None
        return Runtime(self.summary_base_url, api_key=self.api_key, uds=self.summary_uds)

    def key(self, s: Settings) -> str | None:
        """The key requests to this endpoint carry: the runtime's own, else the settings'."""
        return self.api_key or s.api_key
