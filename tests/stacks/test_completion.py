"""`stacks completion SHELL`: a completion script made from the parser (shtab) that
names every command and its options; the bash one completes in a real bash."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from stacks.cli import main


def _script(shell: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["completion", shell]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_the_script_names_the_commands_and_their_options(
    shell: str, capsys: pytest.CaptureFixture[str],
) -> None:
    script = _script(shell, capsys)
    for word in ("web", "serve", "watch", "host", "join", "tables", "completion",
                 "--max-spectators", "--web-port", "--kiosk", "--headless", "--broker"):
        assert word in script, (shell, word)


def _complete(script: str, words: list[str]) -> list[str]:
    """What bash offers for the last of ``words`` (as if Tab were pressed there)."""
    line = " ".join(words)
    program = (
        'source /dev/stdin; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); '
        f'COMP_LINE="{line}"; COMP_POINT={len(line)}; '
        '_shtab_stacks "$1" "${@: -1}" "${@: -2:1}"; printf "%s\\n" "${COMPREPLY[@]}"'
    )
    done = subprocess.run(["bash", "-c", program, "bash", *words], input=script,
                          capture_output=True, text=True, timeout=30, check=True)
    return [word.strip() for word in done.stdout.splitlines() if word.strip()]


def test_bash_completes_commands_and_options(capsys: pytest.CaptureFixture[str]) -> None:
    if shutil.which("bash") is None:
        pytest.skip("no bash")
    script = _script("bash", capsys)
    assert _complete(script, ["stacks", "we"]) == ["web"]
    assert sorted(_complete(script, ["stacks", "web", "--max"])) == [
        "--max-replays", "--max-spectators"]
    assert "--web-port" in _complete(script, ["stacks", "serve", "--web"])
    assert set(_complete(script, ["stacks", "completion", ""])) == {"bash", "zsh", "fish"}
