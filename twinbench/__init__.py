"""twinbench: score whether an agent knows when to act and when to ask."""

__version__ = "0.1.0"
