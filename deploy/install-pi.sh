#!/bin/sh
# The table companion on a Raspberry Pi (Raspberry Pi OS Bookworm), from a fresh card:
#   git clone <this repository> ~/table-companion && sudo ~/table-companion/deploy/install-pi.sh
# Run it again after a `git pull` to update; a run with nothing to do changes nothing and says so.
# --uninstall removes the service and the venv and keeps the games, the settings and the PIN.
# The steps are in install_pi.py (the system's python3; nothing of the companion is installed yet).
if ! command -v python3 >/dev/null 2>&1; then
    echo "install-pi.sh: this system has no python3; the installer is for Raspberry Pi OS (or Debian)" >&2
    exit 1
fi
exec python3 "$(dirname "$0")/install_pi.py" "$@"
