"""scripts/build_wheel.py's release files, checked against the wheel it writes.

Builds a wheel from a small stand-in library and jft binary (compiled here with
the system C compiler, so the glibc tag is read from a real ELF file), then
checks: the version carries the source commit; METADATA declares the JAX range
and the Triton extra; entry points register the plugin and the `jft` command;
RECORD, SHA256SUMS and build_manifest.json agree with the wheel's bytes; every
packaged file is in the manifest with its hash; `pip install --target` gives a
working `jft` command. Also the plugin's start-up requirement check. Needs
python3 and cc only (git, sha256sum and pip make more checks run).
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
import os
import pathlib
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[2]


def load(name: str, path: pathlib.Path):
  spec = importlib.util.spec_from_file_location(name, path)
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module


build_wheel = load("build_wheel", ROOT / "scripts" / "build_wheel.py")


def git(*args: str) -> str | None:
  try:
    return subprocess.run(["git", "-C", str(ROOT), *args], check=True, capture_output=True,
                          text=True).stdout.strip()
  except (OSError, subprocess.CalledProcessError):
    return None


def compile_c(out: pathlib.Path, source: str, shared: bool) -> None:
  src = out.with_suffix(".c")
  src.write_text(source)
  command = ["cc", "-o", str(out), str(src)] + (["-shared", "-fPIC"] if shared else [])
  subprocess.run(command, check=True)


@unittest.skipIf(shutil.which("cc") is None, "no C compiler to build the stand-in library")
class ReleaseFiles(unittest.TestCase):

  @classmethod
  def setUpClass(cls):
    cls.tmp = tempfile.TemporaryDirectory()
    tmp = pathlib.Path(cls.tmp.name)
    library, jft = tmp / "libjax_flagtree_pjrt.so", tmp / "jft"
    compile_c(library, '#include <stdio.h>\nvoid hello(void) { puts("hi"); }\n', True)
    compile_c(jft, '#include <stdio.h>\nint main(void) { puts("jft"); return 0; }\n', False)
    cls.out = tmp / "dist"
    cls.wheel = build_wheel.write_wheel(cls.out, library, jft)
    cls.manifest = json.loads((cls.out / "build_manifest.json").read_text())
    with zipfile.ZipFile(cls.wheel) as archive:
      cls.contents = {name: archive.read(name) for name in archive.namelist()}
    cls.info = next(n.split("/")[0] for n in cls.contents if n.endswith(".dist-info/METADATA"))

  @classmethod
  def tearDownClass(cls):
    cls.tmp.cleanup()

  def test_version_carries_the_source_commit(self):
    source = self.manifest["source"]
    version = self.manifest["version"]
    if source["commit"]:
      self.assertRegex(version, r"^0\.1\.0\+g[0-9a-f]{7}(\.dirty)?$")
      self.assertTrue(source["commit"].startswith(version.split("+g")[1][:7]))
      self.assertEqual(version.endswith(".dirty"), bool(source["dirty"]))
    else:
      self.assertEqual(version, "0.1.0+unknown")
    self.assertIn(f"-{version}-py3-none-manylinux_2_", self.wheel.name)
    self.assertEqual(self.info, f"jax_flagtree-{version}.dist-info")

  def test_metadata_declares_jax_range_and_triton_extra(self):
    metadata = self.contents[f"{self.info}/METADATA"].decode()
    self.assertIn(f"Version: {self.manifest['version']}\n", metadata)
    self.assertIn("Requires-Dist: jax>=0.11,<0.12\n", metadata)
    self.assertIn("Requires-Dist: jaxlib>=0.11,<0.12\n", metadata)
    self.assertIn("Provides-Extra: triton\n", metadata)
    self.assertIn('Requires-Dist: triton>=3.6,<4; extra == "triton"\n', metadata)
    requires = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    self.assertEqual(len(requires), 3, "jax, jaxlib and the triton extra, nothing else")

  def test_entry_points_register_the_plugin_and_jft(self):
    entry_points = self.contents[f"{self.info}/entry_points.txt"].decode()
    self.assertIn("[jax_plugins]\nflagtree = jax_plugins.flagtree\n", entry_points)
    self.assertIn("[console_scripts]\njft = jax_flagtree.jft_command:main\n", entry_points)
    self.assertIn("jax_flagtree/jft_command.py", self.contents)
    self.assertIn("jax_flagtree/bin/jft", self.contents)

  def test_record_matches_every_file(self):
    record = self.contents[f"{self.info}/RECORD"].decode().splitlines()
    listed = {}
    for line in record:
      path, digest, size = line.rsplit(",", 2)
      listed[path] = (digest, size)
    self.assertEqual(set(listed), set(self.contents))
    for path, data in self.contents.items():
      if path.endswith("/RECORD"):
        continue
      digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
      self.assertEqual(listed[path], (f"sha256={digest}", str(len(data))), path)

  def test_manifest_lists_every_packaged_file_with_its_hash(self):
    files = {f["path"]: f for f in self.manifest["files"]}
    packaged = {p for p in self.contents if ".dist-info/" not in p}
    self.assertEqual(set(files), packaged)
    for path in packaged:
      data = self.contents[path]
      self.assertEqual(files[path]["sha256"], hashlib.sha256(data).hexdigest(), path)
      self.assertEqual(files[path]["size"], len(data), path)
    self.assertEqual(self.manifest["wheel_sha256"],
                     hashlib.sha256(self.wheel.read_bytes()).hexdigest())
    self.assertEqual(self.manifest["targets"]["stablehlo"], "1.20.0")
    self.assertEqual(self.manifest["targets"]["jax"], ">=0.11,<0.12")
    self.assertEqual(self.manifest["targets"]["jaxlib"], ">=0.11,<0.12")
    abi = (ROOT / "src" / "pjrt" / "abi.h").read_text()
    self.assertEqual(self.manifest["targets"]["pjrt_c_api"], {
        "major": int(re.search(r"kMajorVersion = (\d+);", abi).group(1)),
        "minor": int(re.search(r"kMinorVersion = (\d+);", abi).group(1))})
    self.assertEqual(self.manifest["requires"], ["jax>=0.11,<0.12", "jaxlib>=0.11,<0.12"])
    self.assertEqual(self.manifest["extras"], {"triton": ["triton>=3.6,<4"]})
    self.assertEqual(self.manifest["toolchain"]["python"], sys.version.split()[0])
    for tool in ("compiler", "compiler_version", "cmake", "ninja"):
      self.assertIn(tool, self.manifest["toolchain"])

  @unittest.skipIf(git("rev-parse", "HEAD") is None, "not a git checkout")
  def test_source_names_the_commit_and_the_trees_built(self):
    source = self.manifest["source"]
    self.assertEqual(source["commit"], git("rev-parse", "HEAD"))
    self.assertEqual(source["tree"], git("rev-parse", "HEAD^{tree}"))
    dirty = subprocess.run(["git", "-C", str(ROOT), "diff", "--quiet", "HEAD"]).returncode != 0
    self.assertEqual(source["dirty"], dirty)
    self.assertRegex(source["worktree_tree"], r"^[0-9a-f]{40}$")
    if not dirty:
      self.assertEqual(source["worktree_tree"], source["tree"])
    else:
      self.assertNotEqual(source["worktree_tree"], source["tree"])

  def test_sha256sums_cover_the_wheel_and_the_manifest(self):
    lines = (self.out / "SHA256SUMS").read_text().splitlines()
    sums = dict(reversed(line.split("  ", 1)) for line in lines)
    self.assertEqual(set(sums), {self.wheel.name, "build_manifest.json"})
    for name, digest in sums.items():
      self.assertEqual(digest, hashlib.sha256((self.out / name).read_bytes()).hexdigest())

  @unittest.skipIf(shutil.which("sha256sum") is None, "no sha256sum")
  def test_sha256sum_checks_the_release_files(self):
    done = subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=self.out, capture_output=True,
                          text=True)
    self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
    self.assertEqual(done.stdout.count(": OK"), 2, done.stdout)

  def test_pip_install_target_gives_a_working_jft_command(self):
    pip = subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True)
    if pip.returncode != 0:
      self.skipTest("no pip")
    target = pathlib.Path(self.tmp.name) / "target"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index",
                           "--quiet", "--target", str(target), str(self.wheel)],
                          capture_output=True, text=True)
    self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
    script = target / "bin" / "jft"
    self.assertTrue(script.exists(), sorted(p.name for p in target.iterdir()))
    env = dict(os.environ, PYTHONPATH=str(target))
    ran = subprocess.run([str(script), "--help"], env=env, capture_output=True, text=True)
    self.assertEqual((ran.returncode, ran.stdout), (0, "jft\n"), ran.stderr)
    ran = subprocess.run([sys.executable, "-m", "jax_flagtree.jft_command"], env=env,
                         capture_output=True, text=True)
    self.assertEqual((ran.returncode, ran.stdout), (0, "jft\n"), ran.stderr)

  def test_jft_is_executable_in_the_wheel(self):
    with zipfile.ZipFile(self.wheel) as archive:
      mode = archive.getinfo("jax_flagtree/bin/jft").external_attr >> 16
    self.assertEqual(mode & 0o111, 0o111)
    self.assertTrue(stat.S_ISREG(mode), "pip sets exec bits only on entries typed as regular files")


class RequirementCheck(unittest.TestCase):
  """The plugin's start-up check (jax_plugins/flagtree), without JAX."""

  @classmethod
  def setUpClass(cls):
    cls.plugin = load("flagtree_plugin", ROOT / "python" / "jax_plugins" / "flagtree" / "__init__.py")

  def test_supported_installation_has_no_problems(self):
    self.assertEqual(self.plugin.requirement_problems("0.11.2", True), [])
    self.assertEqual(self.plugin.requirement_problems("0.11.2", True, "3.6.0"), [])
    self.assertEqual(self.plugin.requirement_problems("0.11.0", True, "3.1.0+git1a2b3c"), [])

  def test_an_unsupported_triton_says_what_is_installed_and_what_to_install(self):
    for version in ("2.3.1", "4.0.0"):
      problems = self.plugin.requirement_problems("0.11.2", True, version)
      self.assertEqual(len(problems), 1, version)
      self.assertIn(f"version {version}, outside", problems[0])
      self.assertIn("install FlagTree", problems[0])
      self.assertIn("jax-flagtree[triton]", problems[0])

  def test_triton_version_is_read_without_importing_triton(self):
    with tempfile.TemporaryDirectory() as root:
      package = pathlib.Path(root) / "triton"
      package.mkdir()
      (package / "__init__.py").write_text(
          'raise RuntimeError("imported")\n__version__ = "3.5.1"\n')
      self.assertEqual(self.plugin.triton_version(package), "3.5.1")
      self.assertIsNone(self.plugin.triton_version(pathlib.Path(root) / "absent"))

  def test_create_options_carry_the_compiler_fingerprint(self):
    self.assertEqual(self.plugin.create_options("ab" * 16)["compiler_fingerprint"], "ab" * 16)
    self.assertNotIn("compiler_fingerprint", self.plugin.create_options(None))

  def test_unsupported_jax_and_missing_triton_say_what_to_do(self):
    problems = self.plugin.requirement_problems("0.12.0.dev20270101", False)
    self.assertEqual(len(problems), 2)
    self.assertIn("jax 0.12.0.dev20270101 is outside", problems[0])
    self.assertIn("JAX_FLAGTREE_DISABLE=1", problems[0])
    self.assertIn("triton", problems[1])
    self.assertIn("install FlagTree", problems[1])
    self.assertEqual(len(self.plugin.requirement_problems("0.10.9", True)), 1)

  def test_ranges_match_the_wheel_metadata(self):
    low, high = self.plugin.SUPPORTED_JAX
    self.assertEqual(build_wheel.SUPPORTED_JAX, f">={low[0]}.{low[1]},<{high[0]}.{high[1]}")
    self.assertTrue(build_wheel.TRITON_REQUIREMENT.startswith(self.plugin.TRITON_PACKAGE))


class MemoryOptions(unittest.TestCase):
  """The allocator create options the plugin derives from the environment, as
  upstream's CUDA plugin does (names, types, defaults), without JAX."""

  @classmethod
  def setUpClass(cls):
    cls.plugin = load("flagtree_plugin", ROOT / "python" / "jax_plugins" / "flagtree" / "__init__.py")

  def test_unset_environment_passes_only_the_default_allocator(self):
    self.assertEqual(self.plugin.memory_options({}), {"allocator": "default"})

  def test_settings_become_typed_options(self):
    options = self.plugin.memory_options({
        "XLA_PYTHON_CLIENT_ALLOCATOR": "Platform",
        "XLA_PYTHON_CLIENT_MEM_FRACTION": ".25",
        "XLA_PYTHON_CLIENT_PREALLOCATE": "false",
        "XLA_PYTHON_CLIENT_COLLECTIVE_MEM_SIZE_MB": "2"})
    self.assertEqual(options, {"allocator": "platform", "memory_fraction": 0.25,
                               "preallocate": False, "collective_memory_size": 2 << 20})
    self.assertIs(type(options["memory_fraction"]), float)
    self.assertIs(type(options["preallocate"]), bool)
    self.assertEqual(self.plugin.memory_options({"XLA_PYTHON_CLIENT_PREALLOCATE": "true"}),
                     {"allocator": "default", "preallocate": True})
    self.assertEqual(self.plugin.memory_options({"XLA_CLIENT_MEM_FRACTION": "0.5"}),
                     {"allocator": "default", "memory_fraction": 0.5})

  def test_bad_settings_raise_as_upstream(self):
    with self.assertRaises(ValueError):
      self.plugin.memory_options({"XLA_PYTHON_CLIENT_ALLOCATOR": "magic"})
    with self.assertRaises(ValueError):
      self.plugin.memory_options({"XLA_CLIENT_MEM_FRACTION": "0.5",
                                  "XLA_PYTHON_CLIENT_MEM_FRACTION": "0.5"})


if __name__ == "__main__":
  unittest.main()
