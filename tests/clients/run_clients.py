#!/usr/bin/env python3
"""Runs every client program (client_*.py beside this) on both plugins, each run in its own
process, and compares what each program says is stable (see client_common.py):

  ours      XLA_MODE=fl_only (jax-flagtree must be the active backend)
  upstream  JAX_FLAGTREE_DISABLE=1 (upstream XLA's CUDA plugin; must not be jax-flagtree)

    python3 tests/clients/run_clients.py --out DIR [--only flax_linen optax] [--parallel 9]

Per program: PASS (every compared value within its rule), FAIL (a value outside it),
OURS_ERROR (upstream ran, ours failed or timed out), SKIP (a library is missing, or
upstream itself failed, so there is nothing to compare against), WRONG_BACKEND, NOT_RUN
(--budget ran out first). Writes DIR/clients.json, DIR/clients.txt and
DIR/logs/NAME-MODE.log; exits 1 when any program is FAIL, OURS_ERROR, WRONG_BACKEND or
NOT_RUN.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import pathlib
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import compare  # noqa: E402

MODES = ("upstream", "ours")
BAD = ("FAIL", "OURS_ERROR", "WRONG_BACKEND", "NOT_RUN")


def programs(only: list[str] | None) -> list[str]:
  names = sorted(p.stem[len("client_"):] for p in HERE.glob("client_*.py")
                 if p.stem != "client_common")
  if only:
    unknown = sorted(set(only) - set(names))
    if unknown:
      raise SystemExit(f"unknown client programs {unknown}; there are {names}")
    names = [n for n in names if n in only]
  return names


def mode_env(mode: str, platform: str) -> dict:
  env = dict(os.environ)
  env["PYTHONPATH"] = os.pathsep.join([str(HERE)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
  env["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"
  env["PYTHONUNBUFFERED"] = "1"
  env["JAX_PLATFORMS"] = platform
  # float32 products in full precision on both sides: under the default
  # precision a backend may use TF32 for them (about 1e-4 relative), which
  # would hide real differences below that level or flag none of them.
  env["JAX_DEFAULT_MATMUL_PRECISION"] = "highest"
  if mode == "upstream":
    env["JAX_FLAGTREE_DISABLE"] = "1"
    env.pop("XLA_MODE", None)
  else:
    env.pop("JAX_FLAGTREE_DISABLE", None)
    env["XLA_MODE"] = "fl_only"
  return env


def parse_result(stdout: str) -> dict | None:
  for line in reversed(stdout.splitlines()):
    if line.startswith("RESULT "):
      try:
        return json.loads(line[len("RESULT "):])
      except ValueError:
        return None
  return None


def run_one(name: str, mode: str, a) -> dict:
  t0 = time.monotonic()
  log = pathlib.Path(a.out) / "logs" / f"{name}-{mode}.log"
  limit = a.timeout
  if a.deadline is not None:
    limit = min(limit, a.deadline - t0)
    if limit < 20:
      return {"mode": mode, "rc": None, "seconds": 0.0, "result": None, "status": "error",
              "error": "not run: the --budget ran out"}
  try:
    p = subprocess.run([a.python, str(HERE / f"client_{name}.py")], env=mode_env(mode, a.platform),
                       capture_output=True, text=True, timeout=limit, cwd=HERE)
    out, err, rc, timed_out = p.stdout, p.stderr, p.returncode, False
  except subprocess.TimeoutExpired as e:
    out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
    err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
    rc, timed_out = None, True
  log.write_text((out + "\n--- stderr ---\n" + err)[-65536:])
  res = parse_result(out)
  rec = {"mode": mode, "rc": rc, "seconds": round(time.monotonic() - t0, 1), "result": res}
  if timed_out:
    rec["status"] = "timeout"
    rec["error"] = f"timed out after {limit:.0f}s"
  elif res is None or rc != 0:
    rec["status"] = "error"
    tail = [l for l in err.strip().splitlines() if l.strip()][-3:]
    rec["error"] = f"exit status {rc}: " + " | ".join(tail)[:400]
  elif "skip" in res:
    rec["status"] = "skip"
    rec["error"] = res["skip"]
  else:
    rec["status"] = "ok"
  return rec


def judge(name: str, up: dict, ours: dict, platform: str) -> dict:
  out = {"name": name, "upstream": {k: v for k, v in up.items() if k != "result"},
         "ours": {k: v for k, v in ours.items() if k != "result"}}
  for side, rec, want in (("upstream", up, False), ("ours", ours, True)):
    be = (rec.get("result") or {}).get("backend") or {}
    out[side]["backend"] = be
    if rec["status"] == "ok" and platform != "cpu" and \
        bool(be.get("flagtree_registered")) != want:
      out["verdict"] = "WRONG_BACKEND"
      out["why"] = (f"{side} run {'did not use' if want else 'used'} jax-flagtree "
                    f"(flagtree_registered={be.get('flagtree_registered')})")
      return out
  not_run = [r.get("error", "") for r in (up, ours) if r.get("error", "").startswith("not run:")]
  if not_run:
    out["verdict"], out["why"] = "NOT_RUN", not_run[0]
  elif up["status"] == "skip" or ours["status"] == "skip":
    out["verdict"], out["why"] = "SKIP", (up.get("error") or ours.get("error"))
  elif up["status"] != "ok":
    out["verdict"], out["why"] = "SKIP", "upstream did not run: " + up.get("error", "")
  elif ours["status"] != "ok":
    out["verdict"], out["why"] = "OURS_ERROR", ours.get("error", "")
  else:
    c = compare.compare_results(up["result"], ours["result"])
    out["keys"] = c["keys"]
    out["verdict"] = "PASS" if c["ok"] else "FAIL"
    bad = [f"{k}: {v['why']}" for k, v in c["keys"].items() if not v["ok"]]
    out["why"] = "; ".join(bad) if bad else f"{len(c['keys'])} values compared"
  return out


def main(argv=None) -> int:
  p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  p.add_argument("--out", required=True)
  p.add_argument("--only", nargs="+", help="program names (client_NAME.py)")
  p.add_argument("--parallel", type=int, default=9, help="processes at a time (default 9)")
  p.add_argument("--timeout", type=float, default=270, help="seconds per process (default 270)")
  p.add_argument("--budget", type=float,
                 help="seconds for everything: a process gets at most what is left")
  p.add_argument("--python", default=sys.executable)
  p.add_argument("--platform", default="cuda", help="JAX_PLATFORMS (default cuda)")
  a = p.parse_args(argv)
  out = pathlib.Path(a.out)
  (out / "logs").mkdir(parents=True, exist_ok=True)
  names = programs(a.only)
  t0 = time.monotonic()
  a.deadline = t0 + a.budget if a.budget else None
  with concurrent.futures.ThreadPoolExecutor(max(1, a.parallel)) as pool:
    futs = {(n, m): pool.submit(run_one, n, m, a) for n in names for m in MODES}
    runs = {k: f.result() for k, f in futs.items()}
  verdicts = [judge(n, runs[(n, "upstream")], runs[(n, "ours")], a.platform) for n in names]
  results = {n: {m: runs[(n, m)].get("result") for m in MODES} for n in names}
  counts = {}
  for v in verdicts:
    counts[v["verdict"]] = counts.get(v["verdict"], 0) + 1
  (out / "clients.json").write_text(json.dumps(
      {"counts": counts, "seconds": round(time.monotonic() - t0, 1), "programs": verdicts,
       "results": results}, indent=1) + "\n")
  lines = [f"{v['verdict']:<13} {v['name']:<20} up {v['upstream']['seconds']:>6.1f}s "
           f"ours {v['ours']['seconds']:>6.1f}s  {v.get('why', '')[:300]}" for v in verdicts]
  lines.append(", ".join(f"{k} {n}" for k, n in sorted(counts.items())))
  text = "\n".join(lines) + "\n"
  (out / "clients.txt").write_text(text)
  sys.stdout.write(text)
  return 1 if any(v["verdict"] in BAD for v in verdicts) else 0


if __name__ == "__main__":
  sys.exit(main())
