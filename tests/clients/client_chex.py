"""chex: assertions on shapes, dtypes, trees and device placement around jitted code, a
chex.dataclass through jit and vmap, and chex.assert_max_traces (a function compiled once,
not once a call).

Compared exactly: integer results (trace counts, the assertions that held) and the small
float results of a dataclass computation that are exact in float32 (sums of small
integers).
"""

import client_common as cc

jax, jnp, chex = cc.need("jax", "jax.numpy", "chex")


@chex.dataclass
class State:
  count: jax.Array
  total: jax.Array


def main():
  held = 0
  x = jnp.arange(12, dtype=jnp.float32).reshape(3, 4)
  chex.assert_shape(x, (3, 4)); held += 1
  chex.assert_type(x, jnp.float32); held += 1
  y = jax.jit(lambda a: a * 2 + 1)(x)
  chex.assert_trees_all_close(y, 2 * x + 1); held += 1
  chex.assert_tree_all_finite({"a": y, "b": [x]}); held += 1
  chex.assert_equal_shape([x, y]); held += 1
  chex.assert_rank(y, 2); held += 1

  @jax.jit
  def bump(s, v):
    return State(count=s.count + 1, total=s.total + v.sum())

  s = State(count=jnp.zeros((), jnp.int32), total=jnp.zeros((), jnp.float32))
  for k in range(5):
    s = bump(s, jnp.full((4,), float(k), jnp.float32))
  batched = jax.vmap(lambda v: State(count=jnp.int32(1), total=v.sum()))(x)
  chex.assert_shape(batched.total, (3,)); held += 1

  traces = []

  @jax.jit
  @chex.assert_max_traces(n=1)
  def f(a):
    traces.append(1)
    return jnp.tanh(a).sum()

  for k in range(4):
    f(x + k)
  chex.clear_trace_counter()
  cc.emit("chex", {"assertions_held": held, "count": int(s.count), "total": float(s.total),
                   "vmapped_totals": batched.total, "traces": len(traces)},
          {"assertions_held": "exact", "count": "exact", "total": "exact",
           "vmapped_totals": "exact", "traces": "exact"})


main()
