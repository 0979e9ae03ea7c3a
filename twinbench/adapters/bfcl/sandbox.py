"""BFCL's own simulator classes, loaded from the release being scored, driven by parsed calls.

What BFCL does (``eval_checker/multi_turn_eval/multi_turn_utils.py``, read, not copied):
one instance per involved class and item, ``_load_scenario(deepcopy(initial_config[cls]),
long_context=...)`` on every class that is not stateless, a map from every public method
name (not starting with ``_``) of those instances to its instance, and then each call
string, prefixed with its instance's name, run through ``eval``.

What this module does instead: the classes are imported from the release's own files
(``func_source_code/*.py``; they are the benchmark's code, trusted), instances are made
and loaded the same way, and a call is a :class:`~twinbench.model.Call` that twinbench
parsed: ``getattr(instance, name)(*args, **kwargs)`` with those values, routed to the
involved class that owns the (unqualified) name among its public methods. No string is
ever evaluated. A call that raises is recorded as an error result (as BFCL does) and the
replay goes on. The limits on time, memory and the number of calls hold in the child process
that replay runs the model's calls in (:mod:`.limits`); :meth:`World.execute` tells it when
each call begins and ends.

State is what BFCL's ``state_checker`` compares: the public attributes (``vars``, names
not starting with ``_``) of every involved instance, compared by value.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import decimal
import importlib
import inspect
import json
import sys
import types
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from twinbench.errors import AdapterError
from twinbench.model import Call

from . import limits

#: the package the simulator files import each other from
PACKAGE = "bfcl_eval.eval_checker.multi_turn_eval.func_source_code"
ERROR_PREFIX = "Error during execution: "  # BFCL's own wording for a call that raised

State = Mapping[str, Mapping[str, Any]]  # class -> public attribute -> value (a deep copy)


@attrs.frozen
class CallResult:
    """One executed call: its rendering, BFCL's string form of its result, and whether it raised."""

    call: str
    result: str
    error: bool = False


@attrs.frozen
class Difference:
    """Where a state differs from another: the class, the attribute, and both values (shortened)."""

    cls: str
    attribute: str
    got: str
    expected: str

    def text(self) -> str:
        return f"{self.cls}.{self.attribute}: {self.got} != {self.expected}"


def _short(value: Any, limit: int = 160) -> str:
    try:
        text = repr(value)
    except Exception:  # a simulator object whose repr raises
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _stateless_classes(release_root: Path) -> frozenset[str] | None:
    """``STATELESS_CLASSES`` of the release's constants (a list literal read with ast), if it has one."""
    for config in sorted((release_root / "constants").glob("*.py")):
        try:
            tree = ast.parse(config.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            continue
        for node in tree.body:
            if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                    and node.targets[0].id == "STATELESS_CLASSES"):
                try:
                    value = ast.literal_eval(node.value)
                except ValueError:
                    continue
                if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
                    return frozenset(value)
    return None


@contextlib.contextmanager
def _release_package(folder: Path) -> Iterator[None]:
    """While loading, ``bfcl_eval...func_source_code`` is this release's folder, and nothing else of bfcl_eval.

    The simulator files import their siblings by absolute name (``long_context``). Stub
    parent packages make exactly that resolvable from ``folder`` without importing (or
    installing) the rest of bfcl_eval; any other ``bfcl_eval`` import fails. Every entry
    put into ``sys.modules`` is taken out again, and whatever was there before (another
    release, an installed bfcl_eval) is put back.
    """
    saved = {name: mod for name, mod in sys.modules.items() if name == "bfcl_eval" or name.startswith("bfcl_eval.")}
    for name in saved:
        del sys.modules[name]
    parts = PACKAGE.split(".")
    try:
        for depth in range(1, len(parts) + 1):
            name = ".".join(parts[:depth])
            stub = types.ModuleType(name)
            stub.__path__ = [str(folder)] if depth == len(parts) else []  # a package, empty above the leaf
            sys.modules[name] = stub
        yield
    finally:
        for name in [n for n in sys.modules if n == "bfcl_eval" or n.startswith("bfcl_eval.")]:
            del sys.modules[name]
        sys.modules.update(saved)


def load_classes(source_files: Mapping[str, Path], release_root: Path) -> Sandbox:
    """Import each class from its file (``{class name: path}``) and return the :class:`Sandbox`.

    Each module is imported from bytes that match the release's own hashes (:mod:`.simulator_code`).
    """
    from .release import code_hashes
    from .simulator_code import checked_imports

    hashes = code_hashes(Path(release_root))
    classes: dict[str, type] = {}
    by_folder: dict[Path, list[tuple[str, Path]]] = {}
    for cls, path in source_files.items():
        by_folder.setdefault(Path(path).parent, []).append((cls, Path(path)))
    for folder, entries in by_folder.items():
        with _release_package(folder), checked_imports(PACKAGE, folder, Path(release_root), hashes):
            for cls, path in entries:
                if not path.is_file():
                    raise AdapterError(f"the simulator source of {cls} is missing: {path}")
                try:
                    module = importlib.import_module(f"{PACKAGE}.{path.stem}")
                except ModuleNotFoundError as exc:
                    raise AdapterError(
                        f"cannot load {cls} from {path}: it imports {exc.name!r}, which is not installed"
                        + (" (MathAPI needs mpmath: pip install mpmath)" if exc.name == "mpmath" else "")
                    ) from None
                except AdapterError:  # a module that is not the release's
                    raise
                except Exception as exc:  # the release's own code failed to import
                    raise AdapterError(f"cannot load {cls} from {path}: {type(exc).__name__}: {exc}") from None
                found = getattr(module, cls, None)
                if not isinstance(found, type):
                    raise AdapterError(f"{path} defines no class {cls}")
                classes[cls] = found
    stateless = _stateless_classes(release_root)
    if stateless is None:  # releases that keep the list elsewhere: the classes without a scenario loader
        stateless = frozenset(c for c, k in classes.items() if not hasattr(k, "_load_scenario"))
    return Sandbox(classes, stateless)


def result_text(value: Any) -> str:
    """BFCL's string form of a result: a str as is, a dict as JSON (else ``str``), anything else ``str``."""
    if type(value) is str:
        return value
    if type(value) is dict:
        try:
            return json.dumps(value)
        except (TypeError, ValueError):
            return str(value)
    return str(value)


@attrs.frozen(eq=False)
class Sandbox:
    """The simulator classes of one release."""

    classes: Mapping[str, type]
    stateless: frozenset[str] = frozenset()
    _methods: dict[str, frozenset[str]] = attrs.field(factory=dict, init=False, repr=False)

    def public_methods(self, cls: str, instance: object) -> frozenset[str]:
        """The names BFCL maps to this instance: its bound methods whose names do not start with ``_``."""
        if cls not in self._methods:
            self._methods[cls] = frozenset(name for name, _ in inspect.getmembers(instance, inspect.ismethod)
                                           if not name.startswith("_"))
        return self._methods[cls]

    def world(self, involved: Sequence[str], initial_config: Mapping[str, Any], long_context: bool = False) -> World:
        """Fresh instances of the involved classes, each loaded with its part of ``initial_config``."""
        instances: dict[str, object] = {}
        owners: dict[str, str] = {}
        for cls in involved:
            if cls not in self.classes:
                raise AdapterError(f"the item involves {cls}, which this release's simulator does not define")
            try:
                instance = self.classes[cls]()
                if cls not in self.stateless:
                    instance._load_scenario(copy.deepcopy(dict(initial_config.get(cls) or {})),
                                            long_context=long_context)
            except Exception as exc:  # the release's own code or data is broken: one message, no traceback
                raise AdapterError(f"the simulator class {cls} cannot be set up from its initial_config: "
                                   f"{type(exc).__name__}: {exc}") from None
            instances[cls] = instance
            for name in self.public_methods(cls, instance):
                owners[name] = cls  # as in BFCL, a later class wins a shared name (the suite has none)
        return World(self, instances, owners)


@attrs.define(eq=False)
class World:
    """The instances of one item, changed by the calls executed on them."""

    sandbox: Sandbox
    instances: dict[str, object]
    owners: dict[str, str]  # public method name -> class

    def execute(self, call: Call) -> CallResult:
        """Run one parsed call on the instance that owns its name; never raises (but at a limit, or for interrupts)."""
        rendered = render_call(call)
        qualifier, _, name = call.name.rpartition(".")
        cls = self.owners.get(name)
        if cls is None:
            return CallResult(rendered, f"{ERROR_PREFIX}no involved class has a public method {name!r}", True)
        if qualifier and qualifier != cls:
            return CallResult(rendered, f"{ERROR_PREFIX}{name!r} belongs to {cls}, not {qualifier}", True)
        method = getattr(self.instances[cls], name)
        limits.call_began()  # in a replay child: the call's deadline starts, and it counts towards the bound
        try:
            args = copy.deepcopy(call.args)  # the parsed values are shared between replays: never hand them out
            kwargs = copy.deepcopy(dict(call.kwargs))
            with decimal.localcontext():
                return CallResult(rendered, result_text(method(*args, **kwargs)))
        except MemoryError:  # past the child's memory limit: the item stops here
            raise limits.LimitReached(limits.MEMORY, "allocated past the memory limit") from None
        except Exception as exc:  # noqa: BLE001 - the simulator's error is the call's result, as in BFCL
            return CallResult(rendered, f"{ERROR_PREFIX}{exc}", True)
        finally:
            limits.call_ended()

    def run(self, calls: Iterable[Call]) -> list[CallResult]:
        return [self.execute(call) for call in calls]

    def snapshot(self) -> State:
        """A deep copy of the public attributes of every instance."""
        return {cls: copy.deepcopy(_public(instance)) for cls, instance in self.instances.items()}

    def difference(self, state: State) -> Difference | None:
        """The first attribute (in the state's order) whose value here differs from ``state``; None if equal."""
        for cls, attributes in state.items():
            instance = self.instances.get(cls)
            if instance is None:
                return Difference(cls, "*", "absent", "present")
            current = vars(instance)
            for attribute, expected in attributes.items():
                got = current.get(attribute, _ABSENT)
                if got is _ABSENT or got != expected:
                    return Difference(cls, attribute, _short(got), _short(expected))
        return None

    def matches(self, state: State) -> bool:
        return self.difference(state) is None


_ABSENT = type("Absent", (), {"__repr__": lambda self: "<absent>"})()


def _public(instance: object) -> dict[str, Any]:
    return {k: v for k, v in vars(instance).items() if not k.startswith("_")}


def state_difference(state: State, reference: State) -> Difference | None:
    """The first attribute where two snapshots differ (``None``: equal by value)."""
    for cls, attributes in reference.items():
        other = state.get(cls)
        if other is None:
            return Difference(cls, "*", "absent", "present")
        for attribute, expected in attributes.items():
            got = other.get(attribute, _ABSENT)
            if got is _ABSENT or got != expected:
                return Difference(cls, attribute, _short(got), _short(expected))
    return None


def render_call(call: Call, limit: int | None = None) -> str:
    """The call as text (shortened to ``limit`` characters if given); a value whose repr raises stops nothing."""
    try:
        text = call.render()
    except Exception:  # noqa: BLE001
        text = f"{call.name}(...)"
    return text if limit is None or len(text) <= limit else text[: limit - 3] + "..."
