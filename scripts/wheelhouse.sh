#!/bin/sh
# Fill a folder with every wheel the learner set needs, for a classroom with bad Wi-Fi:
#
#   make wheelhouse              # on a machine with a good connection and the learners' OS
#   cp -r wheelhouse /media/usb  # then, on each learner's machine, in the course folder:
#   cp -r /media/usb/wheelhouse . && make setup     # installs with --no-index: no network at all
#
# One folder for every Python the course supports (3.11, 3.12, 3.13: PYTHONS="3.11 3.12 3.13"): packages
# with compiled parts (numpy, torch, pydantic-core, ...) have a wheel per Python version, and pip picks the
# learner's from the folder. The list is binder/requirements.txt (the learner set, every package pinned by
# requirements.lock: `python -m tools.pins`), downloaded with --no-deps for each Python, so the versions are
# the lock's for every one of them. Wheels are per platform too: fill one on Linux x86_64 for Linux learners
# (WSL included), one on a Mac for Mac learners.
# Variables: PYTHON (python3: runs pip), PYTHONS, WHEELHOUSE (wheelhouse), SET (lab; hub adds JupyterHub).
set -eu
PYTHON=${PYTHON:-python3}
PYTHONS=${PYTHONS:-3.11 3.12 3.13}
WHEELHOUSE=${WHEELHOUSE:-wheelhouse}
SET=${SET:-lab}
START=$(date +%s)
say() { echo "[wheelhouse +$(( $(date +%s) - START ))s] $*"; }
case $SET in lab) EXTRAS="" ;; hub) EXTRAS="[hub]" ;; *) echo "SET is lab or hub" >&2; exit 2 ;; esac

mkdir -p "$WHEELHOUSE"
pip() { "$PYTHON" -m pip --disable-pip-version-check "$@"; }
PINS=$(mktemp)
trap 'rm -f "$PINS"' EXIT
if [ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ]; then
    cp binder/requirements.txt "$PINS"  # PyTorch's CPU build from its own index (the default Linux one is several GB)
else
    grep -v -e '^--extra-index-url' binder/requirements.txt | sed 's/+cpu$//' > "$PINS"  # macOS: the index's torch
fi
for version in $PYTHONS; do
    say "the learner set for Python $version, pinned by requirements.lock"
    pip download --quiet --dest "$WHEELHOUSE" --python-version "$version" --no-deps -r "$PINS"
done
say "what building the course itself needs, and the $SET set's extras, for this machine's Python"
# --find-links: what is already there satisfies the lock; setuptools builds the course itself.
pip download --quiet --dest "$WHEELHOUSE" --find-links "$WHEELHOUSE" -c requirements.lock ".$EXTRAS" "setuptools>=68" wheel
rm -f "$WHEELHOUSE"/llm_mcp_course-*  # the course is installed from its folder, not from a wheel
for version in $PYTHONS; do
    tag="cp$(echo "$version" | tr -d .)"
    say "Python $version: $(ls "$WHEELHOUSE" | grep -c -e "-$tag-" -e "-abi3-" -e "-py3-none-" -e "-py2.py3-none-") wheels it can use"
done
say "done: $(ls "$WHEELHOUSE" | wc -l) files, $(du -sh "$WHEELHOUSE" | cut -f1) in $WHEELHOUSE/"
