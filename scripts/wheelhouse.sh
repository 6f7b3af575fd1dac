#!/bin/sh
# Fill a folder with every wheel the learner set needs, for a classroom with bad Wi-Fi:
#
#   make wheelhouse              # on a machine with a good connection, same OS and Python as the learners'
#   cp -r wheelhouse /media/usb  # then, on each learner's machine, in the course folder:
#   cp -r /media/usb/wheelhouse . && make setup     # installs with --no-index: no network at all
#
# Wheels are per platform: fill one on Linux x86_64 for Linux learners (WSL included), one on a Mac
# for Mac learners. Variables: PYTHON (python3), WHEELHOUSE (wheelhouse), SET (lab; hub adds JupyterHub).
set -eu
PYTHON=${PYTHON:-python3}
WHEELHOUSE=${WHEELHOUSE:-wheelhouse}
SET=${SET:-lab}
TORCH_CPU_INDEX=${TORCH_CPU_INDEX:-https://download.pytorch.org/whl/cpu}
START=$(date +%s)
say() { echo "[wheelhouse +$(( $(date +%s) - START ))s] $*"; }
case $SET in lab) EXTRAS="" ;; hub) EXTRAS="[hub]" ;; *) echo "SET is lab or hub" >&2; exit 2 ;; esac

mkdir -p "$WHEELHOUSE"
pip() { "$PYTHON" -m pip --disable-pip-version-check "$@"; }
if [ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ]; then
    say "PyTorch's CPU build (the default Linux build is several GB)"
    pip download --quiet --dest "$WHEELHOUSE" --index-url "$TORCH_CPU_INDEX" torch==2.13.0 2>/dev/null \
        || say "the PyTorch CPU index is out of reach; the next step takes torch from the package index"
fi
say "the course's packages ($SET set), pinned by requirements.lock"
# --find-links: the torch wheel already there satisfies the lock; setuptools builds the course itself.
pip download --quiet --dest "$WHEELHOUSE" --find-links "$WHEELHOUSE" -c requirements.lock ".$EXTRAS" "setuptools>=68" wheel
rm -f "$WHEELHOUSE"/llm_mcp_course-*  # the course is installed from its folder, not from a wheel
say "done: $(ls "$WHEELHOUSE" | wc -l) files, $(du -sh "$WHEELHOUSE" | cut -f1) in $WHEELHOUSE/"
