"""Adapters by name.

Adapters are found through the entry-point group ``twinbench.adapters``: the
built-in adapters are registered there by twinbench's own ``pyproject.toml``,
and a third-party package adds one the same way, without touching twinbench::

    [project.entry-points."twinbench.adapters"]
    mybench = "twinbench_mybench:MyBenchAdapter"

:func:`register` adds an adapter class in-process (tests, notebooks, examples).
"""

from __future__ import annotations

import importlib

import attrs

from twinbench import adapters as _builtin
from twinbench.contract.adapter import Adapter
from twinbench.errors import AdapterError

GROUP = "twinbench.adapters"

#: the adapter ``--adapter`` names when it is not given
DEFAULT = _builtin.DEFAULT

# used only when twinbench runs from a source tree that was never installed, so
# that no entry point metadata exists; an installed twinbench finds them by entry point
_SOURCE_TREE_FALLBACK = dict(_builtin.BUILTIN)

_registered: dict[str, type[Adapter]] = {}


@attrs.frozen
class AdapterInfo:
    name: str
    target: str  # "module:Class"
    origin: str  # "entry point (distribution)", "registered in process", ...
    description: str = ""


def register(cls: type[Adapter]) -> type[Adapter]:
    """Register an adapter class under its ``name`` (usable as a decorator)."""
    if not cls.name:
        raise AdapterError(f"{cls.__qualname__} has no name")
    _registered[cls.name] = cls
    return cls


def unregister(name: str) -> None:
    """Remove an adapter registered in process (entry points are not affected)."""
    _registered.pop(name, None)


def _entry_points() -> dict[str, tuple[str, str]]:
    from importlib.metadata import entry_points

    found: dict[str, tuple[str, str]] = {}
    for ep in entry_points(group=GROUP):
        dist = getattr(ep, "dist", None)
        origin = f"entry point ({dist.name} {dist.version})" if dist is not None else "entry point"
        found.setdefault(ep.name, (ep.value, origin))
    return found


def _load_target(target: str) -> type[Adapter]:
    module_name, _, attr = target.partition(":")
    try:
        obj = importlib.import_module(module_name)
        for part in attr.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as exc:
        raise AdapterError(f"cannot load adapter {target}: {exc}") from exc
    if not (isinstance(obj, type) and issubclass(obj, Adapter)):
        raise AdapterError(f"{target} is not a twinbench Adapter subclass")
    return obj


def available() -> list[AdapterInfo]:
    """Every adapter that ``--adapter`` can name, sorted by name."""
    infos: dict[str, AdapterInfo] = {}
    for name, target in _SOURCE_TREE_FALLBACK.items():
        infos[name] = AdapterInfo(name, target, "source tree (twinbench is not installed)")
    for name, (target, origin) in _entry_points().items():
        infos[name] = AdapterInfo(name, target, origin)
    for name, cls in _registered.items():
        infos[name] = AdapterInfo(name, f"{cls.__module__}:{cls.__qualname__}", "registered in process",
                                  cls.description)
    out = []
    for info in sorted(infos.values(), key=lambda i: i.name):
        if not info.description:
            try:
                info = attrs.evolve(info, description=get(info.name).description)
            except AdapterError as exc:
                info = attrs.evolve(info, description=f"(cannot be loaded: {exc})")
        out.append(info)
    return out


def get(name: str) -> type[Adapter]:
    """The adapter class registered under ``name``.

    A built-in name is the built-in adapter without looking at the installed entry points
    (scanning them costs each command tens of milliseconds); another package's adapter takes
    a name of its own.
    """
    if name in _registered:
        return _registered[name]
    if name in _builtin.BUILTIN:
        return _load_target(_builtin.BUILTIN[name])
    points = _entry_points()
    if name in points:
        return _load_target(points[name][0])
    if name in _SOURCE_TREE_FALLBACK:
        return _load_target(_SOURCE_TREE_FALLBACK[name])
    known = sorted(set(points) | set(_registered) | set(_SOURCE_TREE_FALLBACK) | set(_builtin.BUILTIN))
    raise AdapterError(f"no adapter named {name!r} (installed: {', '.join(known) or 'none'})"
                       + _suggestion(name, known))


def _suggestion(name: str, known: list[str]) -> str:
    """``; did you mean 'bfcl'?`` for a name that differs from a known one in case, or is one typo away."""
    import difflib

    same = [k for k in known if k.casefold() == name.casefold()]
    if same:
        return f"; did you mean {same[0]!r}? Adapter names are case-sensitive"
    close = difflib.get_close_matches(name.casefold(), known, n=1, cutoff=0.75)
    return f"; did you mean {close[0]!r}?" if close else ""
