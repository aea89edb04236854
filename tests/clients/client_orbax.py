"""orbax.checkpoint: a round trip of a training state (nested dict of float32, bfloat16
and int32 arrays on the device, with a step counter) through StandardCheckpointer to a
temporary folder, restored against the original's structure.

Compared exactly: that the restored state equals the original leaf for leaf ("equal":
bit-identical on this side; a round trip must not change a bit on either plugin) and
every leaf's dtype and shape. Each leaf's sum is compared with rtol 1e-5: the random
arrays saved are made on each side's own plugin.
"""

import tempfile
import pathlib

import client_common as cc

jax, jnp, np, ocp = cc.need("jax", "jax.numpy", "numpy", "orbax.checkpoint")


def main():
  k1, k2 = jax.random.split(jax.random.PRNGKey(9))
  state = {"params": {"w": jax.random.normal(k1, (64, 32), jnp.float32),
                      "b": jnp.linspace(-1, 1, 32, dtype=jnp.float32).astype(jnp.bfloat16)},
           "opt": {"mu": jax.random.normal(k2, (64, 32), jnp.float32) * 1e-3},
           "step": jnp.array(1234, jnp.int32)}
  with tempfile.TemporaryDirectory() as d:
    path = pathlib.Path(d).resolve() / "ckpt"
    ckptr = ocp.StandardCheckpointer()
    ckptr.save(path, state)
    if hasattr(ckptr, "wait_until_finished"):
      ckptr.wait_until_finished()
    target = jax.tree_util.tree_map(lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype), state)
    restored = ckptr.restore(path, target)
    if hasattr(ckptr, "close"):
      ckptr.close()
  a = jax.tree_util.tree_leaves(state)
  b = jax.tree_util.tree_leaves(restored)
  equal = len(a) == len(b) and all(
      np.asarray(u).dtype == np.asarray(v).dtype and
      np.asarray(u).shape == np.asarray(v).shape and
      np.asarray(u).tobytes() == np.asarray(v).tobytes() for u, v in zip(a, b))
  kinds = [[str(np.asarray(v).dtype), list(np.shape(v))] for v in b]
  sums = [float(np.asarray(v, dtype=np.float64).sum()) for v in b]
  cc.emit("orbax", {"equal": equal, "leaf_kinds": kinds, "leaf_sums": sums},
          {"equal": "exact", "leaf_kinds": "exact",
           # the random state itself may differ in last bits between the plugins
           "leaf_sums": {"rtol": 1e-5, "atol": 1e-4}})


main()
