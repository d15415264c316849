"""Install the table companion on a Raspberry Pi: `sudo deploy/install-pi.sh [--uninstall] [--user NAME]`.

Runs with the system's python3 (standard library only: nothing of the companion is installed yet).
Every step looks first and acts only when something is missing or out of date, so a second run
changes nothing and says so. What the owner may have changed (the settings file, the PIN file) is
written only when it is not there. The companion is installed for the user who ran sudo (or
--user): its venv, settings and service belong to that user, whoever it is.
"""

from __future__ import annotations

import argparse
import grp
import hashlib
import os
import pwd
import secrets
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Sequence

REPO = Path(__file__).resolve().parents[1]
SERVICE = "table-companion"
# From Raspberry Pi OS's own apt: picamera2 needs its libcamera, which is not on PyPI.
APT_PACKAGES = ("python3-venv", "python3-picamera2", "python3-lgpio", "git")
GROUPS = ("gpio", "video")  # the panel's pins and the camera, without root
SOURCES = ("companion", "vision", "hw", "web", "table_companion", "pyproject.toml", "deploy/pi-constraints.txt")
STAMP = ".table-companion-source"
PIP_LOG = "pip-install.log"  # in the venv: the digest of the source it was installed from


class InstallError(Exception):
    """A step that could not be done; the message says which and why."""


class Host:
    """The machine: commands run for real. Tests pass a fake with the same methods."""

    def __init__(self, root: Path = Path("/")):
        self.root = root  # where the machine's / is: tests use a folder

    def run(self, cmd: Sequence[str]) -> None:
        result = subprocess.run(list(cmd), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if result.returncode != 0:
            tail = "\n".join(result.stdout.strip().splitlines()[-15:])
            raise InstallError(f"`{' '.join(cmd)}` failed (status {result.returncode}):\n{tail}")

    def ok(self, cmd: Sequence[str]) -> bool:
        return subprocess.run(list(cmd), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0

    def output(self, cmd: Sequence[str]) -> str:
        return subprocess.run(list(cmd), capture_output=True, text=True).stdout

    def has_package(self, name: str) -> bool:
        return self.output(["dpkg-query", "-W", "-f=${Status}", name]).strip() == "install ok installed"

    def group_members(self, name: str) -> list[str] | None:
        """None when the group does not exist."""
        try:
            return list(grp.getgrnam(name).gr_mem)
        except KeyError:
            return None

    def systemd_running(self) -> bool:
        return (self.root / "run/systemd/system").is_dir()

    def say(self, line: str) -> None:
        print(line, flush=True)


class Installer:
    def __init__(self, user: str, host: Host, repo: Path = REPO):
        try:
            entry = pwd.getpwnam(user)
        except KeyError:
            raise InstallError(f"there is no user {user!r} on this system; give --user NAME") from None
        self.user, self.uid, self.gid = user, entry.pw_uid, entry.pw_gid
        self.group = grp.getgrgid(entry.pw_gid).gr_name
        self.host, self.repo = host, repo
        self.home = host.root / entry.pw_dir.lstrip("/")
        self.real_home = entry.pw_dir  # as the service sees it (paths inside the unit)
        self.venv = self.home / "companion-venv"
        self.config_dir = self.home / ".config" / "table-companion"
        self.settings = self.config_dir / "companion.toml"
        self.pin_file = self.config_dir / "env"
        self.unit = host.root / "etc/systemd/system" / f"{SERVICE}.service"
        self.changes: list[str] = []

    # --- the steps ------------------------------------------------------------------------

    def install(self) -> list[str]:
        self.apt_packages()
        self.groups()
        self.virtualenv()
        self.companion()
        self.settings_file()
        self.pin()
        self.service()
        return self.changes

    def apt_packages(self) -> None:
        missing = [p for p in APT_PACKAGES if not self.host.has_package(p)]
        if missing:
            self.host.run(["apt-get", "update", "-q"])
            # --no-install-recommends: picamera2 recommends a desktop's worth (Qt, OpenCV) a Pi Lite needs not
            self.host.run(["apt-get", "install", "-y", "-q", "--no-install-recommends", *missing])
            self.changed(f"installed {' '.join(missing)} with apt")

    def groups(self) -> None:
        for name in GROUPS:
            members = self.host.group_members(name)
            if members is None:  # Raspberry Pi OS has both; a plain Debian lacks gpio, and the unit names it
                self.host.run(["groupadd", "--system", name])
                self.changed(f"made the group {name}")
                members = []
            if self.user not in members:
                self.host.run(["usermod", "-aG", name, self.user])
                self.changed(f"put {self.user} in the group {name} (your own shell gets it at the next login)")

    def virtualenv(self) -> None:
        cfg = self.venv / "pyvenv.cfg"
        if cfg.exists() and "include-system-site-packages = true" in cfg.read_text():
            return
        if cfg.exists():  # without the system's picamera2 and lgpio it cannot drive the camera or the panel
            shutil.rmtree(self.venv)
            what = f"made {self.venv} again, now seeing the system's picamera2 and lgpio"
        else:
            what = f"made the virtual environment {self.venv}"
        self.as_user(["python3", "-m", "venv", "--system-site-packages", str(self.venv)])
        self.changed(what)

    def companion(self) -> None:
        stamp = self.venv / STAMP
        digest = source_digest(self.repo)
        if (self.venv / "bin" / "companion").exists() and stamp.exists() and stamp.read_text().strip() == digest:
            return
        # Pinned (deploy/pi-constraints.txt) so pip takes the numpy and OpenCV that go together at once
        # instead of downloading OpenCV after OpenCV while it backtracks.
        # Its whole account goes to PIP_LOG in the venv: what it fetched, and why when it failed.
        self.as_user([str(self.venv / "bin" / "pip"), "install", "--disable-pip-version-check", "-q",
                      "--log", str(self.venv / PIP_LOG),
                      "-c", str(self.repo / "deploy" / "pi-constraints.txt"), str(self.repo)])
        self.write(stamp, digest + "\n", 0o644)
        self.changed(f"installed the companion from {self.repo} into {self.venv}")

    def settings_file(self) -> None:
        if self.settings.exists():
            return
        example = (self.repo / "deploy" / "companion.toml.example").read_text()
        self.write(self.settings, example.replace("/home/pi", self.real_home), 0o644)
        self.changed(f"wrote the settings {self.settings}")

    def pin(self) -> None:
        if self.pin_file.exists():
            return
        self.write(self.pin_file, f"COMPANION_PIN={secrets.randbelow(10 ** 6):06d}\n", 0o600)
        self.changed(f"wrote a new override PIN to {self.pin_file} (only you can read it)")

    def service(self) -> None:
        text = self.unit_text()
        fresh = not self.unit.exists() or self.unit.read_text() != text
        if fresh:
            self.unit.parent.mkdir(parents=True, exist_ok=True)
            self.unit.write_text(text)
            self.unit.chmod(0o644)
            self.changed(f"wrote the service {self.unit}")
        if not self.host.systemd_running():
            # A container or a chroot: nothing to enable now; say what the Pi does.
            self.host.say(f"systemd is not running here, so the service was not started; on the Pi: "
                          f"systemctl daemon-reload && systemctl enable --now {SERVICE}")
            return
        if fresh:
            self.host.run(["systemctl", "daemon-reload"])
        if not self.host.ok(["systemctl", "is-enabled", "--quiet", SERVICE]):
            self.host.run(["systemctl", "enable", SERVICE])
            self.changed(f"enabled {SERVICE} at boot")
        if self.changes:  # a new companion, unit, group or PIN takes effect only after a restart
            self.host.run(["systemctl", "restart", SERVICE])
            self.changed(f"(re)started {SERVICE}")
        elif not self.host.ok(["systemctl", "is-active", "--quiet", SERVICE]):
            self.host.run(["systemctl", "start", SERVICE])
            self.changed(f"started {SERVICE}")

    def uninstall(self) -> list[str]:
        if self.unit.exists():
            if self.host.systemd_running():
                self.host.run(["systemctl", "disable", "--now", SERVICE])
            self.unit.unlink()
            if self.host.systemd_running():
                self.host.run(["systemctl", "daemon-reload"])
            self.changed(f"stopped and removed the service {self.unit}")
        if self.venv.exists():
            shutil.rmtree(self.venv)
            self.changed(f"removed {self.venv}")
        return self.changes

    # --- what the owner reads at the end ----------------------------------------------------

    def unit_text(self) -> str:
        text = (self.repo / "deploy" / f"{SERVICE}.service").read_text()
        text = text.replace("User=pi", f"User={self.user}").replace("Group=pi", f"Group={self.group}")
        return text.replace("/home/pi", self.real_home)

    def current_pin(self) -> str:
        for line in self.pin_file.read_text().splitlines() if self.pin_file.exists() else []:
            key, _, value = line.partition("=")
            if key.strip() == "COMPANION_PIN" and value.strip():
                return f"{value.strip().strip(chr(34) + chr(39))}  (in {self.pin_file})"
        return f"from {self.settings} or made at the first start: journalctl -u {SERVICE} shows it"

    def port(self) -> int:
        try:
            return int(tomllib.loads(self.settings.read_text()).get("companion", {}).get("port", 8000))
        except (OSError, tomllib.TOMLDecodeError, TypeError, ValueError):
            return 8000

    def address_lines(self) -> list[str]:
        qr = self.host.output(["runuser", "-u", self.user, "--", str(self.venv / "bin" / "companion"),
                               "qr", "-o", "-", "--port", str(self.port())])
        return [qr.rstrip("\n"), f"Override PIN: {self.current_pin()}"]

    # --- helpers ----------------------------------------------------------------------------

    def changed(self, what: str) -> None:
        self.changes.append(what)
        self.host.say(f"  {what}")

    def as_user(self, cmd: list[str]) -> None:
        # HOME too: pip keeps its cache there, and root's is not the user's to write
        self.host.run(["runuser", "-u", self.user, "--", "env", f"HOME={self.real_home}", *cmd])

    def write(self, path: Path, text: str, mode: int) -> None:
        """Write as the user would have (owner, mode), making missing folders theirs too."""
        missing = [p for p in reversed(path.parents) if not p.exists()]
        for folder in missing:
            folder.mkdir()
            self.chown(folder)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)  # a PIN is never readable by others
        with os.fdopen(fd, "w") as f:
            os.fchmod(f.fileno(), mode)
            f.write(text)
        self.chown(path)

    def chown(self, path: Path) -> None:
        if os.geteuid() == 0:
            os.chown(path, self.uid, self.gid)


def source_digest(repo: Path) -> str:
    """What the companion in the venv was built from: a new checkout (git pull) installs again."""
    h = hashlib.sha256()
    for name in SOURCES:
        top = repo / name
        files = [top] if top.is_file() else sorted(p for p in top.rglob("*") if p.is_file()
                                                   and "__pycache__" not in p.parts and p.suffix != ".pyc")
        for path in files:
            h.update(str(path.relative_to(repo)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def refusal(euid: int) -> str | None:
    """The one line that stops the installer before it touches anything, or None."""
    if euid != 0:
        return "run it as root: sudo deploy/install-pi.sh"
    if shutil.which("apt-get") is None:
        return "this system has no apt; the installer is for Raspberry Pi OS (or Debian)"
    return None


def main(argv: list[str] | None = None, host: Host | None = None, euid: int | None = None,
         environ=os.environ) -> int:
    parser = argparse.ArgumentParser(prog="install-pi.sh", description=__doc__.splitlines()[0])
    parser.add_argument("--user", help="whose companion it is (default: the user who ran sudo)")
    parser.add_argument("--uninstall", action="store_true",
                        help="remove the service and the venv; keep the games, the settings and the PIN")
    args = parser.parse_args(argv)
    problem = refusal(os.geteuid() if euid is None else euid)
    user = args.user or environ.get("SUDO_USER")
    if problem is None and (not user or user == "root" and not args.user):
        problem = "whose companion is it? run it with sudo from that user's shell, or give --user NAME"
    if problem:
        print(f"install-pi.sh: {problem}", file=sys.stderr)
        return 1
    host = host or Host()
    try:
        installer = Installer(user, host)
        host.say(f"{'Removing' if args.uninstall else 'Installing'} the table companion for {user}:")
        changes = installer.uninstall() if args.uninstall else installer.install()
        if args.uninstall:
            host.say("Removed." if changes else "Nothing to remove: the companion was not installed.")
            host.say(f"Kept: the games ({installer.home}/.local/share/table-companion), the settings and "
                     f"the PIN ({installer.config_dir}).")
            return 0
        host.say("Done." if changes else "Nothing changed: everything was already installed.")
        for line in installer.address_lines():
            host.say(line)
    except InstallError as exc:
        print(f"install-pi.sh: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
