"""A RabbitMQ node of the test's own, with the MQTT plugin, on free loopback ports.

It never touches the system's node: its own node name, config, data (mnesia), log,
feature-flags and plugins files, Erlang cookie (HOME), AMQP, MQTT and distribution
ports, all in a temporary directory. The config is the stock one plus the listeners:
anonymous MQTT clients are the default user (guest), as on a stock install.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import tempfile
from pathlib import Path

from tests.support import free_ports, wait_until

SERVER = Path("/usr/lib/rabbitmq/bin/rabbitmq-server")


def rabbitmq_available() -> bool:
    return SERVER.exists()


def _mqtt_accepts(port: int) -> bool:
    connect = b"\x10\x13\x00\x04MQTT\x04\x02\x00\x0a\x00\x07stacks-"
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1) as sock:
        sock.settimeout(3)
        sock.sendall(connect)
        answer = sock.recv(4)
        return len(answer) == 4 and answer[0] == 0x20 and answer[3] == 0
    return False


class RabbitNode:
    def __init__(self) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="stacks-rabbitmq-")
        self.folder = Path(self._dir.name)
        self.amqp, self.mqtt, self.dist = free_ports(3)
        self.url = f"mqtt://127.0.0.1:{self.mqtt}"
        self._proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 90.0) -> None:
        folder = self.folder
        conf = folder / "rabbitmq.conf"
        conf.write_text(f"listeners.tcp.default = 127.0.0.1:{self.amqp}\n"
                        f"mqtt.listeners.tcp.default = 127.0.0.1:{self.mqtt}\n")
        (folder / "enabled_plugins").write_text("[rabbitmq_mqtt].\n")
        (folder / "rabbitmq-env.conf").write_text("")
        env = {
            **os.environ,
            "HOME": str(folder),
            "RABBITMQ_NODENAME": f"stacks-test-{self.mqtt}@localhost",
            "RABBITMQ_NODE_IP_ADDRESS": "127.0.0.1",
            "RABBITMQ_NODE_PORT": str(self.amqp),
            "RABBITMQ_DIST_PORT": str(self.dist),
            "RABBITMQ_CONFIG_FILE": str(conf),
            "RABBITMQ_CONF_ENV_FILE": str(folder / "rabbitmq-env.conf"),
            "RABBITMQ_MNESIA_BASE": str(folder / "mnesia"),
            "RABBITMQ_LOG_BASE": str(folder / "log"),
            "RABBITMQ_ENABLED_PLUGINS_FILE": str(folder / "enabled_plugins"),
            "RABBITMQ_FEATURE_FLAGS_FILE": str(folder / "feature_flags"),
            "ERL_EPMD_ADDRESS": "127.0.0.1",
        }
        log = (folder / "server.out").open("wb")
        # Its own process group: stopping it stops the Erlang VM and its helpers too.
        self._proc = subprocess.Popen([str(SERVER)], env=env, cwd=folder, stdout=log,
                                      stderr=subprocess.STDOUT, start_new_session=True)
        proc = self._proc

        def taking_clients() -> bool:
            if proc.poll() is not None:
                raise RuntimeError(f"RabbitMQ ended with {proc.returncode} before taking "
                                   f"MQTT clients: {self._tail()}")
            return _mqtt_accepts(self.mqtt)

        try:
            wait_until(taking_clients, "RabbitMQ to take MQTT clients", timeout, interval=0.25,
                       diagnostics=self._tail)
        except BaseException:
            self.stop()
            raise

    def _tail(self) -> str:
        return (self.folder / "server.out").read_text(errors="replace")[-2000:]

    def log_text(self) -> str:
        return "\n".join(p.read_text(errors="replace")
                         for p in (self.folder / "log").glob("*.log"))

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(5)
        self._dir.cleanup()
