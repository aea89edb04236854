"""lineax and optimistix: linear solves (LU on a well-conditioned matrix, CG on an SPD
one, QR least squares) and nonlinear solvers run to convergence (Newton root of a
polynomial system, BFGS minimum of the Rosenbrock function, Levenberg-Marquardt fit).

Compared: every converged solution (rtol 1e-4, atol 1e-5), which is what the solver
guarantees (throw=False: a solver stopping at max_steps still reports where it got, and
the comparison then shows whether both sides got there); iteration counts are not compared. optimistix missing skips the
whole program (lineax is its dependency).
"""

import client_common as cc

jax, jnp, lx, optx = cc.need("jax", "jax.numpy", "lineax", "optimistix")


def main():
  k1, k2, k3 = jax.random.split(jax.random.PRNGKey(11), 3)
  n = 24
  a = jax.random.normal(k1, (n, n), jnp.float32) + n * jnp.eye(n, dtype=jnp.float32)
  b = jax.random.normal(k2, (n,), jnp.float32)
  m = jax.random.normal(k3, (n, n), jnp.float32)
  spd = m @ m.T + n * jnp.eye(n, dtype=jnp.float32)
  tall = jax.random.normal(k3, (40, 8), jnp.float32)

  lu = jax.jit(lambda a, b: lx.linear_solve(lx.MatrixLinearOperator(a), b, lx.LU()).value)(a, b)
  cg = jax.jit(lambda a, b: lx.linear_solve(
      lx.MatrixLinearOperator(a, lx.positive_semidefinite_tag), b,
      lx.CG(rtol=1e-6, atol=1e-6, max_steps=500)).value)(spd, b)
  lsq = jax.jit(lambda a, b: lx.linear_solve(lx.MatrixLinearOperator(a), b, lx.QR()).value)(
      tall, jnp.arange(40, dtype=jnp.float32) / 40.0)

  def poly(y, args):
    return jnp.stack([y[0] ** 2 + y[1] ** 2 - 4.0, y[0] * y[1] - 1.0])

  root = jax.jit(lambda y0: optx.root_find(poly, optx.Newton(rtol=1e-6, atol=1e-6), y0,
                                                     throw=False).value)(
      jnp.array([2.0, 0.5], jnp.float32))

  def rosen(y, args):
    return jnp.sum(100.0 * (y[1:] - y[:-1] ** 2) ** 2 + (1.0 - y[:-1]) ** 2)

  bfgs = jax.jit(lambda y0: optx.minimise(rosen, optx.BFGS(rtol=1e-6, atol=1e-6), y0,
                                          max_steps=2000, throw=False).value)(
      jnp.array([-1.2, 1.0, 0.8], jnp.float32))
  tdata = jnp.linspace(0.0, 2.0, 30, dtype=jnp.float32)
  ydata = 2.5 * jnp.exp(-1.3 * tdata) + 0.3

  def resid(p, args):
    return p[0] * jnp.exp(-p[1] * tdata) + p[2] - ydata

  lm = jax.jit(lambda p0: optx.least_squares(resid, optx.LevenbergMarquardt(rtol=1e-6, atol=1e-6),
                                             p0, max_steps=500, throw=False).value)(
      jnp.array([1.0, 1.0, 0.0], jnp.float32))
  tol = {"rtol": 1e-4, "atol": 1e-5}
  cc.emit("lineax_optimistix", {"lu": lu, "cg": cg, "qr_lstsq": lsq, "newton_root": root,
                                "bfgs_rosenbrock": bfgs, "lm_fit": lm},
          {"lu": tol, "cg": tol, "qr_lstsq": tol, "newton_root": tol,
           "bfgs_rosenbrock": {"rtol": 1e-3, "atol": 1e-3}, "lm_fit": {"rtol": 1e-3, "atol": 1e-4}})


main()
