"""jax-flagtree: Python side of the plugin (compile worker, helpers).

The PJRT plugin itself is registered by `jax_plugins.flagtree`; importing this
package does not touch JAX.
"""

__version__ = "0.1.0"
