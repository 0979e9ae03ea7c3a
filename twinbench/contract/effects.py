"""Effect classifiers: which tool calls change the world.

Three pieces, none tied to a leaderboard:

* :class:`EffectClassifier` labels calls from a table of function labels plus
  per-call argument rules (a function whose effect depends on one argument).
* :func:`load_effect_table` reads such a table from YAML (``yaml.safe_load``).
* :func:`analyze_source` derives a label from a class's own code with ``ast``: a
  method changes the world when it writes a public attribute of ``self`` or an
  object reachable from one. It is the independent check on a hand-made table.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

import attrs

from twinbench.errors import TwinbenchError
from twinbench.model import Call, Effect, FunctionEffect


class EffectTableError(TwinbenchError):
    """The effect table cannot be read or is inconsistent."""


@attrs.frozen
class ArgumentRule:
    """A function whose effect depends on whether one argument is given.

    A shell-like ``echo`` prints unless it is given a file name (as ``file_name=`` or as
    its second positional argument), in which case it writes.
    """

    function: str
    argument: str
    position: int | None
    with_argument: Effect
    without_argument: Effect
    reason: str = ""

    def effect(self, call: Call) -> Effect:
        value = call.argument(self.argument, self.position)
        given = value is not None and value != ""
        return self.with_argument if given else self.without_argument


@attrs.frozen
class EffectClassifier:
    """Labels calls by function name, applying per-call argument rules first."""

    functions: tuple[FunctionEffect, ...]
    rules: tuple[ArgumentRule, ...] = ()

    _index: dict[str, FunctionEffect] = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "_index", {f.name: f for f in self.functions})

    def label(self, call: Call) -> Effect | None:
        """The effect of this call, or ``None`` when the function is unknown.

        The call's name is looked up as it is: a decision rule maps a called name onto the
        item's tools (dropping a class qualifier, say) before it asks for a label.
        """
        name = call.name
        for rule in self.rules:
            if rule.function == name:
                return rule.effect(call)
        entry = self._index.get(name)
        return entry.label if entry else None

    def function(self, name: str) -> FunctionEffect | None:
        return self._index.get(name)

    def is_world_changing(self, call: Call, count_login: bool = False) -> bool:
        effect = self.label(call)
        if effect is Effect.MUTATE:
            return True
        return count_login and effect is Effect.LOGIN

    def counts(self) -> dict[str, int]:
        out = {e.value: 0 for e in Effect}
        for f in self.functions:
            out[f.label.value] += 1
        return out


def load_effect_table(path: Path) -> EffectClassifier:
    """Read an effect table: ``classes: {Owner: {function: {label, reason}}}`` and
    ``per_call_rules: {function: {argument, position, with_argument, without_argument, reason}}``.

    Keys of an entry other than ``label`` and ``reason`` (``analyzer_note``,
    ``analyzer_disagrees``) are kept on the function as ``FunctionEffect.notes``.
    """
    import yaml  # here, not at the top: a command whose table is cached never loads the YAML reader

    try:
        # the C implementation of the safe loader when PyYAML has it (same rules, several times faster)
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (OSError, yaml.YAMLError) as exc:
        raise EffectTableError(f"cannot read effect table {path}: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("classes"), dict):
        raise EffectTableError(f"effect table {path} has no 'classes' mapping")
    functions: list[FunctionEffect] = []
    seen: set[str] = set()
    for owner, entries in data["classes"].items():
        for name, entry in (entries or {}).items():
            if name in seen:
                raise EffectTableError(f"effect table {path}: {name} is labelled twice")
            seen.add(name)
            try:
                label = Effect(entry["label"])
            except (KeyError, TypeError, ValueError) as exc:
                raise EffectTableError(f"effect table {path}: {owner}.{name} has no valid label") from exc
            extra = {k: str(v) for k, v in entry.items() if k not in ("label", "reason")}
            functions.append(FunctionEffect(name=name, owner=owner, label=label, reason=str(entry.get("reason", "")),
                                            notes=tuple(sorted(extra.items()))))
    rules = []
    for name, entry in (data.get("per_call_rules") or {}).items():
        rules.append(
            ArgumentRule(
                function=name,
                argument=entry["argument"],
                position=entry.get("position"),
                with_argument=Effect(entry["with_argument"]),
                without_argument=Effect(entry["without_argument"]),
                reason=str(entry.get("reason", "")),
            )
        )
    return EffectClassifier(functions=tuple(functions), rules=tuple(rules))


# ---------------------------------------------------------------------------------------
# Source analysis
# ---------------------------------------------------------------------------------------

#: methods of builtin containers that change the container they are called on
CONTAINER_MUTATORS = frozenset(
    {
        "append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault",
        "popitem", "add", "discard", "sort", "reverse", "__setitem__", "__delitem__",
        "intersection_update", "difference_update", "symmetric_difference_update",
    }
)


@attrs.frozen
class SourceVerdict:
    """What the analyzer derived for one method: does it write world state, and where."""

    owner: str
    name: str
    writes: bool
    evidence: str


def _is_public(name: str) -> bool:
    return not name.startswith("_")


def _chain(node: ast.AST) -> tuple[ast.AST, list[str], int]:
    """Walk an attribute/subscript/call chain down to its root.

    Returns the root node, the attribute names met from the root outwards, and the
    number of links (attributes, subscripts, calls) above the root.
    """
    attrs_seen: list[str] = []
    depth = 0
    while True:
        if isinstance(node, ast.Attribute):
            attrs_seen.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node, ast.Call):
            node = node.func
        else:
            break
        depth += 1
    attrs_seen.reverse()
    return node, attrs_seen, depth


def _bound_names(targets: Iterable[ast.AST]) -> list[str]:
    """Local names bound by assignment targets (``x``, ``a, b``, ``*rest``), not ``x[k]``."""
    names: list[str] = []
    for target in targets:
        if isinstance(target, ast.Name):
            names.append(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            names.extend(_bound_names(target.elts))
        elif isinstance(target, ast.Starred):
            names.extend(_bound_names([target.value]))
    return names


#: calls that return a fresh object: a local built from state this way is a copy
FRESH_COPY_CALLS = frozenset({"copy", "deepcopy", "dict", "list", "set", "tuple", "sorted", "str", "len"})


def _is_fresh_copy(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return name in FRESH_COPY_CALLS


class _ClassFacts:
    def __init__(self, cls: ast.ClassDef) -> None:
        self.cls = cls
        self.methods: dict[str, ast.FunctionDef] = {
            n.name: n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
        }
        self.aliases: set[str] = set()  # private attributes that point into public state
        self.returns_state: set[str] = set()  # methods that return a reachable object


class _Analyzer:
    """Fixed-point write analysis over every class of one module."""

    def __init__(self, tree: ast.Module) -> None:
        self.classes = {n.name: _ClassFacts(n) for n in tree.body if isinstance(n, ast.ClassDef)}
        self.writes: dict[tuple[str, str], str] = {}  # (class, method) -> evidence
        self.method_names_writing: set[str] = set()
        self._solve()

    # reachability ------------------------------------------------------------------
    def _self_attr_reaches(self, facts: _ClassFacts, attr: str) -> bool:
        return _is_public(attr) or attr in facts.aliases

    def _reaches(self, facts: _ClassFacts, node: ast.AST | None, tainted: set[str]) -> bool:
        """Does this expression evaluate to (part of) the instance's public state?"""
        if node is None or _is_fresh_copy(node):
            return False
        root, names, _ = _chain(node)
        if isinstance(root, ast.Name):
            if root.id == "self" and names:
                first = names[0]
                if first in facts.methods:
                    return first in facts.returns_state
                return self._self_attr_reaches(facts, first)
            return root.id in tainted and node is not root or (isinstance(node, ast.Name) and node.id in tainted)
        if isinstance(node, (ast.IfExp,)):
            return self._reaches(facts, node.body, tainted) or self._reaches(facts, node.orelse, tainted)
        if isinstance(node, ast.BoolOp):
            return any(self._reaches(facts, v, tainted) for v in node.values)
        return False

    def _tainted_locals(self, facts: _ClassFacts, func: ast.FunctionDef) -> set[str]:
        tainted: set[str] = set()
        changed = True
        while changed:
            changed = False
            for node in ast.walk(func):
                targets: list[ast.AST] = []
                value: ast.AST | None = None
                if isinstance(node, ast.Assign):
                    targets, value = node.targets, node.value
                elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
                    targets, value = [node.target], node.value
                elif isinstance(node, (ast.For, ast.comprehension)):
                    targets, value = [node.target], node.iter
                if value is None or not self._reaches(facts, value, tainted):
                    continue
                for name in _bound_names(targets):
                    if name not in tainted and name != "self":
                        tainted.add(name)
                        changed = True
        return tainted

    def _store_writes(self, facts: _ClassFacts, target: ast.AST, tainted: set[str]) -> bool:
        if not isinstance(target, (ast.Attribute, ast.Subscript)):
            if isinstance(target, (ast.Tuple, ast.List)):
                return any(self._store_writes(facts, t, tainted) for t in target.elts)
            return False
        root, names, depth = _chain(target)
        if not isinstance(root, ast.Name):
            return False
        if root.id == "self":
            if not names:
                return False
            first = names[0]
            if _is_public(first):
                return True
            # rebinding a private attribute is not a write; writing into the object it holds
            # is, when that object is part of the public state
            return depth > 1 and first in facts.aliases
        return root.id in tainted

    def _call_writes(self, facts: _ClassFacts, call: ast.Call, tainted: set[str]) -> bool:
        func = call.func
        if not isinstance(func, ast.Attribute):
            if isinstance(func, ast.Name) and func.id == "setattr" and call.args:
                return self._reaches(facts, call.args[0], tainted) or (
                    isinstance(call.args[0], ast.Name) and call.args[0].id == "self"
                )
            return False
        receiver = func.value
        if isinstance(receiver, ast.Name) and receiver.id == "self":
            return (facts.cls.name, func.attr) in self.writes
        if not self._reaches(facts, receiver, tainted):
            return False
        return func.attr in CONTAINER_MUTATORS or func.attr in self.method_names_writing

    def _method_write(self, facts: _ClassFacts, func: ast.FunctionDef) -> str | None:
        tainted = self._tainted_locals(facts, func)
        for node in ast.walk(func):
            if isinstance(node, (ast.Assign, ast.Delete)):
                for target in node.targets:
                    if self._store_writes(facts, target, tainted):
                        return ast.unparse(node).splitlines()[0]
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                if node.value is not None or isinstance(node, ast.AugAssign):
                    if self._store_writes(facts, node.target, tainted):
                        return ast.unparse(node).splitlines()[0]
            elif isinstance(node, ast.Call) and self._call_writes(facts, node, tainted):
                return ast.unparse(node).splitlines()[0]
        return None

    def _solve(self) -> None:
        changed = True
        while changed:
            changed = False
            for facts in self.classes.values():
                # private attributes assigned from public state are aliases into it
                for func in facts.methods.values():
                    tainted = self._tainted_locals(facts, func)
                    for node in ast.walk(func):
                        if isinstance(node, ast.Assign):
                            for target in node.targets:
                                if (
                                    isinstance(target, ast.Attribute)
                                    and isinstance(target.value, ast.Name)
                                    and target.value.id == "self"
                                    and not _is_public(target.attr)
                                    and target.attr not in facts.aliases
                                    and self._reaches(facts, node.value, tainted)
                                ):
                                    facts.aliases.add(target.attr)
                                    changed = True
                        elif (
                            isinstance(node, ast.Return)
                            and func.name not in facts.returns_state
                            and self._reaches(facts, node.value, tainted)
                        ):
                            facts.returns_state.add(func.name)
                            changed = True
                for name, func in facts.methods.items():
                    key = (facts.cls.name, name)
                    if key in self.writes:
                        continue
                    evidence = self._method_write(facts, func)
                    if evidence is not None:
                        self.writes[key] = evidence
                        self.method_names_writing.add(name)
                        changed = True


def analyze_source(source: str, class_name: str, methods: Iterable[str] | None = None) -> dict[str, SourceVerdict]:
    """Derive, for each method of ``class_name`` in ``source``, whether it writes world state.

    A method writes when it assigns, deletes or mutates (container mutator or a
    writing method of any class in the module) a public attribute of ``self``, an
    object reached from one (also through a private attribute that aliases public
    state, or a local variable bound to such an object), or calls another method of
    the class that does. Rebinding a private attribute, touching module globals or
    local copies does not count.
    """
    tree = ast.parse(source)
    analyzer = _Analyzer(tree)
    if class_name not in analyzer.classes:
        raise EffectTableError(f"class {class_name} not found in the source")
    facts = analyzer.classes[class_name]
    wanted = list(methods) if methods is not None else [m for m in facts.methods if _is_public(m)]
    out: dict[str, SourceVerdict] = {}
    for name in wanted:
        if name not in facts.methods:
            out[name] = SourceVerdict(class_name, name, False, "method not found in the class source")
            continue
        evidence = analyzer.writes.get((class_name, name))
        out[name] = SourceVerdict(class_name, name, evidence is not None, evidence or "no write to public state")
    return out


def compare_with_source(
    classifier: EffectClassifier, verdicts: Mapping[str, SourceVerdict]
) -> list[tuple[FunctionEffect, SourceVerdict]]:
    """Functions whose table label disagrees with the analyzer.

    ``mutate`` and ``login`` both mean "writes" to the analyzer (login is a convention
    on top of a write); ``read`` means "does not write".
    """
    disagreements = []
    for function in classifier.functions:
        verdict = verdicts.get(function.name)
        if verdict is None:
            continue
        table_writes = function.label in (Effect.MUTATE, Effect.LOGIN)
        if table_writes != verdict.writes:
            disagreements.append((function, verdict))
    return disagreements
