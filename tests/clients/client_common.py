"""What every client program shares: importing its libraries or skipping, summarising
arrays, and printing the one result line run_clients.py reads.

A program prints, as its last line starting with "RESULT ", one JSON object:
  {"name": ..., "results": {KEY: number | nested list}, "compare": {KEY: RULE},
   "backend": {...}, "skip": REASON (instead of results, when a library is missing)}
RULE is {"rtol": R, "atol": A} (numbers compared elementwise, |ours - up| <= A + R*|up|),
"exact", or {"ignore": WHY} (recorded, not compared). Every key of results needs a rule,
so a program states how each of its values is compared.
"""

from __future__ import annotations

import importlib
import json
import os
import sys


def need(*modules: str):
  """Imports the modules, or prints a skip result naming the missing one and exits 0."""
  out = []
  for m in modules:
    try:
      out.append(importlib.import_module(m))
    except Exception as e:  # ImportError, or a library broken against this jax
      emit_skip(f"{m} not importable: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
  return out[0] if len(out) == 1 else out


def backend() -> dict:
  info = {}
  try:
    import jax
    d = jax.devices()[0]
    info = {"platform": d.platform, "device_kind": d.device_kind,
            "platform_version": str(getattr(d.client, "platform_version", ""))[:120],
            "jax": jax.__version__, "x64": bool(jax.config.jax_enable_x64)}
  except Exception as e:
    info = {"error": f"{type(e).__name__}: {e}"[:300]}
  try:
    import jax_plugins.flagtree as ft
    info["flagtree_registered"] = bool(getattr(ft, "_registered", False))
  except Exception:
    info["flagtree_registered"] = False
  info["env"] = {k: os.environ.get(k) for k in ("XLA_MODE", "JAX_FLAGTREE_DISABLE")}
  return info


def tolist(x):
  """A JSON-able value: arrays become nested lists of float/int/bool."""
  import numpy as np
  a = np.asarray(x)
  if a.dtype.kind == "c":
    return [tolist(a.real), tolist(a.imag)]
  if a.dtype.kind == "f" or a.dtype.name == "bfloat16":
    a = a.astype(np.float64)
  return a.tolist()


def leaves_summary(tree, head: int = 4) -> list:
  """Per leaf of a pytree (in jax.tree order): its sum, its sum of squares and its first
  `head` values: enough to catch a wrong gradient without shipping whole tensors."""
  import jax
  import numpy as np
  out = []
  for leaf in jax.tree_util.tree_leaves(tree):
    a = np.asarray(leaf, dtype=np.float64).ravel()
    out.append([float(a.sum()), float((a * a).sum())] + [float(v) for v in a[:head]])
  return out


def emit(name: str, results: dict, compare: dict) -> None:
  missing = sorted(set(results) - set(compare))
  if missing:
    raise SystemExit(f"{name}: no comparison rule for {missing}")
  rec = {"name": name, "results": {k: tolist(v) if not isinstance(v, (list, dict, str)) else v
                                   for k, v in results.items()},
         "compare": compare, "backend": backend()}
  print("RESULT " + json.dumps(rec), flush=True)


def emit_skip(reason: str) -> None:
  name = os.path.splitext(os.path.basename(sys.argv[0]))[0]
  print("RESULT " + json.dumps({"name": name, "skip": reason, "backend": backend()}), flush=True)
  sys.exit(0)
