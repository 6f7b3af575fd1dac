"""The offline environment is defined once (course/offline.py) and set where a process starts or a model loads."""

import json
import os
import subprocess
import sys
from pathlib import Path

from course import offline
from course.paths import ROOT


def child_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in offline.LOCAL_MODELS}
    return env | {"PYTHONPATH": str(ROOT)} | extra


def test_importing_the_search_the_tools_and_the_servers_leaves_the_environment_alone():
    code = ("import os; before = dict(os.environ)\n"
            "import course.search, course.doctools, course.servers.docs, course.store\n"
            "print(sorted(set(os.environ.items()) ^ set(before.items())))")
    done = subprocess.run([sys.executable, "-c", code], env=child_env(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_scripted_removes_a_real_models_key_and_url_and_keeps_a_users_own_hub_setting():
    env = {"OPENAI_API_KEY": "sk-secret", "OPENAI_BASE_URL": "http://localhost:11434/v1", "CI": "true",
           "COURSE_BACKEND": "openai", "HF_HUB_OFFLINE": "0", "PATH": "/bin"}
    offline.scripted(env, forget=["CI"])
    assert env == {"COURSE_BACKEND": "scripted", "COURSE_APPROVER": "scripted", "HF_HUB_OFFLINE": "0",
                   "HF_HUB_DISABLE_PROGRESS_BARS": "1", "TOKENIZERS_PARALLELISM": "false", "PATH": "/bin"}


def test_python_m_course_offline_runs_a_module_offline_and_passes_its_exit_status_on(tmp_path: Path):
    (tmp_path / "probe.py").write_text(
        "import json, os, sys\n"
        "names = ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'COURSE_BACKEND', 'COURSE_APPROVER', 'HF_HUB_OFFLINE']\n"
        "print(json.dumps({n: os.environ.get(n) for n in names} | {'argv': sys.argv[1:]}))\n"
        "sys.exit(3)\n")
    env = child_env(OPENAI_API_KEY="sk-secret", OPENAI_BASE_URL="http://x/v1")
    env["PYTHONPATH"] += os.pathsep + str(tmp_path)
    done = subprocess.run([sys.executable, "-m", "course.offline", "probe", "--flag", "a"], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 3, done.stderr
    assert json.loads(done.stdout) == {"OPENAI_API_KEY": None, "OPENAI_BASE_URL": None, "COURSE_BACKEND": "scripted",
                                       "COURSE_APPROVER": "scripted", "HF_HUB_OFFLINE": "1", "argv": ["--flag", "a"]}


def test_python_m_course_offline_with_an_unknown_module_says_so_in_one_line():
    done = subprocess.run([sys.executable, "-m", "course.offline", "no_such_module"], env=child_env(),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and done.stderr.strip().splitlines() == [
        "No module named 'no_such_module': give the name you would pass to `python -m`, e.g. pytest."]


def test_no_other_file_sets_the_offline_variables():
    files = [ROOT / "Makefile", ROOT / "conftest.py", *ROOT.glob("course/**/*.py"), *ROOT.glob("bench/**/*.py"),
             *ROOT.glob("tools/**/*.py")]
    setting = [str(f.relative_to(ROOT)) for f in files if f.name != "offline.py"
               and any(name in f.read_text() for name in ("HF_HUB_OFFLINE", "TOKENIZERS_PARALLELISM", "env -u"))]
    assert setting == []
    makefile = (ROOT / "Makefile").read_text()
    assert "OFFLINE := $(PY) -m course.offline" in makefile
    assert all(f"$(OFFLINE) {target}" in makefile for target in ("pytest", "bench", "course.grading"))
