"""Does PyPI have a wheel for the Pi of every run-time dependency? (network; not part of CI)

    python bench/pi_wheels.py [--extra pi] [--python 3.11] [--glibc 2.36]

For each requirement of pyproject.toml's `dependencies` (and of the extras named),
`pip download --only-binary=:all: --no-deps` (PyPI only: --isolated) is asked for
a wheel that runs on a Raspberry Pi with Raspberry Pi OS Bookworm (aarch64, glibc
2.36, Python 3.11) under deploy/pi-constraints.txt; then the same for everything
that wheel's metadata requires on a Pi, and so on. A pure-Python wheel counts. A
requirement that only a source archive or a placeholder release (0.0.0.x) would
satisfy is reported with pip's reason and who needs it; the exit status is 1 then.
So is a wheel that needs another version than the one the constraints gave (OpenCV 4.12 and later
need numpy 2, the constraints say numpy<2): pip on the Pi would download release after release
while it backtracks, so the constraints must name the lines that go together.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
import tomllib
import zipfile
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import parse_wheel_filename

ROOT = Path(__file__).resolve().parents[1]
CONSTRAINTS = ROOT / "deploy" / "pi-constraints.txt"


def requirements(extras: list[str]) -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = list(project["dependencies"])
    for extra in extras:
        reqs += project.get("optional-dependencies", {}).get(extra, [])
    return reqs


def platforms(glibc: str) -> list[str]:
    """Every manylinux tag a Pi with this glibc accepts, newest first."""
    major, minor = (int(p) for p in glibc.split("."))
    tags = [f"manylinux_{major}_{m}_aarch64" for m in range(minor, 16, -1)]
    return tags + ["manylinux2014_aarch64"]


PI_ENVIRONMENT = {  # PEP 508 markers on Raspberry Pi OS Bookworm, 64-bit
    "os_name": "posix", "sys_platform": "linux", "platform_system": "Linux", "platform_machine": "aarch64",
    "implementation_name": "cpython", "platform_python_implementation": "CPython", "extra": "",
}


def download(requirement: str, python: str, glibc: str, dest: Path) -> tuple[Path | None, str]:
    """The wheel pip picks for the Pi (no dependencies), or None and pip's reason."""
    before = set(dest.glob("*.whl"))
    cmd = [sys.executable, "-m", "pip", "download", "--isolated", "--quiet", "--no-deps", "--only-binary=:all:",
           "--python-version", python, "--implementation", "cp", "-d", str(dest), "-c", str(CONSTRAINTS)]
    for tag in platforms(glibc):
        cmd += ["--platform", tag]
    result = subprocess.run(cmd + [requirement], capture_output=True, text=True)
    if result.returncode != 0:
        lines = [ln for ln in result.stderr.splitlines() if ln.startswith("ERROR")]
        return None, (lines or ["pip failed"])[0].removeprefix("ERROR: ")
    new = set(dest.glob("*.whl")) - before
    name = canonical(Requirement(requirement).name)
    found = new or {w for w in dest.glob("*.whl") if canonical(w.name.split("-")[0]) == name}
    return (sorted(found)[0] if found else None), ""


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def needs(wheel: Path, python: str) -> list[str]:
    """The run-time requirements a wheel declares for the Pi (its METADATA's Requires-Dist)."""
    env = {**PI_ENVIRONMENT, "python_version": python, "python_full_version": f"{python}.2"}
    with zipfile.ZipFile(wheel) as z:
        meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        text = z.read(meta).decode("utf-8", "replace")
    out = []
    for line in text.splitlines():
        if line.startswith("Requires-Dist:"):
            req = Requirement(line.split(":", 1)[1].strip())
            if req.marker is None or req.marker.evaluate(env):
                out.append(str(req).split(";")[0].strip())
    return out


def walk(roots: list[str], python: str, glibc: str, dest: Path,
         asked: list[tuple[str, str]] | None = None) -> tuple[dict[str, str], dict[str, str]]:
    """Every requirement reachable from `roots`: ({name: wheel}, {name: why missing, via whom}).
    `asked` collects (who, requirement) for every requirement a wheel declares."""
    found: dict[str, str] = {}
    missing: dict[str, str] = {}
    todo = [(r, None) for r in roots]
    while todo:
        requirement, parent = todo.pop(0)
        name = canonical(Requirement(requirement).name)
        if name in found or name in missing:
            continue
        wheel, reason = download(requirement, python, glibc, dest)
        via = f" (needed by {parent})" if parent else ""
        if wheel is None:
            missing[name] = f"{reason}{via}"
            continue
        found[name] = wheel.name
        if re.match(r"[^-]+-0\.0\.0", wheel.name):
            missing[name] = f"only a placeholder release ({wheel.name}) fits; pin a real version{via}"
        todo += [(r, name) for r in needs(wheel, python)]
        if asked is not None:
            asked += [(name, r) for r in needs(wheel, python)]
    return found, missing


def disagreements(found: dict[str, str], asked: list[tuple[str, str]]) -> dict[str, str]:
    """{name: why} for each requirement the chosen wheels do not meet together: where pip backtracks."""
    versions = {canonical(str(parse_wheel_filename(w)[0])): parse_wheel_filename(w)[1] for w in found.values()}
    out = {}
    for who, requirement in asked:
        req = Requirement(requirement)
        have = versions.get(canonical(req.name))
        if have is not None and not req.specifier.contains(have, prereleases=True):
            out[f"{who}"] = (f"{found[who]} needs {requirement}, but the constraints give {req.name} {have}: "
                             f"pip would backtrack through releases; pin the lines that go together")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--extra", action="append", default=["pi"], help="extras to include (default: pi)")
    parser.add_argument("--python", default="3.11", help="the Pi's Python (default 3.11, Bookworm)")
    parser.add_argument("--glibc", default="2.36", help="the Pi's glibc (default 2.36, Bookworm)")
    args = parser.parse_args(argv)
    started = time.monotonic()
    asked: list[tuple[str, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        found, missing = walk(requirements(sorted(set(args.extra))), args.python, args.glibc, Path(tmp), asked)
    missing.update(disagreements(found, asked))
    print(f"Wheels on PyPI for a Pi (aarch64, Python {args.python}, glibc {args.glibc}), "
          f"under {CONSTRAINTS.relative_to(ROOT)}:")
    for name, wheel in sorted(found.items()):
        print(f"  ok       {wheel}")
    for name, why in sorted(missing.items()):
        print(f"  MISSING  {name}: {why}")
    print(f"{len(found) - len(set(found) & set(missing))} ok, {len(missing)} missing "
          f"({time.monotonic() - started:.0f} s)")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
