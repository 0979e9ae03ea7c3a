"""The effect classifier, the per-call echo rule, the YAML loader and the source analyzer."""

from __future__ import annotations

import textwrap

import pytest

from builders import classifier

from twinbench.reading import parse_python_calls
from twinbench.contract.effects import EffectTableError, analyze_source, compare_with_source, load_effect_table
from twinbench.model import Effect


def call(text):
    (c,) = parse_python_calls(text)
    return c


@pytest.mark.parametrize(
    "text, effect",
    [
        ("echo(content='hi')", Effect.READ),
        ("echo(content='hi', file_name='a.txt')", Effect.MUTATE),
        ("echo('hi', 'a.txt')", Effect.MUTATE),  # second positional argument is the file name
        ("echo('hi')", Effect.READ),
        ("echo(content='hi', file_name=None)", Effect.READ),
        ("mv(source='a', destination='b')", Effect.MUTATE),
        ("ls()", Effect.READ),
        ("login(user='a')", Effect.LOGIN),
    ],
)
def test_labels_with_the_echo_rule(text, effect):
    assert classifier().label(call(text)) is effect


def test_a_qualified_name_is_labelled_after_the_rule_maps_it():
    from builders import rule

    qualified = call("GorillaFileSystem.echo(content='x', file_name='f')")
    assert classifier().label(qualified) is None  # the table labels tool names as they are
    (mapped,) = rule().resolve([qualified], {"echo"})
    assert mapped.name == "echo" and classifier().label(mapped) is Effect.MUTATE


def test_unknown_functions_and_login_convention():
    c = classifier()
    assert c.label(call("rm(file_name='x')")) is None
    assert not c.is_world_changing(call("login(user='a')"))
    assert c.is_world_changing(call("login(user='a')"), count_login=True)
    assert c.counts() == {"mutate": 3, "read": 2, "login": 1}


def test_yaml_loader_reads_labels_rules_and_notes(tmp_path):
    path = tmp_path / "effects.yaml"
    path.write_text(textwrap.dedent("""
        per_call_rules:
          echo: {argument: file_name, position: 1, with_argument: mutate, without_argument: read}
        classes:
          FS:
            echo: {label: mutate, reason: writes a file}
            ls: {label: read, reason: lists, analyzer_note: looks like a write}
    """))
    table = load_effect_table(path)
    assert [f.name for f in table.functions] == ["echo", "ls"]
    assert table.label(call("echo(content='x')")) is Effect.READ
    assert table.function("ls").notes == (("analyzer_note", "looks like a write"),)
    assert table.function("echo").notes == ()


@pytest.mark.parametrize(
    "body, error",
    [
        ("classes: {FS: {ls: {label: maybe}}}", "no valid label"),
        ("nothing: here", "no 'classes'"),
        ("classes: {A: {ls: {label: read}}, B: {ls: {label: read}}}", "labelled twice"),
        ("classes: [unclosed", "cannot read"),
    ],
)
def test_yaml_loader_rejects_bad_tables(tmp_path, body, error):
    path = tmp_path / "effects.yaml"
    path.write_text(body)
    with pytest.raises(EffectTableError, match=error):
        load_effect_table(path)


SOURCE = textwrap.dedent('''
    import random
    CACHE = {}

    class Node:
        def __init__(self, name):
            self.name = name
            self.children = {}
        def _add(self, name):
            self.children[name] = Node(name)
        def _lookup(self, name):
            return self.children.get(name)

    class Api:
        def __init__(self):
            self.root = Node("/")
            self.count = 0
            self._cursor = None
            self._rng = random.Random(1)
            self._memo = {}

        def _load(self):
            self._cursor = self.root

        def move_cursor(self, name):
            self._cursor = self._cursor.children[name]      # rebinding a private alias: no write

        def make(self, name):
            self._cursor._add(name)                        # writes through the alias

        def rename(self, old, new):
            item = self._cursor._lookup(old)
            item.name = new                                # writes through a local bound to state

        def bump(self):
            self.count += 1

        def _helper(self):
            self.count = 0

        def reset(self):
            self._helper()                                 # a helper that writes

        def roll(self):
            return self._rng.randint(1, 6)                 # private, not state

        def remember(self, k):
            self._memo[k] = 1                              # private cache

        def snapshot(self):
            copy = self.root.children.copy()
            copy["x"] = 1                                  # a copy, not state
            return copy

        def report(self):
            out = {}
            out["count"] = self.count                      # reads into a fresh dict
            CACHE["last"] = out                            # module global
            return out

        def peek(self):
            return self.root.name
''')


def test_source_analyzer_follows_aliases_locals_and_helpers():
    verdicts = analyze_source(SOURCE, "Api")
    writes = {name for name, v in verdicts.items() if v.writes}
    assert writes == {"make", "rename", "bump", "reset"}
    assert "self._cursor._add(name)" in verdicts["make"].evidence
    assert verdicts["peek"].evidence == "no write to public state"


def test_source_analyzer_reports_missing_class_and_method():
    with pytest.raises(EffectTableError, match="not found"):
        analyze_source(SOURCE, "Missing")
    assert not analyze_source(SOURCE, "Api", ["nope"])["nope"].writes


def test_compare_with_source_lists_disagreements():
    from twinbench.contract.effects import EffectClassifier
    from twinbench.model import FunctionEffect

    table = EffectClassifier((
        FunctionEffect("bump", "Api", Effect.READ, "wrongly read"),
        FunctionEffect("peek", "Api", Effect.READ, "reads"),
        FunctionEffect("make", "Api", Effect.LOGIN, "login counts as a write"),
    ))
    bad = compare_with_source(table, analyze_source(SOURCE, "Api"))
    assert [(f.name, v.writes) for f, v in bad] == [("bump", True)]
