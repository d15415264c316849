#!/bin/sh
# Does the Pi's installer work on arm64? Run as root on a Debian (or Ubuntu) machine of any architecture:
#
#   sudo deploy/check-arm64.sh [BASE]        (BASE: the arm64 root, default /var/tmp/companion-arm64)
#
# Builds (once; later runs reuse it) an arm64 Debian Bookworm root with debootstrap and qemu-user-static,
# the Python 3.11 of Raspberry Pi OS Bookworm. On a fresh copy of it: stand-ins for the packages only
# Raspberry Pi OS has (python3-picamera2, python3-lgpio: empty packages, so apt counts them installed),
# deploy/install-pi.sh for a user who is not `pi`, with systemd not running; the installer again (it
# must change nothing); `companion run --demo` until it answers the page; `companion vision read` on a
# real photo from tests/fixtures; a short game over HTTP; `--uninstall`. Ends with ONE line of figures.
# Too slow for CI (minutes under emulation); emulated times say nothing about a Pi's speed.
set -eu

BASE=${1:-/var/tmp/companion-arm64}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
REPO=$(cd "$(dirname "$0")/.." && pwd)
WHO=tabletop              # the Pi's user: not `pi`, to show the service follows whoever installs
PORT=8765
PHOTO=t1_IMG_20191208_112122.jpg
RUN="$BASE.run"           # the fresh copy each check works in
say() { echo "check-arm64: $*" >&2; }
now() { date +%s.%N; }
secs() { awk "BEGIN { printf \"%.0f\", $2 - $1 }"; }

[ "$(id -u)" = 0 ] || { say "run it as root (debootstrap, chroot and mounts need it)"; exit 1; }

# --- the arm64 root, built once ----------------------------------------------------------------------
command -v debootstrap >/dev/null && [ -e /usr/lib/binfmt.d/qemu-aarch64.conf ] || {
    say "installing debootstrap and qemu-user-static"
    apt-get install -y -q debootstrap qemu-user-static >/dev/null
}
mountpoint -q /proc/sys/fs/binfmt_misc || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || cat /usr/lib/binfmt.d/qemu-aarch64.conf > /proc/sys/fs/binfmt_misc/register
if [ ! -x "$BASE/usr/bin/python3" ] || [ -e "$BASE/debootstrap" ]; then  # the second stage removes /debootstrap
    say "building the arm64 Bookworm root in $BASE (about 5 minutes, once)"
    debootstrap --arch=arm64 --foreign --variant=minbase --include=python3,python3-venv,ca-certificates \
        bookworm "$BASE" "$MIRROR" >/dev/null
    chroot "$BASE" /debootstrap/debootstrap --second-stage >/dev/null
fi

# --- a fresh copy, with the stand-ins, the user and the code ----------------------------------------
cleanup() {
    [ -n "${SERVER:-}" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null
    for m in dev/pts dev proc; do mountpoint -q "$RUN/$m" && umount -l "$RUN/$m"; done
    rm -rf "$RUN"
}
trap cleanup EXIT
cleanup
cp -a --one-file-system "$BASE" "$RUN"  # not a /proc the build left mounted
mount --bind /proc "$RUN/proc"; mount --bind /dev "$RUN/dev"; mount --bind /dev/pts "$RUN/dev/pts"
cp /etc/resolv.conf "$RUN/etc/resolv.conf"
cp /etc/ssl/certs/ca-certificates.crt "$RUN/etc/ssl/host-ca.crt"  # for a proxy that signs TLS itself
in_root() { chroot "$RUN" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
    PIP_CERT=/etc/ssl/host-ca.crt ${http_proxy:+http_proxy=$http_proxy} ${https_proxy:+https_proxy=$https_proxy} "$@"; }

for pkg in python3-picamera2 python3-lgpio; do
    mkdir -p "$RUN/tmp/$pkg/DEBIAN"
    printf 'Package: %s\nVersion: 0~stand-in\nArchitecture: all\nMaintainer: check-arm64\nDescription: %s\n' \
        "$pkg" "empty stand-in for Raspberry Pi OS's package" > "$RUN/tmp/$pkg/DEBIAN/control"
    in_root dpkg-deb -b "/tmp/$pkg" "/tmp/$pkg.deb" >/dev/null
    in_root dpkg -i "/tmp/$pkg.deb" >/dev/null
done
in_root useradd -m -s /bin/sh "$WHO"
HOME_DIR=/home/$WHO
tar -C "$REPO" --exclude=.git --exclude=__pycache__ --exclude='*.egg-info' --exclude=build -cf - . |
    tar -C "$RUN$HOME_DIR" --one-top-level=table-companion -xf -
in_root chown -R "$WHO:$WHO" "$HOME_DIR/table-companion"

# --- the installer, twice ---------------------------------------------------------------------------
t0=$(now)
in_root SUDO_USER=$WHO sh "$HOME_DIR/table-companion/deploy/install-pi.sh" > "$RUN.install.log" 2>&1 ||
    { cat "$RUN.install.log" >&2; say "the installer failed"; exit 1; }
install_s=$(secs "$t0" "$(now)")
grep -q "systemd is not running here" "$RUN.install.log" || { say "no word on how to enable the unit"; exit 1; }
in_root SUDO_USER=$WHO sh "$HOME_DIR/table-companion/deploy/install-pi.sh" > "$RUN.again.log" 2>&1 ||
    { cat "$RUN.again.log" >&2; say "the second run failed"; exit 1; }
grep -q "^Nothing changed" "$RUN.again.log" || { cat "$RUN.again.log" >&2; say "the second run changed something"; exit 1; }
# pip's whole account: every wheel it downloaded; a package fetched twice is pip backtracking
fetched=$(grep -o 'Downloading [^ ]*\.whl' "$RUN$HOME_DIR/companion-venv/pip-install.log" | sed 's|.*/||' |
    cut -d- -f1 | sort)
twice=$(echo "$fetched" | uniq -d | tr '\n' ' ')
wheels="$(echo "$fetched" | grep -c . || true) wheels, ${twice:+BACKTRACKED on $twice}"
[ -n "$twice" ] || wheels="${wheels}one per package"

# --- the companion, the photo, a game ---------------------------------------------------------------
PIN=$(sed -n 's/^COMPANION_PIN=//p' "$RUN$HOME_DIR/.config/table-companion/env")
VENV=$HOME_DIR/companion-venv/bin
as_user() { in_root runuser -u "$WHO" -- /usr/bin/env HOME="$HOME_DIR" COMPANION_PIN="$PIN" "$@"; }
t0=$(now)
as_user "$VENV/companion" run --demo --port $PORT > "$RUN.run.log" 2>&1 &
SERVER=$!
start_s=
for _ in $(seq 600); do
    if python3 -c "import urllib.request as u; u.urlopen('http://127.0.0.1:$PORT/', timeout=2)" 2>/dev/null; then
        start_s=$(secs "$t0" "$(now)"); break
    fi
    kill -0 "$SERVER" 2>/dev/null || break
    sleep 0.5
done
[ -n "$start_s" ] || { cat "$RUN.run.log" >&2; say "companion run --demo never answered the page"; exit 1; }

PHOTOS=$HOME_DIR/table-companion/tests/fixtures/dice-photos
t0=$(now)
as_user "$VENV/companion" vision calibrate "$PHOTOS/calibration" --out /tmp/model.npz >/dev/null 2>&1
read=$(as_user "$VENV/companion" vision read --model /tmp/model.npz "$PHOTOS/read/$PHOTO" --json)
read_s=$(secs "$t0" "$(now)")
read_result=$(python3 - "$REPO/tests/fixtures/dice-photos/read/labels.json" "$PHOTO" "$read" <<'EOF'
import json, sys
labels, photo, read = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
want = [d["face"] for d in json.load(open(labels))[photo]["dice"]]
got = [d["face"] for d in read[0]["dice"]]
print(" ".join(got) + (" (as labelled)" if sorted(got) == sorted(want) else f" (LABELLED {' '.join(want)})"))
EOF
)

game=$(python3 - "$PORT" "$PIN" <<'EOF'
import json, sys, urllib.error, urllib.request
port, pin = sys.argv[1], sys.argv[2]
def send(command):
    req = urllib.request.Request(f"http://127.0.0.1:{port}/api/commands", json.dumps(command).encode(),
                                 {"Content-Type": "application/json", "Authorization": f"Bearer {pin}"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.load(r)
    except urllib.error.HTTPError as e:
        sys.exit(f"GAME FAILED: {command} answered {e.code} {e.read().decode()[:200]}")
send({"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia"], "variant": "standard"})
send({"cmd": "roll", "faces": ["bee", "bee", "honey", "zzz", "zzz"]})
send({"cmd": "stop"})
with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=30) as r:
    seen = json.load(r)
print(f"a game over HTTP: 3 commands accepted, the state at move {seen['seq']}")
EOF
) || { echo "$game" >&2; exit 1; }
kill "$SERVER"; wait "$SERVER" 2>/dev/null || true; SERVER=

# --- and away again -----------------------------------------------------------------------------------
in_root SUDO_USER=$WHO sh "$HOME_DIR/table-companion/deploy/install-pi.sh" --uninstall > "$RUN.uninstall.log" 2>&1
[ ! -e "$RUN$HOME_DIR/companion-venv" ] && [ -e "$RUN$HOME_DIR/.config/table-companion/env" ] &&
    [ ! -e "$RUN/etc/systemd/system/table-companion.service" ] && uninstall="uninstall kept the settings and PIN" ||
    { cat "$RUN.uninstall.log" >&2; say "--uninstall left the venv or the unit, or took the settings"; exit 1; }
rm -f "$RUN".*.log

echo "arm64 check: install ${install_s} s ($wheels), second run changed nothing, page answered ${start_s} s after start," \
     "read $read_result in ${read_s} s (calibrate + read), $game, $uninstall"
