# The two commands: `make lab` (open the course) and `make test` (check everything).
# Both create the environment first when it is missing or out of date.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
# Learners get the lessons' packages (`make lab`); `make test` adds the test tools (`dev` in pyproject.toml).
READY  := $(VENV)/.ready-lab
DEV    := $(VENV)/.ready-dev
MCP1   := $(VENV)/mcp1/.ready
WHEELHOUSE ?= wheelhouse
# The course's own notebooks (tracked in git), not a learner's copies such as 01_tool_calling-Copy1.ipynb.
NOTEBOOKS := $(or $(shell git ls-files 'notebooks/[0-9]*.ipynb' 2>/dev/null),$(sort $(wildcard notebooks/[0-9]*.ipynb)))
# `python -m MODULE` with the scripted model and no real model's key, whatever the shell has set (course/offline.py).
OFFLINE := $(PY) -m course.offline
SETUP   := PYTHON=$(PYTHON) VENV=$(VENV) WHEELHOUSE=$(WHEELHOUSE) sh scripts/setup.sh

.PHONY: setup lab lint test bench notebooks grade stub-api doctor wheelhouse class-tokens class-add class-server class-status class-rehearsal class-cache hub clean clean-state

# Says what it does and how long it took; uses uv when it is on PATH (INSTALLER=pip forces pip), and
# the wheelhouse/ folder instead of the network when it is there (see WORKSHOP.md).
setup: $(READY)

$(READY): pyproject.toml requirements.lock scripts/setup.sh
	@$(SETUP) lab
	@touch $@

$(DEV): $(READY)
	@$(SETUP) dev
	@touch $@

# mcp 1.x cannot share a venv with mcp 2: a separate one for lesson 6's older-protocol interop test.
$(MCP1): $(DEV)
	test -x $(VENV)/mcp1/bin/python || $(PY) -m venv $(VENV)/mcp1
	$(VENV)/mcp1/bin/pip install --quiet --disable-pip-version-check mcp==1.30.0
	touch $@

lab: setup
	$(VENV)/bin/jupyter lab --ServerApp.root_dir=. $(if $(filter 0,$(shell id -u)),--allow-root) \
		notebooks/01_tool_calling.ipynb

# The static gate, which `make test` runs first: ruff (style, imports, likely bugs), mypy (types, on the package
# and its tests) and the layer contract (import-linter: each part of the package imports only the layers below
# it, no cycles).
# Settings in pyproject.toml ([tool.ruff], [tool.mypy], [tool.importlinter]).
lint: $(DEV)
	$(VENV)/bin/ruff check course tests bench tools solutions conftest.py
	$(VENV)/bin/mypy course tests
	$(VENV)/bin/lint-imports --no-cache

# Two workers more than cores (pytest-xdist; JOBS=N for another number, JOBS=0 for one process): a good share of
# the suite waits rather than computes (a browser showing a prompt, a hub spawning, a sandbox or server starting),
# and the extra workers fill those waits (2 cores, stop 31: 404 s in one process, 216 s with 3 workers, 188 s
# with 4, 192 s with 5). Tests that must not share a resource, and each notebook's cells, are kept on one worker
# (GROUPS, conftest.py). The JUnit file it leaves is what `make bench` reads for the suite's time and its slowest
# items. Bytecode is cached for the run even where the shell says not to (PYTHONDONTWRITEBYTECODE): else each of
# the run's few hundred Python processes compiles the course again, and each worker rewrites every test module.
JOBS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 2 )))
TEST_REPORT := .cache/make-test.xml

# Two node packages the tests run: the hub's proxy (tests/test_hub*.py) and the reference "everything" MCP server
# (lesson 9's interop test). npm fetches them like any package; without npm those tests say what to install.
CHP        := .cache/chp/node_modules/.bin/configurable-http-proxy
EVERYTHING := .cache/everything/node_modules/.bin/mcp-server-everything
NODE_TOOLS := $(if $(shell command -v npm 2>/dev/null),$(CHP) $(EVERYTHING))

$(CHP):
	npm install --silent --no-audit --no-fund --prefix .cache/chp configurable-http-proxy@5

$(EVERYTHING):
	npm install --silent --no-audit --no-fund --prefix .cache/everything @modelcontextprotocol/server-everything@2026.8.31

test: lint $(MCP1) $(NODE_TOOLS)
	@mkdir -p $(dir $(TEST_REPORT))
	PYTHONDONTWRITEBYTECODE= $(OFFLINE) pytest tests $(NOTEBOOKS) --nbval --nbval-current-env \
		--nbval-sanitize-with notebooks/sanitize.cfg --nbval-cell-timeout=120 \
		-n $(JOBS) --junitxml=$(TEST_REPORT) $(PYTEST_ARGS)

bench: $(DEV)
	TEST_REPORT=$(TEST_REPORT) $(OFFLINE) bench

# Re-execute the notebooks and store their outputs (what `make test` compares).
notebooks: $(DEV)
	$(PY) -m tools.refresh $(if $(FORCE),--force) $(or $(NB),$(NOTEBOOKS))

# Mentors: grade a notebook or a class folder in bubblewrap, e.g. `make grade NB="submissions/lesson 4" ARGS="-j 4"`
# (options: `.venv/bin/python -m course.grading --help`; the dev extras bring copydetect). Not every exercise
# passing is a result, not an error: only a bad command line or no bubblewrap (exit 2) fails the target.
grade: $(DEV)
	@$(OFFLINE) course.grading $(if $(NB),"$(NB)",$(NOTEBOOKS)) $(ARGS); status=$$?; [ $$status -le 1 ]

# Lesson 5: the local stub of the web API that course.servers.webapi wraps (Ctrl+C stops it).
stub-api: setup
	$(PY) -m course.servers.stub_api --port $(or $(PORT),8765)

# Before a workshop: is this machine ready? (Python, disk, kernel, embedding model, what `make hub` needs, ports;
# a verdict.) HUB=1: this machine serves the hub, so a missing node or configurable-http-proxy is a failure.
# LEARNERS=20 (LENGTH=2h or half-day): its memory and cores against WORKSHOP.md's table for that room.
DOCTOR_ARGS = $(if $(HUB),--hub) $(if $(LEARNERS),--learners $(LEARNERS)) $(if $(LENGTH),--path $(LENGTH))
doctor:
	@if [ -x $(PY) ]; then $(PY) -m course.doctor $(DOCTOR_ARGS); \
		else PYTHONPATH=. $(PYTHON) -m course.doctor $(DOCTOR_ARGS); fi

# For bad Wi-Fi: download every wheel the learner set needs into wheelhouse/ (copy it to a USB stick), for
# Python 3.11, 3.12 and 3.13 (PYTHONS="3.12" for one); `make setup` then installs from it with no network.
wheelhouse:
	PYTHON=$(PYTHON) WHEELHOUSE=$(WHEELHOUSE) $(if $(PYTHONS),PYTHONS="$(PYTHONS)") sh scripts/wheelhouse.sh

# The class MCP server (WORKSHOP.md): a token per learner, then one server for the whole class.
# NAMES=names.txt: the learners' log-in names, one a line (else learner-01 ... learner-N).
class-tokens: setup
	$(PY) -m course.classroom --new-tokens $(or $(N),30) --tokens $(or $(TOKENS),tokens.txt) $(if $(NAMES),--names "$(NAMES)")

# A late learner, while the class runs: NAME=zoe (NAME="zoe zed" for two) gets a line in the tokens file; the
# class server and the hub read the file again when it changes, so nothing restarts (course/classroom/roster.py).
class-add: setup
	@test -n "$(NAME)" || { echo "say who: make class-add NAME=zoe" >&2; exit 2; }
	$(PY) -m course.classroom.roster --tokens $(or $(TOKENS),tokens.txt) $(foreach n,$(NAME),--add $(n))

# DATA=DIR: where the learners' shops and call logs go (default WORK/class); `make class-status` sums them up.
# ARGS: the server's other options, e.g. ARGS="--in-flight 8" for a bigger share each (`--help` lists them).
class-server: setup
	$(PY) -m course.classroom --tokens $(or $(TOKENS),tokens.txt) $(if $(HOST),--host $(HOST)) \
		$(foreach h,$(ALLOW_HOST),--allow-host $(h)) --port $(or $(PORT),8000) $(if $(DATA),--data "$(DATA)") $(ARGS)

class-status: setup
	@$(PY) -m course.classroom.status $(if $(DATA),--data "$(DATA)")

# Before the day, on the machine of the day: N simulated learners (20) run lesson 6's calls at once: logged in
# to a real hub when root with `make hub` done, else straight to a class server started for them (it says
# which; TO=hub or TO=class-server to choose); prints time, latency and memory. EMBEDDER=lexical: quicker.
class-rehearsal: setup
	$(OFFLINE) course.classroom.rehearsal --learners $(or $(N),20) $(if $(EMBEDDER),--embedder $(EMBEDDER)) \
		$(if $(TO),--to $(TO))

# Before a hub workshop: lesson 3's embeddings once for the whole class, into .cache/class-embeddings
# (OUT=DIR elsewhere), which `make hub` hands to every learner's kernel to read (WORKSHOP.md).
class-cache: setup
	$(PY) -m course.classroom.class_cache $(if $(OUT),--out "$(OUT)")

# JupyterHub on this machine for a few learners (WORKSHOP.md); `.cache/chp` holds configurable-http-proxy.
# ARGS: JupyterHub's own options, e.g. other ports for its API and its proxy's when 8081 or 8001 are taken.
hub: $(VENV)/.ready-hub
	PATH="$(CURDIR)/.cache/chp/node_modules/.bin:$$PATH" $(VENV)/bin/jupyterhub -f jupyterhub_config.py $(ARGS)

$(VENV)/.ready-hub: $(READY)
	@$(SETUP) hub
	test -x .cache/chp/node_modules/.bin/configurable-http-proxy || npm install --silent --prefix .cache/chp configurable-http-proxy@5
	@touch $@

clean:
	rm -rf $(VENV)

# Your lessons' state (stores, caches, logs): ~/.local/state/llm-mcp-course unless COURSE_WORK says otherwise.
clean-state:
	@if [ -x $(PY) ]; then d=$$($(PY) -c "from course.paths import WORK; print(WORK)"); else d=$$(PYTHONPATH=. $(PYTHON) -c "from course.paths import WORK; print(WORK)"); fi; \
		echo "removing $$d"; rm -rf "$$d"
