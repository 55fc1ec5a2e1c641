"""Plays another local user who wants to be the local model (tests/localmodel/test_squat.py).

    python3 -c "$(cat squatter.py)" MARKER FOLDER[:FOLDER...]

Stdlib only, run as a throwaway user. It watches every process's command line (world-readable
in /proc) for one that carries MARKER (the model's alias), and the moment it appears, before the
server binds: takes the TCP port the command line names, if any, and binds the unix socket it
names in each folder it can guess, world-connectable. It prints one JSON line saying what it saw
and took, then answers every connection as llama-server would (200, the model listed, loaded),
printing what each one sent (a key, a prompt), and keeps trying to reach the real socket.
"""

from __future__ import annotations

import json
import os
import select
import socket
import sys
import time

marker, folders = sys.argv[1], [f for f in sys.argv[2].split(":") if f]


def find() -> list[str] | None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    argv = [a.decode(errors="replace") for a in f.read().split(b"\0")]
            except OSError:
                continue
            if any(a == "--alias" and b == marker for a, b in zip(argv, argv[1:])):
                return argv
        time.sleep(0.002)
    return None


def say(obj: dict) -> None:
    print(json.dumps(obj), flush=True)


argv = find()
report: dict = {"saw": argv, "bound": [], "refused": []}
listeners: list[socket.socket] = []
paths: list[str] = []
if argv:
    opt = {argv[i]: argv[i + 1] for i in range(len(argv) - 1) if argv[i].startswith("--")}
    host, port = opt.get("--host", ""), opt.get("--port")
    if not host.endswith(".sock"):
        s = socket.socket()
        try:
            s.bind((host or "127.0.0.1", int(port or 8080)))
            s.listen(16)
            listeners.append(s)
            report["bound"].append(f"tcp:{host}:{port or 8080}")
        except OSError as e:
            report["refused"].append([f"tcp:{port}", e.errno])
    else:
        paths = [host] if host.startswith("/") else [os.path.join(f, host) for f in folders]
        os.umask(0)  # whoever finds our socket may connect to it
        for path in paths:
            s = socket.socket(socket.AF_UNIX)
            try:
                s.bind(path)
                s.listen(16)
                listeners.append(s)
                report["bound"].append(path)
            except OSError as e:
                report["refused"].append([path, e.errno])
say(report)

alias = opt.get("--alias", "") if argv else ""
body = json.dumps({"data": [{"id": alias}], "status": "ok"}).encode()
reply = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body)
reached: set[str] = set()
while True:
    ready, _, _ = select.select(listeners, [], [], 0.05)
    for s in ready:
        conn, _ = s.accept()
        conn.settimeout(2)
        try:
            data = conn.recv(65536)
            say({"got": data.decode(errors="replace")})
            conn.sendall(reply)
        except OSError:
            pass
        finally:
            conn.close()
    for path in paths:  # the real server, once it listens: can another user reach it?
        if path in reached or path in report["bound"]:
            continue
        c = socket.socket(socket.AF_UNIX)
        try:
            c.connect(path)
            reached.add(path)
            say({"reached": path})
        except OSError:
            pass
        finally:
            c.close()
