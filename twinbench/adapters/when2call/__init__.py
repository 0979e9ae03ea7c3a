"""When2Call (NVIDIA): single-turn should-act / should-ask items."""

from twinbench.adapters.when2call.adapter import When2CallAdapter

__all__ = ["When2CallAdapter"]
