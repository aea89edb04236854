"""Comparing a client program's results from two runs by the rules the program itself
states (see client_common.py). Standard library only."""

from __future__ import annotations

import math


def _flatten(v, out: list, shape: list, depth: int = 0) -> None:
  if isinstance(v, (list, tuple)):
    if len(shape) <= depth:
      shape.append(len(v))
    for x in v:
      _flatten(x, out, shape, depth + 1)
  else:
    out.append(v)


def structure(v):
  """Nested lengths, so [[1, 2], [3]] and [[1], [2, 3]] differ."""
  if isinstance(v, (list, tuple)):
    return [structure(x) for x in v]
  return None


def compare_value(up, ours, rule) -> dict:
  """{"ok": bool, "why": str, ...} for one key."""
  if isinstance(rule, dict) and "ignore" in rule:
    return {"ok": True, "why": "not compared: " + str(rule["ignore"])}
  if rule == "exact":
    ok = up == ours
    return {"ok": ok, "why": "equal" if ok else f"differ: upstream {str(up)[:120]}, ours {str(ours)[:120]}"}
  if not isinstance(rule, dict) or "rtol" not in rule or "atol" not in rule:
    return {"ok": False, "why": f"bad rule {rule!r}: want 'exact', {{'ignore': why}} or {{'rtol', 'atol'}}"}
  if structure(up) != structure(ours):
    return {"ok": False, "why": "shapes differ"}
  a, b = [], []
  _flatten(up, a, [])
  _flatten(ours, b, [])
  worst = {"abs": 0.0, "rel": 0.0, "index": None}
  bad = 0
  for k, (x, y) in enumerate(zip(a, b)):
    if isinstance(x, (bool, str)) or isinstance(y, (bool, str)) or x is None or y is None:
      if x != y:
        bad += 1
        worst["index"] = k
      continue
    x, y = float(x), float(y)
    if math.isnan(x) or math.isnan(y):
      if not (math.isnan(x) and math.isnan(y)):
        bad += 1
        worst["index"] = k
      continue
    if math.isinf(x) or math.isinf(y):
      if x != y:
        bad += 1
        worst["index"] = k
      continue
    err = abs(x - y)
    if err > rule["atol"] + rule["rtol"] * abs(x):
      bad += 1
      if worst["index"] is None or err > worst["abs"]:
        worst["index"] = k
    if err > worst["abs"]:
      worst["abs"] = err
    if x != 0:
      worst["rel"] = max(worst["rel"], err / abs(x))
  ok = bad == 0
  why = (f"{len(a)} values within rtol {rule['rtol']} atol {rule['atol']}" if ok else
         f"{bad} of {len(a)} values outside rtol {rule['rtol']} atol {rule['atol']}; "
         f"first bad at flat index {worst['index']}: upstream {a[worst['index']]}, ours "
         f"{b[worst['index']]}")
  return {"ok": ok, "why": why, "max_abs": worst["abs"], "max_rel": worst["rel"], "bad": bad}


def compare_results(up: dict, ours: dict) -> dict:
  """Both are a program's RESULT objects. Rules come from the upstream run's record (the
  reference); a key ours lacks is a failure."""
  rules = up.get("compare", {})
  keys = {}
  for key, value in up.get("results", {}).items():
    if key not in ours.get("results", {}):
      keys[key] = {"ok": False, "why": "missing from our results"}
      continue
    keys[key] = compare_value(value, ours["results"][key], rules.get(key))
  return {"ok": all(k["ok"] for k in keys.values()), "keys": keys}
