#!/usr/bin/env python3
"""Regression gate: JAX's own test files, run against our plugin (XLA_MODE=fl_only) and
against upstream XLA's CUDA plugin (JAX_FLAGTREE_DISABLE=1).

    python3 tests/jax_suite/run.py prepare   --jax-git DIR [--jax-version V | --rev REV]
    python3 tests/jax_suite/run.py collect   --out DIR [--sample N [--seed S] | --every K]
    python3 tests/jax_suite/run.py run       --out DIR [--upstream] [--list FILE] [--budget S]
    python3 tests/jax_suite/run.py make-list --from UPSTREAM_OUT [--list FILE]
    python3 tests/jax_suite/run.py compare   UPSTREAM_OUT OURS_OUT

`prepare` needs git and a clone of jax-ml/jax; `collect` and `run` need the GPU machine
(JAX, pytest, absl-py); `make-list` and `compare` run anywhere. See README.md beside this.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))

import profiles  # noqa: E402
import stratify  # noqa: E402
import suite  # noqa: E402
import verdict  # noqa: E402

DEFAULT_PREPARED = HERE / "upstream"
DEFAULT_LIST = HERE / "list.txt"
DEFAULT_ALLOWLIST = HERE / "allowlist.txt"
UPSTREAM_EXTRA_FILES = ("pyproject.toml", "conftest.py")  # pytest settings and root conftest
TEST_SUPPORT = "jax_test_support"  # prepare's copy of jax/**/*_test_util.py
PROBE_MODULES = ("pytest", "absl.testing.absltest", "absl.testing.parameterized", "numpy",
                 "scipy", "jax", "jaxlib")
VERSION_PACKAGES = ("jax", "jaxlib", "jax-cuda13-plugin", "jax-cuda13-pjrt", "jax-cuda12-plugin",
                    "jax-cuda12-pjrt", "jax-flagtree", "triton", "flagtree", "numpy", "scipy",
                    "ml_dtypes", "pytest", "absl-py")


def now_utc() -> str:
  return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def say(msg: str) -> None:
  print(f"[jax_suite {time.strftime('%H:%M:%S')}] {msg}", flush=True)


# ---------------------------------------------------------------- prepare

def _git(git_dir: str, *args: str, binary: bool = False):
  out = subprocess.run(["git", f"--git-dir={git_dir}", *args], check=True,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
  return out.stdout if binary else out.stdout.decode().strip()


def _version_tuple(v: str) -> tuple:
  return tuple(int(x) for x in re.findall(r"\d+", v)[:3])


def resolve_revision(git_dir: str, version: str | None, rev: str | None) -> tuple[str, bool, str]:
  """(revision, exact, note). With rev, that. Else tag jax-vVERSION, then branch
  release/VERSION; else the newest jax-v tag not newer than VERSION (exact False)."""
  if rev:
    return rev, False, f"revision {rev} given explicitly"
  tags = _git(git_dir, "tag", "-l", "jax-v*").split()
  if f"jax-v{version}" in tags:
    return f"jax-v{version}", True, f"tag jax-v{version} matches jax {version}"
  try:
    _git(git_dir, "rev-parse", "--verify", f"refs/heads/release/{version}")
    return f"release/{version}", True, f"branch release/{version} matches jax {version}"
  except subprocess.CalledProcessError:
    pass
  want = _version_tuple(version)
  older = [t for t in tags if re.fullmatch(r"jax-v\d+\.\d+\.\d+", t)
           and _version_tuple(t) <= want]
  if not older:
    raise SystemExit(f"prepare: no tag jax-v{version} and no older jax-v tag; pass --rev")
  best = max(older, key=_version_tuple)
  return best, False, (f"no tag jax-v{version} in the clone: using {best}, the newest older "
                       f"release (pass --rev to choose another revision)")


def project_revision() -> tuple[str, bool]:
  try:
    rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], check=True,
                         capture_output=True, text=True).stdout.strip()
    dirty = bool(subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain",
                                 "--untracked-files=no"], check=True, capture_output=True,
                                text=True).stdout.strip())
    return rev, dirty
  except (OSError, subprocess.CalledProcessError):
    return "unknown", False


def cmd_prepare(a) -> int:
  git_dir = a.jax_git or os.environ.get("JAX_GIT_DIR")
  if not git_dir:
    raise SystemExit("prepare: pass --jax-git DIR (a clone or bare mirror of jax-ml/jax) "
                     "or set JAX_GIT_DIR")
  version = a.jax_version
  if not version and not a.rev:
    try:
      import jax  # noqa: F401
      version = jax.__version__
    except ImportError:
      raise SystemExit("prepare: jax is not installed here: pass --jax-version (the jax on "
                       "the GPU machine) or --rev")
  rev, exact, note = resolve_revision(git_dir, version, a.rev)
  commit = _git(git_dir, "rev-parse", f"{rev}^{{commit}}")
  dest = pathlib.Path(a.dest)
  if dest.exists():
    if any(dest.iterdir()) and not (dest / "SOURCE.json").exists():
      raise SystemExit(f"prepare: {dest} is not empty and was not made by prepare; not touching it")
    shutil.rmtree(dest)
  (dest / "tests").mkdir(parents=True)
  files = {}
  if a.files:
    paths = [f"tests/{name}.py" for name in a.files]
  else:  # the whole tests/ tree: test files, their helpers and data
    paths = _git(git_dir, "ls-tree", "-r", "--name-only", commit, "tests/").split("\n")
    paths = [p for p in paths if p]
  for path in paths:
    data = _git(git_dir, "show", f"{commit}:{path}", binary=True)
    (dest / path).parent.mkdir(parents=True, exist_ok=True)
    (dest / path).write_bytes(data)
    files[path] = hashlib.sha256(data).hexdigest()
  for path in UPSTREAM_EXTRA_FILES:
    try:
      data = _git(git_dir, "show", f"{commit}:{path}", binary=True)
    except subprocess.CalledProcessError:
      continue
    (dest / path).write_bytes(data)
    files[path] = hashlib.sha256(data).hexdigest()
  # JAX's test helpers that its tests import but its wheels do not ship
  # (jax._src.pallas.pallas_test_util, jax._src.hypothesis_test_util): the
  # batches register them under their module names when the installed jax
  # lacks them (jsonl_plugin.py).
  support = {}
  for path in _git(git_dir, "ls-tree", "-r", "--name-only", commit, "jax/").split("\n"):
    if not re.search(r"_test_util\.py$", path):
      continue
    data = _git(git_dir, "show", f"{commit}:{path}", binary=True)
    (dest / TEST_SUPPORT / path).parent.mkdir(parents=True, exist_ok=True)
    (dest / TEST_SUPPORT / path).write_bytes(data)
    support[path] = hashlib.sha256(data).hexdigest()
  version_py = _git(git_dir, "show", f"{commit}:jax/version.py")
  m = re.search(r'^_version\s*=\s*"([^"]+)"', version_py, re.M)
  build_rev, dirty = (a.build_rev, False) if a.build_rev else project_revision()
  source = {"repository": "https://github.com/jax-ml/jax", "revision": rev, "commit": commit,
            "jax_version_wanted": version, "jax_version_at_revision": m.group(1) if m else None,
            "exact": exact, "note": note, "files": files, "test_support": support,
            "prepared": now_utc(),
            "build_rev": build_rev, "build_dirty": dirty}
  (dest / "SOURCE.json").write_text(json.dumps(source, indent=2) + "\n")
  say(f"prepared {len(paths)} files of tests/ from {rev} ({commit[:12]}) into {dest}")
  if not exact:
    say("WARNING: " + note)
  return 0


# ---------------------------------------------------------------- environment of a batch

def batch_env(a) -> dict:
  env = dict(os.environ)
  env["PYTHONPATH"] = os.pathsep.join([str(HERE)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
  env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
  env["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"
  env["PYTHONUNBUFFERED"] = "1"
  env["PYTHONDONTWRITEBYTECODE"] = "1"
  env["JAX_NUM_GENERATED_CASES"] = str(a.generated_cases)
  support = pathlib.Path(getattr(a, "prepared", None) or DEFAULT_PREPARED) / TEST_SUPPORT
  if support.is_dir():
    env["JAX_SUITE_TEST_SUPPORT"] = str(support.resolve())
  else:
    env.pop("JAX_SUITE_TEST_SUPPORT", None)
  env.pop("JAX_ENABLE_X64", None)
  env.update(profiles.PROFILE_ENV.get(getattr(a, "profile", None) or "one_gpu", {}))
  if a.platform:
    env["JAX_PLATFORMS"] = a.platform
  if a.upstream:
    env["JAX_FLAGTREE_DISABLE"] = "1"
    env.pop("XLA_MODE", None)
  else:
    env.pop("JAX_FLAGTREE_DISABLE", None)
    env["XLA_MODE"] = a.xla_mode
  return env


def pytest_command(a, prepared: pathlib.Path, files: list[str], collect_only: bool = False) -> list[str]:
  cmd = [a.python, "-m", "pytest", "-p", "jsonl_plugin", "-p", "no:cacheprovider",
         "--continue-on-collection-errors", "-q", "--tb=short", "--rootdir", str(prepared)]
  if (prepared / "pyproject.toml").exists():
    cmd += ["-c", str(prepared / "pyproject.toml")]
  if collect_only:
    cmd.append("--collect-only")
  return cmd + files


PROBE = r"""
import importlib, json, os, sys
info = {"python": sys.version.split()[0], "missing": [], "versions": {}}
for m in MODULES:
  try:
    importlib.import_module(m)
  except Exception as e:
    info["missing"].append(f"{m} ({type(e).__name__}: {e})")
try:
  from importlib import metadata
  for p in PACKAGES:
    try:
      info["versions"][p] = metadata.version(p)
    except Exception:
      pass
except Exception:
  pass
try:
  import jax
  devs = jax.devices()
  info["platform"] = devs[0].platform
  info["device_kind"] = devs[0].device_kind
  info["device_count"] = len(devs)
  info["platform_version"] = getattr(devs[0].client, "platform_version", None)
except Exception as e:
  info["backend_error"] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
try:
  import jax_plugins.flagtree as ft
  info["flagtree_registered"] = bool(getattr(ft, "_registered", False))
  info["flagtree_module"] = True
except Exception:
  info["flagtree_registered"] = False
  info["flagtree_module"] = False
info["env"] = {k: os.environ.get(k) for k in ("XLA_MODE", "JAX_FLAGTREE_DISABLE", "JAX_PLATFORMS", "JAX_ENABLE_X64",
               "JAX_NUM_GENERATED_CASES", "XLA_PYTHON_CLIENT_PREALLOCATE", "XLA_FLAGS")}
print("PROBE " + json.dumps(info))
"""


def probe(a, env: dict, timeout: float = 180) -> dict:
  code = PROBE.replace("MODULES", repr(PROBE_MODULES)).replace("PACKAGES", repr(VERSION_PACKAGES))
  try:
    p = subprocess.run([a.python, "-c", code], env=env, capture_output=True, text=True,
                       timeout=timeout)
  except subprocess.TimeoutExpired:
    return {"missing": [], "backend_error": f"probe timed out after {timeout:.0f}s"}
  for line in p.stdout.splitlines():
    if line.startswith("PROBE "):
      return json.loads(line[6:])
  tail = (p.stderr or p.stdout).strip().splitlines()[-3:]
  return {"missing": [], "backend_error": f"probe exited {p.returncode}: " + " | ".join(tail)}


def environment_problem(a, info: dict) -> str | None:
  """Why this environment cannot give a meaningful run, or None."""
  if info.get("missing"):
    return "python modules missing on this machine: " + "; ".join(info["missing"])
  if info.get("backend_error"):
    return "JAX backend did not start: " + info["backend_error"]
  if a.platform and a.platform != "cpu" and info.get("platform") not in ("gpu", "cuda", a.platform):
    return f"JAX runs on {info.get('platform')}, not {a.platform}"
  profile = getattr(a, "profile", None) or "one_gpu"
  need = profiles.PROFILE_MIN_DEVICES.get(profile, 1)
  if a.platform != "cpu" and info.get("device_count") is not None and info["device_count"] < need:
    return (f"profile {profile} needs {need} devices, this machine has "
            f"{info['device_count']}")
  if a.upstream and info.get("flagtree_registered"):
    return "upstream mode, but jax-flagtree registered itself (JAX_FLAGTREE_DISABLE ignored?)"
  if not a.upstream and not info.get("flagtree_registered") and a.platform != "cpu":
    return ("ours mode, but jax-flagtree is not the active backend (is the plugin on "
            "PYTHONPATH? flagtree module found: %s)" % info.get("flagtree_module"))
  return None


def gpu_info() -> dict:
  try:
    out = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total",
                          "--format=csv,noheader"], capture_output=True, text=True, timeout=30)
    rows = [r.strip() for r in out.stdout.splitlines() if r.strip()]
    gpus = [dict(zip(("name", "driver", "memory"), [x.strip() for x in r.split(",")])) for r in rows]
    return {"gpus": gpus}
  except (OSError, subprocess.SubprocessError) as e:
    return {"gpus": [], "error": str(e)}


def load_source(prepared: pathlib.Path) -> dict:
  p = prepared / "SOURCE.json"
  if not p.exists():
    raise SystemExit(f"{prepared} has no SOURCE.json: run `python3 tests/jax_suite/run.py "
                     f"prepare` on a machine with a jax clone first, and carry the folder")
  return json.loads(p.read_text())


def test_files_mismatch(list_meta: dict, source: dict) -> str | None:
  """Why the prepared test files are not the ones the list was made from, or None.
  A list's ids and upstream outcomes belong to one JAX revision: other files rename,
  add and remove tests, and warnings-as-errors turns deprecations into failures."""
  want = list_meta.get("jax_commit")
  have = source.get("commit")
  if not want or not have or want == have:
    return None
  rev = list_meta.get("jax_revision", want[:10])
  return (f"the prepared JAX test files are at {have[:10]} ({source.get('revision', '?')}) "
          f"but the list was made at {want[:10]}: its ids and outcomes do not hold for them; "
          f"run `python3 tests/jax_suite/run.py prepare --jax-git DIR --rev {rev}`")


def build_revision(a, source: dict) -> dict:
  if a.build_rev:
    return {"rev": a.build_rev, "from": "--build-rev"}
  if a.build_rev_file and pathlib.Path(a.build_rev_file).exists():
    return {"rev": pathlib.Path(a.build_rev_file).read_text().strip(), "from": "--build-rev-file"}
  rev, dirty = project_revision()
  if rev != "unknown":
    return {"rev": rev, "dirty": dirty, "from": "git"}
  return {"rev": source.get("build_rev", "unknown"), "dirty": source.get("build_dirty"),
          "from": "prepared SOURCE.json (the checkout's revision when prepare ran)"}


# ---------------------------------------------------------------- collect

def profile_decisions(prepared: pathlib.Path) -> dict:
  """{tests/...py: (profile, reason)} for every *_test.py under the prepared tests/."""
  out = {}
  for path in sorted((prepared / "tests").rglob("*_test.py")):
    rel = path.relative_to(prepared).as_posix()
    out[rel] = profiles.classify(rel, path.read_text(encoding="utf-8", errors="replace"))
  return out


def file_groups(files: list[str], sizes: dict, groups: int) -> list[list[str]]:
  """At most `groups` groups of files, balanced by size (a proxy of collection time),
  biggest first; each group keeps its files in sorted order."""
  lanes: list[list] = [[0, []] for _ in range(max(1, min(groups, len(files))))]
  for f in sorted(files, key=lambda f: (-sizes.get(f, 0), f)):
    lane = min(lanes, key=lambda l: l[0])
    lane[0] += sizes.get(f, 0) + 4096  # a file's own cost besides its size
    lane[1].append(f)
  return [sorted(l[1]) for l in lanes if l[1]]


def cmd_collect(a) -> int:
  prepared = pathlib.Path(a.prepared).resolve()
  source = load_source(prepared)
  out = pathlib.Path(a.out).resolve()
  out.mkdir(parents=True, exist_ok=True)
  decisions = {}
  if a.profile:
    decisions = profile_decisions(prepared)
    files = profiles.files_for(a.profile, decisions)
    (out / "files.json").write_text(json.dumps(
        {"profile": a.profile, "files": files,
         "decisions": {p: {"profile": d[0], "reason": d[1]} for p, d in decisions.items()}},
        indent=1) + "\n")
    say(f"profile {a.profile}: {len(files)} of {len(decisions)} test files")
  else:
    files = [f"tests/{n}.py" for n in (a.files or suite.DEFAULT_FILES)]
  if a.only_files:
    files = [f for f in files if any(re.search(p, f) for p in a.only_files)]
  env = batch_env(a)
  info = probe(a, env)
  problem = environment_problem(a, info)
  if problem:
    say("collect: " + problem)
    (out / "collect.json").write_text(json.dumps({"error": problem, "probe": info}, indent=2) + "\n")
    return 3
  sizes = {f: (prepared / f).stat().st_size for f in files if (prepared / f).exists()}
  # One pytest process per group of files (importing jax once per group, not per file);
  # a group that dies before reporting its collection is split into single files.
  pending = file_groups(files, sizes, a.parallel)
  procs: dict = {}
  per_file: dict = {}
  all_ids: dict = {}
  t0 = time.monotonic()
  serial = 0
  while pending or procs:
    while pending and len(procs) < a.parallel:
      group = pending.pop(0)
      serial += 1
      name = f"collect-{serial:03d}"
      jsonl = out / f"{name}.jsonl"
      if jsonl.exists():
        jsonl.unlink()
      e = dict(env, JAX_SUITE_RESULTS=str(jsonl))
      log = open(out / f"{name}.log", "w")
      procs[name] = (subprocess.Popen(pytest_command(a, prepared, group, collect_only=True),
                                      cwd=prepared, env=e, stdout=log, stderr=subprocess.STDOUT,
                                      start_new_session=True), log, jsonl, time.monotonic(), group)
    for name, (p, log, jsonl, started, group) in list(procs.items()):
      if p.poll() is None and time.monotonic() - started < a.timeout:
        continue
      if p.poll() is None:
        suite._kill(p)
      log.close()
      del procs[name]
      text = (out / f"{name}.log").read_text(errors="replace")
      rep = suite.parse_records(jsonl.read_text().splitlines() if jsonl.exists() else [])
      ids = rep.all_ids or [l.rstrip() for l in text.splitlines()
                            if "::" in l and suite.file_of(l.rstrip()) in group]
      if not rep.collected and len(group) > 1:
        say(f"{name} ({len(group)} files) ended with {suite.describe_rc(p.returncode)} before "
            f"reporting its collection: collecting its files one by one")
        pending.extend([f] for f in group)
        continue
      errors: dict = {}
      for f, e in rep.collect_errors:
        errors.setdefault(f, []).append(e)
      seconds = round(time.monotonic() - started, 1)
      for f in group:
        mine = [i for i in ids if suite.file_of(i) == f]
        per_file[f] = {"count": len(mine), "rc": p.returncode, "errors": errors.get(f, []),
                       "group": name, "group_seconds": seconds}
        if not mine and not rep.collected:
          per_file[f]["tail"] = suite.log_tail_message(text)
        all_ids[f] = mine
      bad = [f for f in group if per_file[f]["errors"]]
      say(f"{name}: {len(ids)} ids from {len(group)} files in {seconds:.0f}s (pytest "
          f"{suite.describe_rc(p.returncode)})" + (f"; collection errors in {', '.join(bad)}"
                                                   if bad else ""))
    time.sleep(0.2)
  ids = [i for f in files for i in all_ids.get(f, [])]
  sha_all = suite.write_list(out / "collected.txt", ids)
  if a.stratify:
    chosen, sampling = stratify.stratify(ids, a.stratify, a.seed)
  else:
    chosen = suite.sample_ids(ids, size=a.sample, seed=a.seed, every=a.every)
    sampling = suite.sampling_record(a.sample, a.seed, a.every, len(ids), len(chosen))
  sha = suite.write_list(out / "selected.txt", chosen)
  meta = {"size": len(chosen), "sha256": sha, "collected": len(ids), "collected_sha256": sha_all,
          "profile": a.profile or "one_gpu", "sampling": sampling,
          "generated_cases": a.generated_cases,
          "collected_in_mode": "upstream" if a.upstream else "ours",
          "jax_revision": source.get("revision"), "jax_commit": source.get("commit"),
          "files": {f: source.get("files", {}).get(f) for f in files},
          "command": "python3 tests/jax_suite/run.py collect " + " ".join(
              x for x in (f"--profile {a.profile}" if a.profile else "",
                          f"--stratify {a.stratify} --seed {a.seed}" if a.stratify else "",
                          f"--sample {a.sample} --seed {a.seed}" if a.sample else "",
                          f"--every {a.every}" if a.every else "") if x),
          "device_count": info.get("device_count"), "device_kind": info.get("device_kind"),
          "created": now_utc()}
  suite.meta_path(out / "selected.txt").write_text(json.dumps(meta, indent=2) + "\n")
  (out / "collect.json").write_text(json.dumps(
      {"files": per_file, "probe": info, "seconds": round(time.monotonic() - t0, 1),
       **{k: v for k, v in meta.items() if k != "files"}}, indent=2) + "\n")
  errors = sum(1 for f in per_file.values() if f["errors"] or not f["count"])
  say(f"collected {len(ids)} ids from {len(files)} files ({errors} with collection errors or "
      f"no ids) in {time.monotonic() - t0:.0f}s; selected {len(chosen)} ({sampling['method']})")
  return 0 if ids else 1


def cmd_stratify(a) -> int:
  """A stratified sample of a collection's ids (collected.txt of `collect`)."""
  src = pathlib.Path(a.collected)
  ids = suite.read_list(src)
  in_meta = suite.read_meta(src.with_name("selected.txt")) if src.name == "collected.txt" else {}
  chosen, record = stratify.stratify(ids, a.size, a.seed, tuple(a.exclude_file or ()))
  out = pathlib.Path(a.out)
  sha = suite.write_list(out, chosen)
  meta = {k: v for k, v in in_meta.items() if k not in ("size", "sha256", "sampling", "command")}
  meta.update({"size": len(chosen), "sha256": sha, "sampling": record,
               "command": f"python3 tests/jax_suite/run.py stratify {src.name} --size {a.size} "
                          f"--seed {a.seed}", "created": now_utc()})
  suite.meta_path(out).write_text(json.dumps(meta, indent=2) + "\n")
  say(f"stratify: {len(chosen)} of {len(ids)} ids from {record['files_kept']} files "
      f"(cap {record['cap']} per file) -> {out}")
  return 0 if chosen else 1


# ---------------------------------------------------------------- run

def cmd_run(a) -> int:
  prepared = pathlib.Path(a.prepared).resolve()
  out = pathlib.Path(a.out).resolve()
  list_path = pathlib.Path(a.list)
  if not list_path.exists():
    raise SystemExit(f"run: no list {list_path}: make one with collect (+ an upstream run "
                     f"and make-list), or pass --list")
  ids = suite.read_list(list_path)
  list_meta = suite.read_meta(list_path)
  if a.generated_cases is None:
    a.generated_cases = int(list_meta.get("generated_cases", 10))
  if a.profile is None:
    a.profile = list_meta.get("profile", "one_gpu")
  if a.limit:
    ids = ids[:a.limit]
  shard = suite.parse_shard(a.shard)
  ids = suite.shard_ids(ids, *shard)
  mode = "upstream" if a.upstream else "ours"
  if a.dry_run:
    p = suite.plan(suite.make_batches(ids, a.batch_size), a.parallel, a.seconds_per_test)
    sys.stdout.write(json.dumps({"mode": mode, "profile": a.profile, "list": str(list_path),
                                 "shard": f"{shard[0]}/{shard[1]}", "batch_size": a.batch_size,
                                 "test_timeout": a.test_timeout, **p}, indent=1) + "\n")
    say(f"dry run ({mode}, profile {a.profile}, shard {shard[0]}/{shard[1]}): {p['ids']} ids in "
        f"{p['batches']} batches over {p['files']} files, {a.parallel} processes, about "
        f"{p['estimated_seconds']}s at {a.seconds_per_test}s a test")
    return 0
  source = load_source(prepared)
  mismatch = test_files_mismatch(list_meta, source)
  if mismatch:
    say("WARNING: " + mismatch)
  out.mkdir(parents=True, exist_ok=True)
  env = batch_env(a)
  t0 = time.monotonic()
  started = now_utc()
  info = probe(a, env)
  problem = environment_problem(a, info)
  provenance = {
      "mode": mode, "xla_mode": None if a.upstream else a.xla_mode, "profile": a.profile,
      "shard": f"{shard[0]}/{shard[1]}",
      "versions": info.get("versions", {}), "python": info.get("python"),
      "platform": info.get("platform"), "device_kind": info.get("device_kind"),
      "device_count": info.get("device_count"), "platform_version": info.get("platform_version"),
      "flagtree_registered": info.get("flagtree_registered"), "probe_env": info.get("env"),
      "build": build_revision(a, source), "jax_tests": {k: source.get(k) for k in (
          "repository", "revision", "commit", "jax_version_at_revision", "exact", "note")},
      "test_files": {f: source.get("files", {}).get(f)
                     for f in sorted({suite.file_of(i) for i in ids})},
      "list": {"path": list_path.name, "size": len(ids),
               "sha256": hashlib.sha256(list_path.read_bytes()).hexdigest(), "meta": list_meta},
      "settings": {"parallel": a.parallel, "batch_size": a.batch_size,
                   "batch_timeout": a.batch_timeout, "test_timeout": a.test_timeout,
                   "budget": a.budget, "env": {k: env.get(k) for k in (
                       "JAX_ENABLE_X64", "JAX_NUM_GENERATED_CASES", "XLA_MODE",
                       "JAX_FLAGTREE_DISABLE", "JAX_PLATFORMS")},
                   "generated_cases": a.generated_cases, "platform": a.platform},
      "started": started, **gpu_info()}
  installed = info.get("versions", {}).get("jax")
  wanted = source.get("jax_version_wanted")
  if installed and wanted and installed != wanted:
    provenance["version_note"] = f"tests prepared for jax {wanted}, installed jax is {installed}"
    say("WARNING: " + provenance["version_note"])
  if problem:
    say(f"run ({mode}): {problem}")
    provenance["environment_error"] = problem
    results = {i: {"outcome": "ERROR", "seconds": 0.0, "error": "environment: " + problem}
               for i in ids}
  else:
    say(f"run ({mode}, profile {a.profile}, shard {shard[0]}/{shard[1]}): {len(ids)} ids, "
        f"{a.parallel} processes, batches of {a.batch_size}, batch limit "
        f"{a.batch_timeout:.0f}s, test limit {a.test_timeout:.0f}s, budget "
        + (f"{a.budget:.0f}s" if a.budget else "none")
        + f"; {info.get('device_kind')} via {'upstream XLA' if a.upstream else 'jax-flagtree'}")
    batches = suite.make_batches(ids, a.batch_size)

    def launch(ids_path, results_path, log):
      files = sorted({suite.file_of(i) for i in suite.read_list(ids_path)})
      e = dict(env, JAX_SUITE_IDS=str(ids_path), JAX_SUITE_RESULTS=str(results_path))
      return subprocess.Popen(pytest_command(a, prepared, files), cwd=prepared, env=e,
                              stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    budget = None
    if a.budget:
      budget = max(0.0, a.budget - (time.monotonic() - t0))
    results = suite.run_batches(batches, out, launch, parallel=a.parallel,
                                batch_timeout=a.batch_timeout, budget=budget,
                                reserve=a.reserve, max_requeue=a.max_requeue, progress=say,
                                test_timeout=a.test_timeout or None)
  rows = suite.result_rows(ids, results)
  counts = suite.count_outcomes(rows)
  suite.write_rows(out / "results.jsonl", rows)
  write_failure_outputs(out, rows)
  summary = {"mode": mode, "profile": a.profile, "shard": provenance["shard"],
             "total": len(rows), "counts": counts,
             "per_file": verdict.per_file_counts(rows),
             "seconds": round(time.monotonic() - t0, 1), "started": started,
             "finished": now_utc(), "list_sha256": provenance["list"]["sha256"],
             "top_causes": suite.group_failures(rows, a.top)}
  if problem:
    summary["environment_error"] = problem
  (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
  provenance["finished"] = summary["finished"]
  (out / "provenance.json").write_text(json.dumps(provenance, indent=2) + "\n")
  say(f"run ({mode}) done in {summary['seconds']:.0f}s: "
      + ", ".join(f"{k} {counts[k]}" for k in suite.OUTCOMES))
  return 3 if problem else 0


def write_failure_outputs(out: pathlib.Path, rows: list[dict]) -> None:
  """nonpassing_cases.json (id, outcome, first error line, its class and normalised
  cause) and the failure classes, as JSON and as text to read at a glance."""
  (out / "nonpassing_cases.json").write_text(json.dumps(
      verdict.nonpassing_cases(rows), indent=1) + "\n")
  classes = verdict.failure_classes(rows)
  (out / "failure_classes.json").write_text(json.dumps(classes, indent=1) + "\n")
  (out / "failure_classes.txt").write_text(verdict.format_classes(classes))


# ---------------------------------------------------------------- make-list, compare

def read_runs(dirs: list[str], want_mode: str | None) -> tuple[list[dict], list[dict]]:
  """(rows of every run folder, their provenances); the folders must be shards of one list
  run in one mode and profile, each shard at most once."""
  rows, provs, seen = [], [], set()
  for d in dirs:
    src = pathlib.Path(d)
    prov = json.loads((src / "provenance.json").read_text()) if (src / "provenance.json").exists() else {}
    if want_mode and prov.get("mode") not in (None, want_mode):
      raise SystemExit(f"{src} is a run in mode {prov.get('mode')}, not {want_mode}")
    key = (prov.get("list", {}).get("sha256"), prov.get("profile"), prov.get("mode"))
    if provs and key != (provs[0].get("list", {}).get("sha256"), provs[0].get("profile"),
                         provs[0].get("mode")):
      raise SystemExit(f"{src} ran another list, profile or mode than {dirs[0]}: not merging")
    shard = prov.get("shard", "1/1")
    if shard in seen:
      raise SystemExit(f"{src}: shard {shard} given twice")
    seen.add(shard)
    rows += suite.read_rows(src / "results.jsonl")
    provs.append(prov)
  return rows, provs


def cmd_make_list(a) -> int:
  rows, provs = read_runs(a.source, "upstream")
  prov = provs[0]
  shards = sorted(p.get("shard", "1/1") for p in provs)
  n = int(shards[0].split("/")[1])
  if len(shards) != n:
    raise SystemExit(f"make-list: {len(shards)} shard(s) given ({', '.join(shards)}) of {n}")
  in_meta = prov.get("list", {}).get("meta", {})
  by_id = {r["nodeid"]: r for r in rows}
  # Sorted: the list and its sha256 do not depend on how many shards upstream ran in.
  passing = sorted(i for i in by_id if by_id[i]["outcome"] == "PASS")
  list_path = pathlib.Path(a.list)
  sha = suite.write_list(list_path, passing)
  files = sorted({suite.file_of(i) for i in passing})
  srcs = " ".join(f"--from {pathlib.Path(d).name}" for d in a.source)
  meta = {"size": len(passing), "sha256": sha, "profile": prov.get("profile", "one_gpu"),
          "files": len(files),
          "command": f"python3 tests/jax_suite/run.py make-list {srcs}",
          "made_from": {"upstream_counts": suite.count_outcomes(by_id.values()),
                        "upstream_shards": shards,
                        "upstream_list_sha256": prov.get("list", {}).get("sha256"),
                        "upstream_list_command": in_meta.get("command"),
                        "sampling": {k: v for k, v in (in_meta.get("sampling") or {}).items()
                                     if k != "per_file"},
                        "device_kind": prov.get("device_kind"),
                        "device_count": prov.get("device_count"),
                        "versions": {k: v for k, v in prov.get("versions", {}).items()
                                     if k in ("jax", "jaxlib", "jax-cuda13-plugin",
                                              "jax-cuda13-pjrt", "jax-cuda12-plugin",
                                              "numpy", "scipy", "ml_dtypes", "pytest")},
                        "settings": prov.get("settings"),
                        "gpus": prov.get("gpus")},
          "generated_cases": in_meta.get("generated_cases",
                                         prov.get("settings", {}).get("generated_cases", 10)),
          "jax_revision": prov.get("jax_tests", {}).get("revision", in_meta.get("jax_revision")),
          "jax_commit": prov.get("jax_tests", {}).get("commit", in_meta.get("jax_commit")),
          "test_files": {f: h for p in provs for f, h in p.get("test_files", {}).items()
                         if f in files},
          "created": now_utc()}
  suite.meta_path(list_path).write_text(json.dumps(meta, indent=2) + "\n")
  # Upstream's outcome of every id run, so why an id is not in the list stays on record.
  up = upstream_path(list_path)
  up.write_text(json.dumps({"per_file": verdict.per_file_counts(list(by_id.values())),
                            "not_passing": [[r["nodeid"], r["outcome"],
                                             suite.without_machine_paths(r.get("error", ""))[:160]]
                                            for r in by_id.values() if r["outcome"] != "PASS"]},
                           indent=0) + "\n")
  say(f"make-list: {len(passing)} of {len(by_id)} ids pass upstream, from {len(files)} files "
      f"-> {list_path} (sha256 {sha[:16]}); upstream outcomes in {up.name}")
  return 0 if passing else 1


def upstream_path(list_path: pathlib.Path) -> pathlib.Path:
  """list.txt -> list.upstream.json beside it."""
  stem = list_path.name[:-4] if list_path.name.endswith(".txt") else list_path.name
  return list_path.with_name(stem + ".upstream.json")


def cmd_verdict(a) -> int:
  """Strict: exit 1 when an id of the list does not pass in our run(s) and is not in the
  allowlist; 2 when the allowlist is malformed."""
  list_path = pathlib.Path(a.list)
  listed = suite.read_list(list_path)
  allow_path = pathlib.Path(a.allowlist)
  try:
    allow = (verdict.parse_allowlist(allow_path.read_text(encoding="utf-8"), allow_path.name)
             if allow_path.exists() else [])
  except verdict.AllowlistError as e:
    say(f"verdict: {e}")
    return 2
  rows, provs = read_runs(a.ours, "ours")
  sha = hashlib.sha256(list_path.read_bytes()).hexdigest()
  for d, p in zip(a.ours, provs):
    if p.get("list", {}).get("sha256") not in (None, sha):
      raise SystemExit(f"verdict: {d} ran another list than {list_path}")
  v = verdict.verdict(listed, rows, allow)
  v.update({"list": list_path.name, "list_sha256": sha, "allowlist": allow_path.name,
            "shards": sorted(p.get("shard", "1/1") for p in provs),
            "build": provs[0].get("build") if provs else None,
            "jax_tests": provs[0].get("jax_tests") if provs else None,
            "versions": provs[0].get("versions") if provs else None,
            "device_kind": provs[0].get("device_kind") if provs else None,
            "profile": provs[0].get("profile") if provs else None, "created": now_utc()})
  out = pathlib.Path(a.out)
  out.mkdir(parents=True, exist_ok=True)
  (out / "verdict.json").write_text(json.dumps(v, indent=1) + "\n")
  listed_set = set(listed)
  mine = [r for r in rows if r["nodeid"] in listed_set]
  write_failure_outputs(out, mine)
  (out / "summary.json").write_text(json.dumps(
      {"total": len(mine), "counts": suite.count_outcomes(mine),
       "per_file": verdict.per_file_counts(mine), "shards": v["shards"]}, indent=2) + "\n")
  say(f"verdict {v['status'].upper()}: {v['passed']} of {v['listed']} listed ids pass; "
      f"{v['regressions']} regressions, {v['not_run']} not run, {v['allowed']} allowlisted"
      + (f"; {len(v['allowlist_stale'])} allowlist entries now pass (remove them)"
         if v["allowlist_stale"] else ""))
  for c in v["regression_classes"][:10]:
    say(f"  {c['count']:>5} {c['class']}: {c['cause'][:120]}")
  return 0 if v["status"] == "pass" else 1


def cmd_compare(a) -> int:
  up = suite.read_rows(pathlib.Path(a.upstream_out) / "results.jsonl")
  ours = suite.read_rows(pathlib.Path(a.ours_out) / "results.jsonl")
  c = suite.compare_rows(up, ours, a.top)
  text = suite.format_compare(c)
  sys.stdout.write(text)
  if a.json:
    pathlib.Path(a.json).write_text(json.dumps(c, indent=2) + "\n")
  if a.max_regressions is not None and c["regressions"] > a.max_regressions:
    return 1
  return 0


# ---------------------------------------------------------------- command line

def main(argv=None) -> int:
  p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  sub = p.add_subparsers(dest="cmd", required=True)

  def common(sp, collecting=False):
    sp.add_argument("--prepared", default=str(DEFAULT_PREPARED),
                    help="folder made by prepare (default tests/jax_suite/upstream)")
    if collecting:
      sp.add_argument("--ours", dest="upstream", action="store_false",
                      help="collect with our plugin instead of upstream XLA (the default)")
    else:
      sp.add_argument("--upstream", action="store_true",
                      help="run upstream XLA's CUDA plugin (JAX_FLAGTREE_DISABLE=1) instead of ours")
    sp.add_argument("--xla-mode", default="fl_only", help="XLA_MODE for our plugin (default fl_only)")
    sp.add_argument("--platform", default="cuda,cpu",
                    help="JAX_PLATFORMS for the tests (default cuda,cpu as jax[cuda] has it: "
                         "the GPU is the default backend and the host platform exists for what "
                         "tests put on it explicitly, e.g. host callbacks' operands; 'cpu' only "
                         "for trying the runner on a machine without a GPU)")
    sp.add_argument("--python", default=sys.executable, help="the Python that has JAX and pytest")
    sp.add_argument("--parallel", type=int, default=4, help="test processes at a time (default 4)")


  sp = sub.add_parser("prepare", help="copy JAX's test files at the matching revision")
  sp.add_argument("--jax-git", help="a clone or bare mirror of jax-ml/jax (or $JAX_GIT_DIR)")
  sp.add_argument("--jax-version", help="jax version on the GPU machine (default: the jax installed here)")
  sp.add_argument("--rev", help="a git revision to take instead of the version's tag")
  sp.add_argument("--dest", default=str(DEFAULT_PREPARED))
  sp.add_argument("--files", nargs="+",
                  help="only these tests/NAME.py (default: the whole tests/ tree)")
  sp.add_argument("--build-rev", help="our build's revision to record (default: git HEAD here)")
  sp.set_defaults(fn=cmd_prepare)

  sp = sub.add_parser("collect", help="pytest --collect-only over the files; sample a subset")
  common(sp, collecting=True)
  sp.add_argument("--out", required=True)
  sp.add_argument("--profile", choices=profiles.PROFILES,
                  help="collect every test file of this profile (see profiles.py) instead of --files")
  sp.add_argument("--files", nargs="+", help="tests/NAME.py to collect (default: the old "
                  "12-file selection, when no --profile)")
  sp.add_argument("--only-files", nargs="+", metavar="REGEX",
                  help="keep only the files matching one of these regular expressions")
  sp.add_argument("--stratify", type=int, metavar="N",
                  help="select N ids stratified per file (see stratify.py)")
  sp.add_argument("--sample", type=int, help="keep this many ids (seeded hash ranking)")
  sp.add_argument("--seed", type=int, default=0)
  sp.add_argument("--every", type=int, help="keep every K-th id of the sorted ids instead")
  sp.add_argument("--generated-cases", type=int, default=10,
                  help="JAX_NUM_GENERATED_CASES (default 10; recorded in the list's meta)")
  sp.add_argument("--timeout", type=float, default=300,
                  help="per collection process (default 300 s)")
  sp.set_defaults(fn=cmd_collect)

  sp = sub.add_parser("stratify", help="a per-file stratified sample of collected ids")
  sp.add_argument("collected", help="collected.txt of a collect run")
  sp.add_argument("--out", required=True, help="the sample's list file (meta written beside it)")
  sp.add_argument("--size", type=int, default=8000)
  sp.add_argument("--seed", type=int, default=0)
  sp.add_argument("--exclude-file", nargs="+", help="test files to leave out")
  sp.set_defaults(fn=cmd_stratify)

  sp = sub.add_parser("run", help="run a list of node ids in batches")
  common(sp)
  sp.add_argument("--out", required=True)
  sp.add_argument("--list", default=str(DEFAULT_LIST), help="node ids (default tests/jax_suite/list.txt)")
  sp.add_argument("--limit", type=int, help="only the first N ids of the list")
  sp.add_argument("--profile", choices=profiles.PROFILES,
                  help="the environment to run in (default: the list's meta, else one_gpu)")
  sp.add_argument("--shard", metavar="I/N", help="run only shard I of N (see suite.shard_ids)")
  sp.add_argument("--dry-run", action="store_true", help="print the plan and run nothing")
  sp.add_argument("--seconds-per-test", type=float, default=1.0,
                  help="--dry-run's estimate of one test's seconds (default 1)")
  sp.add_argument("--test-timeout", type=float, default=120,
                  help="seconds one test may run before its batch is killed, the test "
                       "TIMEOUT and the rest requeued (default 120; 0: no limit)")
  sp.add_argument("--batch-size", type=int, default=40)
  sp.add_argument("--batch-timeout", type=float, default=540,
                  help="seconds per batch process (default 540)")
  sp.add_argument("--budget", type=float, help="total wall seconds; batches that would start later are MISSING")
  sp.add_argument("--reserve", type=float, default=30,
                  help="start no batch with less budget than this left (default 30 s)")
  sp.add_argument("--max-requeue", type=int, default=5,
                  help="times the unstarted rest of a crashed/timed-out batch is run again (default 5)")
  sp.add_argument("--generated-cases", type=int, default=None,
                  help="JAX_NUM_GENERATED_CASES (default: the list's meta, else 10)")
  sp.add_argument("--build-rev", help="our build's revision (default: git, else the prepared SOURCE.json)")
  sp.add_argument("--build-rev-file", help="a file holding our build's revision")
  sp.add_argument("--top", type=int, default=10)
  sp.set_defaults(fn=cmd_run)

  sp = sub.add_parser("make-list", help="the fixed list: ids that pass in an upstream run")
  sp.add_argument("--from", dest="source", required=True, action="append",
                  help="an upstream run's --out folder; once per shard")
  sp.add_argument("--list", default=str(DEFAULT_LIST))
  sp.set_defaults(fn=cmd_make_list)

  sp = sub.add_parser("verdict", help="strict: every listed id passes for us or is allowlisted")
  sp.add_argument("ours", nargs="+", help="our run's --out folder(s), one per shard")
  sp.add_argument("--list", default=str(DEFAULT_LIST))
  sp.add_argument("--allowlist", default=str(DEFAULT_ALLOWLIST))
  sp.add_argument("--out", required=True, help="where verdict.json and the merged outputs go")
  sp.set_defaults(fn=cmd_verdict)

  sp = sub.add_parser("compare", help="ours vs upstream per outcome, and failure causes")
  sp.add_argument("upstream_out")
  sp.add_argument("ours_out")
  sp.add_argument("--top", type=int, default=10)
  sp.add_argument("--json", help="also write the comparison as JSON here")
  sp.add_argument("--max-regressions", type=int,
                  help="exit 1 if more ids pass upstream and not ours than this")
  sp.set_defaults(fn=cmd_compare)

  a = p.parse_args(argv)
  return a.fn(a)


if __name__ == "__main__":
  sys.exit(main())
