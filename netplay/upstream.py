"""The libraries whose internals the project relies on: which, at which versions, and
which of their private names.

Where a library's public API costs too much (paho's objects per frame, aiomqtt's task
per client, Textual's whole-widget repaints, issue #28) or hides a bug (amqtt's,
docs/upstream.md), the code reaches past it, to names a release may change without a
word. Each such library is bounded in pyproject.toml to the releases it was tested with
(:attr:`Upstream.requirement`, checked against pyproject by a test), and every private
name the code touches is listed here (a test reads the code and fails on one that is
not listed, or listed and no longer used, or gone from the installed release). To move
a bound: install the new release, run ``tests/netplay/test_upstream.py`` and the tests
of the modules named in ``used_by``, and raise ``below`` here and in pyproject.toml.

The modules on paho and aiomqtt check the installed versions when they are imported
(:func:`require`): a release outside the range is an ``ImportError`` that names the
private names at stake, not an ``AttributeError`` in a callback mid-game. Textual's and
textual-serve's are checked by the test only (their versions are read from package
metadata, which costs the interface's first frame a tenth of a second), amqtt's too
(the broker's floor is below this one).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass

UNTESTED_OK = "STACKS_UNTESTED_LIBRARIES"
"""Environment variable: set to 1, a library release outside its tested range is used
anyway (to try a new release before moving a bound); it is said in a warning."""


@dataclass(frozen=True, slots=True)
class Upstream:
    """A library the code relies on the internals of."""

    distribution: str
    """Its name on PyPI (as in pyproject.toml)."""
    since: str
    """The lowest release tested."""
    below: str
    """The first release not tested: the upper bound."""
    names: Mapping[str, tuple[str, ...]]
    """Per holder (a module, or a class by the path it is imported from), the private
    names of it the code reads, sets, overrides or imports."""
    used_by: tuple[str, ...]
    """The project's modules that use them."""

    @property
    def requirement(self) -> str:
        """The requirement pyproject.toml declares, to the letter."""
        return f"{self.distribution}>={self.since},<{self.below}"

    def covers(self, version: str) -> bool:
        """Whether ``version`` is in the tested range."""
        return release(self.since) <= release(version) < release(self.below)

    def private_names(self) -> list[str]:
        return [f"{holder}.{name}" for holder, names in self.names.items() for name in names]

    def outside(self, version: str) -> str:
        """Why ``version`` is not to be used, in words."""
        return (f"{self.distribution} {version} is installed, but this program was tested "
                f"with {self.requirement} only, and relies on its private names "
                f"{', '.join(self.private_names())} (used by {', '.join(self.used_by)}). "
                f"Install a tested release: pip install '{self.requirement}'")


def release(version: str) -> tuple[int, ...]:
    """The release numbers of ``version`` ("2.5.1rc1" -> (2, 5, 1)), to compare."""
    match = re.match(r"\d+(?:\.\d+)*", version)
    if match is None:
        raise ValueError(f"not a version: {version!r}")
    numbers = tuple(int(part) for part in match.group().split("."))
    return numbers + (0,) * (3 - len(numbers))


class UntestedLibrary(ImportError):
    """A library release outside the range the code was tested with is installed."""


def require(upstream: Upstream, version: str) -> None:
    """Raise :class:`UntestedLibrary` (or, with :data:`UNTESTED_OK` set, warn) when
    ``version`` of ``upstream`` is outside its tested range."""
    if upstream.covers(version):
        return
    if os.environ.get(UNTESTED_OK) == "1":
        import warnings

        warnings.warn(upstream.outside(version), stacklevel=2)
        return
    raise UntestedLibrary(upstream.outside(version))


PAHO = Upstream(
    "paho-mqtt", since="2.2", below="2.3",
    names={
        "paho.mqtt.client.Client": (
            "_handle_pubackcomp", "_handle_publish", "_in_packet", "_inflight_messages",
            "_keepalive", "_last_bytes_received", "_last_msg_out", "_max_inflight_messages",
            "_mid_generate", "_on_message_filtered", "_out_message_mutex", "_out_messages",
            "_out_packet", "_registered_write", "_sock", "_sock_close", "_update_inflight",
        ),
        "paho.mqtt.client.MQTTMessageInfo": ("_set_as_published",),
    },
    used_by=("netplay/mqtt_packets.py", "netplay/mqtt_client.py", "netplay/transport.py"),
)
AIOMQTT = Upstream(
    "aiomqtt", since="2.5", below="2.6",
    names={
        "aiomqtt.Client": (
            "_client", "_connected", "_disconnected", "_loop", "_misc_loop", "_misc_task",
            "_on_socket_open",
        ),
    },
    used_by=("netplay/mqtt_client.py", "netplay/transport.py"),
)
TEXTUAL = Upstream(
    "textual", since="8.2", below="8.3",
    names={
        "textual": ("_compositor", "_context", "_path", "_xterm_parser"),
        "textual._compositor.Compositor": ("_render_chops",),
        "textual.screen.Screen": ("_compositor",),
        "textual.drivers.linux_driver.LinuxDriver": (
            "_app", "_debug", "_file", "_loop", "_run_input_thread",
        ),
        "textual.widgets.OptionList": ("_heights", "_index_to_line", "_update_lines"),
        "textual.widgets.RichLog": ("_deferred_renders", "_scroll_update", "_size_known"),
    },
    used_by=("tui/compositor.py", "tui/driver.py", "tui/widgets/options.py",
             "tui/widgets/log.py", "tui/screens/gameover.py", "tui/screens/learn.py",
             "tui/screens/table.py"),
)
TEXTUAL_SERVE = Upstream(
    "textual-serve", since="1.1", below="1.2",
    names={"textual_serve.app_service.AppService": ("_build_environment", "_process")},
    used_by=("webserver/server.py",),
)
AMQTT = Upstream(
    "amqtt", since="0.12.1", below="0.13",
    names={
        "amqtt.broker.Broker": ("_publish_retained_messages_for_subscription", "_subscriptions"),
    },
    used_by=("broker/embedded.py",),
)

UPSTREAM: tuple[Upstream, ...] = (PAHO, AIOMQTT, TEXTUAL, TEXTUAL_SERVE, AMQTT)
"""Every library whose private names the code uses."""
