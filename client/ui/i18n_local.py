"""UI strings of the local provider's one-time setup (client/engine/local reports keys, these word them).

Kept apart from client/ui/i18n.py so parallel work on the main tables merges cleanly; merged into them there.
"""

KO: dict[str, str] = {
    "local_src_fetch": "{pkg} {version} 소스를 pip로 내려받습니다...",
    "local_pip_failed": "pip download {what}: {err}",
    "local_no_cmake": "cmake가 없습니다: `pip install cmake` 또는 `apt-get install cmake` 후 다시 실행하세요.",
    "local_build_start": "llama-server를 빌드합니다 ({pkg} {version}의 llama.cpp, 한 번만, 몇 분 걸립니다)",
    "local_build_label": "llama-server 빌드",
    "local_build_failed": "llama-server 빌드 실패 (로그: {log})",
    "local_build_missing": "llama-server 빌드 결과가 없습니다 (로그: {log})",
    "local_build_done": "llama-server 준비 완료 ({seconds}초): {path}",
    "local_weights_fetch": "모델 가중치를 내려받습니다: {source} ({gib} GiB, 한 번만)",
    "local_weights_label": "모델 내려받기",
    "local_weights_bad": "모델 파일 검증 실패: 크기 {size}, sha256 {got}… (기대값 {want}…)",
    "local_weights_ok": "모델 검증 완료 (sha256 {sha}…): {path}",
    "local_server_exited": "llama-server가 시작하지 못했습니다 (종료 코드 {code}, 로그: {log})",
    "local_server_timeout": "llama-server가 {seconds}초 안에 준비되지 않았습니다 (로그: {log})",
    "local_progress_pct": "{label}: {pct}%{note}",
    "local_progress_done": "{label}: 완료 ({seconds}초)",
}

EN: dict[str, str] = {
    "local_src_fetch": "Downloading the {pkg} {version} source with pip...",
    "local_pip_failed": "pip download {what}: {err}",
    "local_no_cmake": "cmake is missing: run `pip install cmake` or `apt-get install cmake`, then try again.",
    "local_build_start": "Building llama-server (llama.cpp of {pkg} {version}; once, takes a few minutes)",
    "local_build_label": "Building llama-server",
    "local_build_failed": "llama-server build failed (log: {log})",
    "local_build_missing": "The llama-server build produced no binary (log: {log})",
    "local_build_done": "llama-server ready ({seconds}s): {path}",
    "local_weights_fetch": "Downloading the model weights: {source} ({gib} GiB, once)",
    "local_weights_label": "Downloading the model",
    "local_weights_bad": "Model file verification failed: size {size}, sha256 {got}… (expected {want}…)",
    "local_weights_ok": "Model verified (sha256 {sha}…): {path}",
    "local_server_exited": "llama-server did not start (exit code {code}, log: {log})",
    "local_server_timeout": "llama-server was not ready within {seconds}s (log: {log})",
    "local_progress_pct": "{label}: {pct}%{note}",
    "local_progress_done": "{label}: done ({seconds}s)",
}
