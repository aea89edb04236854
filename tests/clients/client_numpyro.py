"""numpyro: a Bayesian linear regression. Its potential energy and gradient at fixed
parameters (deterministic numerics), an SVI run with plain SGD on an AutoNormal guide
(SGD keeps last-bit differences last-bit), and a NUTS run whose posterior means are
compared statistically.

Compared: potential energy (rtol 1e-5) and its gradient (rtol 1e-4, atol 1e-5); the 50 SVI
losses with the same seed (rtol 1e-3, atol 1e-3: the ELBO is a Monte Carlo estimate, but
both sides draw the same random numbers); NUTS posterior means within 0.05 (about half a
posterior standard deviation / sqrt of the effective samples: a different trajectory,
the same posterior), not the samples themselves.
"""

import client_common as cc

jax, jnp, numpyro = cc.need("jax", "jax.numpy", "numpyro")
dist, infer, autoguide, optim = cc.need("numpyro.distributions", "numpyro.infer",
                                        "numpyro.infer.autoguide", "numpyro.optim")


def model(x, y=None):
  w = numpyro.sample("w", dist.Normal(0.0, 1.0).expand([x.shape[1]]).to_event(1))
  b = numpyro.sample("b", dist.Normal(0.0, 1.0))
  sigma = numpyro.sample("sigma", dist.HalfNormal(1.0))
  numpyro.sample("y", dist.Normal(x @ w + b, sigma), obs=y)


def main():
  kx, kn = jax.random.split(jax.random.PRNGKey(5))
  x = jax.random.normal(kx, (200, 3), jnp.float32)
  y = x @ jnp.array([1.0, -2.0, 0.5], jnp.float32) + 0.3 + 0.5 * jax.random.normal(kn, (200,))
  pe_fn = lambda z: infer.util.potential_energy(model, (x,), {"y": y}, z)
  z = {"w": jnp.array([0.5, -1.0, 0.2], jnp.float32), "b": jnp.array(0.1, jnp.float32),
       "sigma": jnp.array(0.0, jnp.float32)}  # unconstrained (log sigma)
  pe, pe_grad = jax.jit(jax.value_and_grad(pe_fn))(z)

  svi = infer.SVI(model, autoguide.AutoNormal(model), optim.SGD(1e-3), infer.Trace_ELBO())
  res = svi.run(jax.random.PRNGKey(1), 50, x, y, progress_bar=False)

  mcmc = infer.MCMC(infer.NUTS(model), num_warmup=300, num_samples=500, progress_bar=False)
  mcmc.run(jax.random.PRNGKey(2), x, y)
  s = mcmc.get_samples()
  means = [float(v) for v in s["w"].mean(axis=0)] + [float(s["b"].mean()), float(s["sigma"].mean())]
  cc.emit("numpyro", {"potential_energy": float(pe), "potential_grad": cc.leaves_summary(pe_grad),
                      "svi_losses": res.losses, "nuts_means": means},
          {"potential_energy": {"rtol": 1e-5, "atol": 1e-5},
           "potential_grad": {"rtol": 1e-4, "atol": 1e-5},
           "svi_losses": {"rtol": 1e-3, "atol": 1e-3}, "nuts_means": {"rtol": 0, "atol": 0.05}})


main()
