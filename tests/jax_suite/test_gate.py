"""CPU tests of the whole-suite gate's logic: profiles, stratified sampling, shards and the
plan, the per-test timeout, the strict verdict and its allowlist, failure classes, and
the commands end to end with test_runner's fake pytest (standard library only).

    python3 -m unittest discover tests/jax_suite
"""

from __future__ import annotations

import collections
import io
import json
import os
import pathlib
import unittest
from contextlib import redirect_stdout

import profiles
import run as runner
import stratify
import suite
import verdict
from test_runner import TempDirTest, fake_launcher, write_fake_site


class ProfilesTest(unittest.TestCase):
  def test_excluded(self):
    for path in ("tests/mosaic/matmul_test.py", "tests/filecheck/math.filecheck.py",
                 "tests/pallas/tpu_ops_test.py", "tests/helper.py"):
      self.assertEqual(profiles.classify(path, "")[0], "excluded", path)

  def test_two_gpu_by_name_marker_and_guards(self):
    self.assertEqual(profiles.classify("tests/multi_device_test.py", "")[0], "two_gpu")
    self.assertEqual(profiles.classify("tests/multiprocess/pjit_test.py", "")[0], "two_gpu")
    marker = "pytestmark = jtu.pytest_mark_if_available('multiaccelerator')\ndef test_a(): pass\n"
    self.assertEqual(profiles.classify("tests/pjit_test.py", marker)[0], "two_gpu")
    guard = "  if jax.device_count() < 2: self.skipTest('x')\n"
    tests = "  def test_x(self): pass\n"
    dense = guard * 6 + tests * 20
    kind, reason = profiles.classify("tests/foo_test.py", dense)
    self.assertEqual(kind, "two_gpu")
    self.assertIn("6 fewer-than-2-devices guards over 20 tests", reason)
    # A few guards in a big single-device file do not move it.
    sparse = guard * 6 + tests * 500
    self.assertEqual(profiles.classify("tests/foo_test.py", sparse)[0], "one_gpu")
    self.assertEqual(profiles.classify("tests/lax_test.py", tests)[0], "one_gpu")

  def test_x64_is_numeric_subset_of_one_gpu(self):
    d = {"tests/lax_test.py": ("one_gpu", ""), "tests/lax_numpy_test.py": ("one_gpu", ""),
         "tests/api_test.py": ("one_gpu", ""), "tests/linalg_test.py": ("two_gpu", ""),
         "tests/scipy_stats_test.py": ("one_gpu", "")}
    self.assertEqual(profiles.files_for("x64", d),
                     ["tests/lax_numpy_test.py", "tests/lax_test.py", "tests/scipy_stats_test.py"])
    self.assertEqual(profiles.files_for("two_gpu", d), ["tests/linalg_test.py"])
    with self.assertRaises(ValueError):
      profiles.files_for("three_gpu", d)
    self.assertEqual(profiles.PROFILE_ENV["x64"], {"JAX_ENABLE_X64": "1"})


def population():
  """One huge file (30 methods x 200 cases), one medium, 20 small ones."""
  ids = [f"tests/big_test.py::T::testM{m}_{c}" for m in range(30) for c in range(200)]
  ids += [f"tests/mid_test.py::T::testK{c}" for c in range(300)]
  for f in range(20):
    ids += [f"tests/s{f}_test.py::T::testS{c}" for c in range(f + 1)]
  return ids


class StratifyTest(unittest.TestCase):
  def test_water_fill_and_quotas(self):
    counts = {"a": 5, "b": 100, "c": 1000}
    cap = stratify.water_fill(counts, 305)
    self.assertEqual(cap, 200)
    q = stratify.quotas(counts, 305)
    self.assertEqual(q, {"a": 5, "b": 100, "c": 200})
    q = stratify.quotas(counts, 200)
    self.assertEqual(sum(q.values()), 200)
    self.assertEqual(q["a"], 5)
    self.assertLessEqual(abs(q["b"] - q["c"]), 1)  # capped files share alike
    self.assertEqual(stratify.quotas(counts, 10_000), counts)  # more than there is: all

  def test_small_files_whole_big_ones_capped(self):
    ids = population()
    chosen, rec = stratify.stratify(ids, 600, seed=1)
    self.assertEqual(len(chosen), 600)
    per = collections.Counter(stratify.file_of(i) for i in chosen)
    for f in range(20):
      self.assertEqual(per[f"tests/s{f}_test.py"], f + 1)
    self.assertEqual(per["tests/big_test.py"], 195)  # (600 - 210) / 2
    self.assertEqual(per["tests/mid_test.py"], 195)
    self.assertEqual(rec["files_kept"], 22)
    self.assertEqual(rec["per_file"]["tests/s3_test.py"], {"collected": 4, "kept": 4})
    # Every method of the big file is represented before any gets a second case.
    methods = {stratify.method_of(i) for i in chosen if i.startswith("tests/big_test.py")}
    self.assertEqual(len(methods), 30)
    self.assertEqual(chosen, [i for i in ids if i in set(chosen)])  # input order kept

  def test_deterministic_and_order_free(self):
    ids = population()
    a, _ = stratify.stratify(ids, 700, seed=5)
    b, _ = stratify.stratify(list(reversed(ids)), 700, seed=5)
    self.assertEqual(sorted(a), sorted(b))
    c, _ = stratify.stratify(ids, 700, seed=6)
    self.assertNotEqual(sorted(a), sorted(c))

  def test_method_of(self):
    self.assertEqual(stratify.method_of("t.py::C::testAdd12"), "t.py::C::testAdd")
    self.assertEqual(stratify.method_of("t.py::test_x[float32-3]"), "t.py::test_x")

  def test_exclude_file(self):
    chosen, _ = stratify.stratify(population(), 500, 0, ("tests/big_test.py",))
    self.assertFalse(any(i.startswith("tests/big_test.py") for i in chosen))


class ShardPlanTest(unittest.TestCase):
  IDS = [f"tests/f{k % 3}.py::T::t{k}" for k in range(31)]

  def test_shards_partition_the_list_and_share_every_file(self):
    shards = [suite.shard_ids(self.IDS, i, 3) for i in (1, 2, 3)]
    self.assertEqual(sorted(sum(shards, [])), sorted(self.IDS))
    for s in shards:
      self.assertEqual({suite.file_of(i) for i in s}, {f"tests/f{k}.py" for k in range(3)})
      self.assertLessEqual(abs(len(s) - len(self.IDS) / 3), 2)
    self.assertEqual(suite.shard_ids(self.IDS, 1, 1), self.IDS)

  def test_parse_shard(self):
    self.assertEqual(suite.parse_shard("2/3"), (2, 3))
    self.assertEqual(suite.parse_shard(None), (1, 1))
    for bad in ("0/2", "3/2", "x", "1/0"):
      with self.assertRaises(ValueError):
        suite.parse_shard(bad)
    with self.assertRaises(ValueError):
      suite.shard_ids(self.IDS, 3, 2)

  def test_plan(self):
    batches = suite.make_batches(self.IDS, 4)
    p = suite.plan(batches, parallel=2, seconds_per_test=1.0, seconds_per_batch=10.0)
    self.assertEqual((p["ids"], p["batches"], p["files"]), (31, 9, 3))
    self.assertEqual(p["per_file"]["tests/f0.py"], {"ids": 11, "batches": 3})
    # 9 batches of 14 s (three of 13) over 2 lanes: the longer lane has 5.
    self.assertGreaterEqual(p["estimated_seconds"], 4 * 14)
    self.assertLessEqual(p["estimated_seconds"], 5 * 14)


class TestTimeoutTest(TempDirTest):
  def test_hung_test_is_timeout_and_the_rest_requeued(self):
    site = write_fake_site(self.tmp)
    ids = ["tests/a.py::T::t1pass", "tests/a.py::T::t2hang", "tests/a.py::T::t3pass",
           "tests/a.py::T::t4pass"]
    t0 = __import__("time").monotonic()
    res = suite.run_batches([ids], self.tmp / "w", fake_launcher(site, self.tmp), parallel=1,
                            batch_timeout=100, test_timeout=1.5, reserve=0)
    self.assertLess(__import__("time").monotonic() - t0, 30)  # not the 60 s the test sleeps
    self.assertEqual(res["tests/a.py::T::t2hang"]["outcome"], "TIMEOUT")
    self.assertIn("per-test limit", res["tests/a.py::T::t2hang"]["error"])
    for i in ("t1pass", "t3pass", "t4pass"):
      self.assertEqual(res[f"tests/a.py::T::{i}"]["outcome"], "PASS", i)
    self.assertEqual(res["tests/a.py::T::t3pass"]["batch"], 1)  # the requeued batch


class VerdictTest(unittest.TestCase):
  def test_allowlist_parse(self):
    e = verdict.parse_allowlist("# c\n\ntests/a.py::T::t1  # known: issue 7\n"
                                "tests/b.py::*  # b is not supported\n")
    self.assertEqual([x["pattern"] for x in e], ["tests/a.py::T::t1", "tests/b.py::*"])
    self.assertEqual(e[0]["reason"], "known: issue 7")
    self.assertEqual(e[1]["line"], 4)
    with self.assertRaisesRegex(verdict.AllowlistError, r"allowlist:1: .* has no reason"):
      verdict.parse_allowlist("tests/a.py::T::t1\n")
    with self.assertRaisesRegex(verdict.AllowlistError, "no reason"):
      verdict.parse_allowlist("tests/a.py::T::t1  #   \n")
    with self.assertRaisesRegex(verdict.AllowlistError, "not one node id"):
      verdict.parse_allowlist("a b  # two ids\n")

  def rows(self):
    return [{"nodeid": "tests/a.py::T::t1", "outcome": "PASS", "error": ""},
            {"nodeid": "tests/a.py::T::t2", "outcome": "FAIL",
             "error": "AssertionError: Not equal to tolerance rtol=1e-06, atol=1e-06"},
            {"nodeid": "tests/b.py::T::t3", "outcome": "ERROR",
             "error": "jax.errors.JaxRuntimeError: UNIMPLEMENTED: op sort at 0x7f00"},
            {"nodeid": "tests/b.py::T::t4", "outcome": "MISSING", "error": "not run"}]

  def test_strict(self):
    listed = ["tests/a.py::T::t1", "tests/a.py::T::t2", "tests/b.py::T::t3",
              "tests/b.py::T::t4", "tests/b.py::T::t5"]
    v = verdict.verdict(listed, self.rows(), [])
    self.assertEqual(v["status"], "fail")
    self.assertEqual((v["passed"], v["regressions"], v["not_run"]), (1, 2, 2))
    self.assertEqual([c["class"] for c in v["regression_cases"]],
                     ["AssertionError", "JaxRuntimeError"])
    allow = verdict.parse_allowlist("tests/a.py::T::t2  # tolerance\ntests/b.py::*  # b\n"
                                    "tests/a.py::T::t1  # fixed since\n"
                                    "tests/z.py::T::gone  # renamed\n")
    v = verdict.verdict(listed, self.rows(), allow)
    self.assertEqual(v["status"], "pass")
    self.assertEqual(v["allowed"], 4)
    self.assertEqual([e["pattern"] for e in v["allowlist_stale"]], ["tests/a.py::T::t1"])
    self.assertEqual([e["pattern"] for e in v["allowlist_unknown"]], ["tests/z.py::T::gone"])
    v = verdict.verdict(["tests/a.py::T::t1"], self.rows(), [])
    self.assertEqual((v["status"], v["regressions"]), ("pass", 0))

  def test_error_class_and_failure_classes(self):
    self.assertEqual(verdict.error_class("jax.errors.JaxRuntimeError: X"), "JaxRuntimeError")
    self.assertEqual(verdict.error_class("crashed: batch process ended"), "crashed")
    self.assertEqual(verdict.error_class(""), "(no message)")
    rows = self.rows() + [{"nodeid": "tests/c.py::T::t9", "outcome": "FAIL",
                           "error": "AssertionError: Not equal to tolerance rtol=0.001, atol=0"}]
    classes = verdict.failure_classes(rows)
    self.assertEqual(classes[0]["count"], 2)
    self.assertEqual(classes[0]["files"], {"tests/a.py": 1, "tests/c.py": 1})
    self.assertEqual(classes[0]["class"], "AssertionError")
    self.assertEqual(sum(c["count"] for c in classes), 4)
    text = verdict.format_classes(classes)
    self.assertIn("3 failure classes over 4 ids", text)
    cases = verdict.nonpassing_cases(rows)
    self.assertEqual(len(cases), 4)
    self.assertEqual(set(cases[0]), {"nodeid", "outcome", "error", "class", "cause"})
    per = verdict.per_file_counts(rows)
    self.assertEqual(per["tests/b.py"]["MISSING"], 1)


class GateCommandsTest(TempDirTest):
  """collect --profile, stratify, sharded upstream runs, make-list, sharded ours runs and
  the verdict, with the fake pytest."""

  def call(self, *argv):
    buf = io.StringIO()
    with redirect_stdout(buf):
      rc = runner.main([str(a) for a in argv])
    return rc, buf.getvalue()

  def setUp(self):
    super().setUp()
    site = write_fake_site(self.tmp)
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(site)
    self.addCleanup(lambda: os.environ.__setitem__("PYTHONPATH", old) if old is not None
                    else os.environ.pop("PYTHONPATH", None))
    self.prep = self.tmp / "prep"
    (self.prep / "tests" / "pallas").mkdir(parents=True)
    for name in ("a_test", "b_test", "lax_test", "pallas/triton_pallas_test", "pallas/tpu_x_test",
                 "multi_device_test"):
      (self.prep / "tests" / f"{name}.py").write_text("def test_a(): pass\n")
    (self.prep / "SOURCE.json").write_text(json.dumps(
        {"revision": "jax-v0.0.0", "commit": "0" * 40, "jax_version_wanted": "0.0.fake",
         "build_rev": "abc", "files": {"tests/a_test.py": "h1", "tests/lax_test.py": "h2"}}))

  def test_whole_flow(self):
    col = self.tmp / "col"
    rc, _ = self.call("collect", "--profile", "one_gpu", "--prepared", self.prep, "--out", col,
                      "--platform", "cpu", "--parallel", "2", "--stratify", "8", "--seed", "1")
    self.assertEqual(rc, 0)
    files = json.loads((col / "files.json").read_text())
    self.assertEqual(files["files"], ["tests/a_test.py", "tests/b_test.py", "tests/lax_test.py",
                                      "tests/pallas/triton_pallas_test.py"])
    self.assertEqual(files["decisions"]["tests/multi_device_test.py"]["profile"], "two_gpu")
    self.assertEqual(len(suite.read_list(col / "collected.txt")), 12)
    collect = json.loads((col / "collect.json").read_text())
    self.assertEqual(len({f["group"] for f in collect["files"].values()}), 2)  # 2 processes
    meta = json.loads((col / "selected.meta.json").read_text())
    self.assertEqual((meta["size"], meta["profile"], meta["sampling"]["files_kept"]),
                     (8, "one_gpu", 4))
    self.assertEqual(meta["files"]["tests/a_test.py"], "h1")

    strat = self.tmp / "sel.txt"
    rc, _ = self.call("stratify", col / "collected.txt", "--out", strat, "--size", "10")
    self.assertEqual(rc, 0)
    self.assertEqual(len(suite.read_list(strat)), 10)
    self.assertEqual(json.loads((self.tmp / "sel.meta.json").read_text())["profile"], "one_gpu")

    rc, text = self.call("run", "--upstream", "--prepared", self.tmp / "none", "--out", self.tmp / "x",
                         "--platform", "cpu", "--list", strat, "--shard", "1/2", "--dry-run")
    self.assertEqual(rc, 0)
    plan = json.loads(text[:text.rindex("}") + 1])
    self.assertEqual((plan["ids"], plan["shard"]),
                     (len(suite.shard_ids(suite.read_list(strat), 1, 2)), "1/2"))
    self.assertFalse((self.tmp / "x").exists())

    ups = []
    for i in (1, 2):
      up = self.tmp / f"up{i}"
      rc, _ = self.call("run", "--upstream", "--prepared", self.prep, "--out", up,
                        "--platform", "cpu", "--list", strat, "--shard", f"{i}/2",
                        "--parallel", "2", "--batch-size", "2")
      self.assertEqual(rc, 0)
      ups.append(up)
    s1 = json.loads((ups[0] / "summary.json").read_text())
    self.assertEqual((s1["total"], s1["shard"], s1["profile"]), (plan["ids"], "1/2", "one_gpu"))
    self.assertIn("tests/a_test.py", s1["per_file"])
    prov = json.loads((ups[0] / "provenance.json").read_text())
    self.assertEqual(prov["test_files"]["tests/a_test.py"], "h1")
    self.assertTrue((ups[0] / "nonpassing_cases.json").exists())
    self.assertTrue((ups[0] / "failure_classes.txt").exists())

    lst = self.tmp / "gate.txt"
    with self.assertRaises(SystemExit):  # one shard of two is not a list
      self.call("make-list", "--from", ups[0], "--list", lst)
    rc, _ = self.call("make-list", "--from", ups[0], "--from", ups[1], "--list", lst)
    self.assertEqual(rc, 0)
    lmeta = json.loads((self.tmp / "gate.meta.json").read_text())
    self.assertEqual((lmeta["size"], lmeta["profile"]), (10, "one_gpu"))
    self.assertEqual(lmeta["made_from"]["upstream_shards"], ["1/2", "2/2"])
    self.assertTrue((self.tmp / "gate.upstream.json").exists())
    # The list does not depend on how many shards upstream ran in.
    rc, _ = self.call("run", "--upstream", "--prepared", self.prep, "--out", self.tmp / "up_all",
                      "--platform", "cpu", "--list", strat)
    self.assertEqual(rc, 0)
    rc, _ = self.call("make-list", "--from", self.tmp / "up_all", "--list", self.tmp / "one.txt")
    self.assertEqual((self.tmp / "one.txt").read_text(), lst.read_text())

    ours = []
    for i in (1, 2):
      o = self.tmp / f"ours{i}"
      rc, _ = self.call("run", "--prepared", self.prep, "--out", o, "--platform", "cpu",
                        "--list", lst, "--shard", f"{i}/2", "--parallel", "2")
      self.assertEqual(rc, 0)
      ours.append(o)
    allow = self.tmp / "allow.txt"
    rc, text = self.call("verdict", ours[0], "--list", lst, "--allowlist", allow,
                         "--out", self.tmp / "v1")
    self.assertEqual(rc, 1)  # half the list was not run
    v = json.loads((self.tmp / "v1" / "verdict.json").read_text())
    self.assertEqual((v["status"], v["not_run"], v["regressions"]),
                     ("fail", len(suite.shard_ids(suite.read_list(lst), 2, 2)), 0))
    rc, text = self.call("verdict", ours[0], ours[1], "--list", lst, "--allowlist", allow,
                         "--out", self.tmp / "v2")
    self.assertEqual(rc, 0, text)
    self.assertIn("verdict PASS: 10 of 10", text)
    with self.assertRaises(SystemExit):  # the same shard twice
      self.call("verdict", ours[0], ours[0], "--list", lst, "--out", self.tmp / "v3")

  def test_verdict_regressions_and_allowlist(self):
    lst = self.tmp / "l.txt"
    ids = ["tests/a_test.py::T::t1pass", "tests/a_test.py::T::t2fail",
           "tests/a_test.py::T::t3crash", "tests/a_test.py::T::t4pass"]
    suite.write_list(lst, ids)
    o = self.tmp / "o"
    rc, _ = self.call("run", "--prepared", self.prep, "--out", o, "--platform", "cpu",
                      "--list", lst, "--max-requeue", "1")
    self.assertEqual(rc, 0)
    allow = self.tmp / "allow.txt"
    rc, text = self.call("verdict", o, "--list", lst, "--allowlist", allow, "--out", self.tmp / "v")
    self.assertEqual(rc, 1)
    v = json.loads((self.tmp / "v" / "verdict.json").read_text())
    self.assertEqual({c["nodeid"] for c in v["regression_cases"]}, set(ids[1:3]))
    allow.write_text("tests/a_test.py::T::t2fail\n")
    rc, text = self.call("verdict", o, "--list", lst, "--allowlist", allow, "--out", self.tmp / "v")
    self.assertEqual(rc, 2)
    self.assertIn("has no reason", text)
    allow.write_text("tests/a_test.py::T::t2fail  # tolerance\n"
                     "tests/a_test.py::T::t3crash  # crash tracked in an issue\n")
    rc, text = self.call("verdict", o, "--list", lst, "--allowlist", allow, "--out", self.tmp / "v")
    self.assertEqual(rc, 0, text)
    classes = json.loads((self.tmp / "v" / "failure_classes.json").read_text())
    self.assertEqual(sum(c["count"] for c in classes), 2)


if __name__ == "__main__":
  unittest.main()
