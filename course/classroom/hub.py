"""The hub's pieces for a room (jupyterhub_config.py): a system user per learner, their own password, limits.

    c.JupyterHub.authenticator_class = CourseAuthenticator   # a learner picks their password at first log-in
    c.JupyterHub.spawner_class = CourseSpawner               # their server runs as their own system user

As The Littlest JupyterHub does it: the hub runs as root and creates a system user for each
learner (`useradd`, home 0700, marked as the course's in its comment field); each learner's
JupyterLab and kernels run as that user, so one learner's code cannot read another's files,
environment (`/proc/<pid>/environ`: the class token) or the hub's state (root's, 0700). The
password is the learner's own, chosen at their first log-in, and kept only as a bcrypt hash in
the hub's state (jupyterhub-firstuseauthenticator). The teacher is the admin by name, with a
password only the teacher knows (its hash is written before anyone can log in, so no learner
can claim the name first). A name that is an account of this machine not made by the hub
(`root`, the teacher's own login) is refused: a learner's server never runs as someone else.

Memory: `RLIMIT_AS` per process (a kernel that grows past it gets a MemoryError, not the
machine's swap); it is a limit per process, not per learner: cgroups would be per learner, and
are not delegated on these machines (WORKSHOP.md says what to do where they are).
"""

from __future__ import annotations

import dbm
import os
import pwd
import resource
from pathlib import Path

from firstuseauthenticator import FirstUseAuthenticator  # type: ignore[import-untyped]
from jupyterhub.auth import LocalAuthenticator  # type: ignore[import-untyped]
from jupyterhub.spawner import LocalProcessSpawner  # type: ignore[import-untyped]
from traitlets import Integer, Unicode

from course.classroom.learners import NAME, TokensFile

MARK = "llm-mcp-course learner"  # the comment field of every account the hub creates
GIB = 1024**3


_tokens_files: dict[str, TokensFile] = {}


def tokens_file(path: str | Path) -> TokensFile:
    """The class's tokens file, one `TokensFile` per path: read again only when it changes."""
    key = str(Path(path).resolve())
    if key not in _tokens_files:
        _tokens_files[key] = TokensFile(Path(key))
    return _tokens_files[key]


def class_token(path: str | Path, name: str) -> str:
    """`name`'s class token as the tokens file says now ("" for a name it does not hold)."""
    return {learner: token for token, learner in tokens_file(path).learners().items()}.get(name, "")


def useradd(homes: Path) -> list[str]:
    """The command the hub creates a learner's account with: a private home under `homes`, no password."""
    return ["useradd", "--create-home", "--base-dir", str(homes), "-K", "HOME_MODE=0700", "--user-group",
            "--shell", "/bin/bash", "--comment", MARK]


def made_by_the_hub(name: str) -> bool | None:
    """True: the hub made this account; False: an account of this machine; None: no such account yet."""
    try:
        return pwd.getpwnam(name).pw_gecos == MARK
    except KeyError:
        return None


def set_password(dbm_path: str | Path, name: str, password: str) -> None:
    """Store `name`'s password as FirstUseAuthenticator does (a bcrypt hash), in a file only root reads."""
    import bcrypt

    with dbm.open(str(dbm_path), "c", 0o600) as db:
        db[name] = bcrypt.hashpw(password.encode(), bcrypt.gensalt())


class CourseAuthenticator(FirstUseAuthenticator, LocalAuthenticator):
    """FirstUseAuthenticator (a learner's own password, hashed) + LocalAuthenticator (a system user each).
    With `class_tokens`, the names in the class's tokens file may log in, as the file says now: a learner
    added during the class (`make class-add`) logs in without a restart of the hub."""

    class_tokens = Unicode("", config=True, help="the class server's tokens file; its names may log in")

    def check_allowed(self, username: str, authentication: object = None) -> bool:
        if self.class_tokens and username in set(tokens_file(self.class_tokens).learners().values()):
            return True
        return bool(super().check_allowed(username, authentication))

    def validate_username(self, name: str) -> bool:
        if not NAME.match(name) or made_by_the_hub(name) is False:
            self.log.warning("Refused the name %r: not a learner's name, or an account of this machine", name)
            return False
        return super().validate_username(name)


class CourseSpawner(LocalProcessSpawner):
    """A learner's server as their own user: home 0700 (checked at every start), a memory limit per process."""

    address_space = Integer(4 * GIB, config=True, help="RLIMIT_AS of the learner's server and of each kernel")
    home_mode = Unicode("0700", config=True, help="the mode of a learner's home, set at every start")

    def make_preexec_fn(self, name: str):
        as_user = super().make_preexec_fn(name)
        limit = self.address_space

        def preexec() -> None:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))  # while still root: the user cannot raise it
            as_user()

        return preexec

    async def start(self):
        if made_by_the_hub(self.user.name) is not True:  # the authenticator refuses these names already
            raise RuntimeError(f"{self.user.name} is not an account the hub made for a learner: not started.")
        entry = pwd.getpwnam(self.user.name)
        home = Path(entry.pw_dir)
        home.mkdir(parents=True, exist_ok=True)  # a teacher may have deleted it to reset the learner
        os.chown(home, entry.pw_uid, entry.pw_gid)
        home.chmod(int(self.home_mode, 8))
        return await super().start()


def others_can_run(path: Path) -> bool:
    """Whether an account other than the owner can reach `path` (every folder on the way o+x) and run it."""
    path = Path(path).resolve()
    return all(p.stat().st_mode & 0o001 for p in path.parents) and bool(path.stat().st_mode & 0o001)


def learner_runtime(venv: Path, runtime: Path) -> Path:
    """An environment learners' accounts can run: `venv` itself when they can, else a small venv in
    `runtime` on this machine's own Python of the same version that reads `venv`'s packages.

    A course venv made with a Python under /root (pyenv, say) holds packages everyone may read
    but an interpreter only root may run; The Littlest JupyterHub keeps its users' environment
    in /opt for the same reason. Returns the environment whose bin/ and share/jupyter to use."""
    import json
    import subprocess
    import sys

    venv = Path(venv)
    if others_can_run(venv / "bin" / "python"):
        return venv
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    system = Path(f"/usr/bin/python{version}")
    packages = venv / "lib" / f"python{version}" / "site-packages"
    if not (system.exists() and others_can_run(system) and others_can_run(packages)):
        raise SystemExit(f"Learners' accounts cannot run {venv}/bin/python, and there is no {system} they can run "
                         f"to read its packages: make the course's venv with a Python everyone may run, e.g. "
                         f"`make setup PYTHON=/usr/bin/python3` in a folder everyone may read.")
    if not (runtime / "bin" / "python").exists():
        subprocess.run([str(system), "-m", "venv", "--without-pip", str(runtime)], check=True)
    (runtime / "lib" / f"python{version}" / "site-packages" / "course-venv.pth").write_text(
        f"import site; site.addsitedir({str(packages)!r})\n")  # addsitedir: the venv's own .pth files too
    script = runtime / "bin" / "jupyterhub-singleuser"
    script.write_text(f"#!{runtime}/bin/python\nfrom jupyterhub.singleuser import main\nmain()\n")
    script.chmod(0o755)
    kernel = runtime / "share" / "jupyter" / "kernels" / "course"
    kernel.mkdir(parents=True, exist_ok=True)
    (kernel / "kernel.json").write_text(json.dumps({
        "argv": [f"{runtime}/bin/python", "-Xfrozen_modules=off", "-m", "ipykernel_launcher", "-f",
                 "{connection_file}"], "display_name": "Python (course)", "language": "python"}))
    for path in [runtime, *runtime.rglob("*")]:
        path.chmod(path.stat().st_mode | (0o005 if path.is_dir() or path.stat().st_mode & 0o100 else 0o004))
    return runtime
