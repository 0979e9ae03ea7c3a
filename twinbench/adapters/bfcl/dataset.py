"""BFCL multi-turn items, read from one release's data files."""

from __future__ import annotations

import ast
import hashlib
import json
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import attrs

from twinbench.errors import AdapterError
from twinbench.model import Call, Item, Side, StartingWorld, Turn

from .release import CATEGORIES, ReleaseData

SIDES = {"base": Side.ACT, "long_context": Side.ACT, "miss_func": Side.ASK, "miss_param": Side.ASK}

# the harness names each class's function doc file in a dict literal under constants/
# (executable_backend_config.py in 2026 releases, category_mapping.py in 2025 ones)
_DOC_MAPPING = "MULTI_TURN_FUNC_DOC_FILE_MAPPING"


@attrs.frozen
class RawItem:
    id: str
    category: str
    question: list
    ground_truth: list
    involved_classes: tuple[str, ...]
    missed_function: dict
    #: ``{class: scenario}``, what BFCL hands each involved class's ``_load_scenario``
    initial_config: dict = attrs.field(factory=dict)


@attrs.frozen
class BFCLData:
    """Everything twinbench reads from one release."""

    release: ReleaseData
    raw: tuple[RawItem, ...]
    tools_by_class: dict[str, tuple[str, ...]]
    source_files: dict[str, Path]
    fingerprint: str
    problems: tuple[str, ...] = ()

    @property
    def classes(self) -> tuple[str, ...]:
        return tuple(self.tools_by_class)


@attrs.frozen
class DataFacts:
    """What the rule, the outputs' headers and the warnings read of one release: :class:`BFCLData`
    without its raw items (a command loads this small record; the items come from their own)."""

    tools_by_class: dict[str, tuple[str, ...]]
    source_files: dict[str, Path]
    fingerprint: str
    problems: tuple[str, ...] = ()

    @classmethod
    def of(cls, data: BFCLData) -> DataFacts:
        return cls(data.tools_by_class, data.source_files, data.fingerprint, data.problems)


def facts(release: ReleaseData, key: str | None = None, data: Callable[[], BFCLData] | None = None) -> DataFacts:
    """The release's :class:`DataFacts`, derived once per content (from ``data()``, else :func:`load`)."""
    from twinbench import cache

    key = key or input_key(release)
    return cache.cached("bfcl-facts", key, lambda: DataFacts.of(data() if data else load(release, key)))


def _read_jsonl(path: Path) -> Iterator[tuple[int, dict]]:
    try:
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                if line.strip():
                    try:
                        record = json.loads(line)
                    except json.JSONDecodeError as exc:
                        raise AdapterError(f"{path}: line {number} is not valid JSON ({exc.msg})") from exc
                    if not isinstance(record, dict):
                        raise AdapterError(f"{path}: line {number} is not a JSON object")
                    yield number, record
    except OSError as exc:
        raise AdapterError(f"cannot read {path}: {exc}") from exc


def _literal_mappings(config: Path) -> dict[str, dict]:
    """Top-level dict literals of the harness config, read with ast (never imported)."""
    out: dict[str, dict] = {}
    if not config.is_file():
        return out
    try:
        tree = ast.parse(config.read_text(encoding="utf-8"))
    except (SyntaxError, ValueError, OSError, UnicodeDecodeError) as exc:
        raise AdapterError(f"cannot read {config}: {exc}") from exc
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                continue  # f-strings and other non-literals
            if isinstance(value, dict):
                out[node.targets[0].id] = value
    return out


def _module_files(release: ReleaseData) -> tuple[dict[str, str], dict[str, Path]]:
    doc_files: dict | None = None
    for config in sorted((release.root / "constants").glob("*.py")):
        doc_files = _literal_mappings(config).get(_DOC_MAPPING)
        if doc_files:
            break
    if not doc_files:
        raise AdapterError(f"{release.root / 'constants'} does not map classes to function doc files ({_DOC_MAPPING})")
    source_dir = release.root / "eval_checker" / "multi_turn_eval" / "func_source_code"
    sources = {cls: source_dir / (Path(doc).stem + ".py") for cls, doc in doc_files.items()}
    return doc_files, sources


def _fingerprint(raw: list[RawItem]) -> str:
    digest = hashlib.sha256()
    for item in raw:
        record = [item.id, item.question, item.ground_truth, item.missed_function]
        digest.update(json.dumps(record, sort_keys=True, ensure_ascii=False).encode("utf-8"))
        digest.update(b"\n")
    return digest.hexdigest()


ID_PATTERN = re.compile(r"^multi_turn_(base|long_context|miss_func|miss_param)_(\d+)$")


def _missed_function(item_id: str, value: object) -> dict[str, list[str]]:
    """``missed_function``: ``{"<turn index>": [function names]}``, checked."""
    if value in (None, {}):
        return {}
    if isinstance(value, dict) and all(
        isinstance(k, str) and k.isdigit() and isinstance(v, list) and all(isinstance(n, str) for n in v)
        for k, v in value.items()
    ):
        return {k: list(v) for k, v in value.items()}
    raise AdapterError(f"{item_id}: missed_function must map turn indices to lists of function names, got {value!r}")


def _initial_config(item_id: str, value: object) -> dict:
    """``initial_config``: ``{class name: scenario dict}`` (absent: every class starts from its defaults)."""
    if value is None:
        return {}
    if isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, dict) for k, v in value.items()):
        return value
    raise AdapterError(f"{item_id}: initial_config must map class names to scenario objects, got {value!r:.200}")


def load(release: ReleaseData, key: str | None = None) -> BFCLData:
    """The release's items, classes and function lists, checked; derived once per content of its files.

    The key (:func:`input_key`, computed here unless given) is every byte :func:`_load` reads,
    the folder and the release's description, so an edited or moved release is read again.
    Errors are never stored: a broken release says so each time.
    """
    from twinbench import cache

    return cache.cached("bfcl-data", key or input_key(release), lambda: _load(release))


def input_key(release: ReleaseData) -> str:
    """A content key of everything :func:`_load` reads: the question and answer files, the harness
    constants and the function docs (each file's path and bytes; a missing file is a part of its
    own), with the folder and the release's description. Whatever is derived from the parsed data
    (items, tool lists, initial states) may be keyed by it."""
    from twinbench import cache

    files = [release.answer_file(c) for c in CATEGORIES] + [release.question_file(c) for c in CATEGORIES]
    files += sorted((release.root / "constants").glob("*.py"))
    files += sorted(p for p in (release.root / "data" / "multi_turn_func_doc").rglob("*") if p.is_file())
    return cache.key_of([repr((str(release.root), release.release, release.source, release.prefix)),
                         *file_parts(files, release.digests)])


def file_parts(files, known: Mapping[str, bytes] | None = None) -> list[bytes | str]:
    """Key parts for files: each path and the hash of its bytes, ``unreadable`` when it cannot be read.

    ``known``: hashes by path already checked in this process (a cached release's), not read again.
    """
    parts: list[bytes | str] = []
    for path in files:
        parts.append(str(path))
        digest = known.get(str(path)) if known else None
        if digest is not None:
            parts.append(digest)
            continue
        try:
            parts.append(hashlib.sha256(path.read_bytes()).digest())
        except OSError:
            parts.append("unreadable")
    return parts


def _defect(release: ReleaseData) -> str:
    """The label of a problem in the release's own files: a defect of the data, not of the user's runs."""
    whose = f"bfcl-eval {release.release}" if release.release != "unknown" else "the --bfcl-root data"
    return f"defect in {whose}'s own {release.prefix} data (not in any run): "


def _load(release: ReleaseData) -> BFCLData:
    raw: list[RawItem] = []
    problems: list[str] = []
    seen: set[str] = set()
    for category in CATEGORIES:
        answers = {rec.get("id"): rec.get("ground_truth") for _, rec in _read_jsonl(release.answer_file(category))}
        for number, rec in _read_jsonl(release.question_file(category)):
            item_id = rec.get("id")
            if not isinstance(item_id, str) or not isinstance(rec.get("question"), list):
                raise AdapterError(f"{release.question_file(category)}: line {number} has no id or question")
            match = ID_PATTERN.match(item_id)
            if match is None or match.group(1) != category:
                raise AdapterError(f"{release.question_file(category)}: line {number} has the id {item_id!r}; "
                                   f"expected multi_turn_{category}_<index>")
            if item_id in seen:
                problems.append(f"{item_id}: appears more than once in {release.question_file(category).name}; "
                                "the first is used")
                continue
            seen.add(item_id)
            if not all(isinstance(t, list) for t in rec["question"]):
                raise AdapterError(f"{release.question_file(category)}: line {number} ({item_id}) has a turn "
                                   "that is not a list of messages")
            truth = answers.get(item_id)
            if not isinstance(truth, list):
                problems.append(f"{item_id}: no ground truth in {release.answer_file(category).name}; item left out")
                continue
            if not all(isinstance(t, list) for t in truth):
                problems.append(f"{item_id}: a ground-truth turn is not a list of calls; item left out")
                continue
            if len(truth) != len(rec["question"]):
                problems.append(
                    f"{item_id}: {len(rec['question'])} question turns but {len(truth)} ground-truth turns; item left out"
                )
                continue
            raw.append(
                RawItem(
                    id=item_id,
                    category=category,
                    question=rec["question"],
                    ground_truth=truth,
                    involved_classes=tuple(rec.get("involved_classes") or ()),
                    missed_function=_missed_function(item_id, rec.get("missed_function")),
                    initial_config=_initial_config(item_id, rec.get("initial_config")),
                )
            )
    # the multi-turn classes are those the items involve
    involved = list(dict.fromkeys(c for item in raw for c in item.involved_classes))
    doc_files, sources = _module_files(release)
    tools_by_class: dict[str, tuple[str, ...]] = {}
    for cls in sorted(involved, key=lambda c: list(doc_files).index(c) if c in doc_files else len(doc_files)):
        if cls not in doc_files:
            raise AdapterError(f"class {cls} is involved in the items but has no function doc file")
        names = [rec.get("name") for _, rec in _read_jsonl(release.root / "data" / "multi_turn_func_doc" / doc_files[cls])]
        tools_by_class[cls] = tuple(n for n in names if isinstance(n, str))
    return BFCLData(
        release=release,
        raw=tuple(raw),
        tools_by_class=tools_by_class,
        source_files={c: sources[c] for c in tools_by_class},
        fingerprint=_fingerprint(raw),
        problems=tuple(_defect(release) + problem for problem in problems),
    )


def _parse_reference(item_id: str, text: str) -> Call:
    from twinbench.reading.python_calls import parse_python_calls  # only when items are built

    calls = parse_python_calls(text)
    if len(calls) != 1:
        raise AdapterError(f"{item_id}: reference call {text!r} does not parse as one call")
    return calls[0]


def to_item(raw: RawItem, tools_by_class: dict[str, tuple[str, ...]]) -> Item:
    offered = [name for cls in raw.involved_classes for name in tools_by_class.get(cls, ())]
    # a miss_func item's withheld functions are off the tool list until the turn they come back
    withheld_until: dict[str, int] = {}
    for turn_key, names in raw.missed_function.items():
        for name in names:
            withheld_until[name] = int(turn_key)
    turns = []
    for index, (messages, truth) in enumerate(zip(raw.question, raw.ground_truth)):
        user = tuple(m.get("content", "") for m in messages if isinstance(m, dict) and m.get("role") == "user")
        tools = tuple(n for n in offered if withheld_until.get(n, -1) <= index)
        reference_text = tuple(str(s) for s in truth)
        reference = tuple(_parse_reference(raw.id, s) for s in reference_text)
        turns.append(Turn(index=index, user_text=user, tools=tools, reference=reference, reference_text=reference_text))
    return Item(id=raw.id, category=raw.category, side=SIDES[raw.category], turns=tuple(turns),
                family=f"scenario {scenario_index(raw.id)}", world=starting_world(raw))


def starting_world(raw: RawItem) -> StartingWorld:
    """What BFCL loads each involved class with: its part of ``initial_config`` (a class without one
    starts from its defaults), and whether the long-context variant of the data is loaded."""
    state: dict[str, object] = {cls: raw.initial_config.get(cls, {}) for cls in raw.involved_classes}
    state["long_context"] = raw.category == "long_context"
    return StartingWorld.of(state)


def scenario_index(item_id: str) -> int:
    return int(item_id.rsplit("_", 1)[1])


def category_of(item_id: str) -> str:
    return item_id.removeprefix("multi_turn_").rsplit("_", 1)[0]
