"""pytest plugin: keeps only the node ids a batch asks for and writes one JSON line per event.

Loaded by the runner with `-p jsonl_plugin` (this folder on PYTHONPATH). Environment:

  JAX_SUITE_IDS      file with the node ids to run, one a line; other collected items are
                     deselected, and ids that collection did not produce are reported
                     as "notfound" (a missing id never aborts the whole batch, as it
                     would on pytest's command line)
  JAX_SUITE_RESULTS  the JSON-lines file to append to
  JAX_SUITE_TEST_SUPPORT  prepare's copy of JAX's *_test_util.py modules; those the
                     installed jax lacks are registered under their module names

Lines written (each flushed at once, so a crash keeps everything before it):

  {"event": "collect_error", "nodeid": FILE, "error": FIRST_LINE}
  {"event": "collected", "selected": N, "notfound": [IDS]}   (+ "ids": [ALL] without JAX_SUITE_IDS)
  {"event": "start", "nodeid": ID}
  {"event": "result", "nodeid": ID, "outcome": PASS|FAIL|ERROR|SKIP, "seconds": S, "error": FIRST_LINE}

This module imports nothing from pytest at its top, so `outcome_from_phases` can be
tested without pytest.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import time

_results_file = None
_phases: dict[str, dict] = {}


def outcome_from_phases(phases: dict) -> tuple[str, str]:
  """(outcome, first error line) from {phase: (pytest outcome, wasxfail, message)}.

  phase is setup, call or teardown; pytest outcome is passed, failed or skipped.
  A failed setup or teardown is ERROR, a failed call FAIL, a skip anywhere SKIP,
  an expected failure SKIP, an unexpected pass of a strict xfail FAIL.
  """
  setup = phases.get("setup")
  call = phases.get("call")
  teardown = phases.get("teardown")
  if setup is not None and setup[0] == "failed":
    return "ERROR", setup[2]
  if setup is not None and setup[0] == "skipped":
    return "SKIP", setup[2]
  if call is None:
    if teardown is not None and teardown[0] == "failed":
      return "ERROR", teardown[2]
    return "ERROR", "no call phase reported"
  outcome, wasxfail, message = call
  if outcome == "skipped":
    return "SKIP", message or ("xfail" if wasxfail else "")
  if outcome == "failed":
    return "FAIL", message
  # passed (an xpass of a non-strict xfail also reports passed)
  if teardown is not None and teardown[0] == "failed":
    return "ERROR", teardown[2]
  return "PASS", ""


def first_line(text: str, limit: int = 500) -> str:
  """The first non-empty line; when it is only an exception's name ("AssertionError:", as
  numpy's assert_allclose gives), the next non-empty line is joined to it."""
  lines = [l.strip() for l in (text or "").splitlines() if l.strip()]
  if not lines:
    return ""
  line = lines[0]
  if len(lines) > 1 and re.fullmatch(r"[A-Za-z_][\w.]*:", line):
    line += " " + lines[1]
  return line[:limit]


def _report_message(report) -> str:
  longrepr = getattr(report, "longrepr", None)
  if longrepr is None:
    return ""
  if isinstance(longrepr, tuple) and len(longrepr) == 3:  # skip: (path, lineno, reason)
    reason = str(longrepr[2])
    return first_line(reason[len("Skipped: "):] if reason.startswith("Skipped: ") else reason)
  crash = getattr(longrepr, "reprcrash", None)
  if crash is not None and getattr(crash, "message", None):
    return first_line(crash.message)
  text = getattr(report, "longreprtext", None) or str(longrepr)
  # The last "E   ..." line of a traceback names the exception; else the last line.
  lines = [l.strip() for l in text.splitlines() if l.strip()]
  for line in reversed(lines):
    if line.startswith("E "):
      return first_line(line[1:])
  return first_line(lines[-1]) if lines else ""


def _write(record: dict) -> None:
  if _results_file is None:
    return
  _results_file.write(json.dumps(record, sort_keys=True) + "\n")
  _results_file.flush()


def register_test_support(root: str) -> list[str]:
  """Makes every ROOT/pkg/.../name.py importable as pkg....name where the installed
  package lacks that module (JAX's wheels leave out test helpers its tests import);
  a module the installation has is never replaced. Returns the names registered."""
  import importlib.util
  import sys
  registered = []
  for dirpath, _, filenames in sorted(os.walk(root)):
    for filename in sorted(filenames):
      if not filename.endswith(".py") or filename == "__init__.py":
        continue
      rel = os.path.relpath(os.path.join(dirpath, filename), root)
      name = rel[:-3].replace(os.sep, ".")
      parent_name, _, leaf = name.rpartition(".")
      try:
        if importlib.util.find_spec(name) is not None:
          continue
        parent = importlib.import_module(parent_name) if parent_name else None
      except ImportError:
        continue  # the package itself is not installed: nothing to extend
      spec = importlib.util.spec_from_file_location(name, os.path.join(dirpath, filename))
      module = importlib.util.module_from_spec(spec)
      sys.modules[name] = module
      try:
        spec.loader.exec_module(module)
      except Exception:  # a helper this jax cannot load: its tests report the import error
        del sys.modules[name]
        continue
      if parent is not None:
        setattr(parent, leaf, module)
      registered.append(name)
  return registered


def pytest_configure(config) -> None:
  global _results_file
  support = os.environ.get("JAX_SUITE_TEST_SUPPORT")
  if support and os.path.isdir(support):
    register_test_support(support)
  path = os.environ.get("JAX_SUITE_RESULTS")
  if path and _results_file is None:
    _results_file = open(path, "a", encoding="utf-8", buffering=1)


def pytest_unconfigure(config) -> None:
  global _results_file
  if _results_file is not None:
    _results_file.close()
    _results_file = None


def pytest_collectreport(report) -> None:
  if report.failed:
    _write({"event": "collect_error", "nodeid": report.nodeid,
            "error": _report_message(report) or "collection failed"})


def pytest_collection_modifyitems(session, config, items) -> None:
  path = os.environ.get("JAX_SUITE_IDS")
  if not path:
    _write({"event": "collected", "selected": len(items), "notfound": [],
            "ids": [item.nodeid for item in items]})
    return
  with open(path, encoding="utf-8") as f:
    wanted = [line.rstrip("\n") for line in f if line.strip() and not line.startswith("#")]
  wanted_set = set(wanted)
  keep, drop = [], []
  for item in items:
    (keep if item.nodeid in wanted_set else drop).append(item)
  if drop:
    config.hook.pytest_deselected(items=drop)
  items[:] = keep
  found = {item.nodeid for item in keep}
  _write({"event": "collected", "selected": len(keep),
          "notfound": [i for i in wanted if i not in found]})


def pytest_runtest_logstart(nodeid, location) -> None:
  _phases[nodeid] = {"_t0": time.monotonic()}
  _write({"event": "start", "nodeid": nodeid})


def pytest_runtest_logreport(report) -> None:
  entry = _phases.setdefault(report.nodeid, {"_t0": time.monotonic()})
  wasxfail = hasattr(report, "wasxfail")  # the reason, often "", is its value
  message = _report_message(report)
  if wasxfail and report.outcome == "skipped":
    reason = getattr(report, "wasxfail", "") or ""
    message = "xfail" + (f": {first_line(reason)}" if reason else "")
  entry[report.when] = (report.outcome, wasxfail, message)
  entry["_seconds"] = entry.get("_seconds", 0.0) + float(getattr(report, "duration", 0.0))


def pytest_runtest_logfinish(nodeid, location) -> None:
  entry = _phases.pop(nodeid, {})
  phases = {k: v for k, v in entry.items() if not k.startswith("_")}
  outcome, error = outcome_from_phases(phases)
  _write({"event": "result", "nodeid": nodeid, "outcome": outcome,
          "seconds": round(entry.get("_seconds", 0.0), 3), "error": error})
