"""The strict verdict: every id of the list (all of which pass upstream) must pass for us,
unless the committed allowlist names it with a reason. Also the failure classes: the
non-passing ids grouped by their error's normalised first line.

Allowlist format (tests/jax_suite/allowlist.txt), one entry a line:

    NODEID_OR_PATTERN  # reason (required)

'#' at the start of a line is a comment. A pattern may use fnmatch's * and ? (e.g.
`tests/pallas/triton_pallas_test.py::*  # ...`). An entry with no reason is an error: an
allowlist that does not say why is not reviewable.
"""

from __future__ import annotations

import collections
import fnmatch
import re

import suite


class AllowlistError(ValueError):
  pass


def parse_allowlist(text: str, where: str = "allowlist") -> list[dict]:
  """[{"pattern", "reason", "line"}]; raises AllowlistError naming the line at fault."""
  entries = []
  for n, raw in enumerate(text.splitlines(), 1):
    line = raw.strip()
    if not line or line.startswith("#"):
      continue
    pattern, sep, reason = line.partition(" #")
    pattern, reason = pattern.strip(), reason.strip()
    if not sep or not reason:
      raise AllowlistError(f"{where}:{n}: '{pattern}' has no reason: write "
                           f"'NODEID  # why it is allowed to fail'")
    if not pattern or " " in pattern:
      raise AllowlistError(f"{where}:{n}: '{pattern}' is not one node id or pattern")
    entries.append({"pattern": pattern, "reason": reason, "line": n})
  return entries


def match_allowlist(nodeid: str, entries: list[dict]) -> dict | None:
  for e in entries:
    p = e["pattern"]
    if p == nodeid or (any(c in p for c in "*?[") and fnmatch.fnmatchcase(nodeid, p)):
      return e
  return None


def error_class(error: str) -> str:
  """The exception's name when the line starts with one ("XlaRuntimeError: ..." ->
  XlaRuntimeError), else the outcome-like first word, else "(no message)"."""
  m = re.match(r"\s*([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning|Failure))\b",
               error or "")
  if m:
    return m.group(1).rsplit(".", 1)[-1]
  if not (error or "").strip():
    return "(no message)"
  word = error.strip().split(":", 1)[0].split()[0]
  return word[:40]


def nonpassing_cases(rows: list[dict]) -> list[dict]:
  return [{"nodeid": r["nodeid"], "outcome": r["outcome"], "error": r.get("error", ""),
           "class": error_class(r.get("error", "")),
           "cause": suite.normalize_error(r.get("error", ""))}
          for r in rows if r["outcome"] != "PASS"]


def failure_classes(rows: list[dict], outcomes=("FAIL", "ERROR", "TIMEOUT", "SKIP", "MISSING"),
                    examples: int = 3) -> list[dict]:
  """Every cause among rows with those outcomes: [{"cause", "class", "count", "outcomes",
  "files", "examples"}], most common first (ties by cause)."""
  groups: dict = {}
  for r in rows:
    if r["outcome"] not in outcomes:
      continue
    cause = suite.normalize_error(r.get("error", ""))
    g = groups.setdefault(cause, {"cause": cause, "class": error_class(r.get("error", "")),
                                  "count": 0, "outcomes": collections.Counter(),
                                  "files": collections.Counter(), "examples": []})
    g["count"] += 1
    g["outcomes"][r["outcome"]] += 1
    g["files"][suite.file_of(r["nodeid"])] += 1
    if len(g["examples"]) < examples:
      g["examples"].append(r["nodeid"])
  out = sorted(groups.values(), key=lambda g: (-g["count"], g["cause"]))
  for g in out:
    g["outcomes"] = dict(sorted(g["outcomes"].items()))
    g["files"] = dict(g["files"].most_common())
  return out


def format_classes(classes: list[dict], limit: int = 40) -> str:
  lines = [f"{len(classes)} failure classes over {sum(c['count'] for c in classes)} ids "
           "(normalised first error line):"]
  for c in classes[:limit]:
    outs = ",".join(f"{k} {v}" for k, v in c["outcomes"].items())
    files = ", ".join(f"{f.rsplit('/', 1)[-1]} {n}" for f, n in list(c["files"].items())[:4])
    lines.append(f"{c['count']:>6}  [{outs}] {c['class']}: {c['cause']}")
    lines.append(f"        files: {files}; e.g. {c['examples'][0]}")
  if len(classes) > limit:
    lines.append(f"... {len(classes) - limit} more in failure_classes.json")
  return "\n".join(lines) + "\n"


def per_file_counts(rows: list[dict]) -> dict:
  out: dict = {}
  for r in rows:
    c = out.setdefault(suite.file_of(r["nodeid"]), {k: 0 for k in suite.OUTCOMES})
    c[r["outcome"]] = c.get(r["outcome"], 0) + 1
  return dict(sorted(out.items()))


def verdict(listed: list[str], rows: list[dict], allow: list[dict]) -> dict:
  """Listed ids vs our results. An id missing from rows (a shard not merged, a run cut
  short) is "not_run" and fails the verdict like a regression: strict means complete.

  status "pass" only when every listed id passed or is allowlisted."""
  by_id = {r["nodeid"]: r for r in rows}
  regressions, allowed, not_run, passed = [], [], [], 0
  for i in listed:
    r = by_id.get(i)
    outcome = r["outcome"] if r else "MISSING"
    if outcome == "PASS":
      passed += 1
      continue
    entry = match_allowlist(i, allow)
    case = {"nodeid": i, "outcome": outcome, "error": (r or {}).get("error", "no result"),
            "class": error_class((r or {}).get("error", ""))}
    if entry:
      allowed.append(dict(case, reason=entry["reason"], allowlist_line=entry["line"]))
    elif outcome == "MISSING" or r is None:
      not_run.append(case)
    else:
      regressions.append(case)
  listed_set = set(listed)
  passing = {i for i in listed if by_id.get(i, {}).get("outcome") == "PASS"}
  stale = [e for e in allow
           if not any(c in e["pattern"] for c in "*?[") and e["pattern"] in passing]
  unknown = [e for e in allow
             if not any(c in e["pattern"] for c in "*?[") and e["pattern"] not in listed_set]
  status = "pass" if not regressions and not not_run else "fail"
  return {"status": status, "listed": len(listed), "passed": passed,
          "regressions": len(regressions), "not_run": len(not_run), "allowed": len(allowed),
          "regression_cases": regressions, "not_run_cases": not_run[:200],
          "allowed_cases": allowed,
          "allowlist_stale": [{"pattern": e["pattern"], "line": e["line"]} for e in stale],
          "allowlist_unknown": [{"pattern": e["pattern"], "line": e["line"]} for e in unknown],
          "regression_classes": failure_classes(regressions)}
