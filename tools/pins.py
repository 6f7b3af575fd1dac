"""The learner set, pinned by requirements.lock: what Binder installs and what a wheelhouse holds.

    python -m tools.pins             # rewrite binder/requirements.txt from pyproject.toml and requirements.lock
    python -m tools.pins --check     # exit 1 when binder/requirements.txt is not what the lock says

The learner set is pyproject.toml's `dependencies` and everything they need in turn (read from the
installed packages' metadata, markers judged for Linux and each Python the course supports: a
package only one of them needs is kept), each at the version requirements.lock pins. pip, setuptools
and wheel are not in the lock (pip freeze leaves them out): where a package needs one, its own
requirement is kept (torch: setuptools>=77). tests/test_classroom_zero_install.py keeps the file in
step; scripts/wheelhouse.sh downloads the same list for every supported Python.
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
BINDER = ROOT / "binder" / "requirements.txt"
PYTHONS = ("3.11", "3.12", "3.13")  # pyproject.toml's requires-python, each minor version
NOT_LOCKED = {"pip", "setuptools", "wheel"}
TORCH_CPU = "https://download.pytorch.org/whl/cpu"
HEADER = f"""\
# Binder (repo2docker reads binder/ before anything else): the learner set, every package pinned as in
# requirements.lock, PyTorch's CPU build instead of the default CUDA one, no test or hub tools. Generated:
# `.venv/bin/python -m tools.pins` (tests/test_classroom_zero_install.py fails when it is stale).
--extra-index-url {TORCH_CPU}
"""


def lock(path: Path = ROOT / "requirements.lock") -> dict[str, str]:
    """name -> version, as requirements.lock pins them."""
    pins: dict[str, str] = {}
    for line in path.read_text().splitlines():
        if "==" in line and not line.startswith("#"):
            name, version = line.split("==", 1)
            pins[canonicalize_name(name)] = version.strip()
    return pins


def learner_set(pythons: tuple[str, ...] = PYTHONS) -> dict[str, str]:
    """name -> the requirement that brought it in, for the learner set's whole closure on Linux."""
    direct = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    linux = {k: str(v) for k, v in default_environment().items()} | {"sys_platform": "linux",
                                                                      "platform_system": "Linux"}
    envs = [linux | {"python_version": v, "python_full_version": f"{v}.0"} for v in pythons]
    found: dict[str, str] = {}
    todo = [(Requirement(d), frozenset({""})) for d in direct]
    done: set[tuple[str, frozenset[str]]] = set()
    while todo:
        req, extras = todo.pop()
        name = canonicalize_name(req.name)
        if (name, extras) in done:
            continue
        done.add((name, extras))
        found.setdefault(name, str(req))
        for text in metadata.distribution(req.name).requires or []:
            need = Requirement(text)
            wanted = need.marker is None or any(need.marker.evaluate(env | {"extra": e}) for env in envs
                                                for e in extras)
            if wanted:
                todo.append((need, frozenset(need.extras) | {""}))
    return found


def pinned(pythons: tuple[str, ...] = PYTHONS) -> list[str]:
    """The learner set as requirement lines, each at the lock's version (torch as its CPU build)."""
    pins, lines = lock(), []
    for name, req in sorted(learner_set(pythons).items()):
        if name in NOT_LOCKED:
            lines.append(str(Requirement(req)).split(";")[0].strip())
        elif name not in pins:
            raise SystemExit(f"{name} (needed by the learner set: {req}) is not in requirements.lock: "
                             "install it and regenerate the lock.")
        else:
            lines.append(f"{name}=={pins[name]}{'+cpu' if name == 'torch' else ''}")
    return lines


def binder_text() -> str:
    return HEADER + "\n".join(pinned()) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.pins", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether binder/requirements.txt is current")
    args = parser.parse_args(argv)
    text = binder_text()
    if args.check:
        current = BINDER.read_text() == text
        print(f"{BINDER} is {'current' if current else 'stale: run `.venv/bin/python -m tools.pins`'}")
        return 0 if current else 1
    BINDER.write_text(text)
    print(f"wrote {BINDER}: {text.count(chr(10)) - HEADER.count(chr(10))} packages pinned by requirements.lock",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
