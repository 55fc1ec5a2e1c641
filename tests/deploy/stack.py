"""Debian's nginx with deploy/nginx.conf in front of two real `--stateless` replicas.

Fixed ports (the ones the shipped site file names): nginx 8080, replicas 8001 and 8002.
Each replica talks to its own Naver stub, so a stub's request log says which replica served.
Used by tests/deploy and bench/nginx_load.py.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from tests.stubs.naver_stub import NaverStub

ROOT = Path(__file__).resolve().parents[2]
NGINX_PORT = 8080
REPLICA_PORTS = (8001, 8002)
TOKEN = "tok-deploy-9f3c2b7e1a"
OLD_TOKEN = "tok-rotated-out-5d41"  # a second accepted token (rotation)


def nginx_binary() -> str | None:
    return shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None)


def busy_ports(ports: tuple[int, ...] = (NGINX_PORT, *REPLICA_PORTS)) -> list[int]:
    busy = []
    for port in ports:
        with socket.socket() as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                busy.append(port)
    return busy


def listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


def wait_until(pred: Any, timeout: float, what: str, proc: subprocess.Popen | None = None, log: Path | None = None) -> None:
    end = time.monotonic() + timeout
    while not pred():
        if proc is not None and proc.poll() is not None:
            tail = log.read_text(errors="replace")[-2000:] if log and log.exists() else ""
            raise RuntimeError(f"{what}: process exited with {proc.returncode}\n{tail}")
        if time.monotonic() > end:
            raise TimeoutError(f"timed out waiting for {what}")
        time.sleep(0.05)


def stop(proc: subprocess.Popen, sig: int = signal.SIGTERM) -> None:
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


class Stack:
    """nginx + two replicas + two Naver stubs, all children of this process, all stopped on exit."""

    def __init__(self, workdir: Path, tokens: tuple[str, ...] = (TOKEN, OLD_TOKEN),
                 allowed_hosts: str = "mcp.internal:*", naver_timeout: str = "30") -> None:
        self.dir = workdir
        self.tokens = tokens
        self.allowed_hosts = allowed_hosts
        self.naver_timeout = naver_timeout
        self.url = f"http://127.0.0.1:{NGINX_PORT}/mcp"
        self.stubs: dict[int, NaverStub] = {}
        self.replicas: dict[int, subprocess.Popen] = {}
        self.nginx: subprocess.Popen | None = None

    def log(self, port: int) -> str:
        return (self.dir / f"replica-{port}.log").read_text(errors="replace")

    def start_replica(self, port: int) -> None:
        stub = self.stubs[port]
        env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1",
               "NAVER_API_BASE_URL": stub.base_url, "NAVER_CLIENT_ID": stub.client_id,
               "NAVER_CLIENT_SECRET": stub.client_secret, "NAVER_TIMEOUT": self.naver_timeout,
               "MCP_SEARCH_TOKEN": ",".join(self.tokens), "MCP_ALLOWED_HOSTS": self.allowed_hosts}
        log_path = self.dir / f"replica-{port}.log"
        with open(log_path, "a") as log:
            proc = subprocess.Popen([sys.executable, "-m", "server", "--stateless", "--port", str(port)],
                                    env=env, cwd=self.dir, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        self.replicas[port] = proc
        wait_until(lambda: listening(port), 60, f"replica on {port}", proc, log_path)

    def kill(self, port: int) -> None:
        """SIGKILL a replica (no goodbye to nginx) and wait until its port is closed."""
        proc = self.replicas[port]
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        wait_until(lambda: not listening(port), 10, f"port {port} to close")

    def __enter__(self) -> Stack:
        busy = busy_ports()
        if busy:
            raise RuntimeError(f"ports {busy} are in use: the nginx tests need 127.0.0.1:8080, :8001 and :8002 "
                               "free (deploy/nginx.conf names them); stop whatever listens there")
        nginx = nginx_binary()
        if nginx is None:
            raise RuntimeError("nginx is not installed: run `bash scripts/nginx_start.sh --install` (as root)")
        try:
            for port in REPLICA_PORTS:
                stub = self.stubs[port] = NaverStub(client_id=f"id-{port}", client_secret=f"secret-{port}").start()
                stub._httpd.handle_error = lambda *a: None  # a killed replica resets its sockets: not news
            for port in REPLICA_PORTS:
                self.start_replica(port)
            log = self.dir / "nginx-start.log"
            with open(log, "w") as out:
                self.nginx = subprocess.Popen(["bash", str(ROOT / "scripts" / "nginx_start.sh"), str(self.dir / "nginx")],
                                              cwd=ROOT, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                                              start_new_session=True)
            wait_until(lambda: listening(NGINX_PORT), 30, "nginx on 8080", self.nginx, log)
            wait_until(self._healthy, 30, "GET /healthz through nginx")
        except BaseException:
            self.__exit__()
            raise
        return self

    def _healthy(self) -> bool:
        try:
            return httpx.get(f"http://127.0.0.1:{NGINX_PORT}/healthz", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def __exit__(self, *exc: object) -> None:
        if self.nginx is not None:
            stop(self.nginx, signal.SIGTERM)  # exec'd: this is nginx's master; it stops its worker
        for proc in self.replicas.values():
            stop(proc)
        for stub in self.stubs.values():
            stub.stop()
