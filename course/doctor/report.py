"""What a check found, and the verdict a teacher reads at the end of `make doctor`."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Check:
    name: str
    status: str  # "ok", "warn" or "fail"
    detail: str
    fix: str = ""


def verdict(checks: list[Check]) -> tuple[bool, str]:
    """(ready, the closing line): ready when nothing failed; warnings are counted, not fatal."""
    failed = [c for c in checks if c.status == "fail"]
    warned = [c for c in checks if c.status == "warn"]
    if failed:
        return False, f"NOT READY: {len(failed)} check(s) failed ({', '.join(c.name for c in failed)}). Fix them, " \
                      "then run `make doctor` again."
    note = f" ({len(warned)} warning(s) above: read them)" if warned else ""
    return True, f"READY{note}: `make lab` opens lesson 1."


def report(found: list[Check]) -> tuple[bool, str]:
    """(ready, the text): a line per check, its fix under it when it is not ok, then the verdict."""
    marks = {"ok": "ok  ", "warn": "WARN", "fail": "FAIL"}
    lines = []
    for c in found:
        lines.append(f"[{marks[c.status]}] {c.name:<23} {c.detail}")
        if c.fix and c.status != "ok":
            lines.append(f"{'':<31}-> {c.fix}")
    ready, closing = verdict(found)
    return ready, "\n".join([*lines, "", closing])
