"""UI strings, one table per language. Korean is the default."""

from __future__ import annotations

KO: dict[str, str] = {
    "ask_thread": "세션 ID를 입력하세요(새 세션 시작은 Enter):",
    "current_thread": "현재 세션 ID: {id}",
    "greeting": "안녕하세요. 저는 AI 어시스턴트입니다. 원하시는 요청을 입력해 주세요. (종료하려면 '종료'를 입력하세요.)",
    "bye": "대화를 종료합니다. 이용해 주셔서 감사합니다.",
    "resumed": "이전 대화 {turns}턴을 이어갑니다.",
    "tool_select": "[도구 선택]: {name}",
    "tool_call": "[도구 호출]: {args}",
    "tool_result": "[도구 응답]: {preview}",
    "tool_error": "[도구 오류]: {preview}",
    "trimmed": "{keep}턴을 초과하여서 트리밍을 수행합니다.",
    "summarizing": "이전 대화 {n}턴을 요약합니다...",
    "summarized": "이전 대화를 요약했습니다 ({n}턴 → 요약 1개).",
    "summary_failed": "경고: 요약 요청이 실패하여 이번 턴은 요약 없이 보냅니다. 다음 턴에 다시 시도합니다. ({err})",
    "budget_dropped": "토큰 예산을 넘어 오래된 {n}턴을 이번 요청에서 뺐습니다.",
    "too_long": "메시지가 너무 깁니다: 약 {tokens} 토큰으로 요청 예산 {budget} 토큰을 넘습니다. 보내지 않았고 저장하지도 않았습니다.",
    "status": "[상태] 요청 토큰 추정 {est}{api} · 예산의 {pct}% · 컨텍스트 {turns}턴{action}",
    "status_api": " / API {n}",
    "status_trim": " · 트리밍",
    "status_summary": " · 요약",
    "turn_error": "요청을 처리하는 중 오류가 발생했습니다: {err}",
    "no_key": "CLOVA Studio API 키가 없습니다. .env 또는 환경 변수에 CLOVA_STUDIO_API_KEY를 설정하세요.",
    "bad_option": "잘못된 옵션: {detail}",
    "bad_thread_id": "세션 ID가 올바르지 않습니다: 영문, 숫자, '-', '_', '.' 로 된 1~128자여야 합니다.",
    "db_not_database": "'{path}' 파일은 읽을 수 있는 SQLite 데이터베이스가 아닙니다. 파일은 그대로 두었습니다.",
    "db_unreadable": "'{path}' 파일을 읽을 수 없습니다.",
    "db_readonly": "'{path}' 위치에 데이터베이스를 만들 수 없습니다 (쓰기 권한 없음).",
    "db_error": "데이터베이스 오류 ({path}): {detail}",
    "db_postgres_unsupported": "PostgreSQL 저장소는 아직 지원하지 않습니다. SQLite 파일 경로를 지정하세요.",
    "mcp_failed": "MCP 서버에 연결하지 못했습니다 ({target}): {err}. 도구 없이 대화를 계속합니다.",
    "mcp_required": "MCP 서버에 연결하지 못했습니다 ({target}): {err}",
    "tools_ready": "도구 {n}개 사용 가능: {names}",
    "no_thread": "세션을 찾을 수 없습니다: {id}",
    "deleted": "세션을 삭제했습니다: {id}",
    "threads_empty": "저장된 세션이 없습니다.",
    "interrupted": "중단했습니다. 이 메시지는 저장되지 않았습니다.",
    "export_turn": "## {n}번째 턴",
    "export_summary": "> (요약) {text}",
    "unknown_command": "알 수 없는 명령입니다: {cmd}. /help 로 명령 목록을 확인하세요.",
    "nothing_to_compact": "요약할 이전 대화가 없습니다.",
    "retrying": "요청 실패({err}), {delay:.1f}초 후 다시 시도합니다 ({n}/{total})...",
}

EN: dict[str, str] = {
    "ask_thread": "Enter a session ID (Enter starts a new session):",
    "current_thread": "Current session ID: {id}",
    "greeting": "Hello, I am an AI assistant. Type your request. (Type 'exit' to quit.)",
    "bye": "Goodbye.",
    "resumed": "Continuing the previous {turns} turns.",
    "tool_select": "[tool]: {name}",
    "tool_call": "[call]: {args}",
    "tool_result": "[result]: {preview}",
    "tool_error": "[tool error]: {preview}",
    "trimmed": "More than {keep} turns: trimming the oldest.",
    "summarizing": "Summarizing {n} earlier turns...",
    "summarized": "Earlier turns summarized ({n} turns -> 1 summary).",
    "summary_failed": "Warning: the summary request failed; this turn goes out unsummarized and the next turn retries. ({err})",
    "budget_dropped": "Over the token budget: left {n} old turns out of this request.",
    "too_long": "Message too long: about {tokens} tokens, over the request budget of {budget}. Not sent, not stored.",
    "status": "[status] request tokens est. {est}{api} · {pct}% of budget · {turns} turns in context{action}",
    "status_api": " / API {n}",
    "status_trim": " · trimmed",
    "status_summary": " · summarized",
    "turn_error": "Error while handling the request: {err}",
    "no_key": "No CLOVA Studio API key. Set CLOVA_STUDIO_API_KEY in .env or the environment.",
    "bad_option": "Bad option: {detail}",
    "bad_thread_id": "Invalid session ID: use 1-128 letters, digits, '-', '_' or '.'.",
    "db_not_database": "'{path}' is not a readable SQLite database. The file was left untouched.",
    "db_unreadable": "Cannot read '{path}'.",
    "db_readonly": "Cannot create a database at '{path}' (not writable).",
    "db_error": "Database error ({path}): {detail}",
    "db_postgres_unsupported": "PostgreSQL storage is not supported yet. Give a SQLite file path.",
    "mcp_failed": "Could not connect to the MCP server ({target}): {err}. Continuing without tools.",
    "mcp_required": "Could not connect to the MCP server ({target}): {err}",
    "tools_ready": "{n} tools available: {names}",
    "no_thread": "No such session: {id}",
    "deleted": "Deleted session: {id}",
    "threads_empty": "No stored sessions.",
    "interrupted": "Interrupted. This message was not stored.",
    "export_turn": "## Turn {n}",
    "export_summary": "> (summary) {text}",
    "unknown_command": "Unknown command: {cmd}. Type /help for the list.",
    "nothing_to_compact": "Nothing older to summarize.",
    "retrying": "Request failed ({err}); retrying in {delay:.1f}s ({n}/{total})...",
}

TABLES = {"ko": KO, "en": EN}
_lang = "ko"


def set_lang(lang: str) -> None:
    global _lang
    _lang = lang if lang in TABLES else "ko"


def t(key: str, **fmt: object) -> str:
    text = TABLES[_lang].get(key) or KO.get(key) or key
    return text.format(**fmt) if fmt else text
