"""Moderation's parts apart from ssh: the word filter (whole words, case-blind, masked),
the commands and their audit entries, the checks a running server makes of a session
(a muted player's line refused in words, a ban's words, moderators), and ``stacks
moderate`` at the console."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from ratings.moderation import ModerationStore
from ratings.store import Account, Store
from sshserver.accounts import Login
from sshserver.modcommands import Context, run_command, span, words_of
from sshserver.moderation import Moderation, ModerationSettings, read_who
from sshserver.status import Status
from sshserver.wordfilter import WordFilter, WordFilterError

ROOT = Path(__file__).resolve().parents[2]


def test_the_filter_masks_whole_words_whatever_their_case() -> None:
    words = WordFilter(["darn", "heck", "by  golly", ""])
    assert words.mask("Darn it, DARN! what the heck") == "**** it, ****! what the ****"
    assert words.mask("darning the heckler") == "darning the heckler"  # not inside words
    assert words.mask("well by golly") == "well ********"
    assert WordFilter([]).mask("darn") == "darn"
    assert len(words) == 3


def test_the_filter_file_skips_comments_and_a_bad_file_is_said_in_words(tmp_path: Path) -> None:
    path = tmp_path / "words.txt"
    path.write_text("# words to mask\n\nDarn\n  heck  \n")
    assert WordFilter.load(path).words == ("Darn", "heck")
    with pytest.raises(WordFilterError, match="can't read the word filter"):
        WordFilter.load(tmp_path / "missing.txt")
    path.write_bytes(b"\xff\xfe bad")
    with pytest.raises(WordFilterError, match="not UTF-8"):
        WordFilter.load(path)


def test_spans_and_typed_lines_read_as_a_moderator_means_them() -> None:
    assert span("10m") == 600 and span("2h") == 7200 and span("1d") == 86400
    assert span("flood") is None and span("10") is None
    assert words_of('mute bob 5m "too loud"') == ["mute", "bob", "5m", "too loud"]
    assert words_of('say it\'s "open') == ["say", "it's", '"open']  # unbalanced: plain split


@dataclass
class _Session:
    name: str
    profile: str
    login: Login | None
    at_table: str = ""
    ended: list[str | None] = field(default_factory=list)

    @property
    def where(self) -> str:
        return f"at table {self.at_table}" if self.at_table else "at the menu"

    def end(self, reason: str | None) -> None:
        self.ended.append(reason)


class _Archive:
    def __init__(self, store: Store) -> None:
        self.store = store

    async def store_handle(self) -> Store:
        return self.store


class _Tables:
    def __init__(self) -> None:
        self.tables = {"pub": object()}
        self.closed: list[tuple[str, str]] = []

    async def close_for(self, name: str, why: str) -> bool:
        self.closed.append((name, why))
        return name in self.tables


class _Server:
    def __init__(self, store: Store, sessions: list[_Session]) -> None:
        self.sessions = sessions
        self.tables = _Tables()
        self.archive = _Archive(store)
        self.status = Status()


def _login(account: Account, key: str) -> Login:
    return Login(key, account.profile, account.name, account)


@pytest.mark.asyncio
async def test_a_running_server_acts_on_every_command_wherever_it_was_typed(
    tmp_path: Path,
) -> None:
    store = await Store.open(f"sqlite:///{tmp_path / 'serve.sqlite'}")
    mod = await store.create_account("Mod", "SHA256:mmm", "ssh-mmmm", "1111-1111-1111-1111")
    bob = await store.create_account("Bob", "SHA256:bbb", "ssh-bbbb", "2222-2222-2222-2222")
    words = tmp_path / "words.txt"
    words.write_text("darn\n")
    moderator = _Session("Mod", mod.profile, _login(mod, "SHA256:mmm"))
    player = _Session("Bob", bob.profile, _login(bob, "SHA256:bbb"), at_table="pub")
    server = _Server(store, [moderator, player])
    moderation = Moderation(server, ModerationSettings(  # type: ignore[arg-type]
        moderators=frozenset({"mod"}), word_filter=words, poll=60.0),
        who_file=tmp_path / "who.json")
    try:
        await moderation.start()
        assert moderation.is_moderator(moderator.login)
        assert not moderation.is_moderator(player.login)
        refused = await moderation.request(player, {"op": "moderate", "line": "who"})
        assert refused == {"ok": False, "error": "only the server's moderators can do that"}
        chat = await moderation.request(player, {"op": "chat", "text": "Darn you"})
        assert chat == {"ok": True, "text": "**** you"}

        async def moderate(line: str) -> str:
            reply = await moderation.request(moderator, {"op": "moderate", "line": line})
            assert reply["ok"], reply
            return str(reply["text"])

        assert await moderate("who") == "Bob: at table pub\nMod: at the menu [moderator]"
        assert await moderate("mute bob 10m shouting") == \
            "Bob is muted for 10 minutes: shouting"
        muted = await moderation.request(player, {"op": "chat", "text": "hello"})
        assert muted["ok"] is False and "you are muted for" in muted["error"]
        assert "(shouting)" in muted["error"]
        notices = await moderation.request(player, {"op": "notices", "after": 0})
        assert any("A moderator muted you" in line for line in notices["lines"])

        # A command at the console (another process): the server acts at its next look.
        mods = ModerationStore(store)
        console = Context(by="console", who=lambda: [], console=True)
        assert (await run_command(["say", "back", "in", "5"], mods, console))[0]
        assert (await run_command(["close", "pub", "spam"], mods, console))[0]
        assert (await run_command(["ban", "bob", "flooding"], mods, console))[0]
        await moderation.look()
        assert player.ended == ["this account is banned: flooding"]
        assert moderator.ended == []
        assert moderation.banned(player.login) == "this account is banned: flooding"  # type: ignore[arg-type]
        assert moderation.banned_key("SHA256:bbb") == "this account is banned: flooding"
        assert server.tables.closed == [("pub", "closed by a moderator: spam")]
        lines = (await moderation.request(moderator, {"op": "notices", "after": 0}))["lines"]
        assert "From the server: back in 5" in lines

        # Reports reach the moderators' list and the moderators on the server.
        report = await moderation.request(player, {
            "op": "report", "target": "Mod", "reason": "unfair", "table": "pub",
            "line": "Mod: go away"})
        assert report["ok"] and "#1" in report["note"]
        assert "Bob reports Mod at pub said 'Mod: go away': unfair" in await moderate("reports")
        bad = await moderation.request(player, {"op": "report", "target": 3})
        assert bad["ok"] is False
        # The audit log has every action, who took it and why.
        audit = await moderate("audit")
        assert "console: ban Bob (for good) — flooding" in audit
        assert "Mod: mute Bob (for 10 minutes) — shouting" in audit
        assert read_who(tmp_path / "who.json") is None  # written by the watch, not yet
        moderation._write_who()
        assert read_who(tmp_path / "who.json") == moderation.who_lines()
    finally:
        await moderation.stop()
        await store.close()


def _moderate(home: Path, *words: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "STACKS_HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "stacks.cli", "moderate", *words], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=60)


def test_the_console_names_moderators_and_keeps_the_audit_log(tmp_path: Path) -> None:
    database = tmp_path / "serve.sqlite"

    async def accounts() -> None:
        store = await Store.open(f"sqlite:///{database}")
        await store.create_account("Ann", "SHA256:aaa", "ssh-aaaa", "1111-2222-3333-4444")
        await store.close()

    asyncio.run(accounts())
    url = ["--database", f"sqlite:///{database}"]
    added = _moderate(tmp_path, *url, "moderator", "add", "ann")
    assert added.returncode == 0 and "Ann is now a moderator" in added.stdout, added
    banned = _moderate(tmp_path, *url, "--as", "operator", "ban", "SHA256:zzz", "3d", "bot")
    assert banned.returncode == 0 and "banned for 3 days: bot" in banned.stdout
    unknown = _moderate(tmp_path, *url, "mute", "nobody")
    assert unknown.returncode == 1 and "no account named 'nobody'" in unknown.stderr
    audit = _moderate(tmp_path, *url, "audit")
    lines = audit.stdout.splitlines()
    assert "operator: ban SHA256:zzz (for 3 days) — bot" in lines[0]
    assert "console: moderator Ann" in lines[1]
    who = _moderate(tmp_path, *url, "who")
    assert "no `stacks serve` is running here" in who.stdout
    wrong = _moderate(tmp_path, *url, "frobnicate")
    assert wrong.returncode == 1 and "`help` lists them" in wrong.stderr
