"""The systemd unit shipped in ``deploy/``: systemd's own checker accepts it, its command
line is one ``stacks serve`` understands, and it runs the server as its own user in its
own data directory, reloading (SIGHUP) rather than restarting."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from stacks.parser import build_parser

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "deploy" / "stacks-serve.service"
SYSUSERS = ROOT / "deploy" / "stacks.sysusers.conf"
INSTALLED = "/opt/stacks/bin/stacks"


def _settings(text: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";", "[")):
            continue
        key, _, value = line.partition("=")
        found.setdefault(key.strip(), []).append(value.strip())
    return found


def test_systemd_analyze_verifies_the_unit(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is missing (apt-get install systemd)")
    stacks = Path(sys.executable).with_name("stacks")
    assert stacks.exists(), "the package's `stacks` command beside the test's Python"
    # The unit names the installed command; here, the test's own (the checker wants an
    # executable there).
    unit = tmp_path / UNIT.name
    unit.write_text(UNIT.read_text().replace(INSTALLED, str(stacks)))
    done = subprocess.run([analyze, "verify", "--man=no", str(unit)], capture_output=True,
                          text=True, timeout=120)
    said = (done.stdout + done.stderr).strip()
    assert done.returncode == 0, said
    assert UNIT.name not in said, said  # no warning about our unit either


def test_the_unit_runs_stacks_serve_as_its_own_user_and_reloads_on_sighup() -> None:
    unit = _settings(UNIT.read_text())
    start = shlex.split(unit["ExecStart"][0])
    assert start[0] == INSTALLED
    args = [word for word in start[1:] if not word.startswith("$")]
    parsed = build_parser().parse_args(args)  # every option exists in this `stacks`
    assert parsed.command == "serve"
    assert parsed.log_format == "json" and parsed.metrics_port is not None
    assert unit["ExecReload"] == ["/bin/kill -HUP $MAINPID"]
    assert unit["Restart"] == ["on-failure"]
    user = unit["User"][0]
    assert user != "root"
    state = unit["StateDirectory"][0]
    assert f"STACKS_HOME=/var/lib/{state}" in unit["Environment"]
    assert unit["WorkingDirectory"] == [f"/var/lib/{state}"]
    sysusers = [line.split() for line in SYSUSERS.read_text().splitlines()
                if line.strip() and not line.startswith("#")]
    assert sysusers[0][:2] == ["u", user]
    for hardening in ("NoNewPrivileges", "ProtectSystem", "ProtectHome", "PrivateTmp",
                      "PrivateDevices"):
        assert unit[hardening][0] in ("yes", "strict"), hardening
    assert unit["RestrictAddressFamilies"] == ["AF_INET AF_INET6 AF_UNIX"]
