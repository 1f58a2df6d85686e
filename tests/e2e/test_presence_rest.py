"""Presence resting on a real broker (protocol 7). The host finds out whether its broker
fires a silent client's last will: Mosquitto does (so the table rests: rare beats), the
embedded amqtt never fires it in time (beats go on as before). At a resting table a
frozen seat (SIGSTOP) is still found away within ``away_after`` of its turn and a stand-in plays for
it, and a frozen host is seen offline by its seats, by its will."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from broker.embedded import EmbeddedBroker
from engine.config import RulesConfig
from netplay.host import HostSettings
from netplay.host_peer import Host
from netplay.identity import Identity
from netplay.player_peer import BotPeer
from netplay.playing.notices import HostOffline
from tests.e2e.conftest import ROOT, SCALE, stacks_command
from tests.support import wait_until_async

SHORT = RulesConfig(win_chips=3, win_min_each_colour=1)
TIMEOUT = 30.0 * SCALE


def _env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["HOME"] = str(tmp_path)
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    return env


def _spawn(tmp_path: Path, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(stacks_command(*args), cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=_env(tmp_path))


def _end(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGCONT)
        proc.kill()
        proc.wait()


@pytest.mark.asyncio
async def test_a_host_on_mosquitto_finds_it_fires_wills_and_rests(mosquitto: str) -> None:
    settings = HostSettings("probed", 2, bots=("medium",), rules=SHORT)
    async with Host(settings, broker=mosquitto) as host:
        await wait_until_async(lambda: host.host.resting, "the probe's will")


@pytest.mark.asyncio
async def test_a_host_on_amqtt_finds_it_does_not_fire_a_silent_clients_will_in_time() -> None:
    async with EmbeddedBroker("127.0.0.1", 0) as broker:
        settings = HostSettings("amqtt", 2, bots=("medium",), rules=SHORT)
        async with Host(settings, broker=broker.url) as host:
            await wait_until_async(lambda: host.host.probe_until is not None, "the probe under way")
            await wait_until_async(lambda: host.host.probe_until is None, "the probe over")
            assert not host.host.resting
            # And the table beats as before: a seat joins and hears no ``rest``.
            async with BotPeer(Identity.generate(), "amqtt", broker=broker.url,
                               think=0.2) as seat:
                await wait_until_async(lambda: seat.player.host_heard is not None
                                       and seat.player.joined, "the seat joined", 10)
                # A host beat (every 2 s) heard after joining: it would say ``rest``.
                beat_before = seat.player.waits[0]
                await wait_until_async(lambda: seat.player.waits[0] > beat_before,
                                       "a host beat after joining", 10)
                assert not seat.player.resting


@pytest.mark.asyncio
async def test_a_frozen_seat_at_a_resting_table_is_found_away_and_a_stand_in_plays(
    mosquitto: str, tmp_path: Path,
) -> None:
    settings = HostSettings("frozenseat", 2, bots=("medium",), rules=RulesConfig(),
                            grace=1.0, bot_delay=0.2)
    async with Host(settings, broker=mosquitto) as host:
        session = host.host
        await wait_until_async(lambda: session.resting, "the probe's will")
        seat = _spawn(tmp_path, "bot", "frozenseat", "--broker", mosquitto, "--think",
                      "0.2", "--profile", "seat")
        try:
            await wait_until_async(lambda: len(session.batches) >= 4, "the game on")
            info = session.seats[0]
            assert info is not None and info.key is not None
            os.kill(seat.pid, signal.SIGSTOP)
            frozen = time.monotonic()
            await wait_until_async(lambda: session.presence.away(info), "the seat found away")
            # Its beats stopped (and, later, its will comes): it counts away away_after
            # after the later of the freeze and its turn coming (protocol 8: while the
            # table was not waiting for it, the host gave it idle_away_after). The host's
            # clock is the loop's, time.monotonic().
            waited = session.presence.waiting_since.get(0)
            assert waited is not None  # found away on its turn
            away_from = session.presence.away_from(info)
            assert away_from <= max(frozen, waited) + settings.away_after * SCALE + 0.5, \
                (away_from - frozen, waited - frozen)
            assert away_from <= frozen + settings.idle_away_after * SCALE + 0.5
            since = len(session.batches)
            await wait_until_async(lambda: any(b.standin for b in session.batches[since:]),
                                   "a stand-in to play")
        finally:
            _end(seat)


@pytest.mark.asyncio
async def test_a_frozen_host_is_seen_offline_by_its_seats(
    mosquitto: str, tmp_path: Path,
) -> None:
    host = _spawn(tmp_path, "host", "--headless", "--players", "2", "--bots", "1",
                  "--bot-delay", "0.3", "--table", "frozenhost", "--broker", mosquitto,
                  "--profile", "host", "--turn-clock", "0")
    try:
        async with BotPeer(Identity.generate(), "frozenhost", broker=mosquitto,
                           think=0.3) as seat:
            player = seat.player
            await wait_until_async(lambda: player.resting, "the table resting")
            os.kill(host.pid, signal.SIGSTOP)
            frozen = time.monotonic()
            gone: list[HostOffline] = []

            async def watch() -> None:
                async for notice in seat.notices():
                    if isinstance(notice, HostOffline):
                        gone.append(notice)
                        return

            watching = asyncio.create_task(watch())
            try:
                await wait_until_async(lambda: bool(gone), "the host seen offline")
            finally:
                watching.cancel()
            # Its will (its keepalive is 2 s) came before a seat's silence limit (14 s).
            assert gone[0].reason == "will", gone
            assert time.monotonic() - frozen < 14.0 * SCALE
    finally:
        _end(host)
