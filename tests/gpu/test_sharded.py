"""Programs over two GPUs of one process: jit over a NamedSharding and
data-parallel training, in fl_only (XLA_MODE set when unset).

* `named_sharding_shard_map_psum`: jax.jit of a shard_map whose body psums
  over the 2-device mesh axis, the input sharded over it (NamedSharding):
  every device must hold the column sums of the whole array (numpy).
* `named_sharding_train_step`: the zoo's mlp_train_step model (relu MLP,
  mean squared error, SGD at lr 0.01) jitted with the batch sharded over 2
  devices and the parameters replicated, against the same step jitted on one
  device with the whole batch.
* `pmap_train_step`: the same step data-parallel under pmap: each device
  takes half the batch and the gradients and loss are pmean'd, which equals
  the whole-batch step (the mean over 16 rows is the mean of the two halves'
  means); every device's new parameters and loss must match the one-device
  step.

Under jit over a NamedSharding JAX 0.11 hands the plugin its global view
(Shardy: sdy.mesh, sdy.sharding on arguments, sdy.manual_computation for
shard_map) for XLA to partition, and pmap is jit of a shard_map in JAX 0.11,
so it arrives the same way. jax-flagtree does not partition: it compiles a
fully manual program (all of @main one sdy.manual_computation over every mesh
axis, as pmap and a top-level shard_map give) as the manual computation's
body, and refuses the rest with its "global view" error. The shard_map and
pmap cases are meant to run; the NamedSharding train step (no shard_map)
needs a partitioner and is expected to be refused. A refusal reports SKIP
quoting it (SHARDED_STRICT=1 counts it as a failure); any other error fails.
Everything skips below 2 GPUs."""

import os

os.environ.setdefault("XLA_MODE", "fl_only")

import pjrt_harness as h  # noqa: E402

h.require_gpu_and_jax()

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

STRICT = os.environ.get("SHARDED_STRICT") == "1"
rng = np.random.default_rng(0)
# Float32 dots run as TF32 on our side (precision DEFAULT); the sharded and
# one-device steps sum in different orders, so they agree to TF32 accuracy.
TOL = 2e-3


def require_two():
  if jax.default_backend() != "gpu" or not h.ours_is_active():
    raise AssertionError("the gpu backend is not jax-flagtree")
  if jax.device_count() < 2:
    h.skip(f"needs 2 GPUs, this machine has {jax.device_count()}")


def refused_global_view(e: Exception) -> None:
  """SKIP for the plugin's documented refusal of a global-view program."""
  if "global view" in str(e) and not STRICT:
    h.skip(f"refused as documented (no SPMD partitioner): {str(e).splitlines()[0][:400]}")
  raise e


def mlp_loss(params, x, y):
  hidden = jax.nn.relu(x @ params["w1"] + params["b1"])
  out = hidden @ params["w2"] + params["b2"]
  return jnp.mean((out - y) ** 2)


def train_step(params, x, y):
  loss, grads = jax.value_and_grad(mlp_loss)(params, x, y)
  return loss, jax.tree.map(lambda p, g: p - 0.01 * g, params, grads)


def mlp_inputs():
  f32 = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731
  params = {"w1": f32(32, 64) * 0.2, "b1": f32(64) * 0.1, "w2": f32(64, 8) * 0.2,
            "b2": f32(8) * 0.1}
  return params, f32(16, 32), f32(16, 8)


def one_device_step(params, x, y):
  device = jax.devices()[0]
  put = lambda a: jax.device_put(a, device)  # noqa: E731
  loss, new = jax.jit(train_step)(jax.tree.map(put, params), put(x), put(y))
  return np.asarray(loss), {k: np.asarray(v) for k, v in new.items()}


def close(got, want, what):
  got = np.asarray(got)
  assert got.shape == want.shape, (what, got.shape, want.shape)
  np.testing.assert_allclose(got, want, rtol=TOL, atol=TOL, err_msg=what)


def named_sharding_shard_map_psum():
  require_two()
  mesh = Mesh(np.array(jax.devices()[:2]), ("x",))
  x = rng.standard_normal((8, 5)).astype(np.float32)

  def body(block):
    return jax.lax.psum(block.sum(axis=0), "x")

  f = jax.jit(jax.shard_map(body, mesh=mesh, in_specs=P("x"), out_specs=P()))
  try:
    got = f(jax.device_put(x, NamedSharding(mesh, P("x"))))
  except Exception as e:  # noqa: BLE001
    refused_global_view(e)
  want = x.astype(np.float64).sum(axis=0).astype(np.float32)
  for shard in got.addressable_shards:  # replicated: every device holds all of it
    np.testing.assert_allclose(np.asarray(shard.data), want, rtol=1e-5, atol=1e-5)


def named_sharding_train_step():
  require_two()
  params, x, y = mlp_inputs()
  want_loss, want = one_device_step(params, x, y)
  mesh = Mesh(np.array(jax.devices()[:2]), ("data",))
  replicated = NamedSharding(mesh, P())
  batch = NamedSharding(mesh, P("data"))
  sharded_params = jax.tree.map(lambda a: jax.device_put(a, replicated), params)
  try:
    loss, new = jax.jit(train_step)(sharded_params, jax.device_put(x, batch),
                                    jax.device_put(y, batch))
    loss = np.asarray(loss)
  except Exception as e:  # noqa: BLE001
    refused_global_view(e)
  close(loss, want_loss, "loss")
  for k in want:
    close(new[k], want[k], k)


def pmap_train_step():
  require_two()
  params, x, y = mlp_inputs()
  want_loss, want = one_device_step(params, x, y)

  def step(params, x, y):
    loss, grads = jax.value_and_grad(mlp_loss)(params, x, y)
    grads = jax.lax.pmean(grads, "i")
    return jax.lax.pmean(loss, "i"), jax.tree.map(lambda p, g: p - 0.01 * g, params, grads)

  stacked = jax.tree.map(lambda a: np.stack([a, a]), params)
  try:
    loss, new = jax.pmap(step, axis_name="i", devices=jax.devices()[:2])(
        stacked, x.reshape(2, 8, 32), y.reshape(2, 8, 8))
    loss = np.asarray(loss)
  except Exception as e:  # noqa: BLE001
    refused_global_view(e)
  for d in range(2):
    close(loss[d], want_loss, f"loss on device {d}")
    for k in want:
      close(np.asarray(new[k])[d], want[k], f"{k} on device {d}")


for name, fn in [
    ("named_sharding_shard_map_psum", named_sharding_shard_map_psum),
    ("named_sharding_train_step", named_sharding_train_step),
    ("pmap_train_step", pmap_train_step),
]:
  h.check(name, fn)

h.finish()
