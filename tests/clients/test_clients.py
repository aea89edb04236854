"""CPU tests of the client suite's comparison and verdicts (standard library only):

    python3 -m unittest discover tests/clients
"""

from __future__ import annotations

import json
import pathlib
import shutil
import tempfile
import unittest

import compare
import run_clients


class CompareTest(unittest.TestCase):
  def test_tolerance(self):
    rule = {"rtol": 1e-4, "atol": 1e-6}
    self.assertTrue(compare.compare_value([1.0, [2.0, 3.0]], [1.00005, [2.0, 3.0002]], rule)["ok"])
    r = compare.compare_value([1.0, 2.0, 0.0], [1.0, 2.01, 1e-5], rule)
    self.assertFalse(r["ok"])
    self.assertEqual(r["bad"], 2)
    self.assertIn("first bad at flat index 1", r["why"])
    self.assertFalse(compare.compare_value([[1.0, 2.0]], [[1.0], [2.0]], rule)["ok"])
    self.assertTrue(compare.compare_value(float("nan"), float("nan"), rule)["ok"])
    self.assertFalse(compare.compare_value(1.0, float("nan"), rule)["ok"])
    self.assertFalse(compare.compare_value(float("inf"), -float("inf"), rule)["ok"])
    self.assertTrue(compare.compare_value(0.05, 0.0, {"rtol": 0, "atol": 0.05})["ok"])

  def test_exact_ignore_and_bad_rule(self):
    self.assertTrue(compare.compare_value([["float32", [2, 3]]], [["float32", [2, 3]]], "exact")["ok"])
    self.assertFalse(compare.compare_value(True, False, "exact")["ok"])
    self.assertTrue(compare.compare_value(7, 9, {"ignore": "step counts"})["ok"])
    self.assertFalse(compare.compare_value(1.0, 1.0, {"rtol": 1e-3})["ok"])
    self.assertFalse(compare.compare_value(1.0, 1.0, None)["ok"])

  def test_results_rules_come_from_upstream(self):
    up = {"results": {"a": 1.0, "b": [1, 2]}, "compare": {"a": {"rtol": 0.1, "atol": 0},
                                                          "b": "exact"}}
    ours = {"results": {"a": 1.05, "b": [1, 2]}, "compare": {"a": "exact", "b": "exact"}}
    self.assertTrue(compare.compare_results(up, ours)["ok"])
    c = compare.compare_results(up, {"results": {"a": 1.05}})
    self.assertFalse(c["ok"])
    self.assertEqual(c["keys"]["b"]["why"], "missing from our results")


def rec(status, result=None, error=""):
  return {"status": status, "seconds": 1.0, "rc": 0, "result": result, "error": error}


def result(values, registered, rules=None):
  return {"name": "x", "results": values, "compare": rules or {k: "exact" for k in values},
          "backend": {"flagtree_registered": registered}}


class JudgeTest(unittest.TestCase):
  def test_verdicts(self):
    up, ours = result({"v": 1}, False), result({"v": 1}, True)
    self.assertEqual(run_clients.judge("x", rec("ok", up), rec("ok", ours), "cuda")["verdict"], "PASS")
    bad = result({"v": 2}, True)
    j = run_clients.judge("x", rec("ok", up), rec("ok", bad), "cuda")
    self.assertEqual(j["verdict"], "FAIL")
    self.assertIn("v: differ", j["why"])
    j = run_clients.judge("x", rec("ok", up), rec("error", None, "exit status 1: boom"), "cuda")
    self.assertEqual((j["verdict"], j["why"]), ("OURS_ERROR", "exit status 1: boom"))
    j = run_clients.judge("x", rec("error", None, "x"), rec("ok", ours), "cuda")
    self.assertEqual(j["verdict"], "SKIP")
    j = run_clients.judge("x", rec("skip", None, "numpyro not importable"),
                          rec("skip", None, "numpyro not importable"), "cuda")
    self.assertEqual((j["verdict"], j["why"]), ("SKIP", "numpyro not importable"))

  def test_wrong_backend(self):
    up = result({"v": 1}, False)
    j = run_clients.judge("x", rec("ok", up), rec("ok", result({"v": 1}, False)), "cuda")
    self.assertEqual(j["verdict"], "WRONG_BACKEND")
    self.assertIn("ours run did not use jax-flagtree", j["why"])
    j = run_clients.judge("x", rec("ok", result({"v": 1}, True)), rec("ok", result({"v": 1}, True)),
                          "cuda")
    self.assertIn("upstream run used jax-flagtree", j["why"])

  def test_parse_result_and_programs(self):
    self.assertEqual(run_clients.parse_result('noise\nRESULT {"a": 1}\nmore\n'), {"a": 1})
    self.assertIsNone(run_clients.parse_result("RESULT {torn"))
    names = run_clients.programs(None)
    for n in ("flax_linen", "flax_nnx", "optax", "equinox", "diffrax", "numpyro",
              "lineax_optimistix", "chex", "orbax"):
      self.assertIn(n, names)
    self.assertNotIn("common", names)
    with self.assertRaises(SystemExit):
      run_clients.programs(["nope"])

  def test_every_program_states_its_rules(self):
    """Each program's emit call names a rule per result key (checked at run time too)."""
    for path in pathlib.Path(run_clients.HERE).glob("client_*.py"):
      if path.stem == "client_common":
        continue
      text = path.read_text()
      self.assertIn("cc.emit(", text, path.name)
      self.assertIn("Compared", text.split('"""')[1], f"{path.name} must say how it is compared")

  def test_budget_ran_out_is_not_run_and_fails(self):
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="clients_test_"))
    self.addCleanup(shutil.rmtree, tmp, True)
    rc = run_clients.main(["--out", str(tmp), "--only", "chex", "--platform", "cpu",
                           "--budget", "1"])
    self.assertEqual(rc, 1)
    data = json.loads((tmp / "clients.json").read_text())
    self.assertEqual(data["counts"], {"NOT_RUN": 1})

  def test_without_jax_every_program_skips(self):
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="clients_test_"))
    self.addCleanup(shutil.rmtree, tmp, True)
    try:
      import jax  # noqa: F401
      self.skipTest("jax is installed here: the programs would really run")
    except ImportError:
      pass
    rc = run_clients.main(["--out", str(tmp), "--only", "chex", "optax", "--platform", "cpu"])
    self.assertEqual(rc, 0)
    data = json.loads((tmp / "clients.json").read_text())
    self.assertEqual(data["counts"], {"SKIP": 2})


if __name__ == "__main__":
  unittest.main()
