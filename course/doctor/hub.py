"""The checks for `make hub`: Node.js, npm and configurable-http-proxy (the proxy JupyterHub starts).

Only a hub needs them, so on their own they are warnings (a learner's laptop runs `make lab`);
`make doctor HUB=1` (`--hub`) makes them failures, for the machine that will serve the class.
npm matters only while configurable-http-proxy is missing: `make hub` installs it with npm.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

from course import paths
from course.doctor.report import Check

NODE_MIN = 20  # configurable-http-proxy 5 declares "engines": {"node": ">= 20"}
LOCAL_PROXY = paths.ROOT / ".cache" / "chp" / "node_modules" / ".bin" / "configurable-http-proxy"  # `make hub`'s
INSTALL_PROXY = "npm install --prefix .cache/chp configurable-http-proxy@5"  # the Makefile's command
# Debian 12 and Ubuntu 24.04 ship Node.js 18, too old: NodeSource's packages are the documented way to a newer one.
NODESOURCE = "curl -fsSL https://deb.nodesource.com/setup_22.x | sudo -E bash - && sudo apt-get install -y nodejs"


def node_fix(verb: str) -> str:
    return f"{verb} Node.js {NODE_MIN}+: `{NODESOURCE}` (Debian/Ubuntu, npm included), or `brew install node` (macOS)"


def version_of(command: str | None, timeout: float = 30.0) -> str | None:
    """What `command --version` prints (its first line), or None when it does not run."""
    if command is None:
        return None
    try:
        done = subprocess.run([command, "--version"], capture_output=True, text=True, timeout=timeout,
                              env=os.environ | {"NO_UPDATE_NOTIFIER": "1"})  # npm would look for news online
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = done.stdout.strip().splitlines()
    return lines[0].strip() if done.returncode == 0 and lines else None


def check_node(path: str | None, version: str | None, required: bool) -> Check:
    bad = "fail" if required else "warn"
    if path is None:
        return Check("node (for make hub)", bad, f"Node.js is not installed; `make hub` needs {NODE_MIN} or newer",
                     node_fix("install"))
    found = re.match(r"v?(\d+)\.", version or "")
    if found is None:
        return Check("node (for make hub)", bad, f"{path} does not run (`node --version` failed)",
                     node_fix("reinstall"))
    if int(found.group(1)) < NODE_MIN:
        return Check("node (for make hub)", bad, f"Node.js {version} ({path}) is too old: configurable-http-proxy "
                     f"5 needs {NODE_MIN} or newer", node_fix("upgrade"))
    return Check("node (for make hub)", "ok", f"Node.js {version} ({path})")


def check_npm(path: str | None, version: str | None, proxy_found: bool, required: bool) -> Check:
    if path is not None and version is not None:
        return Check("npm (for make hub)", "ok", f"npm {version} ({path})")
    if proxy_found:
        return Check("npm (for make hub)", "ok", "not found, and not needed: configurable-http-proxy is installed")
    shown = "npm is not installed" if path is None else f"{path} does not run (`npm --version` failed)"
    return Check("npm (for make hub)", "fail" if required else "warn",
                 f"{shown}; `make hub` needs it once, to install configurable-http-proxy",
                 "install it: `sudo apt-get install npm` (Debian/Ubuntu; NodeSource's nodejs already has it)")


def check_proxy(path: str | None, version: str | None, required: bool) -> Check:
    bad = "fail" if required else "warn"
    if path is None:
        return Check("configurable-http-proxy", bad, "not installed; JupyterHub starts it to route learners' pages",
                     f"`make hub` installs it the first time; to do it now: `{INSTALL_PROXY}`")
    if version is None:
        return Check("configurable-http-proxy", bad, f"{path} does not run (it needs node, above)",
                     f"fix node first; if it still fails: `rm -rf .cache/chp && {INSTALL_PROXY}`")
    return Check("configurable-http-proxy", "ok", f"{version} ({path})")


def proxy_path() -> str | None:
    """Where `make hub` finds the proxy: the course's own `.cache/chp`, else PATH (as jupyterhub_config.py)."""
    return str(LOCAL_PROXY) if LOCAL_PROXY.exists() else shutil.which("configurable-http-proxy")


def hub_checks(required: bool = False) -> list[Check]:
    node, npm, proxy = shutil.which("node"), shutil.which("npm"), proxy_path()
    return [check_node(node, version_of(node), required),
            check_npm(npm, version_of(npm), proxy is not None, required),
            check_proxy(proxy, version_of(proxy), required)]
