"""Unit tests of python/jax_flagtree/worker.py and compile_protocol.py that need no triton.

Run by ctest as `python3 test_worker_protocol.py` (JFT_PYTHON_DIR points at the
project's python/ folder; by default it is found relative to this file). Plain
unittest, no pytest. Exit status 77 means skipped (ctest SKIP_RETURN_CODE).
"""

import io
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.environ.get("JFT_PYTHON_DIR") or os.path.join(HERE, "..", "..", "python")
DATA_DIR = os.path.join(HERE, "data")
sys.path.insert(0, PYTHON_DIR)

from jax_flagtree import compile_protocol as protocol  # noqa: E402
from jax_flagtree import worker  # noqa: E402

FAKE_IDENTITY = {"name": "triton", "version": "3.6.0", "triton_version": "3.6.0", "detected_by": "test"}


def hand_frame(header_text, payload=b""):
    """The documented layout, written out independently of encode_frame."""
    header = header_text.encode()
    return b"JFTW" + struct.pack("<I", len(header)) + struct.pack("<Q", len(payload)) + header + payload


def ttir_param_count(ttir):
    """Counts %arg: declarations in the tt.func signature of reference TTIR."""
    signature = re.search(r"tt\.func\s+public\s+@\w+\((.*?)\)\s+attributes", ttir, re.S).group(1)
    return len(re.findall(r"%\w+:", signature))


def frames_in(data):
    stream = io.BytesIO(data)
    frames = []
    while True:
        frame = protocol.read_frame(stream)
        if frame is None:
            return frames
        frames.append(frame)


class FramingTest(unittest.TestCase):
    def test_encoding_matches_the_documented_layout(self):
        encoded = protocol.encode_frame({"type": "shutdown"}, b"\x00\x01")
        self.assertEqual(encoded, hand_frame('{"type": "shutdown"}', b"\x00\x01"))

    def test_reads_hand_made_frames_back_to_back(self):
        data = hand_frame('{"type":"a","id":1}', b"xyz") + hand_frame('{"type":"b"}')
        self.assertEqual(frames_in(data), [({"type": "a", "id": 1}, b"xyz"), ({"type": "b"}, b"")])

    def test_clean_end_of_stream_is_none(self):
        self.assertIsNone(protocol.read_frame(io.BytesIO(b"")))

    def test_truncated_frames_raise(self):
        whole = hand_frame('{"type":"a"}', b"payload")
        for cut in (3, 10, 16, 20, len(whole) - 1):
            with self.assertRaises(protocol.ProtocolError, msg=f"cut at {cut}"):
                protocol.read_frame(io.BytesIO(whole[:cut]))

    def test_bad_magic_and_bad_header_raise(self):
        with self.assertRaises(protocol.ProtocolError):
            protocol.read_frame(io.BytesIO(b"XXXX" + hand_frame("{}")[4:]))
        with self.assertRaises(protocol.ProtocolError):
            protocol.read_frame(io.BytesIO(hand_frame("[1, 2]")))
        with self.assertRaises(protocol.ProtocolError):
            protocol.read_frame(io.BytesIO(hand_frame("{not json")))

    def test_oversized_lengths_raise_before_reading(self):
        prefix = b"JFTW" + struct.pack("<I", 10) + struct.pack("<Q", 1 << 40)
        with self.assertRaises(protocol.ProtocolError):
            protocol.read_frame(io.BytesIO(prefix))


class ServeTest(unittest.TestCase):
    def run_serve(self, requests, identity=FAKE_IDENTITY, compile_fn=None):
        data = b"".join(hand_frame(json.dumps(h), p) for h, p in requests)
        out = io.BytesIO()
        kwargs = {"compile_fn": compile_fn} if compile_fn else {}
        status = worker.serve(io.BytesIO(data), out, identity, **kwargs)
        return status, frames_in(out.getvalue())

    def test_hello_first_then_one_answer_per_request(self):
        def fake_compile(header, ttir, identity):
            return {"type": "result", "id": header["id"], "ok": True, "echo": ttir}, b"BIN"

        compile_request = {"type": "compile", "id": 9, "target": {"backend": "cuda", "arch": "90",
                                                                   "warp_size": 32}}
        status, frames = self.run_serve([(compile_request, b"module {}"), ({"type": "shutdown"}, b""),
                                         (compile_request, b"never read")], compile_fn=fake_compile)
        self.assertEqual(status, 0)
        self.assertEqual(len(frames), 2)
        hello, answer = frames
        self.assertEqual(hello[0]["type"], "hello")
        self.assertEqual(hello[0]["protocol"], protocol.PROTOCOL_VERSION)
        self.assertEqual(hello[0]["compiler"], FAKE_IDENTITY)
        self.assertEqual(answer, ({"type": "result", "id": 9, "ok": True, "echo": "module {}"}, b"BIN"))

    def test_compiler_exceptions_become_error_answers_and_serving_goes_on(self):
        calls = []

        def failing_compile(header, ttir, identity):
            calls.append(header["id"])
            if header["id"] == 1:
                raise RuntimeError("PassManager::run failed")
            raise worker.StageError("ttgir", "layout mismatch")

        target = {"backend": "cuda", "arch": "90", "warp_size": 32}
        status, frames = self.run_serve([({"type": "compile", "id": 1, "target": target}, b"x"),
                                         ({"type": "compile", "id": 2, "target": target}, b"y")],
                                        compile_fn=failing_compile)
        self.assertEqual(status, 0)  # end of input
        self.assertEqual(calls, [1, 2])
        first, second = frames[1][0], frames[2][0]
        self.assertEqual((first["id"], first["ok"], first["stage"]), (1, False, "compile"))
        self.assertIn("RuntimeError: PassManager::run failed", first["error"])
        self.assertEqual((second["id"], second["ok"], second["stage"]), (2, False, "ttgir"))
        self.assertEqual(second["error"], "layout mismatch")

    def test_native_diagnostics_of_a_failure_join_the_error(self):
        def noisy_compile(header, ttir, identity):
            os.write(2, b"loc(\"k.ttir\":3:5): error: 'tt.load' op operand #0 must be ptr\n")
            raise RuntimeError("PassManager::run failed")

        target = {"backend": "cuda", "arch": "90", "warp_size": 32}
        saved = os.dup(2)
        with tempfile.TemporaryFile() as sink:
            os.dup2(sink.fileno(), 2)
            try:
                _, frames = self.run_serve([({"type": "compile", "id": 1, "target": target}, b"x")],
                                           compile_fn=noisy_compile)
            finally:
                os.dup2(saved, 2)
                os.close(saved)
            sink.seek(0)
            echoed = sink.read()
        error = frames[1][0]["error"]
        self.assertIn("PassManager::run failed", error)
        self.assertIn("'tt.load' op operand #0 must be ptr", error)
        self.assertIn(b"'tt.load' op operand", echoed)

    def test_unknown_requests_and_missing_targets_are_answered(self):
        status, frames = self.run_serve([({"type": "frobnicate", "id": 4}, b""),
                                         ({"type": "compile", "id": 5}, b"module {}")],
                                        compile_fn=lambda *a: self.fail("must not compile"))
        self.assertEqual(frames[1][0]["stage"], "request")
        self.assertIn("frobnicate", frames[1][0]["error"])
        self.assertEqual((frames[2][0]["id"], frames[2][0]["ok"]), (5, False))

    def test_without_a_compiler_every_compile_says_why(self):
        identity = {"name": "none", "version": "", "triton_version": "", "detected_by": "import failed",
                    "error": "ModuleNotFoundError: No module named 'triton'"}
        status, frames = self.run_serve([({"type": "compile", "id": 1, "target": {}}, b"m")],
                                        identity=identity)
        self.assertEqual(frames[0][0]["error"], identity["error"])
        self.assertNotIn("error", frames[0][0]["compiler"])
        self.assertIn("No module named 'triton'", frames[1][0]["error"])
        self.assertEqual(frames[1][0]["stage"], "import")

    def test_bytecode_requests_reach_the_compiler_as_text(self):
        # Protocol 2: a Pallas kernel's module arrives as MLIR bytecode.
        seen = []

        def fake_compile(header, ttir, identity):
            seen.append(ttir)
            return {"type": "result", "id": header["id"], "ok": True}, b"BIN"

        def fake_triton(module_bytes, path):
            with open(path, "rb") as f:  # the reader gets the bytes as a file, unchanged
                self.assertEqual(f.read(), module_bytes)
            return "module { tt.func public @k() { tt.return } }"

        target = {"backend": "cuda", "arch": "90", "warp_size": 32}
        saved = worker._triton_bytecode_to_text
        worker._triton_bytecode_to_text = fake_triton
        try:
            _, frames = self.run_serve(
                [({"type": "compile", "id": 1, "target": target, "ir_format": "mlir_bytecode"},
                  b"ML\xefR\x00\x01binary"),
                 ({"type": "compile", "id": 2, "target": target, "ir_format": "ttir"}, b"module {}"),
                 ({"type": "compile", "id": 3, "target": target}, b"module {}")],
                compile_fn=fake_compile)
        finally:
            worker._triton_bytecode_to_text = saved
        self.assertEqual([f[0]["ok"] for f in frames[1:]], [True, True, True])
        self.assertEqual(seen, ["module { tt.func public @k() { tt.return } }", "module {}", "module {}"])

    def test_bytecode_falls_back_to_jaxlib_then_names_both_failures(self):
        def refuse(*args):
            raise RuntimeError("unknown attribute tt.fancy")

        text = worker.bytecode_to_text(b"ML\xefR..", triton_reader=refuse,
                                       jaxlib_reader=lambda b: "module {}")
        self.assertEqual(text, "module {}")
        with self.assertRaises(worker.StageError) as caught:
            worker.bytecode_to_text(b"ML\xefR..", triton_reader=refuse,
                                    jaxlib_reader=lambda b: refuse())
        self.assertEqual(caught.exception.stage, "parse")
        self.assertEqual(str(caught.exception).count("unknown attribute tt.fancy"), 2)
        self.assertIn("jaxlib", str(caught.exception))
        with self.assertRaises(worker.StageError) as caught:
            worker.bytecode_to_text(b"module {}", triton_reader=refuse, jaxlib_reader=refuse)
        self.assertIn("not MLIR bytecode", str(caught.exception))

    def test_unknown_ir_format_and_bad_bytecode_are_answered(self):
        target = {"backend": "cuda", "arch": "90", "warp_size": 32}
        _, frames = self.run_serve(
            [({"type": "compile", "id": 1, "target": target, "ir_format": "llvm"}, b"x"),
             ({"type": "compile", "id": 2, "target": target, "ir_format": "mlir_bytecode"}, b"text")],
            compile_fn=lambda *a: self.fail("must not compile"))
        self.assertEqual((frames[1][0]["ok"], frames[1][0]["stage"]), (False, "request"))
        self.assertIn("'llvm'", frames[1][0]["error"])
        self.assertEqual((frames[2][0]["ok"], frames[2][0]["stage"]), (False, "parse"))
        self.assertIn("not MLIR bytecode", frames[2][0]["error"])

    def test_garbled_input_ends_the_worker_with_status_2(self):
        out = io.BytesIO()
        status = worker.serve(io.BytesIO(b"garbage that is no frame"), out, FAKE_IDENTITY)
        self.assertEqual(status, 2)


class ParameterListTest(unittest.TestCase):
    """The parameter list is read from the reference PTX Triton 3.6 produced."""

    def test_reference_kernels_get_their_params_plus_two_scratch_pointers(self):
        for name in ("add_exp", "softmax_rows", "mm"):
            with open(os.path.join(DATA_DIR, name + ".ptx")) as f:
                ptx = f.read()
            with open(os.path.join(DATA_DIR, name + ".ttir")) as f:
                ttir_params = ttir_param_count(f.read())
            binary_params = worker.ptx_kernel_params(ptx, name)
            self.assertEqual(len(binary_params), ttir_params + 2, name)
            self.assertEqual(binary_params[-2:], [(8, True), (8, True)], name)

    def test_sizes_and_roles_for_add_exp(self):
        with open(os.path.join(DATA_DIR, "add_exp.ptx")) as f:
            params = worker.describe_params(["*fp32", "*fp32", "*fp32", "i32"],
                                            worker.ptx_kernel_params(f.read(), "add_exp"))
        self.assertEqual([p["size"] for p in params], [8, 8, 8, 4, 8, 8])
        self.assertEqual([p["role"] for p in params],
                         ["arg", "arg", "arg", "arg", "global_scratch", "profile_scratch"])
        self.assertEqual([p["pointer"] for p in params], [True, True, True, False, True, True])

    def test_struct_parameters_and_unknown_kernels(self):
        ptx = ".visible .entry k(\n .param .align 64 .b8 k_param_0[128],\n .param .f64 k_param_1\n)\n{\n}"
        self.assertEqual(worker.ptx_kernel_params(ptx, "k"), [(128, False), (8, False)])
        with self.assertRaises(ValueError):
            worker.ptx_kernel_params(ptx, "other")

    def test_amdgcn_metadata_skips_hidden_arguments(self):
        amdgcn = textwrap.dedent("""\
            amdhsa.kernels:
              - .args:
                  - .address_space: global
                    .offset: 0
                    .size: 8
                    .value_kind: global_buffer
                  - .offset: 8
                    .size: 4
                    .value_kind: by_value
                  - .address_space: global
                    .offset: 16
                    .size: 8
                    .value_kind: global_buffer
                  - .offset: 24
                    .size: 4
                    .value_kind: hidden_block_count_x
                .group_segment_fixed_size: 0
            """)
        self.assertEqual(worker.amdgcn_kernel_params(amdgcn), [(8, True), (4, False), (8, True)])


class CompilerDetectionTest(unittest.TestCase):
    """detect_compiler() against fake `triton` packages, in a child interpreter."""

    def detect_in(self, root, extra_env=None):
        code = "import json; from jax_flagtree import worker; print(json.dumps(worker.detect_compiler()))"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TRITON_", "FLAGTREE_"))}
        env.update(extra_env or {}, PYTHONPATH=os.pathsep.join([root, PYTHON_DIR]))
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        return json.loads(out.stdout)

    @staticmethod
    def write_files(root, files):
        for path, text in files.items():
            full = os.path.join(root, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w") as f:
                f.write(text)

    def detect_with(self, files, extra_env=None):
        with tempfile.TemporaryDirectory() as root:
            self.write_files(root, files)
            return self.detect_in(root, extra_env)

    def test_build_id_follows_the_native_library_and_code_knobs(self):
        with tempfile.TemporaryDirectory() as root:
            self.write_files(root, {"triton/__init__.py": "__version__ = '3.6.0'\n",
                                    "triton/_C/libtriton.so": "x" * 10})
            first = self.detect_in(root)["build_id"]
            self.assertRegex(first, r"^[0-9a-f]{16}$")
            self.assertEqual(self.detect_in(root)["build_id"], first, "same install, same id")
            self.assertNotEqual(self.detect_in(root, {"TRITON_F32_DEFAULT": "ieee"})["build_id"], first)
            self.assertEqual(self.detect_in(root, {"TRITON_CACHE_DIR": "/elsewhere"})["build_id"], first)
            self.write_files(root, {"triton/_C/libtriton.so": "x" * 11})  # a rebuild
            self.assertNotEqual(self.detect_in(root)["build_id"], first)

    def test_plain_triton(self):
        identity = self.detect_with({"triton/__init__.py": "__version__ = '3.6.0'\n"})
        if identity["name"] == "flagtree" and "provides triton" not in identity["detected_by"]:
            self.skipTest("a FlagTree distribution is installed in this interpreter")
        self.assertEqual((identity["name"], identity["version"]), ("triton", "3.6.0"))

    def test_flagtree_marker_file(self):
        identity = self.detect_with({"triton/__init__.py": "__version__ = '3.5.1'\n",
                                     "triton/compiler/__init__.py": "",
                                     "triton/compiler/hint_manager.py": ""})
        self.assertEqual((identity["name"], identity["version"], identity["triton_version"]),
                         ("flagtree", "3.5.1", "3.5.1"))

    def test_flagtree_distribution_metadata(self):
        identity = self.detect_with({
            "triton/__init__.py": "__version__ = '3.5.1'\n",
            "flagtree-0.4.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: flagtree\nVersion: 0.4.0\n",
            "flagtree-0.4.0.dist-info/top_level.txt": "triton\n",
        })
        self.assertEqual((identity["name"], identity["version"], identity["triton_version"]),
                         ("flagtree", "0.4.0", "3.5.1"))


class CompilerFingerprintTest(unittest.TestCase):
    """compiler_fingerprint.py: what the plugin remembers the compiler's identity
    under. Whatever changes the identity a worker reports must change it."""

    def run_child(self, root, code, extra_env=None):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TRITON_", "FLAGTREE_"))}
        env.update(extra_env or {}, PYTHONPATH=os.pathsep.join([root, os.path.abspath(PYTHON_DIR)]))
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                             cwd=root)
        self.assertEqual(out.returncode, 0, out.stderr)
        return json.loads(out.stdout)

    def both(self, root, extra_env=None):
        """(fingerprint, identity) as the plugin and the worker see this install."""
        code = ("import json; from jax_flagtree import compiler_fingerprint, worker; "
                "print(json.dumps([compiler_fingerprint.fingerprint(), worker.detect_compiler()]))")
        return self.run_child(root, code, extra_env)

    def test_every_identity_change_changes_the_fingerprint(self):
        with tempfile.TemporaryDirectory() as root:
            CompilerDetectionTest.write_files(root, {"triton/__init__.py": "__version__ = '3.5.0'\n",
                                                     "triton/_C/libtriton.so": "x" * 10})
            base_print, base_identity = self.both(root)
            self.assertRegex(base_print, r"^[0-9a-f]{32}$")
            self.assertEqual(self.both(root), [base_print, base_identity], "same install, same answer")
            changes = [
                ("a rebuilt native library", {"triton/_C/libtriton.so": "y" * 11}, None),
                ("another version", {"triton/__init__.py": "__version__ = '3.6.0'\n"}, None),
                ("a FlagTree marker file", {"triton/compiler/hint_manager.py": ""}, None),
                ("a flagtree distribution", {
                    "flagtree-0.4.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: flagtree\nVersion: 0.4.0\n",
                    "flagtree-0.4.0.dist-info/top_level.txt": "triton\n"}, None),
                ("a code knob", {}, {"TRITON_F32_DEFAULT": "ieee"}),
            ]
            seen = {base_print}
            for what, files, env in changes:
                CompilerDetectionTest.write_files(root, files)
                fingerprint, identity = self.both(root, env)
                self.assertNotIn(fingerprint, seen, what)
                seen.add(fingerprint)
                if env is None:
                    self.assertNotEqual(identity, base_identity, f"{what} is a real identity change")
                base_identity = identity

    def test_no_triton_no_fingerprint(self):
        from jax_flagtree import compiler_fingerprint
        self.assertIsNone(compiler_fingerprint.package_dir(find_spec=lambda name: None))
        with tempfile.TemporaryDirectory() as root:
            self.assertIsNone(self.run_child(
                root, "import json; from jax_flagtree import compiler_fingerprint as c; "
                      "print(json.dumps(c.fingerprint(c.package_dir(lambda n: None))))"))

    def test_the_worker_reports_what_the_plugin_computes(self):
        with tempfile.TemporaryDirectory() as root:
            CompilerDetectionTest.write_files(root, {"triton/__init__.py": "__version__ = '3.6.0'\n"})
            expected = self.run_child(root, "import json; from jax_flagtree import compiler_fingerprint as c; "
                                            "print(json.dumps(c.fingerprint()))")
            env = {k: v for k, v in os.environ.items() if not k.startswith(("TRITON_", "FLAGTREE_"))}
            env["PYTHONPATH"] = os.pathsep.join([root, os.path.abspath(PYTHON_DIR)])
            done = subprocess.run([sys.executable, "-m", "jax_flagtree.worker"], input=hand_frame('{"type": "shutdown"}'),
                                  env=env, capture_output=True, timeout=120, cwd=root)
            hello = frames_in(done.stdout)[0][0]
            self.assertEqual(hello["compiler"]["triton_version"], "3.6.0", done.stderr)
            self.assertEqual(hello["compiler_fingerprint"], expected)


# A stand-in for the parts of Triton 3.6's Python API that worker.run_pipeline
# touches (names and call shapes as in triton/compiler/compiler.py and the
# backends' add_stages). Each stage logs its name so the test can prove that
# make_ttir runs, and the ptx stage returns the reference PTX of add_exp.
MOCK_TRITON = {
    "triton/__init__.py": "__version__ = '3.6.0'\n",
    "triton/_C/__init__.py": "",
    "triton/_C/libtriton.py": textwrap.dedent("""\
        class ir:
            class context:
                pass
        """),
    "triton/backends/__init__.py": "",
    "triton/backends/compiler.py": textwrap.dedent("""\
        import enum
        from dataclasses import dataclass

        class Language(enum.Enum):
            TRITON = 0

        @dataclass(frozen=True)
        class GPUTarget:
            backend: str
            arch: object
            warp_size: int
        """),
    "triton/compiler/__init__.py": "",
    "triton/compiler/compiler.py": textwrap.dedent("""\
        import os, re
        from dataclasses import dataclass
        from triton.backends.compiler import Language

        STAGES_RUN = []
        OPTIONS_SEEN = []

        def get_cache_invalidating_env_vars():
            return {"TRITON_MOCK": "1"}

        @dataclass(frozen=True)
        class Options:
            num_warps: int = 4
            num_stages: int = 3
            num_ctas: int = 1
            enable_reflect_ftz: bool = True

        class StageResult:
            def __init__(self, value, artifact):
                self.value, self.artifact = value, artifact

        class Backend:
            binary_ext = "cubin"
            def __init__(self, target):
                self.target = target
            def parse_options(self, opts):
                # As Triton's backends do: options they do not know are dropped.
                known = Options.__dataclass_fields__
                return Options(**{k: v for k, v in opts.items() if k in known})
            def add_stages(self, stages, options, language):
                assert language == Language.TRITON
                OPTIONS_SEEN.append(options)
                def stage(name, fn):
                    def run(src, metadata):
                        STAGES_RUN.append(name)
                        return fn(src, metadata)
                    stages[name] = run
                stage("ttir", lambda src, md: src)
                stage("ttgir", lambda src, md: StageResult(src, "ttgir text"))
                stage("llir", lambda src, md: md.update(shared=4096, global_scratch_size=0) or "llir text")
                stage("ptx", lambda src, md: md.update(name="add_exp") or open(os.environ["MOCK_PTX"]).read())
                stage("cubin", lambda src, md: b"\\x7fELF" + md["triton_version"].encode())

        def make_backend(target):
            assert target.backend == "cuda" and target.arch == 90, target
            return Backend(target)

        class IRSource:
            def __init__(self, path, context, backend):
                text = open(path).read()
                if "tt.func" not in text:
                    raise RuntimeError("Parse MLIR file failed.")
                self.language = Language.TRITON
                self.module = object()
                types = re.findall(r"%\\w+: !tt.ptr<(\\w+)>|%\\w+: (i32)", text)
                self.signature = {i: ("*" + p if p else s) for i, (p, s) in enumerate(types)}
            def parse_options(self):
                return {}
            def make_ir(self, target, options, codegen_fns, module_map, context):
                return self.module
        """),
}


class MockTritonPipelineTest(unittest.TestCase):
    """worker.compile_request's glue against a stand-in Triton API, in a child interpreter."""

    def compile_with_mock(self, ttir):
        with tempfile.TemporaryDirectory() as root:
            for path, text in MOCK_TRITON.items():
                os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
                with open(os.path.join(root, path), "w") as f:
                    f.write(text)
            code = textwrap.dedent("""\
                import json, sys
                from jax_flagtree import worker
                from triton.compiler import compiler
                header = {"id": 3, "target": {"backend": "cuda", "arch": "90", "warp_size": 32},
                          "options": {"num_warps": 8, "num_stages": 2, "num_ctas": 1}}
                try:
                    answer, binary = worker.compile_request(header, sys.stdin.read(), {"name": "triton"})
                    print(json.dumps({"answer": answer, "binary": binary.hex(), "stages": compiler.STAGES_RUN,
                                      "ftz": compiler.OPTIONS_SEEN[-1].enable_reflect_ftz}))
                except worker.StageError as e:
                    print(json.dumps({"stage": e.stage, "error": str(e)}))
                """)
            env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, PYTHON_DIR]),
                       MOCK_PTX=os.path.join(DATA_DIR, "add_exp.ptx"))
            done = subprocess.run([sys.executable, "-c", code], input=ttir, env=env, capture_output=True,
                                  text=True)
            self.assertEqual(done.returncode, 0, done.stderr)
            return json.loads(done.stdout)

    def test_every_stage_from_make_ttir_runs_and_the_answer_is_complete(self):
        with open(os.path.join(DATA_DIR, "add_exp.ttir")) as f:
            out = self.compile_with_mock(f.read())
        self.assertEqual(out["stages"], ["ttir", "ttgir", "llir", "ptx", "cubin"])
        answer = out["answer"]
        self.assertEqual(bytes.fromhex(out["binary"]), b"\x7fELF3.6.0")
        self.assertEqual((answer["kernel_name"], answer["binary_format"]), ("add_exp", "cubin"))
        self.assertEqual((answer["shared_mem"], answer["num_warps"]), (4096, 8))
        self.assertEqual([p["type"] for p in answer["params"]], ["*f32", "*f32", "*f32", "i32", "*i8", "*i8"])
        self.assertEqual([p["role"] for p in answer["params"]][-2:], ["global_scratch", "profile_scratch"])
        self.assertEqual((answer["global_scratch_size"], answer["profile_scratch_size"]), (0, 0))
        # Each stage's time, for XLA_FLAGTREE_LOG's breakdown of a slow compile.
        self.assertEqual(list(answer["stage_seconds"]), ["parse", "ttir", "ttgir", "llir", "ptx", "cubin"])
        self.assertTrue(all(t >= 0 for t in answer["stage_seconds"].values()))

    def test_libdevice_keeps_denormals_as_xla_does(self):
        with open(os.path.join(DATA_DIR, "add_exp.ttir")) as f:
            out = self.compile_with_mock(f.read())
        self.assertIs(out["ftz"], False)

    def test_parse_failure_names_the_parse_stage(self):
        out = self.compile_with_mock("module { garbage }")
        self.assertEqual(out["stage"], "parse")
        self.assertIn("Parse MLIR file failed", out["error"])


class WorkerProcessTest(unittest.TestCase):
    """The worker as the plugin starts it: a module and a plain script."""

    def talk(self, argv):
        env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
        request = hand_frame(json.dumps({"type": "compile", "id": 1, "target": {"backend": "cuda", "arch": "90",
                                                                               "warp_size": 32}}),
                             b"not ttir at all") + hand_frame('{"type": "shutdown"}')
        done = subprocess.run(argv, input=request, env=env, capture_output=True, timeout=300)
        return done.returncode, frames_in(done.stdout), done.stderr.decode(errors="replace")

    def check(self, argv):
        status, frames, stderr = self.talk(argv)
        self.assertEqual(status, 0, stderr)
        self.assertEqual([f[0]["type"] for f in frames], ["hello", "result"], stderr)
        result = frames[1][0]
        self.assertEqual((result["id"], result["ok"]), (1, False))
        if frames[0][0]["compiler"]["name"] == "none":
            self.assertIn("no compiler available", result["error"])
        else:  # a compiler is installed: it must reject the bad TTIR, not crash
            self.assertIn(result["stage"], ("parse", "compile", "ttir"))

    def test_runs_as_a_module(self):
        self.check([sys.executable, "-m", "jax_flagtree.worker"])

    def test_runs_as_a_script(self):
        self.check([sys.executable, os.path.join(PYTHON_DIR, "jax_flagtree", "worker.py")])


if __name__ == "__main__":
    if not os.path.isdir(os.path.join(PYTHON_DIR, "jax_flagtree")):
        print(f"SKIP: no jax_flagtree package under {PYTHON_DIR}")
        sys.exit(77)
    result = unittest.main(exit=False, verbosity=2).result
    sys.exit(0 if result.wasSuccessful() else 1)
