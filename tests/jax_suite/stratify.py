"""A stratified sample of collected node ids: every file keeps a share, so small files are
not drowned by lax_numpy_test's tens of thousands of generated cases.

Per file the quota is min(ids of the file, CAP), with CAP the largest cap whose quotas
add up to at most `size` (water filling): small files keep every id, big ones are capped
alike. Inside a file the ids are taken round-robin over its test methods (an id's method
is its name without the trailing case number), each method's cases and the methods
themselves ranked by sha256(seed, id), so a capped file still covers as many methods as
its quota allows. The same ids and seed always give the same sample, whatever their order.
"""

from __future__ import annotations

import collections
import hashlib
import re

_CASE_SUFFIX = re.compile(r"(\d+|\[[^\]]*\])$")


def _rank(seed: int, text: str) -> str:
  return hashlib.sha256(f"{seed}\0{text}".encode("utf-8")).hexdigest()


def file_of(nodeid: str) -> str:
  return nodeid.split("::", 1)[0]


def method_of(nodeid: str) -> str:
  """tests/a.py::C::testAdd12 -> tests/a.py::C::testAdd; pytest's [param] ids likewise."""
  return _CASE_SUFFIX.sub("", nodeid)


def water_fill(counts: dict, size: int) -> int:
  """The largest cap with sum(min(n, cap)) <= size (at least 1 while size > 0)."""
  if not counts or size <= 0:
    return 0
  lo, hi = 0, max(counts.values())
  while lo < hi:
    mid = (lo + hi + 1) // 2
    if sum(min(n, mid) for n in counts.values()) <= size:
      lo = mid
    else:
      hi = mid - 1
  return max(lo, 1)


def quotas(counts: dict, size: int) -> dict:
  """{file: ids to keep}. With the water-filled cap some of `size` may be left over (the
  cap is an integer); it goes, one each, to the capped files in rank order of name."""
  cap = water_fill(counts, size)
  q = {f: min(n, cap) for f, n in counts.items()}
  spare = size - sum(q.values())
  for f in sorted((f for f, n in counts.items() if n > cap), key=lambda f: _rank(0, f)):
    if spare <= 0:
      break
    q[f] += 1
    spare -= 1
  return q


def pick_in_file(ids: list[str], k: int, seed: int) -> list[str]:
  """k ids of one file, round-robin over its methods (see the module's docstring)."""
  by_method: dict = collections.defaultdict(list)
  for i in ids:
    by_method[method_of(i)].append(i)
  methods = sorted(by_method, key=lambda m: _rank(seed, m))
  queues = [collections.deque(sorted(by_method[m], key=lambda i: _rank(seed, i)))
            for m in methods]
  chosen: list[str] = []
  while len(chosen) < k and queues:
    for q in list(queues):
      if len(chosen) >= k:
        break
      chosen.append(q.popleft())
      if not q:
        queues.remove(q)
  return chosen


def stratify(ids: list[str], size: int, seed: int = 0,
             exclude_files: tuple = ()) -> tuple[list[str], dict]:
  """(sample in the order of `ids`, record). The record says per file how many ids were
  collected and kept, the cap, and how the sample was drawn."""
  by_file: dict = collections.OrderedDict()
  for i in ids:
    f = file_of(i)
    if f in exclude_files:
      continue
    by_file.setdefault(f, []).append(i)
  counts = {f: len(v) for f, v in by_file.items()}
  q = quotas(counts, size)
  keep = set()
  for f, v in by_file.items():
    keep.update(pick_in_file(v, q[f], seed))
  chosen = [i for i in ids if i in keep]
  record = {
      "method": ("per-file quota min(n, cap), cap water-filled to the size; inside a file "
                 "round-robin over test methods ranked by sha256(seed, id)"),
      "size": size, "seed": seed, "cap": water_fill(counts, size),
      "population": sum(counts.values()), "chosen": len(chosen), "files": len(counts),
      "files_kept": sum(1 for f in counts if q[f] > 0),
      "per_file": {f: {"collected": counts[f], "kept": q[f]} for f in sorted(counts)},
  }
  return chosen, record
