"""flax.nnx: a small CNN (Conv, avg pool, Linear) on fixed random images, trained by hand
with SGD on the nnx.Param state (nnx.split / nnx.merge, no nnx.Optimizer, whose signature
moves between flax releases).

Compared: the first step's loss (rtol 1e-5) and gradients per leaf (rtol 1e-4, atol 1e-6),
the logits of the initial model (rtol 1e-5, atol 1e-6), and 15 SGD losses (rtol 1e-4).
"""

import client_common as cc

jax, jnp, nnx = cc.need("jax", "jax.numpy", "flax.nnx")


class CNN(nnx.Module):
  def __init__(self, rngs):
    self.conv1 = nnx.Conv(3, 8, kernel_size=(3, 3), rngs=rngs)
    self.conv2 = nnx.Conv(8, 16, kernel_size=(3, 3), rngs=rngs)
    self.head = nnx.Linear(16, 10, rngs=rngs)

  def __call__(self, x):
    x = jax.nn.relu(self.conv1(x))
    x = jax.nn.relu(self.conv2(x))
    x = jnp.mean(x, axis=(1, 2))
    return self.head(x)


def main():
  model = CNN(nnx.Rngs(0))
  kx, ky = jax.random.split(jax.random.PRNGKey(1))
  x = jax.random.normal(kx, (32, 12, 12, 3), jnp.float32)
  labels = jax.random.randint(ky, (32,), 0, 10)
  graphdef, params, rest = nnx.split(model, nnx.Param, ...)

  def loss_fn(p):
    logits = nnx.merge(graphdef, p, rest)(x)
    logp = jax.nn.log_softmax(logits)
    return -jnp.mean(jnp.take_along_axis(logp, labels[:, None], axis=1))

  logits0 = jax.jit(lambda p: nnx.merge(graphdef, p, rest)(x))(params)
  loss0, grads0 = jax.jit(jax.value_and_grad(loss_fn))(params)

  @jax.jit
  def step(p):
    loss, g = jax.value_and_grad(loss_fn)(p)
    return jax.tree_util.tree_map(lambda a, b: a - 0.1 * b, p, g), loss

  losses = []
  for _ in range(15):
    params, loss = step(params)
    losses.append(float(loss))
  cc.emit("flax_nnx", {"logits0": logits0, "loss0": float(loss0),
                       "grads0": cc.leaves_summary(grads0), "sgd_losses": losses},
          {"logits0": {"rtol": 1e-5, "atol": 1e-6}, "loss0": {"rtol": 1e-5, "atol": 0},
           "grads0": {"rtol": 1e-4, "atol": 1e-6}, "sgd_losses": {"rtol": 1e-4, "atol": 1e-7}})


main()
