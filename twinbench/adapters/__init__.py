"""Built-in adapters. Each registers through the ``twinbench.adapters`` entry-point group."""
