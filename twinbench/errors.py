"""The errors a user can cause: the base class, and the one adapters raise.

The CLI turns any :class:`TwinbenchError` into one ``twinbench: error: ...`` line and
exit status 2, so an adapter that raises one of these (or a subclass) never shows
the user a traceback.
"""


class TwinbenchError(Exception):
    """A problem the user can fix: bad path, missing data, wrong release, bad table."""


class AdapterError(TwinbenchError):
    """A problem the user can fix (bad path, missing data, wrong release). One clear message."""
