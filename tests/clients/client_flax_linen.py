"""flax.linen + optax: a 3-layer MLP regressing a fixed nonlinear target.

Compared: the first step's loss (rtol 1e-5) and gradients (per leaf: sum, sum of squares
and first values; rtol 1e-4, atol 1e-6), and the losses of 30 plain-SGD steps (rtol 1e-4):
SGD moves parameters by lr * grad, so last-bit differences stay last-bit.
"""

import client_common as cc

jax, jnp, nn, optax = cc.need("jax", "jax.numpy", "flax.linen", "optax")


class MLP(nn.Module):
  @nn.compact
  def __call__(self, x):
    x = nn.tanh(nn.Dense(64)(x))
    x = nn.gelu(nn.Dense(64)(x))
    return nn.Dense(1)(x)


def main():
  kx, kp = jax.random.split(jax.random.PRNGKey(0))
  x = jax.random.normal(kx, (256, 8), jnp.float32)
  y = jnp.sin(x[:, :1] * 2.0) + 0.5 * x[:, 1:2] ** 2
  model = MLP()
  params = model.init(kp, x)

  def loss_fn(p):
    return jnp.mean((model.apply(p, x) - y) ** 2)

  loss0, grads0 = jax.jit(jax.value_and_grad(loss_fn))(params)
  tx = optax.sgd(0.05)
  state = tx.init(params)

  @jax.jit
  def step(p, s):
    loss, g = jax.value_and_grad(loss_fn)(p)
    u, s = tx.update(g, s, p)
    return optax.apply_updates(p, u), s, loss

  losses = []
  for _ in range(30):
    params, state, loss = step(params, state)
    losses.append(float(loss))
  cc.emit("flax_linen", {"loss0": float(loss0), "grads0": cc.leaves_summary(grads0),
                         "sgd_losses": losses},
          {"loss0": {"rtol": 1e-5, "atol": 0}, "grads0": {"rtol": 1e-4, "atol": 1e-6},
           "sgd_losses": {"rtol": 1e-4, "atol": 1e-7}})


main()
