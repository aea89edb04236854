"""equinox: eqx.nn.MLP trained with eqx.filter_value_and_grad / eqx.filter_jit and
optax.sgd on the array leaves (eqx.filter(model, eqx.is_inexact_array)).

Compared: the initial predictions (rtol 1e-5, atol 1e-6), the first loss (rtol 1e-5),
the first gradients per leaf (rtol 1e-4, atol 1e-6) and 25 SGD losses (rtol 1e-4).
"""

import client_common as cc

jax, jnp, eqx, optax = cc.need("jax", "jax.numpy", "equinox", "optax")


def main():
  kx, km = jax.random.split(jax.random.PRNGKey(7))
  x = jax.random.normal(kx, (128, 4), jnp.float32)
  y = jnp.cos(x.sum(axis=1, keepdims=True))
  model = eqx.nn.MLP(4, 1, width_size=32, depth=2, activation=jax.nn.softplus, key=km)

  def loss_fn(m, x, y):
    return jnp.mean((jax.vmap(m)(x) - y) ** 2)

  pred0 = eqx.filter_jit(lambda m, x: jax.vmap(m)(x))(model, x)
  loss0, grads0 = eqx.filter_jit(eqx.filter_value_and_grad(loss_fn))(model, x, y)
  tx = optax.sgd(0.05)
  state = tx.init(eqx.filter(model, eqx.is_inexact_array))

  @eqx.filter_jit
  def step(m, s):
    loss, g = eqx.filter_value_and_grad(loss_fn)(m, x, y)
    u, s = tx.update(g, s, eqx.filter(m, eqx.is_inexact_array))
    return eqx.apply_updates(m, u), s, loss

  losses = []
  for _ in range(25):
    model, state, loss = step(model, state)
    losses.append(float(loss))
  cc.emit("equinox", {"pred0": pred0[:16], "loss0": float(loss0),
                      "grads0": cc.leaves_summary(eqx.filter(grads0, eqx.is_inexact_array)),
                      "sgd_losses": losses},
          {"pred0": {"rtol": 1e-5, "atol": 1e-6}, "loss0": {"rtol": 1e-5, "atol": 0},
           "grads0": {"rtol": 1e-4, "atol": 1e-6}, "sgd_losses": {"rtol": 1e-4, "atol": 1e-7}})


main()
