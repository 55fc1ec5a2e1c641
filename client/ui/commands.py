"""Slash-command parsing (pure) and help text."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

COMMANDS: dict[str, tuple[str, str, str]] = {
    # name: (argument hint, Korean help, English help)
    "help": ("", "명령 목록", "list commands"),
    "new": ("", "새 세션 시작", "start a new session"),
    "threads": ("", "저장된 세션 목록", "list stored sessions"),
    "resume": ("ID", "다른 세션으로 전환", "switch to another session"),
    "delete": ("ID", "세션 삭제 (확인 후)", "delete a session (asks first)"),
    "export": ("[PATH]", "대화 내보내기 (.md/.json, 경로 없으면 화면)", "export (.md/.json; no path: screen)"),
    "context": ("[none|trim|summarize]", "컨텍스트 정책 보기/바꾸기", "show or change the context policy"),
    "compact": ("[초점]", "지금 요약 (남길 내용 지정 가능)", "summarize now (optional focus)"),
    "summary": ("", "현재 요약 보기", "show the current summary"),
    "tokens": ("", "턴별/전체 토큰 사용량 (API 보고값)", "per-turn and total tokens (API-reported)"),
    "model": ("[NAME]", "모델 목록 보기/이 세션의 모델 바꾸기", "list models or switch for this session"),
    "tools": ("", "서버별 도구와 설명", "tools per server, with descriptions"),
    "servers": ("", "MCP 서버 상태", "MCP server states"),
    "permissions": ("[reset]", "도구 허용 목록 보기/초기화", "list or reset tool approvals"),
    "title": ("[TEXT]", "세션 제목 보기/바꾸기", "show or rename the session title"),
    "memory": ("", "장기 기억 목록 (점수, 출처)", "long-term memory (scores, sources)"),
    "forget": ("N", "장기 기억 N번 삭제", "delete memory item N"),
    "end": ("", "세션을 끝내고 장기 기억 갱신 후 새 세션", "end the session, update memory, start anew"),
    "prompts": ("", "MCP 프롬프트 목록", "list MCP prompts"),
    "prompt": ("서버:이름 키=값..", "MCP 프롬프트를 실행해 대화에 넣기", "run an MCP prompt as a turn"),
    "resources": ("", "MCP 리소스 목록 (@서버:URI 로 첨부)", "list MCP resources (attach with @server:uri)"),
    "roots": ("[PATH]", "서버에 알린 폴더 보기/추가", "show or add the roots offered to servers"),
    "clear": ("", "화면 지우기", "clear the screen"),
    "exit": ("", "종료", "quit"),
}
ALIASES = {"quit": "exit", "q": "exit", "h": "help", "?": "help"}


@dataclass(frozen=True)
class Command:
    name: str  # canonical name, or the unknown word as typed
    arg: str
    known: bool


def parse(line: str) -> Command | None:
    """`/name arg...` -> Command; anything not starting with '/' -> None."""
    s = line.strip()
    if not s.startswith("/") or s == "/":
        return None
    head, *rest = s[1:].split(None, 1)
    name = ALIASES.get(head.lower(), head.lower())
    return Command(name, rest[0].strip() if rest else "", name in COMMANDS)


def help_text(lang: str = "ko") -> str:
    from client.ui.i18n import default

    rows = [default("provider_help")] if default("provider_help") else []  # which model answers
    for name, (hint, ko, en) in COMMANDS.items():
        rows.append(pad(f"  /{name} {hint}", 34) + (ko if lang == "ko" else en))
    return "\n".join(rows)


def pad(text: str, cells: int) -> str:
    """ljust by terminal cells: Hangul and other wide characters take two."""
    width = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
    return text + " " * max(0, cells - width)
