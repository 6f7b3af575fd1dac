#!/bin/sh
# Create or update the course's virtualenv: `make setup` (learners), `make test` (developers).
#
#   scripts/setup.sh lab|dev|hub      lab: what the lessons need; dev: + the test tools; hub: + JupyterHub
#
# Variables: PYTHON (python3), VENV (.venv), WHEELHOUSE (wheelhouse: when it holds wheels, install
# from it with no network), INSTALLER (auto: uv when on PATH, else pip; or pip / uv),
# KERNEL_PREFIX (also register the kernel in that environment, e.g. a JupyterHub's).
set -eu

SET=${1:-lab}
PYTHON=${PYTHON:-python3}
VENV=${VENV:-.venv}
WHEELHOUSE=${WHEELHOUSE:-wheelhouse}
INSTALLER=${INSTALLER:-auto}
TORCH_CPU_INDEX=${TORCH_CPU_INDEX:-https://download.pytorch.org/whl/cpu}
TORCH=torch==2.13.0
START=$(date +%s)

say() { echo "[setup +$(( $(date +%s) - START ))s] $*"; }

case $SET in
    lab) EXTRAS="" ;;
    dev) EXTRAS="[dev]" ;;
    hub) EXTRAS="[hub]" ;;
    *) echo "usage: $0 lab|dev|hub" >&2; exit 2 ;;
esac

"$PYTHON" -c 'import sys; sys.exit(0 if (3, 11) <= sys.version_info[:2] < (3, 14) else "The course needs Python 3.11-3.13; run: make setup PYTHON=python3.12")'
if [ ! -x "$VENV/bin/python" ]; then
    say "creating the virtualenv $VENV with $("$PYTHON" --version)"
    "$PYTHON" -m venv "$VENV"
fi
PY=$VENV/bin/python

if [ "$INSTALLER" = auto ]; then
    if command -v uv >/dev/null 2>&1; then INSTALLER=uv; else INSTALLER=pip; fi
fi
if [ "$INSTALLER" = uv ]; then
    install() { uv pip install --quiet --python "$PY" "$@"; }
    quick() { UV_HTTP_TIMEOUT=10 install "$@"; }
else
    install() { "$PY" -m pip install --quiet --disable-pip-version-check "$@"; }
    quick() { install --retries 0 --timeout 10 "$@"; }
fi

# A wheelhouse (`make wheelhouse`, copied from a USB stick) means: no network at all.
SOURCE=""
if ls "$WHEELHOUSE"/*.whl >/dev/null 2>&1; then
    SOURCE="--no-index --find-links $WHEELHOUSE"
    say "installing from the wheelhouse $WHEELHOUSE/ (no network) with $INSTALLER"
else
    say "installing from the package index with $INSTALLER (no $WHEELHOUSE/ folder)"
fi

# On Linux, the index's default torch is the CUDA build (several GB of GPU libraries): take the CPU build first.
if [ -z "$SOURCE" ] && [ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ] && ! "$PY" -c "import torch" 2>/dev/null; then
    say "installing PyTorch's CPU build first (small; the default Linux build is several GB)"
    quick --index-url "$TORCH_CPU_INDEX" "$TORCH" 2>/dev/null \
        || say "could not reach the PyTorch CPU index; the default torch build comes next instead"
fi

say "installing the course ($SET set: .$EXTRAS) with the versions in requirements.lock"
# shellcheck disable=SC2086  # SOURCE is several words on purpose
install $SOURCE -c requirements.lock -e ".$EXTRAS"

# --sys-prefix: this venv's Jupyter sees the kernel. A JupyterHub whose single-user servers run
# from another environment looks there instead: KERNEL_PREFIX=<that environment> registers it too.
"$PY" -m ipykernel install --sys-prefix --name course --display-name "Python (course)" >/dev/null
if [ -n "${KERNEL_PREFIX:-}" ]; then
    "$PY" -m ipykernel install --prefix "$KERNEL_PREFIX" --name course --display-name "Python (course)" >/dev/null
    say "registered the kernel 'Python (course)' in $KERNEL_PREFIX too"
fi
say "ready: the $SET set in $VENV ($(du -sh "$VENV" 2>/dev/null | cut -f1)), in $(( $(date +%s) - START )) s"
