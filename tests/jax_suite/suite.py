"""The runner's logic, standard library only: lists, sampling, batches, the batch
scheduler, merging a batch's reports (crashed and timed-out processes included),
summaries, failure grouping and the upstream-vs-ours comparison.

`run.py` is the command line; `test_runner.py` tests this module on the CPU.
"""

from __future__ import annotations

import collections
import dataclasses
import hashlib
import json
import os
import pathlib
import re
import signal
import subprocess
import time
from typing import Callable, Iterable

OUTCOMES = ("PASS", "FAIL", "ERROR", "SKIP", "TIMEOUT", "MISSING")
NOT_FAILURES = ("PASS", "SKIP")

# JAX's own test files the gate draws from (tests/<name>.py at the chosen revision).
DEFAULT_FILES = (
    "lax_test", "lax_numpy_operators_test", "lax_numpy_reducers_test",
    "lax_numpy_indexing_test", "lax_autodiff_test", "lax_control_flow_test",
    "lax_vmap_test", "api_test", "nn_test", "random_test", "linalg_test", "fft_test",
)


# ---------------------------------------------------------------- lists

def read_list(path: str | os.PathLike) -> list[str]:
  """Node ids from a file: one a line; blank lines and '#' comments skipped; order kept,
  duplicates dropped."""
  ids, seen = [], set()
  with open(path, encoding="utf-8") as f:
    for line in f:
      line = line.strip()
      if not line or line.startswith("#") or line in seen:
        continue
      seen.add(line)
      ids.append(line)
  return ids


def list_text(ids: Iterable[str]) -> str:
  return "".join(i + "\n" for i in ids)


def write_list(path: str | os.PathLike, ids: Iterable[str]) -> str:
  """Writes the ids one a line; returns the sha256 of the file's bytes."""
  text = list_text(ids)
  pathlib.Path(path).write_text(text, encoding="utf-8")
  return hashlib.sha256(text.encode("utf-8")).hexdigest()


def meta_path(list_path: str | os.PathLike) -> pathlib.Path:
  """list.txt -> list.meta.json beside it."""
  p = pathlib.Path(list_path)
  stem = p.name[:-4] if p.name.endswith(".txt") else p.name
  return p.with_name(stem + ".meta.json")


def read_meta(list_path: str | os.PathLike) -> dict:
  p = meta_path(list_path)
  if p.exists():
    return json.loads(p.read_text(encoding="utf-8"))
  return {}


def file_of(nodeid: str) -> str:
  return nodeid.split("::", 1)[0]


# ---------------------------------------------------------------- sampling

def _rank(seed: int, nodeid: str) -> str:
  return hashlib.sha256(f"{seed}\0{nodeid}".encode("utf-8")).hexdigest()


def sample_ids(ids: list[str], size: int | None = None, seed: int = 0,
               every: int | None = None) -> list[str]:
  """A deterministic subset, in the order of `ids`.

  every=K keeps the 0th, Kth, 2Kth... id of the sorted ids. size=N keeps the N ids whose
  sha256(seed, id) is smallest: the choice of an id does not depend on the order of the
  input, and adding ids elsewhere changes the sample only where a new id outranks one.
  """
  if every is not None and every > 1:
    keep = set(sorted(ids)[::every])
  elif size is not None and size < len(ids):
    keep = set(sorted(ids, key=lambda i: _rank(seed, i))[:max(size, 0)])
  else:
    return list(ids)
  return [i for i in ids if i in keep]


def sampling_record(size: int | None, seed: int, every: int | None, population: int,
                    chosen: int) -> dict:
  if every is not None and every > 1:
    method = f"every {every}th id of the sorted collected ids"
  elif size is not None and size < population:
    method = f"the {size} ids with the smallest sha256('{seed}\\0' + id)"
  else:
    method = "all collected ids"
  return {"method": method, "size": size, "seed": seed, "every": every,
          "population": population, "chosen": chosen}


# ---------------------------------------------------------------- batches

def make_batches(ids: list[str], batch_size: int) -> list[list[str]]:
  """Ids grouped by test file (a batch collects one file only), cut into batches of at
  most batch_size, then ordered round-robin across files so that a run cut short by its
  time budget leaves MISSING ids spread over every file rather than whole files."""
  batch_size = max(1, batch_size)
  by_file: dict[str, list[str]] = collections.OrderedDict()
  for i in ids:
    by_file.setdefault(file_of(i), []).append(i)
  per_file = [[group[k:k + batch_size] for k in range(0, len(group), batch_size)]
              for group in by_file.values()]
  out = []
  for round_ in range(max((len(p) for p in per_file), default=0)):
    for p in per_file:
      if round_ < len(p):
        out.append(p[round_])
  return out


def shard_ids(ids: list[str], index: int, count: int) -> list[str]:
  """Shard `index` (1-based) of `count`: inside each file, the file's k-th listed id goes to
  shard k % count + 1, so every shard has a share of every file and the shards together
  are the list, each id once."""
  if count < 1 or not 1 <= index <= count:
    raise ValueError(f"shard {index}/{count}: want 1 <= I <= N")
  seen: dict = collections.Counter()
  out = []
  for i in ids:
    f = file_of(i)
    if seen[f] % count == index - 1:
      out.append(i)
    seen[f] += 1
  return out


def parse_shard(text: str | None) -> tuple[int, int]:
  """'2/3' -> (2, 3); None -> (1, 1)."""
  if not text:
    return 1, 1
  m = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
  if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
    raise ValueError(f"--shard {text!r}: want I/N with 1 <= I <= N, e.g. 1/2")
  return int(m.group(1)), int(m.group(2))


def plan(batches: list[list[str]], parallel: int, seconds_per_test: float = 1.0,
         seconds_per_batch: float = 15.0) -> dict:
  """What a run would do: batches per file and an estimate of its wall time, greedy over
  `parallel` processes with a cost of seconds_per_batch (start, import, collection) plus
  seconds_per_test per id."""
  per_file: dict = collections.OrderedDict()
  for b in batches:
    f = per_file.setdefault(file_of(b[0]), {"ids": 0, "batches": 0})
    f["ids"] += len(b)
    f["batches"] += 1
  lanes = [0.0] * max(1, parallel)
  for b in batches:
    k = lanes.index(min(lanes))
    lanes[k] += seconds_per_batch + seconds_per_test * len(b)
  return {"ids": sum(len(b) for b in batches), "batches": len(batches), "files": len(per_file),
          "parallel": parallel, "estimated_seconds": round(max(lanes) if batches else 0.0),
          "assumed": {"seconds_per_test": seconds_per_test,
                      "seconds_per_batch": seconds_per_batch},
          "per_file": dict(per_file)}


# ---------------------------------------------------------------- one batch's reports

@dataclasses.dataclass
class BatchReport:
  results: dict            # nodeid -> {"outcome", "seconds", "error"}
  started: list            # nodeids in the order they started
  notfound: list           # ids the batch asked for that collection did not produce
  collect_errors: list     # (file, first error line)
  collected: bool          # the plugin reached the end of collection
  all_ids: list = dataclasses.field(default_factory=list)  # every id collected (collect-only runs)


def parse_records(lines: Iterable[str]) -> BatchReport:
  """Reads the plugin's JSON lines; a torn last line (the process died mid-write) is
  ignored."""
  rep = BatchReport({}, [], [], [], False)
  for line in lines:
    line = line.strip()
    if not line:
      continue
    try:
      rec = json.loads(line)
    except ValueError:
      continue
    ev = rec.get("event")
    if ev == "start":
      rep.started.append(rec["nodeid"])
    elif ev == "result":
      rep.results[rec["nodeid"]] = {"outcome": rec.get("outcome", "ERROR"),
                                    "seconds": float(rec.get("seconds", 0.0)),
                                    "error": rec.get("error", "")}
    elif ev == "collected":
      rep.collected = True
      rep.notfound.extend(rec.get("notfound", []))
      rep.all_ids.extend(rec.get("ids", []))
    elif ev == "collect_error":
      rep.collect_errors.append((rec.get("nodeid", ""), rec.get("error", "")))
  return rep


@dataclasses.dataclass
class BatchEnd:
  """How a batch process ended.

  kind: "exit" (pytest returned), "crash" (killed by a signal or an abnormal exit status),
  "timeout" (the batch ran past its own limit and was killed), "test_timeout" (one test
  ran past the per-test limit and the batch was killed), "budget" (the run's time budget
  ran out and it was killed).
  """
  kind: str
  rc: int | None = None
  message: str = ""
  seconds: float = 0.0


PYTEST_NORMAL_EXITS = (0, 1, 5)  # all passed, some failed, nothing collected


def classify_exit(rc: int, killed: str | None) -> str:
  if killed:
    return killed
  if rc in PYTEST_NORMAL_EXITS:
    return "exit"
  return "crash"


def describe_rc(rc: int | None) -> str:
  if rc is None:
    return "no exit status"
  if rc < 0:
    try:
      return f"signal {signal.Signals(-rc).name}"
    except ValueError:
      return f"signal {-rc}"
  return f"exit status {rc}"


def merge_batch(ids: list[str], rep: BatchReport, end: BatchEnd,
                may_requeue: bool) -> tuple[dict, list[str]]:
  """Outcomes for every id of a batch, and the ids to run again in a new batch.

  Ids with a reported result keep it. For the rest:
  * collection did not produce the id: ERROR, naming the collection error if any;
  * pytest exited normally: ERROR ("no result reported");
  * crash: the test that was running is ERROR; the ones not yet started are requeued
    when may_requeue and a test had started (so a retry makes progress), else ERROR;
  * timeout: the test that was running is TIMEOUT; the rest requeued likewise, else TIMEOUT;
  * budget: every unfinished id is MISSING (the run stopped, the tests did not fail).
  """
  out: dict = {}
  for i in ids:
    if i in rep.results:
      out[i] = dict(rep.results[i])
  notfound = set(rep.notfound)
  collect_error = "; ".join(f"{f}: {e}" for f, e in rep.collect_errors)[:500]
  running = [i for i in rep.started if i not in rep.results and i in ids]
  in_flight = running[-1] if running else None
  requeue: list[str] = []
  why = f"batch process ended with {describe_rc(end.rc)}"
  if end.message:
    why += f": {end.message}"
  for i in ids:
    if i in out:
      continue
    if i in notfound:
      out[i] = {"outcome": "ERROR", "seconds": 0.0,
                "error": ("not collected: " + collect_error) if collect_error
                         else "not collected: node id not found in its file"}
    elif end.kind == "budget":
      out[i] = {"outcome": "MISSING", "seconds": 0.0, "error": "not run: time budget ran out"}
    elif end.kind == "exit":
      out[i] = {"outcome": "ERROR", "seconds": 0.0,
                "error": f"no result reported (pytest {describe_rc(end.rc)})"}
    elif i == in_flight or i in running:
      if end.kind == "test_timeout":
        out[i] = {"outcome": "TIMEOUT", "seconds": end.seconds,
                  "error": f"test ran past the per-test limit ({end.message})"}
      elif end.kind == "timeout":
        out[i] = {"outcome": "TIMEOUT", "seconds": end.seconds,
                  "error": f"batch timed out after {end.seconds:.0f}s while this test ran"}
      else:
        out[i] = {"outcome": "ERROR", "seconds": 0.0, "error": "crashed: " + why}
    elif may_requeue and in_flight is not None:
      requeue.append(i)
    elif end.kind in ("timeout", "test_timeout"):
      out[i] = {"outcome": "TIMEOUT", "seconds": 0.0,
                "error": f"not run: batch timed out after {end.seconds:.0f}s"
                         + ("" if rep.collected else " before collection finished")}
    else:
      out[i] = {"outcome": "ERROR", "seconds": 0.0, "error": "not run: " + why}
  return out, requeue


def log_tail_message(text: str, limit: int = 300) -> str:
  """The line of a batch's log that best says why it died: a fatal error line if there is
  one, else the last non-empty line."""
  lines = [l.strip() for l in text.splitlines() if l.strip()]
  for line in reversed(lines):
    m = re.search(r"Fatal Python error|Segmentation fault|Aborted|core dumped|"
                  r"Check failed|terminate called|F\d{4} ", line)
    if m:  # from the match on: pytest's progress dots may share the line
      return line[m.start():][:limit]
  return lines[-1][:limit] if lines else ""


# ---------------------------------------------------------------- scheduler

@dataclasses.dataclass
class Batch:
  index: int
  ids: list
  attempt: int = 0


@dataclasses.dataclass
class Running:
  batch: Batch
  proc: subprocess.Popen
  started: float
  deadline: float
  results_path: pathlib.Path
  log_path: pathlib.Path
  # Per-test limit: how far the results file was read, when it last grew (scheduler
  # clock) and whether its last event is a test's start (a test is running).
  read_offset: int = 0
  last_change: float = 0.0
  in_test: bool = False


def _watch(r: Running, now: float) -> None:
  """Reads what the batch appended to its results file since the last poll."""
  try:
    size = r.results_path.stat().st_size
  except OSError:
    return
  if size <= r.read_offset:
    return
  with open(r.results_path, "rb") as f:
    f.seek(r.read_offset)
    chunk = f.read(size - r.read_offset)
  end = chunk.rfind(b"\n")
  if end < 0:
    return  # a line being written: wait for its end
  r.read_offset += end + 1
  r.last_change = now
  for line in reversed(chunk[:end].splitlines()):
    try:
      ev = json.loads(line).get("event")
    except ValueError:
      continue
    if ev in ("start", "result", "collected"):
      r.in_test = ev == "start"
      break


def _kill(proc: subprocess.Popen) -> None:
  try:
    os.killpg(proc.pid, signal.SIGKILL)
  except (ProcessLookupError, PermissionError):
    pass
  try:
    proc.kill()
  except ProcessLookupError:
    pass
  proc.wait()


# launch(ids_path, results_path, log_file) -> Popen started in a new session
LaunchFn = Callable[[pathlib.Path, pathlib.Path, object], subprocess.Popen]


def run_batches(batches: list[list[str]], work: pathlib.Path, launch: LaunchFn, *,
                parallel: int = 4, batch_timeout: float = 300.0,
                budget: float | None = None, reserve: float = 20.0,
                max_requeue: int = 5, poll: float = 0.1, test_timeout: float | None = None,
                progress: Callable[[str], None] | None = None,
                clock: Callable[[], float] = time.monotonic) -> dict:
  """Runs the batches, `parallel` processes at a time; returns {nodeid: result}.

  A batch is killed at its own limit (batch_timeout) or when the budget ends, whichever
  is first, or when one test has run for test_timeout seconds (that test is TIMEOUT, the
  batch's unstarted ids are requeued as after a crash). No batch starts with less than
  `reserve` seconds of budget left; ids of batches never started are MISSING.
  """
  work.mkdir(parents=True, exist_ok=True)
  (work / "batches").mkdir(exist_ok=True)
  (work / "logs").mkdir(exist_ok=True)
  t0 = clock()
  end_at = None if budget is None else t0 + budget
  queue = collections.deque(Batch(n, list(b)) for n, b in enumerate(batches))
  next_index = len(batches)
  running: list[Running] = []
  results: dict = {}
  say = progress or (lambda s: None)

  def finish(r: Running, killed: str | None) -> None:
    nonlocal next_index
    rc = r.proc.returncode
    seconds = clock() - r.started
    text = r.log_path.read_text(encoding="utf-8", errors="replace") if r.log_path.exists() else ""
    lines = (r.results_path.read_text(encoding="utf-8", errors="replace").splitlines()
             if r.results_path.exists() else [])
    rep = parse_records(lines)
    kind = classify_exit(rc, killed)
    message = log_tail_message(text) if kind == "crash" else ""
    if kind == "test_timeout":
      message = f"{test_timeout:.0f}s"
    end = BatchEnd(kind, rc, message, seconds)
    out, requeue = merge_batch(r.batch.ids, rep, end, may_requeue=r.batch.attempt < max_requeue)
    for nodeid, res in out.items():
      res["batch"] = r.batch.index
      results[nodeid] = res
    counts = collections.Counter(res["outcome"] for res in out.values())
    say(f"batch {r.batch.index} ({len(r.batch.ids)} ids, try {r.batch.attempt + 1}): "
        f"{kind} ({describe_rc(rc)}) in {seconds:.0f}s: "
        + ", ".join(f"{k} {counts[k]}" for k in OUTCOMES if counts[k])
        + (f"; {len(requeue)} requeued" if requeue else ""))
    if requeue:
      queue.appendleft(Batch(next_index, requeue, r.batch.attempt + 1))
      next_index += 1

  while queue or running:
    now = clock()
    for r in list(running):
      if r.proc.poll() is not None:
        running.remove(r)
        finish(r, None)
      elif now >= r.deadline:
        _kill(r.proc)
        running.remove(r)
        finish(r, "budget" if end_at is not None and now >= end_at else "timeout")
      elif test_timeout is not None:
        _watch(r, now)
        if r.in_test and now - r.last_change >= test_timeout:
          _kill(r.proc)
          running.remove(r)
          finish(r, "test_timeout")
    while queue and len(running) < parallel:
      now = clock()
      if end_at is not None and end_at - now < reserve:
        break
      b = queue.popleft()
      ids_path = work / "batches" / f"batch-{b.index:04d}.ids"
      results_path = work / "batches" / f"batch-{b.index:04d}.jsonl"
      log_path = work / "logs" / f"batch-{b.index:04d}.log"
      write_list(ids_path, b.ids)
      if results_path.exists():
        results_path.unlink()
      with open(log_path, "w", encoding="utf-8") as log:
        proc = launch(ids_path, results_path, log)
      deadline = now + batch_timeout
      if end_at is not None:
        deadline = min(deadline, end_at)
      running.append(Running(b, proc, now, deadline, results_path, log_path, last_change=now))
    if queue and not running and end_at is not None and end_at - clock() < reserve:
      break
    if running:
      time.sleep(poll)
  for b in queue:
    for nodeid in b.ids:
      results[nodeid] = {"outcome": "MISSING", "seconds": 0.0,
                         "error": "not run: time budget ran out", "batch": None}
  if queue:
    say(f"{sum(len(b.ids) for b in queue)} ids in {len(queue)} batches not started: MISSING")
  return results


# ---------------------------------------------------------------- results

def result_rows(ids: list[str], results: dict) -> list[dict]:
  """One row per listed id, in list order; an id with no result is MISSING."""
  rows = []
  for i in ids:
    res = results.get(i) or {"outcome": "MISSING", "seconds": 0.0, "error": "no result"}
    rows.append({"nodeid": i, "outcome": res["outcome"],
                 "seconds": round(float(res.get("seconds", 0.0)), 3),
                 "error": res.get("error", "")})
  return rows


def count_outcomes(rows: Iterable[dict]) -> dict:
  counts = {k: 0 for k in OUTCOMES}
  for r in rows:
    counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
  return counts


def write_rows(path: pathlib.Path, rows: list[dict]) -> None:
  with open(path, "w", encoding="utf-8") as f:
    for r in rows:
      f.write(json.dumps(r, sort_keys=True) + "\n")


def read_rows(path: pathlib.Path) -> list[dict]:
  rows = []
  with open(path, encoding="utf-8") as f:
    for line in f:
      if line.strip():
        rows.append(json.loads(line))
  return rows


_HEX = re.compile(r"0x[0-9a-fA-F]+")
_SHAPE = re.compile(r"\[\s*\d+(?:\s*,\s*\d+)*\s*\]|\(\s*\d+\s*(?:,\s*\d+\s*)*,?\s*\)|\[\]")
_NUM = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w])")


# An absolute path up to an installed package's tree, or up to this repository's
# tests/jax_suite folder, as the machine that ran the tests spelled it.
_SITE_PACKAGES = re.compile(r"(?:/[^\s'\":,()]+)*?/(?:site|dist)-packages/")
_SUITE_FOLDER = re.compile(r"(?:/[^\s'\":,()]+)*?/(tests/jax_suite/)")


def without_machine_paths(text: str) -> str:
  """`text` with the running machine's directories cut from its paths: a file of an
  installed package becomes site-packages/..., a file of this repository's suite folder
  tests/jax_suite/..., so recorded outcomes say the same on every machine."""
  text = _SITE_PACKAGES.sub("site-packages/", text or "")
  return _SUITE_FOLDER.sub(r"\1", text)


def normalize_error(line: str, limit: int = 200) -> str:
  """A failure's first line with its specifics removed, so that failures of one cause
  group together: addresses -> 0x?, shapes -> [S] / (S), numbers -> N, spaces squeezed."""
  s = line or ""
  s = _HEX.sub("0x?", s)
  s = _SHAPE.sub(lambda m: "[S]" if m.group(0).startswith("[") else "(S)", s)
  s = _NUM.sub("N", s)
  s = re.sub(r"\s+", " ", s).strip()
  return s[:limit] if s else "(no message)"


def group_failures(rows: Iterable[dict], top: int = 10,
                   outcomes: tuple = ("FAIL", "ERROR", "TIMEOUT")) -> list[dict]:
  """The `top` most common normalised causes among rows with those outcomes:
  [{"cause", "count", "outcomes": {outcome: n}, "example"}], most common first
  (ties by cause text, so the order is stable)."""
  groups: dict = {}
  for r in rows:
    if r["outcome"] not in outcomes:
      continue
    key = normalize_error(r.get("error", ""))
    g = groups.setdefault(key, {"cause": key, "count": 0, "outcomes": {}, "example": r["nodeid"]})
    g["count"] += 1
    g["outcomes"][r["outcome"]] = g["outcomes"].get(r["outcome"], 0) + 1
  return sorted(groups.values(), key=lambda g: (-g["count"], g["cause"]))[:top]


def compare_rows(upstream: list[dict], ours: list[dict], top: int = 10) -> dict:
  """Counts per outcome for both, the transitions on ids both ran, the ids that pass
  upstream and not ours, and our most common failure causes."""
  up = {r["nodeid"]: r for r in upstream}
  us = {r["nodeid"]: r for r in ours}
  common = [i for i in us if i in up]
  transitions = collections.Counter((up[i]["outcome"], us[i]["outcome"]) for i in common)
  regressions = [i for i in common if up[i]["outcome"] == "PASS" and us[i]["outcome"] != "PASS"]
  fixed = [i for i in common if up[i]["outcome"] != "PASS" and us[i]["outcome"] == "PASS"]
  return {
      "upstream": count_outcomes(upstream),
      "ours": count_outcomes(ours),
      "common": len(common),
      "transitions": {f"{a}->{b}": n for (a, b), n in sorted(transitions.items())},
      "regressions": len(regressions),
      "pass_upstream_only": regressions[:50],
      "pass_ours_only": fixed[:50],
      "top_causes_ours": group_failures(ours, top),
      "top_causes_upstream": group_failures(upstream, top),
  }


def format_compare(c: dict) -> str:
  lines = [f"{'outcome':<8} {'upstream':>9} {'ours':>9}"]
  for k in OUTCOMES:
    lines.append(f"{k:<8} {c['upstream'][k]:>9} {c['ours'][k]:>9}")
  lines.append(f"{'total':<8} {sum(c['upstream'].values()):>9} {sum(c['ours'].values()):>9}")
  lines.append("")
  lines.append(f"ids run by both: {c['common']}; pass upstream but not ours: {c['regressions']}")
  if c["transitions"]:
    lines.append("upstream->ours: " + ", ".join(f"{k} {v}" for k, v in c["transitions"].items()))
  for title, key in (("ours", "top_causes_ours"), ("upstream", "top_causes_upstream")):
    groups = c[key]
    if not groups:
      continue
    lines.append("")
    lines.append(f"most common failure causes, {title} (normalised first error line):")
    for g in groups:
      outs = ",".join(f"{k} {v}" for k, v in sorted(g["outcomes"].items()))
      lines.append(f"{g['count']:>6}  [{outs}] {g['cause']}")
      lines.append(f"        e.g. {g['example']}")
  return "\n".join(lines) + "\n"
