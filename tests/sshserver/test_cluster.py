"""Two real ``stacks serve --node`` processes sharing a PostgreSQL of the test's own and a
broker: ``kill -9`` of the node holding the tables mid-game, and a SIGTERM drain.

The players are real OpenSSH clients whose sessions run ``tests/sshserver/held_bot.py``
(a headless bot peer at a held table, two seats, one of them the server's bot). When the
node that holds their tables dies (every process of it), the other node takes each table
over from the shared database at the next epoch; the players reconnect to that node and
land back in their seats; every game ends, verifies and is stored once.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.postgres import Cluster
from tests.ratings.conftest import postgres  # noqa: F401  (the cluster fixture)
from tests.sshserver.conftest import TIMEOUT, Keys, Server, ServerFactory, descendants
from tests.sshserver.test_kill_trial import HELD_BOT, Players, _rows, _until, stored_ids
from tests.sshserver.test_kill_trial import players as players
from tests.support import SCALE


def _node(serve: ServerFactory, name: str, url: str, broker: str, authorized: str,
          tmp: Path, *extra: str) -> Server:
    return serve("--node", name, "--broker", broker, "--database", url,
                 "--session-command", f"{sys.executable} {HELD_BOT} {' '.join(extra)}",
                 home=tmp / f"home-{name}", authorized=authorized, accounts=False)


def _kill_all(server: Server) -> None:
    """``kill -9`` of the node: the server and every process it started."""
    pids = [*descendants(server.pid), server.pid]
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    server.proc.wait(TIMEOUT)


def _stored_once(url: str, tables: int) -> None:
    ids = stored_ids(url)
    assert len(ids) == len(set(ids)) == tables, ids
    seats = Counter(str(r[0]) for r in _rows(url, "SELECT fingerprint FROM game_seats"))
    rated = {str(r[0]): int(r[1]) for r in _rows(
        url, "SELECT fingerprint, games FROM ratings WHERE kind = 'stacks'")}
    assert rated == dict(seats), (rated, seats)
    assert rated["bot-medium"] == tables


def _epochs(url: str) -> dict[str, int]:
    return {str(r[0]): int(r[1]) for r in _rows(url, "SELECT table_name, epoch FROM "
                                                "held_tables")}


@pytest.mark.parametrize("how", ["kill -9", "SIGTERM"])
def test_a_table_outlives_its_node(
    serve: ServerFactory, keys: Keys, players: Players, broker: str, tmp_path: Path,
    postgres: Cluster, how: str,  # noqa: F811
) -> None:
    url = postgres.create()
    tables = 2
    who = [f"p{i}" for i in range(tables)]
    names = [f"t{i}" for i in range(tables)]
    authorized = "".join(keys.public(name) for name in who)
    a = _node(serve, "a", url, broker, authorized, tmp_path)
    b = _node(serve, "b", url, broker, authorized, tmp_path, "--resume")
    for name, table in zip(who, names, strict=True):
        players.join(a, name, table)
    for table in names:
        _until(lambda t=table: f"opened table {t} " in a.output(),  # type: ignore[misc]
               f"table {table} to open on node a", a, b)
    # Mid-game: a few batches played at every table.
    _until(lambda: all(n >= 3 for n in _batches(url, names).values()),
           "a few batches at every table", a, b)
    stopped = time.monotonic()
    if how == "kill -9":
        _kill_all(a)
    else:
        a.proc.send_signal(signal.SIGTERM)
        assert a.proc.wait(TIMEOUT) == 0, a.output()
        assert "handed over table" in a.output()
    for table in names:
        _until(lambda t=table: re.search(rf"took over table {t} (at batch|in its lobby)",
                                          b.output()),
               f"node b to take over table {table}", a, b)
    moved_s = time.monotonic() - stopped
    assert all(epoch == 2 for epoch in _epochs(url).values()), _epochs(url)
    # From the lease's end (or its hand-over) to the host running on node b.
    took = [float(x) for x in re.findall(r"hosted here ([0-9.]+) s after", b.output())]
    assert len(took) == tables, b.output()
    print(f"\n[{how}] took over {tables} tables, {max(took):.2f} s at most after the lease; "
          f"{moved_s:.1f} s from the {how} to every table running on node b")
    if how == "SIGTERM":
        assert max(took) < 2.0 * SCALE, took  # a drain: no player waits 2 s
    # The players reconnect, to the other node, and land back in their seats.
    for name, table in zip(who, names, strict=True):
        players.join(b, name, table)
    _until(lambda: len(set(stored_ids(url))) == tables, "every table's game stored", a, b)
    _stored_once(url, tables)
    # Each player sat again at its own seat through node b (the same game identity on
    # both nodes) and saw a fair deal.
    for name, table in zip(who, names, strict=True):
        again = tmp_path / f"ssh-{name}-{table}-{tables + names.index(table)}.log"
        _until(lambda f=again: "VERIFIED True" in f.read_text(errors="replace"),  # type: ignore[misc]
               f"{name} to verify its game through node b", a, b)
        first = (tmp_path / f"ssh-{name}-{table}-{names.index(table)}.log").read_text(
            errors="replace")
        seat = re.search(r"SEATED (\d)", first)
        assert seat is not None, first
        assert f"SEATED {seat.group(1)}" in again.read_text(errors="replace")
    log = b.output()
    assert "not taken over" not in log, log
    assert "Traceback" not in log, log


def _batches(url: str, names: list[str]) -> dict[str, int]:
    """Batches journaled per table, from the shared database."""
    rows = _rows(url, "SELECT h.table_name, count(*) FROM journal_entries j JOIN "
                 "held_tables h ON h.id = j.held_id WHERE convert_from(j.entry, 'UTF8') "
                 "LIKE '%\"t\":\"batch\"%' GROUP BY h.table_name")
    found = {str(r[0]): int(r[1]) for r in rows}
    return {name: found.get(name, 0) for name in names}
