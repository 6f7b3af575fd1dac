"""jupyterhub_config.py's log-in rules, read as JupyterHub reads the file (no hub started: tests/test_hub.py does).

Any name logs in with the learners' shared password (COURSE_HUB_PASSWORD); the admin `teacher`
only with the admin password, kept in the hub's state folder for the teacher's eyes only.
"""

from __future__ import annotations

import asyncio
import logging
import stat
import sys
import warnings
from pathlib import Path

import pytest

from tests.test_browser import unavailable

ROOT = Path(__file__).resolve().parents[1]
VENV = Path(sys.executable).parent.parent
PASSWORD = "learners-pass-1"


@pytest.fixture
def hub_env(tmp_path, monkeypatch):
    if not (VENV / "bin" / "jupyterhub-singleuser").exists():
        unavailable("JupyterHub is not installed in the course's venv (`make test` installs the dev set).")
    for name in ("COURSE_HUB_ADMIN_PASSWORD", "COURSE_CLASS_TOKENS", "COURSE_SHARED_EMBEDDINGS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("COURSE_HUB_PASSWORD", PASSWORD)
    monkeypatch.setenv("COURSE_HUB_STATE", str(tmp_path / "state"))
    monkeypatch.setenv("COURSE_VENV", str(VENV))
    return tmp_path / "state"


def load_config():
    from traitlets.config.loader import PyFileConfigLoader

    return PyFileConfigLoader("jupyterhub_config.py", path=str(ROOT)).load_config()


def authenticator(config):
    """The authenticator JupyterHub would build from `config` (its name resolves through the entry point)."""
    from jupyterhub.app import JupyterHub

    cls = JupyterHub.authenticator_class.load_entry_points()[config.JupyterHub.authenticator_class].load()
    return cls(config=config)


def log_in(auth, name: str, password: str) -> dict | None:
    found = asyncio.run(auth.authenticate(None, {"username": name, "password": password}))
    return {"name": found} if isinstance(found, str) else found  # an authenticator may return the name alone


def test_any_name_logs_in_with_the_shared_password_and_only_with_it(hub_env):
    auth = authenticator(load_config())
    assert log_in(auth, "zoe", PASSWORD)["name"] == "zoe"
    assert not log_in(auth, "learner-07", PASSWORD).get("admin")
    assert log_in(auth, "zoe", PASSWORD + "x") is None
    assert log_in(auth, "zoe", "") is None


def test_teacher_is_admin_only_with_the_admin_password_which_only_the_teacher_can_read(hub_env):
    auth = authenticator(load_config())
    kept = hub_env / "admin-password"
    admin = kept.read_text().strip()
    assert len(admin) >= 32 and admin != PASSWORD
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert log_in(auth, "teacher", PASSWORD) is None, "a learner typing `teacher` must not get the admin page"
    assert log_in(auth, "teacher", admin) == {"name": "teacher", "admin": True, "groups": []}
    assert log_in(auth, "zoe", admin) is None
    assert authenticator(load_config()).admin_password == admin, "a restarted hub keeps the teacher's password"


def test_an_admin_password_from_the_environment_is_used_when_long_enough(hub_env, monkeypatch):
    chosen = "t" * 40
    monkeypatch.setenv("COURSE_HUB_ADMIN_PASSWORD", chosen)
    assert log_in(authenticator(load_config()), "teacher", chosen)["admin"] is True
    assert not (hub_env / "admin-password").exists()
    monkeypatch.setenv("COURSE_HUB_ADMIN_PASSWORD", "short")
    with pytest.raises(SystemExit, match="32 characters or more"):
        load_config()


def test_a_short_learners_password_stops_the_hub_with_the_command_that_makes_one(hub_env, monkeypatch):
    monkeypatch.setenv("COURSE_HUB_PASSWORD", "1234567")
    with pytest.raises(SystemExit, match=r"COURSE_HUB_PASSWORD \(8 characters or more\).*secrets.token_urlsafe"):
        load_config()


def test_the_config_uses_nothing_the_installed_jupyterhub_deprecates(hub_env, caplog):
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        with caplog.at_level(logging.WARNING):
            auth = authenticator(load_config())
            auth.check_allow_config()  # where JupyterHub warns about a suspicious log-in setup
    assert type(auth).__name__ == "SharedPasswordAuthenticator"
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text


def test_learners_kernels_get_the_class_embedding_cache_only_once_it_is_built(hub_env, tmp_path, monkeypatch, capsys):
    shared = tmp_path / "class-embeddings"
    monkeypatch.setenv("COURSE_SHARED_EMBEDDINGS", str(shared))
    assert "COURSE_SHARED_EMBEDDINGS" not in load_config().Spawner.environment
    assert "`make class-cache` builds it once" in capsys.readouterr().err
    shared.mkdir()
    (shared / "sentence-transformers_all-MiniLM-L6-v2_0123456789ab.npz").write_bytes(b"built by make class-cache")
    assert load_config().Spawner.environment["COURSE_SHARED_EMBEDDINGS"] == str(shared)
