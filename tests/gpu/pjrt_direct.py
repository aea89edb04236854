"""The plugin driven directly through its C table (ctypes, no JAX): client
teardown leaves no thread behind, out of device memory is RESOURCE_EXHAUSTED,
bad arguments are INVALID_ARGUMENT. Errors are read through their own function
table, the 0.110 way."""

import ctypes
import os
import pathlib
import re
import struct

import pjrt_harness as h

h.require_gpu_and_jax()

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
SLOTS = re.findall(r"^JFT_PJRT_(?:SLOT|VOID_SLOT|STUB)\((\w+)", (ROOT / "src/pjrt/api_slots.def").read_text(), re.M)
CALL = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p)
INVALID_ARGUMENT, RESOURCE_EXHAUSTED = 3, 8
U8 = 6


def load_api():
  import jax_plugins.flagtree as plugin
  library = ctypes.CDLL(str(plugin.library_path()))
  library.GetPjrtApi.restype = ctypes.c_void_p
  return library.GetPjrtApi()


API = load_api()


def call(name, args):
  address = ctypes.c_void_p.from_address(API + 40 + 8 * SLOTS.index(name)).value
  return CALL(address)(ctypes.addressof(args))


def error_info(error):
  """(code, message) of an error, destroyed afterwards; (0, '') for none."""
  if not error:
    return 0, ""
  table = ctypes.c_void_p.from_address(error).value
  field = lambda offset, kind: kind(ctypes.c_void_p.from_address(table + offset).value)  # noqa: E731
  code = field(40, ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p))(error)
  text, size = ctypes.c_char_p(), ctypes.c_size_t()
  field(32, ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.POINTER(ctypes.c_char_p),
                             ctypes.POINTER(ctypes.c_size_t)))(error, ctypes.byref(text),
                                                               ctypes.byref(size))
  message = ctypes.string_at(text, size.value).decode()
  field(24, ctypes.CFUNCTYPE(None, ctypes.c_void_p))(error)
  return code, message


def args_buffer(size, fields):
  buffer = ctypes.create_string_buffer(size)
  struct.pack_into("<Q", buffer, 0, size)
  for offset, fmt, value in fields:
    struct.pack_into(fmt, buffer, offset, value)
  return buffer


def create_client():
  args = args_buffer(88, [])
  code, message = error_info(call("Client_Create", args))
  assert code == 0, message
  return struct.unpack_from("<Q", args, 64)[0]


def destroy_client(client):
  assert error_info(call("Client_Destroy", args_buffer(24, [(16, "<Q", client)])))[0] == 0


def first_device(client):
  args = args_buffer(40, [(16, "<Q", client)])
  assert error_info(call("Client_Devices", args))[0] == 0
  devices, count = struct.unpack_from("<QQ", args, 24)
  assert count >= 1
  return ctypes.c_void_p.from_address(devices).value


def from_host(client, device, data, element_type, dims):
  dims_array = (ctypes.c_int64 * len(dims))(*dims)
  args = args_buffer(120, [(16, "<Q", client), (24, "<Q", ctypes.addressof(data)),
                           (32, "<i", element_type), (40, "<Q", ctypes.addressof(dims_array)),
                           (48, "<Q", len(dims)), (72, "<i", 1), (80, "<Q", device)])
  return error_info(call("Client_BufferFromHostBuffer", args))


def threads():
  return len(os.listdir("/proc/self/task"))


def teardown_joins_threads():
  destroy_client(create_client())  # the driver's own threads start on first use
  before = threads()
  for _ in range(3):
    destroy_client(create_client())
  after = threads()
  print(f"threads after the first client: {before}, after three more: {after}", flush=True)
  assert after == before, (before, after)


def out_of_memory():
  client = create_client()
  try:
    small = ctypes.create_string_buffer(16)
    code, message = from_host(client, first_device(client), small, U8, [1 << 42])  # 4 TiB
    print(message, flush=True)
    assert code == RESOURCE_EXHAUSTED, (code, message)
  finally:
    destroy_client(client)


def bad_arguments():
  client = create_client()
  try:
    small = ctypes.create_string_buffer(16)
    device = first_device(client)
    assert from_host(client, device, small, 99, [4])[0] == INVALID_ARGUMENT
    assert from_host(client, device, small, U8, [-4])[0] == INVALID_ARGUMENT
    assert from_host(client, device, small, U8, [1 << 40, 1 << 40])[0] == INVALID_ARGUMENT
    short = args_buffer(24, [(16, "<Q", client)])
    struct.pack_into("<Q", short, 0, 16)
    assert error_info(call("Client_Devices", short))[0] == INVALID_ARGUMENT
  finally:
    destroy_client(client)


h.check("client_teardown_joins_threads", teardown_joins_threads)
h.check("out_of_memory_is_resource_exhausted", out_of_memory)
h.check("bad_arguments_are_invalid_argument", bad_arguments)
h.finish()
