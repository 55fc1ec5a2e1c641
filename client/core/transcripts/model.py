"""What an import yields, its limits and errors. The participants line of a two-person
conversation (in the imported thread's system message) lives in client/core/context/speakers.py,
where the summarizer reads it back."""

from __future__ import annotations

from dataclasses import dataclass, field

from langchain_core.messages import BaseMessage

from client.core.context.quality import Lang
from client.core.context.speakers import MAX_NAME_CHARS, participants_line, participants_of  # noqa: F401 - re-exported

MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_CONVERSATIONS = 1_000
MAX_MESSAGES = 20_000  # per conversation
MAX_TEXT_CHARS = 200_000  # per message


class ImportFormatError(ValueError):
    """The file is not one we import: `key` names the fault (client/ui/i18n.py), `detail` where."""

    def __init__(self, key: str, detail: str = "") -> None:
        super().__init__(f"{key}: {detail}" if detail else key)
        self.key = key
        self.detail = detail


@dataclass
class Imported:
    """One conversation, ready to store: real turns only (no system message: the thread gets the
    importing user's own system prompt, plus `participants_line` when two people talk)."""

    title: str
    messages: list[BaseMessage]
    lang: Lang = "en"
    participants: tuple[str, str] | None = None  # (the user's name, the assistant's name)
    source_id: str = ""  # the sample id of a LoCoMo conversation, the thread id of an export
    sessions: int = 0
    extra: dict = field(default_factory=dict)

