"""diffrax: the Lotka-Volterra system solved with Tsit5 and a PID step-size controller
(rtol = atol = 1e-7), its solution at 9 save times, and the gradient of the final prey
count with respect to the four rates through diffrax's default adjoint.

Compared: the saved states (rtol 1e-4, atol 1e-6) and the gradient (rtol 1e-3, atol 1e-6):
an adaptive solver's accepted steps can shift by one where an error estimate sits at the
threshold, so agreement is to the solver's tolerance, not to the last bit; the number of
accepted steps is recorded, not compared.
"""

import client_common as cc

jax, jnp, diffrax = cc.need("jax", "jax.numpy", "diffrax")


def main():
  def vf(t, y, a):
    prey, pred = y
    return jnp.stack([a[0] * prey - a[1] * prey * pred, a[3] * prey * pred - a[2] * pred])

  rates = jnp.array([1.1, 0.4, 0.4, 0.1], jnp.float32)
  y0 = jnp.array([10.0, 10.0], jnp.float32)
  ts = jnp.linspace(0.0, 8.0, 9, dtype=jnp.float32)

  def solve(a):
    return diffrax.diffeqsolve(
        diffrax.ODETerm(vf), diffrax.Tsit5(), t0=0.0, t1=8.0, dt0=0.01, y0=y0, args=a,
        saveat=diffrax.SaveAt(ts=ts),
        stepsize_controller=diffrax.PIDController(rtol=1e-7, atol=1e-7), max_steps=20000)

  sol = jax.jit(solve)(rates)
  grad = jax.jit(jax.grad(lambda a: solve(a).ys[-1, 0]))(rates)
  cc.emit("diffrax", {"ys": sol.ys, "grad_final_prey": grad,
                      "accepted_steps": int(sol.stats["num_accepted_steps"])},
          {"ys": {"rtol": 1e-4, "atol": 1e-6}, "grad_final_prey": {"rtol": 1e-3, "atol": 1e-6},
           "accepted_steps": {"ignore": "adaptive step counts may differ by a step"}})


main()
