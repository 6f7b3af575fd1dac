"""JupyterHub for a workshop on one machine: several learners, each with their own home and state.

    make hub                      # installs JupyterHub into .venv and configurable-http-proxy into .cache/chp
    COURSE_HUB_PASSWORD=... make hub

Learners open http://<this machine>:8080, type any user name and the shared password, then
the teacher's nbgitpuller link (WORKSHOP.md) copies the course into their home. Every learner
runs JupyterLab from this folder's `.venv` (so the kernel "Python (course)" is there), with
their own `HOME` under `COURSE_HUB_HOMES`, hence their own course state
(`~/.local/state/llm-mcp-course`, course/paths.py).

JupyterHub's shared-password authenticator lets in any name with the learners' password; the
admin `teacher` logs in with a password of their own (COURSE_HUB_ADMIN_PASSWORD, else one made on
first start and kept in COURSE_HUB_STATE/admin-password, readable by you only), so a learner who
types `teacher` gets no admin page. All learners' servers run as the user who started the hub:
fine for a workshop on a machine you wipe afterwards, not for anything that lasts (then use The
Littlest JupyterHub: WORKSHOP.md). Variables:
COURSE_HUB_URL (http://127.0.0.1:8080; http://0.0.0.0:8080 for the classroom's network),
COURSE_HUB_PASSWORD (required), COURSE_HUB_ADMIN_PASSWORD (optional, 32 characters or more),
COURSE_HUB_HOMES (.cache/hub/homes), COURSE_HUB_STATE (.cache/hub), COURSE_VENV (.venv),
COURSE_SHARED_EMBEDDINGS (.cache/class-embeddings, `make class-cache`), COURSE_CLASS_TOKENS and
COURSE_MCP_URL (the class MCP server, below).
"""

import os
import secrets
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
VENV = Path(os.environ.get("COURSE_VENV", HERE / ".venv"))
STATE = Path(os.environ.get("COURSE_HUB_STATE", HERE / ".cache" / "hub"))  # database, cookie secret (git-ignored)
HOMES = Path(os.environ.get("COURSE_HUB_HOMES", STATE / "homes"))
PROXY = HERE / ".cache" / "chp" / "node_modules" / ".bin" / "configurable-http-proxy"
# Lesson 3's embeddings, built once for the class by `make class-cache` (course/classroom/class_cache.py).
SHARED_EMBEDDINGS = Path(os.environ.get("COURSE_SHARED_EMBEDDINGS", HERE / ".cache" / "class-embeddings"))

PASSWORD_MIN, ADMIN_PASSWORD_MIN = 8, 32  # what SharedPasswordAuthenticator accepts (else a traceback)

password = os.environ.get("COURSE_HUB_PASSWORD", "")
if len(password) < PASSWORD_MIN:
    sys.exit("Set COURSE_HUB_PASSWORD (8 characters or more) to the password learners will type, "
             "e.g. COURSE_HUB_PASSWORD=$(python3 -c 'import secrets; print(secrets.token_urlsafe(9))') make hub")
singleuser = VENV / "bin" / "jupyterhub-singleuser"
if not singleuser.exists():
    sys.exit(f"{singleuser} is missing: run `make hub` (it installs JupyterHub into the course's venv).")

STATE.mkdir(parents=True, exist_ok=True)


def admin_password() -> str:
    """The teacher's: COURSE_HUB_ADMIN_PASSWORD, else the one kept in STATE (made on first start, mode 600)."""
    given = os.environ.get("COURSE_HUB_ADMIN_PASSWORD")
    if given is not None:
        if len(given) < ADMIN_PASSWORD_MIN or given == password:
            sys.exit(f"COURSE_HUB_ADMIN_PASSWORD must have {ADMIN_PASSWORD_MIN} characters or more and differ from "
                     "COURSE_HUB_PASSWORD; or unset it, and the hub keeps one in "
                     f"{STATE / 'admin-password'}")
        return given
    kept = STATE / "admin-password"
    if not kept.exists() or len(kept.read_text().strip()) < ADMIN_PASSWORD_MIN:
        with os.fdopen(os.open(kept, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:  # yours only
            f.write(secrets.token_urlsafe(32) + "\n")
    return kept.read_text().strip()


c = get_config()  # noqa: F821 -- JupyterHub defines it when it reads this file

c.JupyterHub.bind_url = os.environ.get("COURSE_HUB_URL", "http://127.0.0.1:8080")
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(STATE / "jupyterhub.pid")
c.ConfigurableHTTPProxy.pid_file = str(STATE / "jupyterhub-proxy.pid")
if PROXY.exists():
    c.ConfigurableHTTPProxy.command = [str(PROXY)]

# Any name with the learners' password (each name is a learner); `teacher` only with the admin password.
c.JupyterHub.authenticator_class = "shared-password"
c.SharedPasswordAuthenticator.user_password = password
c.SharedPasswordAuthenticator.admin_password = admin_password()
c.Authenticator.allow_all = True
c.Authenticator.admin_users = {"teacher"}
if not os.environ.get("COURSE_HUB_ADMIN_PASSWORD"):
    print(f"The admin `teacher` logs in with the password in {STATE / 'admin-password'}", file=sys.stderr)

# With the class MCP server (WORKSHOP.md): COURSE_CLASS_TOKENS=tokens.txt gives each learner the token
# of the line with their user name, and only those names (and "teacher") may log in. Lesson 6 then
# talks to the class server at COURSE_MCP_URL instead of starting its own.
class_tokens = os.environ.get("COURSE_CLASS_TOKENS")
token_of: dict = {}
if class_tokens:
    from course.classroom.learners import read_tokens

    token_of = {name: token for token, name in read_tokens(Path(class_tokens)).items()}
    c.Authenticator.allow_all = False
    c.Authenticator.allowed_users = set(token_of) | {"teacher"}

# Each learner: their own home under HOMES, a JupyterLab run from the course's venv.
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = str(HOMES / "{username}")
c.Spawner.cmd = [str(singleuser)]
c.Spawner.default_url = "/lab"
# The course kernel is registered in the venv (--sys-prefix); JUPYTER_PATH shows it to the learner's
# server even if Spawner.cmd is changed to a JupyterLab from another environment.
c.Spawner.environment = {"JUPYTER_PATH": str(VENV / "share" / "jupyter")}
if any(SHARED_EMBEDDINGS.glob("*.npz")):  # learners copy its vectors instead of running the model; never write it
    c.Spawner.environment["COURSE_SHARED_EMBEDDINGS"] = str(SHARED_EMBEDDINGS)
    print(f"Learners read lesson 3's embeddings from {SHARED_EMBEDDINGS}", file=sys.stderr)
else:
    print(f"No class embedding cache in {SHARED_EMBEDDINGS}: every learner embeds lesson 3's documents "
          "(~17 CPU-seconds each). `make class-cache` builds it once for the class.", file=sys.stderr)
if token_of:
    c.Spawner.environment |= {
        "COURSE_MCP_URL": os.environ.get("COURSE_MCP_URL", "http://127.0.0.1:8000/mcp"),
        "COURSE_MCP_TOKEN": lambda spawner: token_of.get(spawner.user.name, ""),  # JupyterHub calls it per learner
    }
if os.getuid() == 0:  # a container or a throw-away VM, where everything runs as root
    c.Spawner.args = ["--allow-root"]
c.Spawner.http_timeout = 120  # a cold start on a busy machine can take a while
c.Spawner.start_timeout = 120
