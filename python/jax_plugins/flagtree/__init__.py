"""Registers jax-flagtree with JAX as the platform plugin named "cuda".

JAX imports every module under the `jax_plugins` namespace package (and every
`jax_plugins` entry point) and calls its `initialize()`. Ours loads
`libjax_flagtree_pjrt.so`, which sits next to this file, so that JAX runs on the
GPU through our runtime.

Two plugins wanting the name "cuda" cannot both load: the C++ side refuses a
second library under a name already taken, and JAX keeps one backend factory
per name. Discovery order is a set's iteration order, so either may come first:

* if we run first, we load under "cuda" and replace the upstream module's
  `initialize` with a no-op, so it never registers;
* if upstream already ran, we load our library under a name of its own and
  take over the "cuda" backend factory with a higher priority.

Either way JAX creates exactly one "cuda" client, ours.

`JAX_FLAGTREE_DISABLE=1` makes this module register nothing, so the upstream
plugin runs in the same environment for comparison.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import logging
import os
import pathlib
import re
import sys
import warnings

logger = logging.getLogger(__name__)

PLUGIN_NAME = "cuda"
# The upstream CUDA plugin registers with priority 500.
PRIORITY = 600
LIBRARY_NAME = "libjax_flagtree_pjrt.so"
WORKER_MODULE = "jax_flagtree.worker"
# The C API name used when an upstream plugin already holds "cuda".
FALLBACK_C_API_NAME = "flagtree"
UPSTREAM_MODULES = ("jax_plugins.xla_cuda13", "jax_plugins.xla_cuda12", "jax_plugins.cuda")

_registered = False


def disabled() -> bool:
  return os.environ.get("JAX_FLAGTREE_DISABLE", "").strip().lower() in ("1", "true", "yes", "on")


def library_path() -> pathlib.Path | None:
  override = os.environ.get("JAX_FLAGTREE_LIBRARY")
  path = pathlib.Path(override) if override else pathlib.Path(__file__).parent / LIBRARY_NAME
  return path if path.exists() else None


ALLOCATORS = ("default", "platform", "bfc", "cuda_async")


def memory_options(environ=os.environ) -> dict[str, str | float | bool | int]:
  """The allocator settings upstream's CUDA plugin derives from the environment
  (its initialize() does this, and we keep it from running), with the same
  names, types and defaults: unset variables pass nothing."""
  allocator = environ.get("XLA_PYTHON_CLIENT_ALLOCATOR", "default").lower()
  if allocator not in ALLOCATORS:
    raise ValueError("XLA_PYTHON_CLIENT_ALLOCATOR env var must be \"default\", \"platform\", "
                     f"\"bfc\", or \"cuda_async\", got \"{allocator}\"")
  fraction = environ.get("XLA_CLIENT_MEM_FRACTION", "")
  deprecated_fraction = environ.get("XLA_PYTHON_CLIENT_MEM_FRACTION", "")
  if deprecated_fraction and fraction:
    raise ValueError("XLA_CLIENT_MEM_FRACTION is specified together with "
                     "XLA_PYTHON_CLIENT_MEM_FRACTION. Remove the latter one, it is deprecated.")
  fraction = fraction or deprecated_fraction
  preallocate = environ.get("XLA_PYTHON_CLIENT_PREALLOCATE", "")
  collective_size = environ.get("XLA_PYTHON_CLIENT_COLLECTIVE_MEM_SIZE_MB", "")
  options: dict[str, str | float | bool | int] = {"allocator": allocator}
  if fraction:
    options["memory_fraction"] = float(fraction)
  if preallocate:
    options["preallocate"] = preallocate not in ("false", "False", "0")
  if collective_size:
    options["collective_memory_size"] = int(collective_size) * (1 << 20)
  return options


def create_options(fingerprint: str | None = None) -> dict[str, str | int | float | bool]:
  """Options handed to PJRT_Client_Create (each becomes a PJRT_NamedValue).
  `compiler_fingerprint` names the installed Triton/FlagTree build, under
  which the client remembers the compiler's identity (jax_flagtree/compiler_fingerprint.py)."""
  options: dict[str, str | int | float | bool] = {"python_executable": sys.executable,
                                                  "worker_module": WORKER_MODULE}
  if fingerprint:
    options["compiler_fingerprint"] = fingerprint
  options.update(memory_options())
  workers = os.environ.get("XLA_FLAGTREE_COMPILE_WORKERS", "").strip()
  if workers:
    try:
      options["compile_workers"] = int(workers)
    except ValueError:
      warnings.warn(f"XLA_FLAGTREE_COMPILE_WORKERS={workers!r} is not an integer; "
                    "using the default number of compile workers")
  return options


# (environment variable, packages of the nvidia wheel, files under its lib/):
# the first package and file found wins. CUPTI (the profiler's GPU activity)
# and NVRTC (the native route) come from nvidia-cuda-cupti / -nvrtc: CUDA 13's
# wheels install under nvidia/cu13, CUDA 12's under nvidia/cuda_cupti, cuda_nvrtc.
_WHEEL_LIBRARIES = (
    ("JFT_CUDNN_LIBRARY", ("nvidia.cudnn",), ("libcudnn.so.9",)),
    ("JFT_NCCL_LIBRARY", ("nvidia.nccl",), ("libnccl.so.2",)),
    ("JFT_CUPTI_LIBRARY", ("nvidia.cu13", "nvidia.cuda_cupti"),
     ("libcupti.so.13", "libcupti.so.12")),
    # NVRTC compiles the native route's CUDA C (XLA_MODE).
    ("JFT_NVRTC_LIBRARY", ("nvidia.cu13", "nvidia.cuda_nvrtc"),
     ("libnvrtc.so.13", "libnvrtc.so.12")),
)


def _point_at_wheel_libraries() -> None:
  """Names the cuDNN, NCCL, CUPTI and NVRTC of the nvidia-cudnn / nvidia-nccl /
  nvidia-cuda-cupti / nvidia-cuda-nvrtc wheels (what JAX's CUDA extras
  install) in JFT_CUDNN_LIBRARY / JFT_NCCL_LIBRARY / JFT_CUPTI_LIBRARY /
  JFT_NVRTC_LIBRARY, unless the
  environment names one: the runtime dlopens each by that path, then by its
  soname. Upstream's plugin would preload them, but we keep that plugin from
  initializing."""
  for variable, packages, filenames in _WHEEL_LIBRARIES:
    if not os.environ.get(variable):
      _point_at_wheel_library(variable, packages, filenames)


def _point_at_wheel_library(variable: str, packages, filenames) -> None:
  for package in packages:
    try:  # found, not imported: the wheel's package holds only the libraries
      spec = importlib.util.find_spec(package)
    except Exception:  # no wheel: the system's copy, if any, is found by soname
      continue
    for base in (spec.submodule_search_locations or []) if spec is not None else []:
      for filename in filenames:
        candidate = pathlib.Path(base) / "lib" / filename
        if candidate.exists():
          os.environ[variable] = str(candidate)
          return


# Kept in step with scripts/build_wheel.py (SUPPORTED_JAX, TRITON_REQUIREMENT).
SUPPORTED_JAX = ((0, 11), (0, 12))  # [lowest, first unsupported)
TRITON_PACKAGE = "triton"  # FlagTree installs itself under the same name
# The `triton` package versions whose compile stages the worker drives:
# FlagTree's NVIDIA builds are Triton 3.1 to 3.5, upstream Triton is tested at 3.6.
SUPPORTED_TRITON = ((3, 1), (4, 0))
TRITON_INSTALL_HINT = ("install FlagTree, or `pip install 'jax-flagtree[triton]'` "
                       "(upstream Triton), or set JAX_FLAGTREE_DISABLE=1 to use upstream XLA")


def _version_tuple(text: str) -> tuple[int, ...]:
  parts = []
  for piece in text.split("+")[0].split(".")[:3]:
    digits = ""
    for c in piece:
      if not c.isdigit():
        break
      digits += c
    parts.append(int(digits) if digits else 0)
  return tuple(parts)


def triton_version(directory: pathlib.Path) -> str | None:
  """`__version__` of the triton package in `directory`, read from its
  __init__.py: importing triton costs a second, and the plugin starts on
  every `import jax`."""
  try:
    text = (directory / "__init__.py").read_text(errors="replace")
  except OSError:
    return None
  match = re.search(r"^__version__\s*=\s*['\"]([^'\"]+)['\"]", text, re.M)
  return match.group(1) if match else None


def requirement_problems(jax_version: str, triton_found: bool,
                         triton_version_text: str | None = None) -> list[str]:
  """What keeps this installation from working, each as a sentence saying what to do."""
  problems = []
  low, high = SUPPORTED_JAX
  if not low <= _version_tuple(jax_version)[:2] < high:
    problems.append(
        f"jax {jax_version} is outside the versions this plugin supports "
        f"(>={low[0]}.{low[1]},<{high[0]}.{high[1]}); install a supported jax or set "
        "JAX_FLAGTREE_DISABLE=1 to use upstream XLA")
  if not triton_found:
    problems.append(
        "no Triton or FlagTree is installed (the `triton` package compiles every kernel); "
        + TRITON_INSTALL_HINT)
  elif triton_version_text is not None:
    low, high = SUPPORTED_TRITON
    if not low <= _version_tuple(triton_version_text)[:2] < high:
      problems.append(
          f"the installed `triton` package is version {triton_version_text}, outside the "
          f"versions this plugin compiles with (>={low[0]}.{low[1]},<{high[0]}.{high[1]}); "
          + TRITON_INSTALL_HINT)
  return problems


def _check_requirements(triton_dir: pathlib.Path | None) -> None:
  try:
    import jax
    jax_version = jax.__version__
  except Exception:  # JAX is calling us, so this cannot fail in practice
    return
  version = triton_version(triton_dir) if triton_dir is not None else None
  problems = requirement_problems(jax_version, triton_dir is not None, version)
  if problems:
    logger.warning("jax-flagtree: %s", "; ".join(problems))


def _triton_dir() -> pathlib.Path | None:
  try:
    from jax_flagtree import compiler_fingerprint
    return compiler_fingerprint.package_dir()
  except Exception:  # no jax_flagtree next to us: the worker will fail to start anyway
    return None


def _compiler_fingerprint(triton_dir: pathlib.Path | None) -> str | None:
  if triton_dir is None:
    return None
  try:
    from jax_flagtree import compiler_fingerprint
    return compiler_fingerprint.fingerprint(triton_dir)
  except Exception:  # an unreadable install: workers are asked, as without it
    return None


def _skipped_upstream_initialize(module_name: str) -> None:
  logger.debug("jax-flagtree provides the 'cuda' platform; %s is not registered", module_name)


def _silence_upstream() -> None:
  for name in UPSTREAM_MODULES:
    try:
      module = importlib.import_module(name)
    except Exception:  # not installed, or broken: either way it cannot compete
      continue
    module.initialize = functools.partial(_skipped_upstream_initialize, name)


# Where jaxlib's CUDA plugin helper lives: its handlers for host callbacks
# (`xla_ffi_python_gpu_callback`, ...) and the functions that register
# handlers and types through a plugin's PJRT FFI / GPU custom-call extensions.
GPU_PLUGIN_EXTENSIONS = ("jax_cuda13_plugin.cuda_plugin_extension",
                         "jax_cuda12_plugin.cuda_plugin_extension",
                         "jaxlib.cuda.cuda_plugin_extension")
XLA_PLATFORM = "CUDA"


def _gpu_plugin_extension():
  for name in GPU_PLUGIN_EXTENSIONS:
    try:
      return importlib.import_module(name)
    except Exception:  # not installed (or built for another CUDA)
      continue
  return None


def _forget_handler(table_name: str, xla_client) -> None:
  """Drops an upstream plugin's CUDA handler, registered before ours, so that
  ours is the one xla_client keeps (it keeps the first otherwise)."""
  table = getattr(xla_client, table_name, None)
  if isinstance(table, dict):
    table.pop(XLA_PLATFORM, None)


# jaxlib's GPU modules that register their CUDA targets while `import jax` runs
# (linear algebra, solvers, sparse, PRNG): xla_client queues those until a CUDA
# handler exists and hands the queue to the first one. Each has
# `registrations()`: {platform: [(name, handler, api_version)]}.
_JAXLIB_TARGET_MODULES = ("jaxlib.gpu_linalg", "jaxlib.gpu_solver", "jaxlib.gpu_sparse",
                          "jaxlib.gpu_prng")


def jaxlib_cuda_targets(modules=sys.modules) -> list[tuple[str, object, int]]:
  """(name, handler, api_version) of every CUDA target that jaxlib's GPU
  modules, as imported by JAX, registered with xla_client. Only modules JAX
  already imported count: their registrations are the ones a handler that ran
  before ours took from xla_client's queue."""
  targets: list[tuple[str, object, int]] = []
  for name in _JAXLIB_TARGET_MODULES:
    registrations = getattr(modules.get(name), "registrations", None)
    if registrations is not None:
      targets.extend(tuple(t) for t in registrations().get(XLA_PLATFORM, []))
  # These two register at import from the plugin's own submodule.
  rnn = getattr(modules.get("jaxlib.gpu_rnn"), "_cuda_rnn", None)
  if rnn is not None:
    targets.extend((n, v, int(n.endswith("_ffi"))) for n, v in rnn.registrations().items())
  triton = getattr(modules.get("jaxlib.gpu_triton"), "_cuda_triton", None)
  if triton is not None:
    targets.append(("triton_kernel_call", triton.get_custom_call(), 0))
    targets.extend((n, v, 1) for n, v in triton.registrations().items())
  return targets


def register_ffi(c_api, xla_client, extension, modules=sys.modules) -> None:
  """Routes jax.ffi.register_ffi_target(..., platform="CUDA") and JAX's own
  handlers (host callbacks) to our plugin, as upstream's initialize() does for
  its own: through our PJRT FFI and GPU custom-call extensions.

  When the upstream plugin initialised first, its handler took the targets
  jaxlib queued during `import jax` (cuSOLVER's hybrid eig, the tridiagonal
  solver, ...); those are registered with ours again here."""
  custom_call = functools.partial(extension.register_custom_call_target, c_api)
  custom_type = functools.partial(extension.register_custom_type, c_api)
  handlers = getattr(xla_client, "_custom_callback_handler", None)
  queue_taken = isinstance(handlers, dict) and XLA_PLATFORM in handlers
  _forget_handler("_custom_callback_handler", xla_client)
  _forget_handler("_custom_type_id_handler", xla_client)
  xla_client.register_custom_type_handler(XLA_PLATFORM, custom_type)
  xla_client.register_custom_call_handler(XLA_PLATFORM, custom_call)
  for name, value in extension.ffi_types().items():
    custom_type(name, value)
  for name, value in extension.ffi_handlers().items():
    custom_call(name, value, XLA_PLATFORM, 1)
  if queue_taken:
    for name, value, api_version in jaxlib_cuda_targets(modules):
      try:
        custom_call(name, value, XLA_PLATFORM, api_version)
      except Exception as e:  # one target lost, not the others
        logger.warning("jax-flagtree: registering jaxlib's %s failed: %s", name, e)


def _register_ffi(c_api) -> None:
  from jax._src.lib import xla_client
  extension = _gpu_plugin_extension()
  if extension is None or c_api is None:
    logger.warning(
        "jax-flagtree: jaxlib's CUDA plugin helper (jax-cuda13-plugin) is not installed: "
        "jax.debug.print, pure_callback, io_callback and jax.ffi targets inside jit "
        "will fail to load; install jax[cuda13]")
    return
  try:
    register_ffi(c_api, xla_client, extension)
  except Exception as e:  # an incompatible helper: callbacks fail, the rest works
    logger.warning("jax-flagtree: registering FFI handlers failed: %s", e)


def _register_profiler(c_api) -> None:
  """Hands our PJRT profiler extension (GPU activity through CUPTI) to
  jax.profiler, as register_plugin does for a plugin it loads itself; our
  fallback path loads the library directly, so it must do this too."""
  try:
    from jax._src.lib import _profiler
    _profiler.register_plugin_profiler(c_api)
  except Exception as e:  # an older jaxlib: traces hold host events only
    logger.warning("jax-flagtree: registering the GPU profiler failed: %s", e)


def initialize() -> None:
  global _registered
  if _registered:  # JAX may call us again after an explicit early registration
    return
  if disabled():
    logger.info("JAX_FLAGTREE_DISABLE is set: jax-flagtree registers nothing")
    return
  path = library_path()
  if path is None:
    logger.warning("jax-flagtree: %s not found next to %s", LIBRARY_NAME, __file__)
    return

  from jax._src import xla_bridge
  from jax._src.lib import xla_client

  triton_dir = _triton_dir()
  _check_requirements(triton_dir)
  _silence_upstream()
  _point_at_wheel_libraries()
  options = create_options(_compiler_fingerprint(triton_dir))
  if not xla_client.pjrt_plugin_loaded(PLUGIN_NAME):
    c_api = xla_bridge.register_plugin(
        PLUGIN_NAME, priority=PRIORITY, library_path=str(path), options=options)
    _registered = True
    _register_ffi(c_api)
    return

  c_api = xla_client.load_pjrt_plugin_dynamically(FALLBACK_C_API_NAME, str(path))
  _register_profiler(c_api)
  factory = functools.partial(
      xla_bridge.make_pjrt_c_api_client, FALLBACK_C_API_NAME, options=options)
  xla_bridge.register_backend_factory(
      PLUGIN_NAME, factory, priority=PRIORITY, fail_quietly=False, experimental=False,
      c_api=c_api)
  _registered = True
  _register_ffi(c_api)
