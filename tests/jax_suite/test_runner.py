"""CPU tests of the JAX-suite runner (standard library only; no JAX, no pytest, no GPU).

    python3 -m unittest discover tests/jax_suite

A fake `pytest` (a module written to a temporary folder) stands in for the real one: it
reads the batch's ids and writes the plugin's JSON lines, passing, failing, crashing or
hanging as each id's name says, so the scheduler is tested on real processes.
"""

from __future__ import annotations

import io
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest
from contextlib import redirect_stdout

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import jsonl_plugin  # noqa: E402
import run as runner  # noqa: E402
import suite  # noqa: E402

# Behaves as pytest + jsonl_plugin would, by each id's name: ...pass, ...fail, ...skip,
# ...crash (SIGSEGV mid-test), ...abort (exit status 3 mid-test), ...hang (sleeps),
# ...gone (not collected). Files named broken*.py fail to collect.
FAKE_PYTEST_MAIN = r'''
import json, os, signal, sys, time
ids_path = os.environ.get("JAX_SUITE_IDS")
out = open(os.environ["JAX_SUITE_RESULTS"], "a", buffering=1)
def w(**r): out.write(json.dumps(r) + "\n"); out.flush()
files = [a for a in sys.argv[1:] if a.endswith(".py")]
broken = [f for f in files if os.path.basename(f).startswith("broken")]
for f in broken:
  w(event="collect_error", nodeid=f, error="ImportError: cannot import name 'thing' from 'jax._src.lib' (/x/y.py)")
if "--collect-only" in sys.argv:
  ids = [f"{f}::T::test{k}pass" for f in files if f not in broken for k in range(3)]
  for i in ids: print(i)
  w(event="collected", selected=len(ids), notfound=[], ids=ids)
  sys.exit(0)
wanted = [l.strip() for l in open(ids_path) if l.strip()]
notfound = [i for i in wanted if i.endswith("gone") or i.split("::")[0] in broken]
run = [i for i in wanted if i not in notfound]
w(event="collected", selected=len(run), notfound=notfound)
print("running", len(run), flush=True)
for i in run:
  w(event="start", nodeid=i)
  if i.endswith("crash"):
    print("Fatal Python error: Segmentation fault", flush=True)
    os.kill(os.getpid(), signal.SIGSEGV)
  if i.endswith("abort"):
    os._exit(3)
  if i.endswith("hang"):
    time.sleep(60)
  if i.endswith("fail"):
    w(event="result", nodeid=i, outcome="FAIL", seconds=0.01,
      error="AssertionError: Arrays differ at 0x7f3a2b; shapes (3, 4) vs f32[3,4], max 1.5e-3")
  elif i.endswith("skip"):
    w(event="result", nodeid=i, outcome="SKIP", seconds=0.0, error="not on gpu")
  else:
    w(event="result", nodeid=i, outcome="PASS", seconds=0.01, error="")
sys.exit(1 if any(i.endswith("fail") for i in run) else 0)
'''

FAKE_JAX = r'''
__version__ = "0.0.fake"
class _Client: platform_version = "fake"
class _Dev:
  platform = "cpu"; device_kind = "fake cpu"; client = _Client()
def devices(): return [_Dev()]
'''


def write_fake_site(root: pathlib.Path, with_jax: bool = True) -> pathlib.Path:
  site = root / "site"
  (site / "pytest").mkdir(parents=True)
  (site / "pytest" / "__init__.py").write_text("")
  (site / "pytest" / "__main__.py").write_text(FAKE_PYTEST_MAIN)
  if with_jax:
    for pkg in ("absl", "absl/testing", "numpy", "scipy", "jaxlib"):
      (site / pkg).mkdir(parents=True, exist_ok=True)
      (site / pkg / "__init__.py").write_text("")
    (site / "absl/testing/absltest.py").write_text("")
    (site / "absl/testing/parameterized.py").write_text("")
    (site / "jax").mkdir()
    (site / "jax" / "__init__.py").write_text(FAKE_JAX)
  return site


def fake_launcher(site: pathlib.Path, cwd: pathlib.Path):
  def launch(ids_path, results_path, log):
    files = sorted({suite.file_of(i) for i in suite.read_list(ids_path)})
    env = dict(os.environ, PYTHONPATH=str(site), JAX_SUITE_IDS=str(ids_path),
               JAX_SUITE_RESULTS=str(results_path))
    return subprocess.Popen([sys.executable, "-m", "pytest", *files], cwd=cwd, env=env,
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
  return launch


class TempDirTest(unittest.TestCase):
  def setUp(self):
    self.tmp = pathlib.Path(tempfile.mkdtemp(prefix="jax_suite_test_"))

  def tearDown(self):
    shutil.rmtree(self.tmp, ignore_errors=True)


class ListTest(TempDirTest):
  def test_read_skips_comments_blanks_and_duplicates(self):
    p = self.tmp / "l.txt"
    p.write_text("# header\n\na.py::T::t1\n  a.py::T::t2  \na.py::T::t1\n")
    self.assertEqual(suite.read_list(p), ["a.py::T::t1", "a.py::T::t2"])

  def test_write_returns_sha_of_bytes(self):
    import hashlib
    p = self.tmp / "l.txt"
    sha = suite.write_list(p, ["x::a", "y::b"])
    self.assertEqual(sha, hashlib.sha256(p.read_bytes()).hexdigest())
    self.assertEqual(p.read_text(), "x::a\ny::b\n")

  def test_meta_path(self):
    self.assertEqual(suite.meta_path("d/list.txt"), pathlib.Path("d/list.meta.json"))
    self.assertEqual(suite.meta_path("d/selected.txt").name, "selected.meta.json")
    self.assertEqual(suite.read_meta(self.tmp / "none.txt"), {})

  def test_file_of(self):
    self.assertEqual(suite.file_of("tests/lax_test.py::LaxTest::testAdd0"), "tests/lax_test.py")


class SamplingTest(unittest.TestCase):
  IDS = [f"tests/f{k % 3}.py::T::test{k}" for k in range(200)]

  def test_seeded_sample_is_deterministic_and_order_free(self):
    a = suite.sample_ids(self.IDS, size=25, seed=7)
    b = suite.sample_ids(list(reversed(self.IDS)), size=25, seed=7)
    self.assertEqual(len(a), 25)
    self.assertEqual(sorted(a), sorted(b))
    self.assertEqual(a, [i for i in self.IDS if i in set(a)])  # input order kept
    self.assertNotEqual(sorted(a), sorted(suite.sample_ids(self.IDS, size=25, seed=8)))

  def test_sample_is_stable_when_ids_are_added(self):
    a = set(suite.sample_ids(self.IDS, size=25, seed=1))
    more = self.IDS + [f"tests/new.py::T::t{k}" for k in range(5)]
    b = set(suite.sample_ids(more, size=25, seed=1))
    self.assertGreaterEqual(len(a & b), 20)  # at most the 5 new ids displace old ones

  def test_every_kth(self):
    s = suite.sample_ids(self.IDS, every=10)
    self.assertEqual(len(s), 20)
    self.assertEqual(set(s), set(sorted(self.IDS)[::10]))

  def test_no_sampling_keeps_all(self):
    self.assertEqual(suite.sample_ids(self.IDS), self.IDS)
    self.assertEqual(suite.sample_ids(self.IDS, size=1000), self.IDS)

  def test_record(self):
    r = suite.sampling_record(25, 7, None, 200, 25)
    self.assertIn("sha256", r["method"])
    self.assertEqual((r["seed"], r["population"], r["chosen"]), (7, 200, 25))


class BatchingTest(unittest.TestCase):
  def test_one_file_per_batch_sizes_and_round_robin(self):
    ids = [f"a.py::T::t{k}" for k in range(5)] + [f"b.py::T::t{k}" for k in range(2)]
    batches = suite.make_batches(ids, 2)
    self.assertEqual([len(b) for b in batches], [2, 2, 2, 1])
    self.assertEqual([suite.file_of(b[0]) for b in batches], ["a.py", "b.py", "a.py", "a.py"])
    for b in batches:
      self.assertEqual(len({suite.file_of(i) for i in b}), 1)
    self.assertEqual(sorted(i for b in batches for i in b), sorted(ids))

  def test_empty_and_tiny(self):
    self.assertEqual(suite.make_batches([], 10), [])
    self.assertEqual(suite.make_batches(["a.py::x"], 0), [["a.py::x"]])


class OutcomeTest(unittest.TestCase):
  f = jsonl_plugin.outcome_from_phases

  def test_phases(self):
    f = jsonl_plugin.outcome_from_phases
    ok = ("passed", False, "")
    self.assertEqual(f({"setup": ok, "call": ok, "teardown": ok}), ("PASS", ""))
    self.assertEqual(f({"setup": ok, "call": ("failed", False, "AssertionError: x"),
                        "teardown": ok}), ("FAIL", "AssertionError: x"))
    self.assertEqual(f({"setup": ("failed", False, "fixture broke"), "teardown": ok}),
                     ("ERROR", "fixture broke"))
    self.assertEqual(f({"setup": ("skipped", False, "needs tpu"), "teardown": ok}),
                     ("SKIP", "needs tpu"))
    self.assertEqual(f({"setup": ok, "call": ("skipped", False, "unittest skip")}),
                     ("SKIP", "unittest skip"))
    self.assertEqual(f({"setup": ok, "call": ("skipped", True, "")}), ("SKIP", "xfail"))
    self.assertEqual(f({"setup": ok, "call": ok, "teardown": ("failed", False, "leak")}),
                     ("ERROR", "leak"))
    self.assertEqual(f({"setup": ok})[0], "ERROR")

  def test_first_line(self):
    self.assertEqual(jsonl_plugin.first_line("\n\n  ValueError: bad\nmore"), "ValueError: bad")
    self.assertEqual(jsonl_plugin.first_line(""), "")
    self.assertEqual(jsonl_plugin.first_line("AssertionError: \nNot equal to tolerance rtol=1e-06\n"),
                     "AssertionError: Not equal to tolerance rtol=1e-06")
    self.assertEqual(jsonl_plugin.first_line("x" * 900), "x" * 500)


class TestSupportTest(TempDirTest):
  """JAX's wheels leave out test helpers its tests import (pallas_test_util,
  hypothesis_test_util): prepare's copies are registered under their module
  names, and only where the installed package lacks them."""

  def test_missing_helpers_are_registered_and_installed_ones_kept(self):
    installed = self.tmp / "site"
    (installed / "jft_fake_jax" / "sub").mkdir(parents=True)
    (installed / "jft_fake_jax" / "__init__.py").write_text("")
    (installed / "jft_fake_jax" / "sub" / "__init__.py").write_text("")
    (installed / "jft_fake_jax" / "present_test_util.py").write_text("WHO = 'installed'\n")
    support = self.tmp / "support"
    (support / "jft_fake_jax" / "sub").mkdir(parents=True)
    (support / "jft_fake_jax" / "present_test_util.py").write_text("WHO = 'prepared'\n")
    (support / "jft_fake_jax" / "sub" / "extra_test_util.py").write_text(
        "from jft_fake_jax import present_test_util\nWHO = 'prepared ' + present_test_util.WHO\n")
    (support / "jft_fake_jax" / "broken_test_util.py").write_text("import jft_no_such_module\n")
    (support / "jft_not_installed").mkdir()
    (support / "jft_not_installed" / "x_test_util.py").write_text("")
    sys.path.insert(0, str(installed))
    try:
      registered = jsonl_plugin.register_test_support(str(support))
      self.assertEqual(registered, ["jft_fake_jax.sub.extra_test_util"])
      from jft_fake_jax.sub import extra_test_util
      self.assertEqual(extra_test_util.WHO, "prepared installed")
      import jft_fake_jax.present_test_util as present
      self.assertEqual(present.WHO, "installed")
      self.assertNotIn("jft_fake_jax.broken_test_util", sys.modules)
    finally:
      sys.path.remove(str(installed))
      for name in [n for n in sys.modules if n.startswith("jft_fake_jax")]:
        del sys.modules[name]


class MergeTest(unittest.TestCase):
  IDS = ["a.py::T::t1", "a.py::T::t2", "a.py::T::t3", "a.py::T::t4"]

  def rep(self, lines):
    return suite.parse_records(json.dumps(l) for l in lines)

  def test_parse_ignores_torn_last_line(self):
    lines = [json.dumps({"event": "start", "nodeid": "a"}),
             json.dumps({"event": "result", "nodeid": "a", "outcome": "PASS", "seconds": 1}),
             '{"event": "start", "nod']
    rep = suite.parse_records(lines)
    self.assertEqual(rep.started, ["a"])
    self.assertEqual(rep.results["a"]["outcome"], "PASS")

  def test_normal_exit_keeps_reported_and_errors_the_rest(self):
    rep = self.rep([{"event": "collected", "notfound": ["a.py::T::t4"]},
                    {"event": "start", "nodeid": "a.py::T::t1"},
                    {"event": "result", "nodeid": "a.py::T::t1", "outcome": "FAIL",
                     "seconds": 2, "error": "boom"}])
    out, requeue = suite.merge_batch(self.IDS, rep, suite.BatchEnd("exit", 1), True)
    self.assertEqual(requeue, [])
    self.assertEqual(out["a.py::T::t1"]["outcome"], "FAIL")
    self.assertEqual(out["a.py::T::t2"]["outcome"], "ERROR")
    self.assertIn("no result reported", out["a.py::T::t2"]["error"])
    self.assertIn("not collected", out["a.py::T::t4"]["error"])

  def test_collect_error_is_named(self):
    rep = self.rep([{"event": "collect_error", "nodeid": "a.py", "error": "ImportError: x"},
                    {"event": "collected", "notfound": self.IDS}])
    out, _ = suite.merge_batch(self.IDS, rep, suite.BatchEnd("exit", 1), True)
    self.assertTrue(all(r["outcome"] == "ERROR" for r in out.values()))
    self.assertIn("ImportError: x", out["a.py::T::t3"]["error"])

  def test_crash_errors_running_test_and_requeues_the_rest(self):
    rep = self.rep([{"event": "collected", "notfound": []},
                    {"event": "start", "nodeid": "a.py::T::t1"},
                    {"event": "result", "nodeid": "a.py::T::t1", "outcome": "PASS"},
                    {"event": "start", "nodeid": "a.py::T::t2"}])
    end = suite.BatchEnd("crash", -11, "Fatal Python error: Segmentation fault")
    out, requeue = suite.merge_batch(self.IDS, rep, end, True)
    self.assertEqual(out["a.py::T::t1"]["outcome"], "PASS")
    self.assertEqual(out["a.py::T::t2"]["outcome"], "ERROR")
    self.assertIn("SIGSEGV", out["a.py::T::t2"]["error"])
    self.assertIn("Segmentation fault", out["a.py::T::t2"]["error"])
    self.assertEqual(requeue, ["a.py::T::t3", "a.py::T::t4"])

  def test_crash_without_requeue_marks_unfinished_error(self):
    rep = self.rep([{"event": "start", "nodeid": "a.py::T::t1"}])
    out, requeue = suite.merge_batch(self.IDS, rep, suite.BatchEnd("crash", -6), False)
    self.assertEqual(requeue, [])
    self.assertEqual({r["outcome"] for r in out.values()}, {"ERROR"})
    self.assertIn("not run", out["a.py::T::t3"]["error"])

  def test_crash_before_any_test_is_not_requeued(self):
    out, requeue = suite.merge_batch(self.IDS, self.rep([]), suite.BatchEnd("crash", -11), True)
    self.assertEqual(requeue, [])
    self.assertEqual(len(out), 4)

  def test_timeout(self):
    rep = self.rep([{"event": "collected", "notfound": []},
                    {"event": "start", "nodeid": "a.py::T::t1"}])
    end = suite.BatchEnd("timeout", -9, seconds=120)
    out, requeue = suite.merge_batch(self.IDS, rep, end, True)
    self.assertEqual(out["a.py::T::t1"]["outcome"], "TIMEOUT")
    self.assertEqual(requeue, self.IDS[1:])
    out, requeue = suite.merge_batch(self.IDS, rep, end, False)
    self.assertEqual([out[i]["outcome"] for i in self.IDS], ["TIMEOUT"] * 4)
    out, _ = suite.merge_batch(self.IDS, self.rep([]), end, True)
    self.assertIn("before collection finished", out["a.py::T::t2"]["error"])

  def test_budget_marks_unfinished_missing(self):
    rep = self.rep([{"event": "start", "nodeid": "a.py::T::t1"},
                    {"event": "result", "nodeid": "a.py::T::t1", "outcome": "PASS"},
                    {"event": "start", "nodeid": "a.py::T::t2"}])
    out, requeue = suite.merge_batch(self.IDS, rep, suite.BatchEnd("budget", -9), True)
    self.assertEqual(requeue, [])
    self.assertEqual([out[i]["outcome"] for i in self.IDS], ["PASS"] + ["MISSING"] * 3)

  def test_classify_and_describe(self):
    self.assertEqual(suite.classify_exit(0, None), "exit")
    self.assertEqual(suite.classify_exit(1, None), "exit")
    self.assertEqual(suite.classify_exit(5, None), "exit")
    self.assertEqual(suite.classify_exit(3, None), "crash")
    self.assertEqual(suite.classify_exit(-11, None), "crash")
    self.assertEqual(suite.classify_exit(-9, "timeout"), "timeout")
    self.assertEqual(suite.describe_rc(-11), "signal SIGSEGV")
    self.assertEqual(suite.describe_rc(4), "exit status 4")

  def test_log_tail(self):
    log = "collected\nFatal Python error: Aborted\n\nThread 0x1 (most recent call first):\n  File x\n"
    self.assertEqual(suite.log_tail_message(log), "Fatal Python error: Aborted")
    self.assertEqual(suite.log_tail_message("a\nlast line\n"), "last line")
    self.assertEqual(suite.log_tail_message("FF.sFxFatal Python error: Segmentation fault\nx\n"),
                     "Fatal Python error: Segmentation fault")


class NormaliseTest(unittest.TestCase):
  def test_strips_specifics(self):
    a = suite.normalize_error("AssertionError: Arrays differ at 0x7f3a2b; shapes (3, 4) vs "
                              "f32[3,4], max 1.5e-3 at index 17")
    b = suite.normalize_error("AssertionError: Arrays differ at 0xdead; shapes (10, 2) vs "
                              "f32[10,2], max 2e-7 at index 0")
    self.assertEqual(a, b)
    self.assertEqual(a, "AssertionError: Arrays differ at 0x?; shapes (S) vs f32[S], max N at index N")

  def test_keeps_dtype_names_and_words(self):
    self.assertEqual(suite.normalize_error("unsupported op stablehlo.cosine on float32  x2"),
                     "unsupported op stablehlo.cosine on float32 x2")
    self.assertEqual(suite.normalize_error(""), "(no message)")

  def test_machine_paths_are_cut(self):
    # Outcomes recorded on the GPU machine are committed: no directory of that machine.
    self.assertEqual(
        suite.without_machine_paths(
            "FileNotFoundError: '/srv/checkout/tests/jax_suite/upstream/docs/jax.numpy.rst'"),
        "FileNotFoundError: 'tests/jax_suite/upstream/docs/jax.numpy.rst'")
    self.assertEqual(
        suite.without_machine_paths(
            "kernel at /opt/env/lib/python3.12/site-packages/jax/_src/helpers.py:487 captures"),
        "kernel at site-packages/jax/_src/helpers.py:487 captures")
    self.assertEqual(suite.without_machine_paths("tests/a_test.py:3: relative stays"),
                     "tests/a_test.py:3: relative stays")

  def test_grouping(self):
    rows = [{"nodeid": f"a::t{k}", "outcome": "FAIL", "error": f"Mismatch at {k}"} for k in range(5)]
    rows += [{"nodeid": "a::x", "outcome": "ERROR", "error": "crashed: signal SIGSEGV"},
             {"nodeid": "a::y", "outcome": "TIMEOUT", "error": "batch timed out after 12s"},
             {"nodeid": "a::z", "outcome": "PASS", "error": ""},
             {"nodeid": "a::w", "outcome": "SKIP", "error": "skip 1"}]
    g = suite.group_failures(rows, top=2)
    self.assertEqual(len(g), 2)
    self.assertEqual((g[0]["cause"], g[0]["count"], g[0]["example"]), ("Mismatch at N", 5, "a::t0"))
    self.assertEqual(g[0]["outcomes"], {"FAIL": 5})
    self.assertEqual(g[1]["count"], 1)


class CompareTest(unittest.TestCase):
  def test_compare(self):
    up = [{"nodeid": "a", "outcome": "PASS", "error": ""},
          {"nodeid": "b", "outcome": "PASS", "error": ""},
          {"nodeid": "c", "outcome": "FAIL", "error": "x 1"}]
    ours = [{"nodeid": "a", "outcome": "PASS", "error": ""},
            {"nodeid": "b", "outcome": "FAIL", "error": "unsupported op 3"},
            {"nodeid": "c", "outcome": "PASS", "error": ""},
            {"nodeid": "d", "outcome": "MISSING", "error": "not run"}]
    c = suite.compare_rows(up, ours)
    self.assertEqual(c["regressions"], 1)
    self.assertEqual(c["pass_upstream_only"], ["b"])
    self.assertEqual(c["pass_ours_only"], ["c"])
    self.assertEqual(c["transitions"], {"FAIL->PASS": 1, "PASS->FAIL": 1, "PASS->PASS": 1})
    self.assertEqual(c["ours"]["MISSING"], 1)
    text = suite.format_compare(c)
    self.assertIn("unsupported op N", text)
    self.assertRegex(text, r"PASS\s+2\s+2")

  def test_counts_and_rows(self):
    rows = suite.result_rows(["a", "b"], {"a": {"outcome": "SKIP", "seconds": 0.1234, "error": "s"}})
    self.assertEqual(rows[1]["outcome"], "MISSING")
    self.assertEqual(rows[0]["seconds"], 0.123)
    self.assertEqual(suite.count_outcomes(rows), {"PASS": 0, "FAIL": 0, "ERROR": 0, "SKIP": 1,
                                                  "TIMEOUT": 0, "MISSING": 1})


class SchedulerTest(TempDirTest):
  """run_batches on real processes of the fake pytest."""

  def run_ids(self, ids, **kw):
    site = write_fake_site(self.tmp)
    kw.setdefault("parallel", 3)
    return suite.run_batches(suite.make_batches(ids, kw.pop("batch_size", 3)), self.tmp / "w",
                             fake_launcher(site, self.tmp), **kw)

  def test_mixed_outcomes_crash_requeue_and_notfound(self):
    ids = (["a.py::T::t1pass", "a.py::T::t2crash", "a.py::T::t3pass", "a.py::T::t4fail",
            "a.py::T::t5abort", "a.py::T::t6skip", "a.py::T::t7gone"]
           + [f"b.py::T::t{k}pass" for k in range(4)] + ["broken_x.py::T::t1pass"])
    res = self.run_ids(ids, batch_size=7, batch_timeout=30)
    out = {i: res[i]["outcome"] for i in ids}
    self.assertEqual(out["a.py::T::t1pass"], "PASS")
    self.assertEqual(out["a.py::T::t2crash"], "ERROR")
    self.assertIn("SIGSEGV", res["a.py::T::t2crash"]["error"])
    self.assertIn("Segmentation fault", res["a.py::T::t2crash"]["error"])
    self.assertEqual(out["a.py::T::t3pass"], "PASS")   # requeued after the crash
    self.assertEqual(out["a.py::T::t4fail"], "FAIL")
    self.assertEqual(out["a.py::T::t5abort"], "ERROR")
    self.assertIn("exit status 3", res["a.py::T::t5abort"]["error"])
    self.assertEqual(out["a.py::T::t6skip"], "SKIP")  # requeued twice
    self.assertEqual(out["a.py::T::t7gone"], "ERROR")
    self.assertIn("not collected", res["a.py::T::t7gone"]["error"])
    self.assertEqual(out["broken_x.py::T::t1pass"], "ERROR")
    self.assertIn("ImportError", res["broken_x.py::T::t1pass"]["error"])
    for k in range(4):
      self.assertEqual(out[f"b.py::T::t{k}pass"], "PASS")
    self.assertTrue((self.tmp / "w" / "logs").is_dir())

  def test_requeue_limit(self):
    ids = [f"a.py::T::t{k}crash" for k in range(4)]
    res = self.run_ids(ids, batch_size=4, max_requeue=1, batch_timeout=30)
    self.assertEqual([res[i]["outcome"] for i in ids], ["ERROR"] * 4)
    self.assertIn("crashed", res[ids[0]]["error"])
    self.assertIn("crashed", res[ids[1]]["error"])
    self.assertIn("not run", res[ids[2]]["error"])

  def test_batch_timeout(self):
    ids = ["a.py::T::t1pass", "a.py::T::t2hang", "a.py::T::t3pass"]
    t0 = time.monotonic()
    res = self.run_ids(ids, batch_size=3, batch_timeout=5)
    self.assertLess(time.monotonic() - t0, 30)
    self.assertEqual([res[i]["outcome"] for i in ids], ["PASS", "TIMEOUT", "PASS"])

  def test_budget_stops_launching_and_kills(self):
    ids = [f"a.py::T::t{k}hang" for k in range(3)] + [f"b.py::T::t{k}pass" for k in range(6)]
    t0 = time.monotonic()
    res = self.run_ids(ids, batch_size=1, parallel=2, batch_timeout=60, budget=4, reserve=1)
    self.assertLess(time.monotonic() - t0, 30)
    outcomes = [res[i]["outcome"] for i in ids]
    self.assertEqual(outcomes[:2], ["MISSING", "MISSING"])  # killed at the budget's end
    self.assertIn("MISSING", outcomes[2:])                   # never started
    self.assertEqual(len(res), len(ids))


class CommandLineTest(TempDirTest):
  """run.py's commands end to end, with the fake pytest and a fake jax."""

  def prepared(self) -> pathlib.Path:
    prep = self.tmp / "prep"
    (prep / "tests").mkdir(parents=True)
    for name in ("a_test", "b_test"):
      (prep / "tests" / f"{name}.py").write_text("")
    (prep / "SOURCE.json").write_text(json.dumps(
        {"revision": "jax-v0.0.0", "commit": "0" * 40, "jax_version_wanted": "0.0.fake",
         "build_rev": "abc123"}))
    return prep

  def call(self, *argv):
    buf = io.StringIO()
    with redirect_stdout(buf):
      rc = runner.main([str(a) for a in argv])
    return rc, buf.getvalue()

  def env(self, with_jax=True):
    site = write_fake_site(self.tmp, with_jax)
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(site)
    self.addCleanup(lambda: os.environ.__setitem__("PYTHONPATH", old) if old is not None
                    else os.environ.pop("PYTHONPATH", None))

  def test_collect_run_make_list_compare(self):
    self.env()
    prep = self.prepared()
    col = self.tmp / "col"
    rc, _ = self.call("collect", "--prepared", prep, "--out", col, "--platform", "cpu",
                      "--files", "a_test", "b_test", "--sample", "4", "--seed", "3")
    self.assertEqual(rc, 0)
    self.assertEqual(len(suite.read_list(col / "collected.txt")), 6)
    selected = suite.read_list(col / "selected.txt")
    self.assertEqual(len(selected), 4)
    meta = json.loads((col / "selected.meta.json").read_text())
    self.assertEqual((meta["size"], meta["sampling"]["seed"], meta["generated_cases"]), (4, 3, 10))

    up = self.tmp / "up"
    rc, _ = self.call("run", "--upstream", "--prepared", prep, "--out", up, "--platform", "cpu",
                      "--list", col / "selected.txt", "--parallel", "2", "--batch-size", "2")
    self.assertEqual(rc, 0)
    summary = json.loads((up / "summary.json").read_text())
    self.assertEqual(summary["counts"]["PASS"], 4)
    prov = json.loads((up / "provenance.json").read_text())
    self.assertEqual(prov["mode"], "upstream")
    self.assertEqual(prov["versions"].get("jax"), None)  # the fake has no metadata
    self.assertEqual(prov["probe_env"]["JAX_FLAGTREE_DISABLE"], "1")
    self.assertEqual(prov["probe_env"]["XLA_PYTHON_CLIENT_PREALLOCATE"], "false")
    self.assertEqual(prov["list"]["meta"]["sampling"]["seed"], 3)
    self.assertIn("rev", prov["build"])
    self.assertEqual(len(suite.read_rows(up / "results.jsonl")), 4)

    lst = self.tmp / "list.txt"
    rc, _ = self.call("make-list", "--from", up, "--list", lst)
    self.assertEqual(rc, 0)
    lmeta = json.loads((self.tmp / "list.meta.json").read_text())
    self.assertEqual(lmeta["size"], 4)
    self.assertEqual(lmeta["sampling"] if "sampling" in lmeta else lmeta["made_from"]["sampling"],
                     meta["sampling"])
    self.assertEqual(lmeta["command"], "python3 tests/jax_suite/run.py make-list --from up")
    import hashlib
    self.assertEqual(lmeta["sha256"], hashlib.sha256(lst.read_bytes()).hexdigest())

    ours = self.tmp / "ours"
    rc, _ = self.call("run", "--prepared", prep, "--out", ours, "--platform", "cpu",
                      "--list", lst, "--budget", "60", "--build-rev", "deadbeef")
    self.assertEqual(rc, 0)
    prov = json.loads((ours / "provenance.json").read_text())
    self.assertEqual(prov["probe_env"]["XLA_MODE"], "fl_only")
    self.assertIsNone(prov["probe_env"]["JAX_FLAGTREE_DISABLE"])
    self.assertEqual(prov["build"]["rev"], "deadbeef")
    rc, text = self.call("compare", up, ours, "--json", self.tmp / "c.json")
    self.assertEqual(rc, 0)
    self.assertIn("pass upstream but not ours: 0", text)

  def test_missing_modules_are_reported(self):
    self.env(with_jax=False)
    prep = self.prepared()
    lst = self.tmp / "l.txt"
    suite.write_list(lst, ["tests/a_test.py::T::t1pass"])
    rc, text = self.call("run", "--prepared", prep, "--out", self.tmp / "o", "--list", lst)
    self.assertEqual(rc, 3)
    self.assertIn("python modules missing", text)
    summary = json.loads((self.tmp / "o" / "summary.json").read_text())
    self.assertEqual(summary["counts"]["ERROR"], 1)
    self.assertIn("absl", summary["environment_error"])
    self.assertIn("jax", summary["environment_error"])

  def test_ours_mode_requires_our_plugin_on_gpu(self):
    problem = runner.environment_problem(
        runner.argparse.Namespace(platform="cuda", upstream=False),
        {"missing": [], "platform": "gpu", "flagtree_registered": False})
    self.assertIn("not the active backend", problem)
    problem = runner.environment_problem(
        runner.argparse.Namespace(platform="cuda", upstream=True),
        {"missing": [], "platform": "gpu", "flagtree_registered": True})
    self.assertIn("registered itself", problem)
    self.assertIsNone(runner.environment_problem(
        runner.argparse.Namespace(platform="cuda", upstream=True),
        {"missing": [], "platform": "gpu", "flagtree_registered": False}))


@unittest.skipUnless(shutil.which("git"), "git not installed")
class PrepareTest(TempDirTest):
  def git(self, *args):
    subprocess.run(["git", "-C", str(self.repo), *args], check=True, capture_output=True)

  def setUp(self):
    super().setUp()
    self.repo = self.tmp / "jax"
    (self.repo / "tests").mkdir(parents=True)
    (self.repo / "jax").mkdir()
    self.git("init", "-q")
    self.git("config", "user.email", "t@example.com")
    self.git("config", "user.name", "t")
    for version, body in (("0.1.0", "old"), ("0.2.0", "new")):
      (self.repo / "jax" / "version.py").write_text(f'_version = "{version}"\n')
      (self.repo / "tests" / "x_test.py").write_text(f"# {body}\n")
      (self.repo / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
      self.git("add", "-A")
      self.git("commit", "-q", "-m", version)
      self.git("tag", f"jax-v{version}")

  def prepare(self, *extra):
    dest = self.tmp / "prep"
    with redirect_stdout(io.StringIO()):
      runner.main(["prepare", "--jax-git", str(self.repo / ".git"), "--dest", str(dest),
                   "--files", "x_test", "--build-rev", "r1", *extra])
    return dest, json.loads((dest / "SOURCE.json").read_text())

  def test_exact_tag(self):
    dest, src = self.prepare("--jax-version", "0.1.0")
    self.assertTrue(src["exact"])
    self.assertEqual(src["revision"], "jax-v0.1.0")
    self.assertEqual((dest / "tests" / "x_test.py").read_text(), "# old\n")
    self.assertTrue((dest / "pyproject.toml").exists())
    self.assertEqual(src["build_rev"], "r1")

  def test_newer_version_falls_back_to_newest_older_tag(self):
    dest, src = self.prepare("--jax-version", "0.2.5")
    self.assertFalse(src["exact"])
    self.assertEqual(src["revision"], "jax-v0.2.0")
    self.assertEqual(src["jax_version_at_revision"], "0.2.0")
    self.assertEqual((dest / "tests" / "x_test.py").read_text(), "# new\n")

  def test_explicit_rev_and_refuses_foreign_folder(self):
    dest, src = self.prepare("--rev", "jax-v0.1.0")
    self.assertEqual(src["revision"], "jax-v0.1.0")
    foreign = self.tmp / "foreign"
    foreign.mkdir()
    (foreign / "keep.txt").write_text("x")
    with self.assertRaises(SystemExit):
      runner.main(["prepare", "--jax-git", str(self.repo / ".git"), "--dest", str(foreign),
                   "--jax-version", "0.1.0"])
    self.assertTrue((foreign / "keep.txt").exists())

class TestFilesMismatchTest(unittest.TestCase):
  def test_other_commit_is_named_with_the_fix(self):
    why = runner.test_files_mismatch(
        {"jax_revision": "cec06d116c", "jax_commit": "cec06d116c05f0d5"},
        {"commit": "a1521744c6dc0744", "revision": "jax-v0.11.0"})
    self.assertIn("a1521744c6", why)
    self.assertIn("--rev cec06d116c", why)

  def test_same_or_unknown_commit_is_fine(self):
    self.assertIsNone(runner.test_files_mismatch({"jax_commit": "abc"}, {"commit": "abc"}))
    self.assertIsNone(runner.test_files_mismatch({}, {"commit": "abc"}))


if __name__ == "__main__":
  unittest.main()
