# The two commands: `make lab` (open the course) and `make test` (check everything).
# Both create the environment first when it is missing or out of date.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
READY  := $(VENV)/.ready
MCP1   := $(VENV)/mcp1/.ready
# The course's own notebooks (tracked in git), not a learner's copies such as 01_tool_calling-Copy1.ipynb.
NOTEBOOKS := $(or $(shell git ls-files 'notebooks/[0-9]*.ipynb' 2>/dev/null),$(sort $(wildcard notebooks/[0-9]*.ipynb)))
TORCH_CPU_INDEX := https://download.pytorch.org/whl/cpu
# `python -m MODULE` with the scripted model and no real model's key, whatever the shell has set (course/offline.py).
OFFLINE := $(PY) -m course.offline

.PHONY: setup lab lint test bench notebooks grade stub-api clean

setup: $(READY)

$(READY): pyproject.toml requirements.lock
	@$(PYTHON) -c 'import sys; sys.exit(0 if (3, 11) <= sys.version_info[:2] < (3, 14) else "The course needs Python 3.11-3.13; run: make PYTHON=python3.12 ...")'
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@# On Linux, pip's default torch is the CUDA build (several GB of GPU libraries): take the CPU build first.
	@if [ "$$(uname -s)-$$(uname -m)" = "Linux-x86_64" ] && ! $(PY) -c "import torch" 2>/dev/null; then \
		echo "Installing PyTorch's CPU build first (small; the default Linux build is several GB)"; \
		$(PY) -m pip install --quiet --disable-pip-version-check --retries 0 --timeout 10 \
			torch==2.13.0 --index-url $(TORCH_CPU_INDEX) \
		|| echo "Could not reach the PyTorch CPU index; pip picks its default torch build instead."; \
	fi
	$(PY) -m pip install --quiet --disable-pip-version-check -c requirements.lock -e ".[dev]"
	$(PY) -m ipykernel install --sys-prefix --name course --display-name "Python (course)" >/dev/null
	touch $@

# mcp 1.x cannot share a venv with mcp 2: a separate one for lesson 6's older-protocol interop test.
$(MCP1): $(READY)
	test -x $(VENV)/mcp1/bin/python || $(PY) -m venv $(VENV)/mcp1
	$(VENV)/mcp1/bin/pip install --quiet --disable-pip-version-check mcp==1.30.0
	touch $@

lab: setup
	$(VENV)/bin/jupyter lab --ServerApp.root_dir=. $(if $(filter 0,$(shell id -u)),--allow-root) \
		notebooks/01_tool_calling.ipynb

# The static gate, which `make test` runs first: ruff (style, imports, likely bugs) and mypy (types, on the package).
# Settings in pyproject.toml ([tool.ruff], [tool.mypy]).
lint: setup
	$(VENV)/bin/ruff check course tests bench tools solutions conftest.py
	$(VENV)/bin/mypy course

test: lint $(MCP1)
	$(OFFLINE) pytest tests $(NOTEBOOKS) --nbval --nbval-current-env \
		--nbval-sanitize-with notebooks/sanitize.cfg --nbval-cell-timeout=120 $(PYTEST_ARGS)

bench: setup
	$(OFFLINE) bench

# Re-execute the notebooks and store their outputs (what `make test` compares).
notebooks: setup
	$(PY) -m tools.refresh $(if $(FORCE),--force) $(or $(NB),$(NOTEBOOKS))

# Mentors: grade a notebook or a class folder in a sandbox, e.g. `make grade NB="submissions/lesson 4" ARGS="-j 4"`
# (options: `.venv/bin/python -m course.grading --help`). Not every exercise passing is a result, not an error:
# only a bad command line (exit 2) fails the target.
grade: setup
	@$(OFFLINE) course.grading $(if $(NB),"$(NB)",$(NOTEBOOKS)) $(ARGS); status=$$?; [ $$status -le 1 ]

# Lesson 5: the local stub of the web API that course.servers.webapi wraps (Ctrl+C stops it).
stub-api: setup
	$(PY) -m course.servers.stub_api --port $(or $(PORT),8765)

clean:
	rm -rf $(VENV) work
