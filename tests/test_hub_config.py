"""jupyterhub_config.py's log-in rules, read as JupyterHub reads the file (no hub started: tests/test_hub.py does).

A learner's password is their own, set at their first log-in and kept only as a bcrypt hash in the
hub's state (root's, 0700); the admin `teacher` logs in only with the teacher's password, whose hash
is in place before anyone can log in; a name that is an account of this machine (`root`) is refused.
"""

from __future__ import annotations

import asyncio
import logging
import os
import stat
import sys
import warnings
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.test_browser import unavailable

ROOT = Path(__file__).resolve().parents[1]
VENV = Path(sys.executable).parent.parent
PASSWORD = "learners-pass-1"


@pytest.fixture
def hub_env(tmp_path, monkeypatch):
    if not (VENV / "bin" / "jupyterhub-singleuser").exists():
        unavailable("JupyterHub is not installed in the course's venv (`make test` installs the dev set).")
    if os.getuid() != 0:
        unavailable("the hub runs as root (it creates a system user per learner); CI runs as root.")
    for name in ("COURSE_HUB_PASSWORD", "COURSE_HUB_ADMIN_PASSWORD", "COURSE_CLASS_TOKENS", "COURSE_SHARED_EMBEDDINGS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("COURSE_HUB_STATE", str(tmp_path / "state"))
    monkeypatch.setenv("COURSE_HUB_RUNTIME", str(tmp_path / "runtime"))
    monkeypatch.setenv("COURSE_VENV", str(VENV))
    return tmp_path / "state"


def load_config():
    from traitlets.config.loader import PyFileConfigLoader

    return PyFileConfigLoader("jupyterhub_config.py", path=str(ROOT)).load_config()


def authenticator(config):
    """The authenticator JupyterHub would build from `config`."""
    cls = config.JupyterHub.authenticator_class  # the class itself (course/classroom/hub.py)
    return cls(config=config)


def log_in(auth, name: str, password: str) -> dict | None:
    found = asyncio.run(auth.authenticate(SimpleNamespace(), {"username": name, "password": password}))
    return {"name": found} if isinstance(found, str) else found  # an authenticator may return the name alone


def test_a_learner_sets_their_password_at_first_log_in_and_only_it_works_after(hub_env):
    auth = authenticator(load_config())
    assert log_in(auth, "zoe", PASSWORD)["name"] == "zoe"
    assert log_in(auth, "zoe", PASSWORD) == {"name": "zoe"}
    assert log_in(auth, "zoe", PASSWORD + "x") is None
    assert log_in(auth, "zoe", "") is None
    assert log_in(auth, "ann", "short") is None, "a first password shorter than 8 characters is refused"
    assert b"zoe" in open_dbm(hub_env) and not any(PASSWORD.encode() in f.read_bytes() for f in hub_env.iterdir())


def open_dbm(state: Path) -> dict:
    import dbm

    with dbm.open(str(state / "passwords"), "r") as db:
        return {key: db[key] for key in db.keys()}


def test_teacher_is_admin_with_a_password_no_learner_can_claim_or_read(hub_env):
    auth = authenticator(load_config())
    kept = hub_env / "admin-password"
    admin = kept.read_text().strip()
    assert len(admin) >= 32 and stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert stat.S_IMODE(hub_env.stat().st_mode) == 0o700, "the hub's state is root's only"
    assert log_in(auth, "teacher", PASSWORD) is None, "a learner typing `teacher` first does not become it"
    assert log_in(auth, "teacher", admin)["name"] == "teacher"
    assert "teacher" in auth.admin_users
    assert log_in(authenticator(load_config()), "teacher", admin), "a restarted hub keeps the teacher's password"


def test_an_admin_password_from_the_environment_is_used_when_long_enough(hub_env, monkeypatch):
    chosen = "t" * 40
    monkeypatch.setenv("COURSE_HUB_ADMIN_PASSWORD", chosen)
    assert log_in(authenticator(load_config()), "teacher", chosen)["name"] == "teacher"
    assert not (hub_env / "admin-password").exists()
    monkeypatch.setenv("COURSE_HUB_ADMIN_PASSWORD", "short")
    with pytest.raises(SystemExit, match="32 characters or more"):
        load_config()


def test_an_account_of_this_machine_is_never_a_learners_name(hub_env):
    auth = authenticator(load_config())
    for name in ("root", "daemon", "nobody", "../etc", "a b"):
        assert not auth.validate_username(name), name
    assert auth.validate_username("learner-07")


def test_a_tokens_file_other_accounts_can_read_stops_the_hub(hub_env, tmp_path, monkeypatch, class_server):
    tokens = tokens_copy(class_server, tmp_path / "tokens.txt")
    monkeypatch.setenv("COURSE_CLASS_TOKENS", str(tokens))
    use_class_server(class_server, monkeypatch)
    assert load_config().Authenticator.allowed_users == {"anna", "teacher"}
    tokens.chmod(0o644)
    with pytest.raises(SystemExit, match="chmod 600"):
        load_config()



def test_a_tokens_file_that_is_not_there_or_not_a_tokens_file_stops_the_hub_with_a_message_not_a_traceback(
        hub_env, tmp_path, monkeypatch):
    from course.classroom.learners import write_tokens

    monkeypatch.setenv("COURSE_CLASS_TOKENS", str(tmp_path / "tokns.txt"))  # a typo
    with pytest.raises(SystemExit, match="tokns.txt: no such file.*make class-tokens"):
        load_config()
    write_tokens(tmp_path / "names.txt", "anna\nben\n")  # the names file given instead of the tokens file
    monkeypatch.setenv("COURSE_CLASS_TOKENS", str(tmp_path / "names.txt"))
    with pytest.raises(SystemExit, match="names.txt, line 1: expected 'name token'"):
        load_config()


@pytest.fixture(scope="module")
def class_server(tmp_path_factory):
    """One class server for this file's tests (the hub's config only asks it whether it knows a token): its
    tokens file, for anna, and its URL. A test copies the file and may change its copy; the server keeps its own."""
    from course.classroom.learners import new_tokens, write_tokens
    from course.classroom.server import serving

    folder = tmp_path_factory.mktemp("class-server")
    tokens = folder / "tokens.txt"
    write_tokens(tokens, new_tokens(["anna"]))
    with serving(tokens, "--embedder", "lexical", "--data", str(folder / "class")) as url:
        yield tokens, url


def use_class_server(class_server, monkeypatch) -> None:
    """Point the hub's config at the file's class server (COURSE_MCP_URL), which it checks at its start: the server
    knows anna's token in its own tokens file (`tokens_copy`), no other."""
    monkeypatch.setenv("COURSE_MCP_URL", class_server[1])


def tokens_copy(class_server, to: Path) -> Path:
    """A copy of the class server's tokens file (anna's line), root's 0600 as `write_tokens` makes it."""
    from course.classroom.learners import write_tokens

    write_tokens(to, class_server[0].read_text())
    return to


def test_a_hub_whose_class_server_is_not_there_or_has_other_tokens_stops_at_its_start_saying_so(
        hub_env, tmp_path, monkeypatch, class_server):
    from course.classroom.learners import new_tokens, write_tokens
    from course.processes import free_port

    tokens = tmp_path / "tokens.txt"
    write_tokens(tokens, new_tokens(["anna"]))  # anna's other token: the class server was started with another file
    monkeypatch.setenv("COURSE_CLASS_TOKENS", str(tokens))
    monkeypatch.setenv("COURSE_MCP_URL", f"http://127.0.0.1:{free_port()}/mcp")
    with pytest.raises(SystemExit, match="No class server answers at COURSE_MCP_URL"):
        load_config()
    use_class_server(class_server, monkeypatch)
    with pytest.raises(SystemExit, match="started with another tokens file"):
        load_config()


def test_idle_servers_are_culled_and_each_process_gets_a_memory_limit(hub_env):
    config = load_config()
    (culler,) = config.JupyterHub.services
    assert "jupyterhub_idle_culler" in culler["command"] and "--timeout=3600" in culler["command"]
    assert config.CourseSpawner.address_space == 4 * 1024**3


def test_the_config_uses_nothing_the_installed_jupyterhub_deprecates(hub_env, caplog):
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        with caplog.at_level(logging.WARNING):
            auth = authenticator(load_config())
            auth.check_allow_config()  # where JupyterHub warns about a suspicious log-in setup
    assert type(auth).__name__ == "CourseAuthenticator"
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text


def test_learners_kernels_get_the_class_embedding_cache_only_once_it_is_built(hub_env, tmp_path, monkeypatch, capsys):
    shared = tmp_path / "class-embeddings"
    monkeypatch.setenv("COURSE_SHARED_EMBEDDINGS", str(shared))
    assert "COURSE_SHARED_EMBEDDINGS" not in load_config().Spawner.environment
    assert "`make class-cache` builds it once" in capsys.readouterr().err
    shared.mkdir()
    (shared / "sentence-transformers_all-MiniLM-L6-v2_0123456789ab.npz").write_bytes(b"built by make class-cache")
    assert load_config().Spawner.environment["COURSE_SHARED_EMBEDDINGS"] == str(shared)


def test_a_learner_added_to_the_tokens_file_during_the_class_logs_in_and_gets_their_token_without_a_restart(
        hub_env, tmp_path, monkeypatch, class_server):
    from course.classroom.learners import add_learner

    tokens = tokens_copy(class_server, tmp_path / "tokens.txt")
    monkeypatch.setenv("COURSE_CLASS_TOKENS", str(tokens))
    use_class_server(class_server, monkeypatch)
    config = load_config()  # the hub as it started: anna only
    auth = authenticator(config)
    token_of = config.Spawner.environment["COURSE_MCP_TOKEN"]
    assert auth.check_allowed("anna") and not auth.check_allowed("zoe")
    assert token_of(SimpleNamespace(user=SimpleNamespace(name="zoe"))) == ""
    zoe = add_learner(tokens, "zoe").split()[1]  # `make class-add NAME=zoe`, the hub still running
    assert auth.check_allowed("zoe") and not auth.check_allowed("zed")
    assert token_of(SimpleNamespace(user=SimpleNamespace(name="zoe"))) == zoe
    assert token_of(SimpleNamespace(user=SimpleNamespace(name="anna"))) not in ("", zoe)
    assert stat.S_IMODE(tokens.stat().st_mode) == 0o600


def test_a_certificate_and_key_from_the_environment_make_the_hub_serve_https(hub_env, tmp_path, monkeypatch, capsys):
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert.write_text("-----BEGIN CERTIFICATE-----\n")
    key.write_text("-----BEGIN PRIVATE KEY-----\n")
    monkeypatch.setenv("COURSE_HUB_URL", "http://0.0.0.0:8443")
    config = load_config()
    assert "plain HTTP" in capsys.readouterr().err and "ssl_cert" not in config.JupyterHub
    monkeypatch.setenv("COURSE_HUB_SSL_CERT", str(cert))
    monkeypatch.setenv("COURSE_HUB_SSL_KEY", str(key))
    config = load_config()
    assert (config.JupyterHub.ssl_cert, config.JupyterHub.ssl_key) == (str(cert), str(key))
    assert config.JupyterHub.bind_url == "https://0.0.0.0:8443" and "plain HTTP" not in capsys.readouterr().err
    monkeypatch.delenv("COURSE_HUB_SSL_KEY")
    with pytest.raises(SystemExit, match="both COURSE_HUB_SSL_CERT"):
        load_config()
    monkeypatch.setenv("COURSE_HUB_SSL_KEY", str(tmp_path / "missing.pem"))
    with pytest.raises(SystemExit, match="no such file"):
        load_config()
