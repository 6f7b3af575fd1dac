"""JupyterHub for a workshop on one machine: a system user per learner, as The Littlest JupyterHub does.

    sudo make hub                 # installs JupyterHub into .venv and configurable-http-proxy into .cache/chp

The hub runs as root. Learners open http://<this machine>:8080 and log in with their name and a
password they choose at their first log-in (kept as a bcrypt hash in COURSE_HUB_STATE, root's
only); the hub creates a system user for each (home 0700 under COURSE_HUB_HOMES) and runs their
JupyterLab and kernels as that user, from this folder's `.venv` (kernel "Python (course)"). One
learner's code then cannot read another's files, their environment (their class token) or the
hub's state: the OS refuses it (course/classroom/hub.py). The admin is `teacher`, with the password
in COURSE_HUB_ADMIN_PASSWORD, else one made on first start and kept in
COURSE_HUB_STATE/admin-password (root's only). Idle servers are stopped after COURSE_HUB_IDLE_MINUTES
(jupyterhub-idle-culler); each process a learner runs gets COURSE_HUB_MEM_GB of address space.
Variables: COURSE_HUB_URL (http://127.0.0.1:8080; http://0.0.0.0:8080 for the classroom's network,
with HTTPS: COURSE_HUB_SSL_CERT and COURSE_HUB_SSL_KEY, WORKSHOP.md), COURSE_HUB_ADMIN_PASSWORD,
COURSE_HUB_HOMES (/home), COURSE_HUB_STATE (.cache/hub), COURSE_VENV (.venv), COURSE_HUB_IDLE_MINUTES
(60), COURSE_HUB_MEM_GB (4), COURSE_HUB_RUNTIME (/opt/llm-mcp-course: what learners run when the
venv's Python is root's only), COURSE_SHARED_EMBEDDINGS (.cache/class-embeddings, `make class-cache`),
COURSE_CLASS_TOKENS and COURSE_MCP_URL (the class MCP server, below; the tokens file is read again when
it changes, so `make class-add NAME=zoe` lets a late learner in without a restart). Beyond loopback without
a certificate the hub says at its start that passwords cross the network in plain HTTP.
"""

import os
import secrets
import stat
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
VENV = Path(os.environ.get("COURSE_VENV", HERE / ".venv"))
STATE = Path(os.environ.get("COURSE_HUB_STATE", HERE / ".cache" / "hub"))  # database, secrets: root's only
HOMES = Path(os.environ.get("COURSE_HUB_HOMES", "/home"))  # a home per learner, each 0700
PROXY = HERE / ".cache" / "chp" / "node_modules" / ".bin" / "configurable-http-proxy"
# Lesson 3's embeddings, built once for the class by `make class-cache` (course/classroom/class_cache.py).
SHARED_EMBEDDINGS = Path(os.environ.get("COURSE_SHARED_EMBEDDINGS", HERE / ".cache" / "class-embeddings"))
IDLE_MINUTES = int(os.environ.get("COURSE_HUB_IDLE_MINUTES", "60"))
MEM_GB = float(os.environ.get("COURSE_HUB_MEM_GB", "4"))
PASSWORD_MIN, ADMIN_PASSWORD_MIN = 8, 32

if os.getuid() != 0:
    sys.exit("The hub creates a system user per learner and runs each learner's server as that user: start it "
             "as root (`sudo make hub`).")
if not (VENV / "bin" / "jupyterhub-singleuser").exists():
    sys.exit(f"{VENV}/bin/jupyterhub-singleuser is missing: run `make hub` (it installs JupyterHub into the "
             "course's venv).")
if "COURSE_HUB_PASSWORD" in os.environ:
    print("COURSE_HUB_PASSWORD is not used any more: each learner chooses their own password at their first "
          "log-in (WORKSHOP.md).", file=sys.stderr)

STATE.mkdir(parents=True, exist_ok=True)
STATE.chmod(0o700)  # the database, the cookie secret, the password hashes: no learner's account reads them
PASSWORDS = STATE / "passwords"  # bcrypt hashes (dbm), FirstUseAuthenticator's


def admin_password() -> str:
    """The teacher's: COURSE_HUB_ADMIN_PASSWORD, else the one kept in STATE (made on first start, root's only)."""
    given = os.environ.get("COURSE_HUB_ADMIN_PASSWORD")
    if given is not None:
        if len(given) < ADMIN_PASSWORD_MIN:
            sys.exit(f"COURSE_HUB_ADMIN_PASSWORD must have {ADMIN_PASSWORD_MIN} characters or more; or unset it, "
                     f"and the hub keeps one in {STATE / 'admin-password'}")
        return given
    kept = STATE / "admin-password"
    if not kept.exists() or len(kept.read_text().strip()) < ADMIN_PASSWORD_MIN:
        with os.fdopen(os.open(kept, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:  # root's only
            f.write(secrets.token_urlsafe(32) + "\n")
    print(f"The admin `teacher` logs in with the password in {kept} (`sudo cat` it)", file=sys.stderr)
    return kept.read_text().strip()


from course.classroom.hub import (  # noqa: E402
    CourseAuthenticator,
    CourseSpawner,
    class_token,
    learner_runtime,
    set_password,
    tokens_file,
    useradd,
)
from course.classroom.reach import class_server_problem  # noqa: E402
from course.classroom.learners import TokensFileError  # noqa: E402

# What learners' accounts run: the course's venv, or (when its Python is root's only) a small venv on this
# machine's Python that reads its packages (course/classroom/hub.py).
RUNTIME = learner_runtime(VENV, Path(os.environ.get("COURSE_HUB_RUNTIME", "/opt/llm-mcp-course")))

c = get_config()  # noqa: F821 -- JupyterHub defines it when it reads this file

c.JupyterHub.bind_url = os.environ.get("COURSE_HUB_URL", "http://127.0.0.1:8080")


def https(cert: str | None, key: str | None, url: str) -> tuple[str, str] | None:
    """(cert, key) for JupyterHub's own HTTPS (ssl_cert/ssl_key), from the environment; None: plain HTTP."""
    if not cert and not key:
        if not url.startswith(("http://127.", "http://localhost", "http://[::1]", "https://")):
            print(f"The hub listens on {url} in plain HTTP: passwords cross the network readable. Give it "
                  "COURSE_HUB_SSL_CERT and COURSE_HUB_SSL_KEY, or put it behind an HTTPS proxy (WORKSHOP.md).",
                  file=sys.stderr)
        return None
    if not (cert and key):
        sys.exit("HTTPS needs both COURSE_HUB_SSL_CERT (the certificate, PEM) and COURSE_HUB_SSL_KEY (its key).")
    for name, path in (("COURSE_HUB_SSL_CERT", cert), ("COURSE_HUB_SSL_KEY", key)):
        if not Path(path).is_file():
            sys.exit(f"{name}={path}: no such file (WORKSHOP.md says how to make a certificate).")
    return str(Path(cert).resolve()), str(Path(key).resolve())


tls = https(os.environ.get("COURSE_HUB_SSL_CERT"), os.environ.get("COURSE_HUB_SSL_KEY"), c.JupyterHub.bind_url)
if tls:  # HTTPS on the classroom's network (WORKSHOP.md): JupyterHub's proxy serves it
    c.JupyterHub.ssl_cert, c.JupyterHub.ssl_key = tls
    c.JupyterHub.bind_url = c.JupyterHub.bind_url.replace("http://", "https://", 1)
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(STATE / "jupyterhub.pid")
c.ConfigurableHTTPProxy.pid_file = str(STATE / "jupyterhub-proxy.pid")
if PROXY.exists():
    c.ConfigurableHTTPProxy.command = [str(PROXY)]

# A learner's own password (set at first log-in, hashed); a system user each, made by the hub.
c.JupyterHub.authenticator_class = CourseAuthenticator
c.FirstUseAuthenticator.dbm_path = str(PASSWORDS)
c.FirstUseAuthenticator.min_password_length = PASSWORD_MIN
c.LocalAuthenticator.create_system_users = True
c.LocalAuthenticator.add_user_cmd = useradd(HOMES)
c.Authenticator.allow_all = True
c.Authenticator.admin_users = {"teacher"}
# The teacher's hash is in place before the hub lets anyone in: no learner can claim the name first.
set_password(PASSWORDS, "teacher", admin_password())

# With the class MCP server (WORKSHOP.md): COURSE_CLASS_TOKENS=tokens.txt gives each learner the token
# of the line with their user name, and only those names (and "teacher") may log in. Lesson 6 then
# talks to the class server at COURSE_MCP_URL instead of starting its own.
# The file is read again when it changes: `make class-add NAME=zoe` lets a late learner in with no restart.
class_tokens = os.environ.get("COURSE_CLASS_TOKENS")
token_of: dict = {}
if class_tokens:
    try:  # a wrong path or a half-edited line is the teacher's message now, not a traceback from traitlets
        if stat.S_IMODE(os.stat(class_tokens).st_mode) & 0o077:
            sys.exit(f"{class_tokens} can be read by other accounts: every line is a learner's password. "
                     f"`chmod 600 {class_tokens}`, or make a new one with `make class-tokens`.")
        token_of = {name: token for token, name in tokens_file(class_tokens).learners().items()}
    except FileNotFoundError:
        sys.exit(f"COURSE_CLASS_TOKENS={class_tokens}: no such file. Give the tokens file the class server was "
                 "started with (`make class-tokens` made it), or leave COURSE_CLASS_TOKENS unset for a hub "
                 "without the class server.")
    except TokensFileError as e:
        sys.exit(f"COURSE_CLASS_TOKENS: {e}")
    c.Authenticator.allow_all = False
    c.Authenticator.allowed_users = set(token_of) | {"teacher"}
    c.CourseAuthenticator.class_tokens = class_tokens  # and whoever the file names later (course/classroom/hub.py)

# Each learner: their own system user and home, a JupyterLab run from the course's venv.
c.JupyterHub.spawner_class = CourseSpawner
c.CourseSpawner.address_space = int(MEM_GB * 1024**3)
c.Spawner.mem_limit = int(MEM_GB * 1024**3)  # shown to the learner (MEM_LIMIT); enforced per process above
c.Spawner.cmd = [str(RUNTIME / "bin" / "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
# The course kernel is registered in the venv (--sys-prefix); JUPYTER_PATH shows it to the learner's
# server even if Spawner.cmd is changed to a JupyterLab from another environment.
c.Spawner.environment = {"JUPYTER_PATH": os.pathsep.join(dict.fromkeys(
    [str(RUNTIME / "share" / "jupyter"), str(VENV / "share" / "jupyter")]))}  # the runtime's kernel first
if RUNTIME != VENV:  # the runtime's sys.prefix is not the venv's: say where JupyterLab and its settings are
    c.Spawner.environment |= {"JUPYTER_CONFIG_PATH": str(VENV / "etc" / "jupyter"),
                              "JUPYTERLAB_DIR": str(VENV / "share" / "jupyter" / "lab")}
if any(SHARED_EMBEDDINGS.glob("*.npz")):  # learners copy its vectors instead of running the model; never write it
    c.Spawner.environment["COURSE_SHARED_EMBEDDINGS"] = str(SHARED_EMBEDDINGS)
    print(f"Learners read lesson 3's embeddings from {SHARED_EMBEDDINGS}", file=sys.stderr)
else:
    print(f"No class embedding cache in {SHARED_EMBEDDINGS}: every learner embeds lesson 3's documents "
          "(~17 CPU-seconds each). `make class-cache` builds it once for the class.", file=sys.stderr)
if token_of:
    class_url = os.environ.get("COURSE_MCP_URL", "http://127.0.0.1:8000/mcp")
    # Checked now, with a learner's token: a wrong URL or tokens file is the teacher's message, not lesson 6's failure.
    problem = class_server_problem(class_url, next(iter(token_of.values())))
    if problem:
        sys.exit(f"{problem}\n(The hub hands COURSE_MCP_URL to every learner's server; it checks it at its start.)")
    print(f"Learners' lesson 6 uses the class server at {class_url}", file=sys.stderr)
    c.Spawner.environment |= {
        "COURSE_MCP_URL": class_url,
        # JupyterHub calls it per learner: each server gets its own learner's token, and no other.
        "COURSE_MCP_TOKEN": lambda spawner: class_token(class_tokens, spawner.user.name),
    }
c.Spawner.http_timeout = 120  # a cold start on a busy machine can take a while
c.Spawner.start_timeout = 120

# Idle servers are stopped (their kernels with them); the learner's files stay.
c.JupyterHub.services = [{"name": "idle-culler",
                          "command": [sys.executable, "-m", "jupyterhub_idle_culler",
                                      f"--timeout={IDLE_MINUTES * 60}"]}]
c.JupyterHub.load_roles = [{"name": "idle-culler", "services": ["idle-culler"],
                            "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"]}]
