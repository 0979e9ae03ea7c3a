"""BFCL multi-turn, the reference adapter."""

from twinbench.adapters.bfcl.adapter import BFCLAdapter

__all__ = ["BFCLAdapter"]
