"""Which memory candidates of a conversation are kept for scoring: the LLM's grounded items,
the user's own statements, or both (pure).

Seed 004 extracts bullets with an LLM, then scores them with a light model. On a small model
the extraction keeps what the assistant invented, leaves markup in, or echoes the request; so
each LLM item is cleaned (markup), dropped when it repeats the request (echo) or is not grounded
in the user's turns (ground.py), and gets as sources the user turns it draws on. The user's own
sentences (statements.py) need no model and invent nothing: with source "both" they fill in,
once everything is scored, what the grounded items kept do not already say.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Sequence

from langchain_core.messages import AIMessage, BaseMessage

from client.core.context.turns import is_synthetic, text_of
from client.core.memory.ground import Vocabulary, grounding, is_echo, strip_markup, support
from client.core.memory.parse import ENV_NAME, user_turns
from client.core.memory.policy import Bullet
from client.core.memory.statements import PREFIX, self_statements, statements_of
from client.core.memory.structure import junk

Source = Literal["llm", "user", "both"]
SOURCES: tuple[Source, ...] = ("both", "llm", "user")
COVERED = 0.6  # a statement whose words are this much in the grounded items adds nothing


@dataclass
class Conversation:
    """The user's and the assistant's words, turn by turn (tool results never count)."""
    user: dict[int, str]
    assistant: dict[int, str]

    @classmethod
    def of(cls, rows: Sequence[tuple[int, BaseMessage]]) -> "Conversation":
        assistant: dict[int, str] = {}
        for t, m in rows:
            if isinstance(m, AIMessage) and not is_synthetic(m) and text_of(m).strip():
                assistant[t] = (assistant.get(t, "") + "\n" + text_of(m)).strip()
        return cls(user_turns(rows), assistant)


def grounded_items(bullets: Sequence[Bullet], conv: Conversation, prompt_lines: Sequence[str] = (),
                   secrets: Sequence[str] = ()) -> list[Bullet]:
    """The LLM's items that say what the user said: markup stripped; dropped when they repeat the
    request (echo), ask something (a `?`), are not prose (a command, code, a log line: structure.py), or their words are the assistant's or nobody's. Only
    the user's statements ground an item (a question of theirs states nothing about them).
    Sources: the user turns the item draws on (those it cites first)."""
    said = {t: " ".join(statements_of(text)) for t, text in conv.user.items()}
    user = Vocabulary(said.values())
    assistant = Vocabulary(conv.assistant.values())
    out: list[Bullet] = []
    for b in bullets:
        text, tags = strip_markup(b.text)
        if (not text or "?" in text or "？" in text or junk(text) or is_echo(text, prompt_lines, user) or ENV_NAME.search(text)
                or any(s and s in text for s in secrets) or not grounding(text, user, assistant).grounded):
            continue
        cited = [t for t in sorted(set(b.sources) | set(tags)) if t in said and support(text, said[t]) > 0]
        if not cited:  # no (right) citation: the turn whose words it repeats most
            best = max(said, key=lambda t: support(text, said[t]), default=None)
            cited = [best] if best is not None else []
        out.append(Bullet(text, cited))
    return out


def statements(rows: Sequence[tuple[int, BaseMessage]], secrets: Sequence[str] = ()) -> list[Bullet]:
    return [b for b in self_statements(rows) if not any(s and s in b.text for s in secrets)]


@dataclass
class Candidates:
    """A session's candidates: the LLM's grounded items and the user's own statements."""
    grounded: list[Bullet] = field(default_factory=list)
    own: list[Bullet] = field(default_factory=list)

    def all(self) -> list[Bullet]:
        return [*self.grounded, *self.own]

    def combined(self, threshold: float) -> list[Bullet]:
        """Once scored: the grounded items, then each statement that the items kept (score at
        least `threshold`, or unscored) do not already say: a fact the scorer drops in the
        LLM's words survives in the user's."""
        kept = [b for b in self.grounded if b.score is None or b.score >= threshold]
        said = " ".join(b.text for b in kept)
        extra = [s for s in self.own if not said or support(s.text[len(PREFIX):], said) < COVERED]
        return [*self.grounded, *extra]


def choose(source: Source, llm: Sequence[Bullet] | None, rows: Sequence[tuple[int, BaseMessage]],
           prompt_lines: Sequence[str] = (), secrets: Sequence[str] = ()) -> Candidates:
    """The candidates to score. `llm` None: the extraction failed (no usable answer) or was not
    made. llm: the grounded items (the user's statements only when the extraction failed);
    user: the user's statements alone (no request needed); both: grounded items + statements."""
    own = statements(rows, secrets)
    if source == "user" or llm is None:
        return Candidates([], own)
    grounded = grounded_items(llm, Conversation.of(rows), prompt_lines, secrets)
    return Candidates(grounded, [] if source == "llm" else own)
