"""optax: logistic regression on fixed data with a chain of clip_by_global_norm, SGD with
momentum and a warmup-cosine schedule (80 steps), and one step of adam and adamw.

Compared: the 80 losses and the final weights of the SGD chain (rtol 1e-4, atol 1e-6);
for adam/adamw only the first update (rtol 1e-4, atol 1e-7): adam divides by the root of
its second moment, which turns last-bit differences in tiny gradients into whole steps,
so a long adam run is not compared.
"""

import client_common as cc

jax, jnp, optax = cc.need("jax", "jax.numpy", "optax")


def main():
  kx, kw = jax.random.split(jax.random.PRNGKey(3))
  x = jax.random.normal(kx, (512, 16), jnp.float32)
  w_true = jax.random.normal(kw, (16,), jnp.float32)
  y = (x @ w_true > 0).astype(jnp.float32)
  params = {"w": jnp.zeros((16,), jnp.float32), "b": jnp.zeros((), jnp.float32)}

  def loss_fn(p):
    z = x @ p["w"] + p["b"]
    return jnp.mean(optax.sigmoid_binary_cross_entropy(z, y))

  sched = optax.warmup_cosine_decay_schedule(0.0, 0.5, 10, 80, 0.01)
  tx = optax.chain(optax.clip_by_global_norm(1.0), optax.sgd(sched, momentum=0.9))
  state = tx.init(params)

  @jax.jit
  def step(p, s):
    loss, g = jax.value_and_grad(loss_fn)(p)
    u, s = tx.update(g, s, p)
    return optax.apply_updates(p, u), s, loss

  p, losses = params, []
  for _ in range(80):
    p, state, loss = step(p, state)
    losses.append(float(loss))
  firsts = {}
  for name, opt in (("adam", optax.adam(1e-2)), ("adamw", optax.adamw(1e-2, weight_decay=1e-2))):
    g = jax.grad(loss_fn)(params)
    u, _ = jax.jit(opt.update)(g, opt.init(params), params)
    firsts[name] = cc.leaves_summary(u)
  cc.emit("optax", {"sgd_losses": losses, "sgd_final": cc.leaves_summary(p, head=16),
                    "adam_first_update": firsts["adam"], "adamw_first_update": firsts["adamw"]},
          {"sgd_losses": {"rtol": 1e-4, "atol": 1e-6}, "sgd_final": {"rtol": 1e-4, "atol": 1e-6},
           "adam_first_update": {"rtol": 1e-4, "atol": 1e-7},
           "adamw_first_update": {"rtol": 1e-4, "atol": 1e-7}})


main()
