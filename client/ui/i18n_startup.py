"""UI strings of the background helpers: the pre-imported process (`mcp-chat daemon`) and the
local model kept warm (`mcp-chat local`). Merged into client/ui/i18n.py."""

KO: dict[str, str] = {
    "daemon_status": "{kind}: 실행 중 (pid {pid}, {served}회 처리, {idle}초 유휴, {timeout}초 유휴 후 종료; {root})",
    "daemon_none": "미리 적재된 프로세스가 없습니다.",
    "daemon_stopped": "{kind}: 종료함 (pid {pid}; {root})",
    "daemon_not_started": "미리 적재된 프로세스를 시작하지 못했습니다 (MCP_CHAT_DAEMON=0, Linux 아님, 또는 비공개 실행 폴더 없음; docs/startup.md)",
    "local_status": "로컬 모델 서버: 실행 중 (pid {pid}, 소켓 {socket}, 마지막 세션 후 {keep}초 유지)",
    "local_none": "로컬 모델 서버: 실행 중이 아님",
    "local_stopped": "로컬 모델 서버를 종료했습니다 (pid {pid})",
}

EN: dict[str, str] = {
    "daemon_status": "{kind}: running (pid {pid}, served {served}, idle {idle} s, stops after {timeout} s idle; {root})",
    "daemon_none": "No pre-imported process is running.",
    "daemon_stopped": "{kind}: stopped (pid {pid}; {root})",
    "daemon_not_started": "Could not start the pre-imported process (MCP_CHAT_DAEMON=0, not Linux, or no private runtime folder; docs/startup.md)",
    "local_status": "local model server: running (pid {pid}, socket {socket}, kept {keep} s after the last session)",
    "local_none": "local model server: not running",
    "local_stopped": "Stopped the local model server (pid {pid})",
}
