"""JupyterHub for a workshop on one machine: several learners, each with their own home and state.

    make hub                      # installs JupyterHub into .venv and configurable-http-proxy into .cache/chp
    COURSE_HUB_PASSWORD=... make hub

Learners open http://<this machine>:8080, type any user name and the shared password, then
the teacher's nbgitpuller link (WORKSHOP.md) copies the course into their home. Every learner
runs JupyterLab from this folder's `.venv` (so the kernel "Python (course)" is there), with
their own `HOME` under `COURSE_HUB_HOMES`, hence their own course state
(`~/.local/state/llm-mcp-course`, course/paths.py).

The dummy authenticator lets in anyone who knows the password, and all learners' servers run as
the user who started the hub: fine for a workshop on a machine you wipe afterwards, not for
anything that lasts (then use The Littlest JupyterHub: WORKSHOP.md). Variables:
COURSE_HUB_URL (http://127.0.0.1:8080; http://0.0.0.0:8080 for the classroom's network),
COURSE_HUB_PASSWORD (required), COURSE_HUB_HOMES (.cache/hub/homes), COURSE_HUB_STATE (.cache/hub),
COURSE_VENV (.venv).
"""

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
VENV = Path(os.environ.get("COURSE_VENV", HERE / ".venv"))
STATE = Path(os.environ.get("COURSE_HUB_STATE", HERE / ".cache" / "hub"))  # database, cookie secret (git-ignored)
HOMES = Path(os.environ.get("COURSE_HUB_HOMES", STATE / "homes"))
PROXY = HERE / ".cache" / "chp" / "node_modules" / ".bin" / "configurable-http-proxy"

password = os.environ.get("COURSE_HUB_PASSWORD", "")
if len(password) < 8:
    sys.exit("Set COURSE_HUB_PASSWORD (8 characters or more) to the password learners will type, "
             "e.g. COURSE_HUB_PASSWORD=$(python3 -c 'import secrets; print(secrets.token_urlsafe(9))') make hub")
singleuser = VENV / "bin" / "jupyterhub-singleuser"
if not singleuser.exists():
    sys.exit(f"{singleuser} is missing: run `make hub` (it installs JupyterHub into the course's venv).")

STATE.mkdir(parents=True, exist_ok=True)
c = get_config()  # noqa: F821 -- JupyterHub defines it when it reads this file

c.JupyterHub.bind_url = os.environ.get("COURSE_HUB_URL", "http://127.0.0.1:8080")
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(STATE / "jupyterhub.pid")
c.ConfigurableHTTPProxy.pid_file = str(STATE / "jupyterhub-proxy.pid")
if PROXY.exists():
    c.ConfigurableHTTPProxy.command = [str(PROXY)]

c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = password
c.Authenticator.allow_all = True  # any name, with the shared password: each name is a learner
c.Authenticator.admin_users = {"teacher"}

# Each learner: their own home under HOMES, a JupyterLab run from the course's venv.
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = str(HOMES / "{username}")
c.Spawner.cmd = [str(singleuser)]
c.Spawner.default_url = "/lab"
# The course kernel is registered in the venv (--sys-prefix); JUPYTER_PATH shows it to the learner's
# server even if Spawner.cmd is changed to a JupyterLab from another environment.
c.Spawner.environment = {"JUPYTER_PATH": str(VENV / "share" / "jupyter")}
if os.getuid() == 0:  # a container or a throw-away VM, where everything runs as root
    c.Spawner.args = ["--allow-root"]
c.Spawner.http_timeout = 120  # a cold start on a busy machine can take a while
c.Spawner.start_timeout = 120
