"""Zero to JupyterHub: k8s/config.yaml is a valid values file for the jupyterhub Helm chart 4.4.0, and says what
the one-machine hub says (the image from binder/, the class server as a service, a volume per learner, the idle
culler, a memory limit per learner).

The chart's values schema and default values are vendored in k8s/chart-4.4.0/ (BSD 3-Clause, Project Jupyter
Contributors; jupyterhub/zero-to-jupyterhub-k8s at tag 4.4.0, commit 5c5f5df). As `helm install` does, the
file is merged over the chart's defaults and the result validated against the schema with jsonschema.
"""

import copy
import re
from pathlib import Path

import jsonschema
import pytest
import yaml  # type: ignore[import-untyped]  # PyYAML comes with Jupyter; no stub package in the lock

ROOT = Path(__file__).resolve().parents[1]
CHART = ROOT / "k8s" / "chart-4.4.0"


def load(path: Path):
    return yaml.safe_load(path.read_text())


def merged(defaults: dict, given: dict) -> dict:
    """Helm's merge of a values file over the chart's values: maps merge, anything else replaces, null removes."""
    out = copy.deepcopy(defaults)
    for key, value in given.items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merged(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def errors(values: dict) -> list[str]:
    validator = jsonschema.Draft7Validator(load(CHART / "values.schema.yaml"))
    return [f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(values)]


@pytest.fixture(scope="module")
def values() -> dict:
    return merged(load(CHART / "values.yaml"), load(ROOT / "k8s" / "config.yaml"))


def test_config_yaml_merged_over_the_charts_defaults_is_valid_against_its_values_schema(values):
    assert errors(values) == []


def test_the_schema_check_catches_a_misspelt_or_mistyped_setting(values):
    misspelt = merged(values, {"singleuser": {"memmory": {"limit": "2G"}}})
    mistyped = merged(values, {"cull": {"timeout": "an hour"}})
    assert any("memmory" in e for e in errors(misspelt)) and any("cull.timeout" in e for e in errors(mistyped))


def test_each_learner_gets_a_volume_a_memory_limit_and_the_idle_culler(values):
    user = values["singleuser"]
    assert user["storage"]["type"] == "dynamic" and user["storage"]["homeMountPath"] == "/home/jovyan"
    from course.doctor.sizing import PER_LEARNER

    limit = float(re.fullmatch(r"(\d+(?:\.\d+)?)G", user["memory"]["limit"]).group(1)) * 1000
    assert limit >= PER_LEARNER["half day"], "the limit holds a learner with lessons 1-4 and 6 open"
    assert values["cull"]["enabled"] and values["cull"]["timeout"] == 3600  # as COURSE_HUB_IDLE_MINUTES' default
    assert values["hub"]["config"]["JupyterHub"]["authenticator_class"] == "firstuseauthenticator"
    assert values["hub"]["config"]["Authenticator"]["admin_users"] == ["teacher"]


def test_learners_reach_the_class_server_service_with_their_own_token(values):
    objects = {o["kind"]: o for o in yaml.safe_load_all((ROOT / "k8s" / "class-server.yaml").read_text())}
    service, deployment = objects["Service"], objects["Deployment"]
    extra = values["hub"]["extraConfig"]["course-class-tokens"]
    url = re.search(r'"COURSE_MCP_URL": "http://([\w-]+):(\d+)/mcp"', extra)
    assert url and url.group(1) == service["metadata"]["name"]
    assert int(url.group(2)) == service["spec"]["ports"][0]["port"]
    assert '"COURSE_MCP_TOKEN": lambda spawner: tokens().get(spawner.user.name, "")' in extra
    compile(extra, "extraConfig", "exec")  # the hub runs it as Python
    command = deployment["spec"]["template"]["spec"]["containers"][0]["command"]
    assert command[:3] == ["python", "-m", "course.classroom"] and command[command.index("--allow-host") + 1] == \
        service["metadata"]["name"]
    egress = values["singleuser"]["networkPolicy"]["egress"][0]["to"][0]["podSelector"]["matchLabels"]
    assert egress.items() <= deployment["spec"]["template"]["metadata"]["labels"].items()
    assert "class ClassAuthenticator(FirstUseAuthenticator)" in extra and "username in tokens()" in extra


def test_the_image_is_the_one_binder_builds():
    text = (ROOT / "k8s" / "config.yaml").read_text()
    assert "repo2docker --target-repo-dir /srv/llm-mcp-course" in text
    assert "/srv/llm-mcp-course/.cache/class-embeddings" in text
    assert "python -m course.classroom.class_cache" in (ROOT / "binder" / "postBuild").read_text()
