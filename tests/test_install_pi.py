"""deploy/install-pi.sh's steps (deploy/install_pi.py), against a folder standing in for the Pi's disk
and a host that records the commands instead of running them. The real run on an arm64 root is
deploy/check-arm64.sh."""

from __future__ import annotations

import importlib.util
import pwd
import stat
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("install_pi", ROOT / "deploy" / "install_pi.py")
install_pi = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(install_pi)

USER = "nobody"  # any user but root, whose home (/nonexistent) lies under the test's folder
ALL_PACKAGES = set(install_pi.APT_PACKAGES)


class FakePi(install_pi.Host):
    """A Pi whose disk is `root`: commands are recorded, and the ones that make files make them."""

    def __init__(self, root: Path, packages=(), groups=None, systemd=False, active=False):
        super().__init__(root)
        self.packages = set(packages)
        self.groups = {"video": []} if groups is None else groups
        self.systemd, self.active, self.enabled = systemd, active, False
        self.commands: list[list[str]] = []
        self.said: list[str] = []

    def run(self, cmd):
        cmd = list(cmd)
        self.commands.append(cmd)
        if cmd[:2] == ["apt-get", "install"]:
            self.packages |= {c for c in cmd if c.startswith(("python3-", "git"))}
        elif cmd[0] == "groupadd":
            self.groups[cmd[-1]] = []
        elif cmd[0] == "usermod":
            self.groups[cmd[2]].append(cmd[3])
        elif "venv" in cmd:
            venv = Path(cmd[-1])
            (venv / "bin").mkdir(parents=True)
            (venv / "pyvenv.cfg").write_text("home = /usr/bin\ninclude-system-site-packages = true\n")
            (venv / "bin" / "pip").touch()
        elif any(c.endswith("/bin/pip") for c in cmd):
            (Path(next(c for c in cmd if c.endswith("/bin/pip"))).parent / "companion").touch()
        elif cmd[:2] == ["systemctl", "enable"]:
            self.enabled = True
        elif cmd[:2] in (["systemctl", "restart"], ["systemctl", "start"]):
            self.active = True

    def ok(self, cmd):
        self.commands.append(list(cmd))
        return {"is-enabled": self.enabled, "is-active": self.active}[cmd[1]]

    def output(self, cmd):
        return "█▀▀█ (the code)\nhttp://192.168.1.7:8000/\n" if "qr" in cmd else ""

    def has_package(self, name):
        return name in self.packages

    def group_members(self, name):
        return self.groups.get(name)

    def systemd_running(self):
        return self.systemd

    def say(self, line):
        self.said.append(line)

    def changing(self):
        """The commands that changed something (not the questions)."""
        return [c for c in self.commands if c[1:2] not in (["is-enabled"], ["is-active"])]


def installer(pi: FakePi) -> install_pi.Installer:
    return install_pi.Installer(USER, pi)


def install(pi: FakePi, *argv: str) -> int:
    return install_pi.main(list(argv), host=pi, euid=0, environ={"SUDO_USER": USER})


@pytest.fixture
def pi(tmp_path):
    return FakePi(tmp_path)


def home(pi: FakePi) -> Path:
    return installer(pi).home


def test_a_fresh_pi_gets_packages_groups_venv_companion_settings_pin_and_service(pi):
    assert install(pi) == 0
    cmds = [" ".join(c) for c in pi.commands]
    assert "apt-get install -y -q --no-install-recommends python3-venv python3-picamera2 python3-lgpio git" in cmds
    assert "groupadd --system gpio" in cmds  # the unit names it; a plain Debian lacks it
    assert pi.groups == {"gpio": [USER], "video": [USER]}
    venv = home(pi) / "companion-venv"
    assert any(c.endswith(f"python3 -m venv --system-site-packages {venv}") for c in cmds)
    pip = next(c for c in cmds if "/bin/pip install" in c)
    assert f"-c {ROOT}/deploy/pi-constraints.txt {ROOT}" in pip and pip.startswith(f"runuser -u {USER} --")
    settings = home(pi) / ".config/table-companion/companion.toml"
    assert settings.read_text().startswith("# The table companion's settings")
    pin_file = home(pi) / ".config/table-companion/env"
    assert stat.S_IMODE(pin_file.stat().st_mode) == 0o600
    pin = pin_file.read_text().strip().removeprefix("COMPANION_PIN=")
    assert len(pin) == 6 and pin.isdigit()
    assert f"Override PIN: {pin}  (in {pin_file})" in pi.said
    assert "http://192.168.1.7:8000/" in pi.said[-2]  # the address under its QR code, before the PIN


def test_the_service_runs_as_the_user_who_ran_sudo_from_their_home(pi):
    install(pi)
    unit = (pi.root / "etc/systemd/system/table-companion.service").read_text()
    real_home = pwd.getpwnam(USER).pw_dir
    assert f"User={USER}\n" in unit and "SupplementaryGroups=gpio video" in unit
    assert f"ExecStart={real_home}/companion-venv/bin/companion run" in unit
    assert f"EnvironmentFile=-{real_home}/.config/table-companion/env" in unit
    assert "/home/pi" not in unit or real_home == "/home/pi"


def test_without_systemd_it_says_how_the_service_would_be_enabled_and_succeeds(pi):
    assert install(pi) == 0
    assert not any(c[0] == "systemctl" for c in pi.commands)
    assert any("systemctl daemon-reload && systemctl enable --now table-companion" in line for line in pi.said)


def test_a_second_run_changes_nothing_and_says_so(pi):
    install(pi)
    settings = home(pi) / ".config/table-companion/companion.toml"
    settings.write_text('[companion]\nport = 8080\n')  # the owner's own choices
    pin_file = home(pi) / ".config/table-companion/env"
    pin_file.write_text("COMPANION_PIN=beehive7\n")
    pi.commands.clear()
    assert install(pi) == 0
    assert pi.changing() == []
    assert "Nothing changed: everything was already installed." in pi.said
    assert settings.read_text() == '[companion]\nport = 8080\n' and pin_file.read_text() == "COMPANION_PIN=beehive7\n"
    assert pi.said[-1] == f"Override PIN: beehive7  (in {pin_file})"


def test_with_systemd_it_enables_and_starts_once_then_leaves_a_running_service_alone(tmp_path):
    pi = FakePi(tmp_path, systemd=True)
    install(pi)
    assert [c for c in pi.changing() if c[0] == "systemctl"] == [
        ["systemctl", "daemon-reload"], ["systemctl", "enable", "table-companion"],
        ["systemctl", "restart", "table-companion"]]
    pi.commands.clear()
    install(pi)
    assert pi.changing() == [] and "Nothing changed: everything was already installed." in pi.said
    pi.active = False  # stopped by hand, or it failed
    install(pi)
    assert pi.changing() == [["systemctl", "start", "table-companion"]]


def test_a_new_checkout_is_installed_again_and_the_service_restarted(tmp_path):
    pi = FakePi(tmp_path, systemd=True)
    install(pi)
    (home(pi) / "companion-venv" / install_pi.STAMP).write_text("the digest of an older checkout\n")
    pi.commands.clear()
    install(pi)
    changed = [" ".join(c) for c in pi.changing()]
    assert [c for c in changed if "/bin/pip install" in c] and changed[-1] == "systemctl restart table-companion"
    assert not any("apt-get" in c or "venv --system" in c for c in changed)


def test_a_venv_that_cannot_see_the_systems_picamera2_is_made_again(pi):
    venv = home(pi) / "companion-venv"
    venv.mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("include-system-site-packages = false\n")
    install(pi)
    assert "include-system-site-packages = true" in (venv / "pyvenv.cfg").read_text()
    assert any("now seeing the system's picamera2 and lgpio" in line for line in pi.said)


def test_packages_and_groups_already_there_are_not_touched(tmp_path):
    pi = FakePi(tmp_path, packages=ALL_PACKAGES, groups={"gpio": [USER], "video": [USER]})
    install(pi)
    assert not any(c[0] in ("apt-get", "groupadd", "usermod") for c in pi.commands)


def test_uninstall_removes_the_service_and_venv_and_keeps_games_settings_and_pin(tmp_path):
    pi = FakePi(tmp_path, systemd=True)
    install(pi)
    games = home(pi) / ".local/share/table-companion/games.sqlite"
    games.parent.mkdir(parents=True)
    games.write_bytes(b"SQLite format 3\0")
    pi.commands.clear()
    assert install(pi, "--uninstall") == 0
    assert ["systemctl", "disable", "--now", "table-companion"] in pi.commands
    assert not (pi.root / "etc/systemd/system/table-companion.service").exists()
    assert not (home(pi) / "companion-venv").exists()
    assert games.exists() and (home(pi) / ".config/table-companion/env").exists()
    assert (home(pi) / ".config/table-companion/companion.toml").exists()
    pi.said.clear()
    assert install(pi, "--uninstall") == 0
    assert "Nothing to remove: the companion was not installed." in pi.said


@pytest.mark.parametrize("euid, which, environ, argv, line", [
    (1000, "/usr/bin/apt-get", {"SUDO_USER": USER}, [], "install-pi.sh: run it as root: sudo deploy/install-pi.sh"),
    (0, None, {"SUDO_USER": USER}, [], "install-pi.sh: this system has no apt; the installer is for Raspberry "
                                       "Pi OS (or Debian)"),
    (0, "/usr/bin/apt-get", {}, [], "install-pi.sh: whose companion is it? run it with sudo from that user's "
                                    "shell, or give --user NAME"),
    (0, "/usr/bin/apt-get", {}, ["--user", "nobody-here-xyz"],
     "install-pi.sh: there is no user 'nobody-here-xyz' on this system; give --user NAME"),
])
def test_it_refuses_in_one_line_before_touching_anything(tmp_path, monkeypatch, capsys, euid, which, environ,
                                                         argv, line):
    monkeypatch.setattr(install_pi.shutil, "which", lambda name: which)
    pi = FakePi(tmp_path)
    assert install_pi.main(argv, host=pi, euid=euid, environ=environ) == 1
    assert capsys.readouterr().err == line + "\n"
    assert pi.commands == [] and list(tmp_path.iterdir()) == []


def test_a_failing_step_stops_with_what_failed(tmp_path, capsys):
    class NoNetwork(FakePi):
        def run(self, cmd):
            if cmd[:2] == ["apt-get", "update"]:
                raise install_pi.InstallError("`apt-get update -q` failed (status 100):\nTemporary failure resolving")
            super().run(cmd)

    assert install_pi.main([], host=NoNetwork(tmp_path), euid=0, environ={"SUDO_USER": USER}) == 1
    assert capsys.readouterr().err.startswith("install-pi.sh: `apt-get update -q` failed (status 100):")
