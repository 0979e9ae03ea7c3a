"""The call readers: stored model output (a step) to :class:`~twinbench.model.Call` records.

Nothing here knows a leaderboard. Each parser accepts a family of tool-call shapes
and returns ``[]`` for anything else; none of them raises, whatever it is given.
:func:`read_step` reads one stored step in every shape at once and also says what it
did *not* read (:class:`Unread`), so that a reader can be checked against another.

Model output is untrusted: text is only ever read with :func:`json.loads` and
:func:`ast.parse`, and python values are rebuilt from checked AST nodes by hand
(no ``eval``, ``exec`` or ``literal_eval``). Every regular expression and parser
here runs in time linear in the size of its input (see ``benchmarks/bench_parsers.py``).

Shapes read (a step is a stored model output: a string, a record, or a list of them):

* python-style text: ``f(a=1)``, ``[f(a=1), g('x')]``, several of those joined by
  ``;`` or newlines, one missing outer bracket tolerated (``[f(a=1)``);
* JSON call objects ``{"name", "arguments"|"parameters"}``, ``{"tool_name",
  "parameters"}``, ``{"function": {"name", "arguments"}}`` and ``{"tool_calls": [...]}``
  envelopes, decoded or in text, one or several (a list, or objects joined by ``;``,
  commas, pipes or newlines), also written with python literals (``True``, single quotes);
* native records ``{"fn": {args} | "<json object>" | ""}``, one or a list;
* tagged blocks anywhere in a text: ``<tool_call>...</tool_call>`` and
  ``<|tool_call|>``, ``<|tool_call_start|>...<|tool_call_end|>``,
  ``<TOOLCALL>...</TOOLCALL>``, ``<function_call> ...``, ``<function=NAME>{...}</function>``
  and ``<start_function_call>call:NAME{...}<end_function_call>``; a block holds JSON
  calls or python calls;
* a function name on one line and its JSON arguments on the next;
* around any text: whitespace, ``<think>`` reasoning, one code fence, backticks,
  ``<|python_tag|>`` and a leading ``[TOOL_CALLS]``.

Conventions shared by all parsers:

* Argument values keep their natural Python types (``list``, ``dict``, ...), so a
  ``Call`` holding such a value compares equal across shapes but is not hashable.
* Empty argument strings (``""``) mean "no arguments".
* Strings longer than :data:`MAX_TEXT_CHARS`, and python-style call text longer than
  :data:`MAX_PYTHON_CHARS`, are not parsed (``[]``); :func:`read_step` reports them as
  ``too_long``, and a reader leaves such a rollout unscored (:func:`read_turns`).
* A call whose arguments cannot be read (not an object, nested deeper than
  :data:`MAX_ARGUMENT_DEPTH` levels, an integer too long to print) is still a call, without its
  arguments, and :func:`read_step` reports it as ``call_arguments_unparsed``: never "no call".
* Prose never produces a call. A call written *inside* prose (after words) is not
  read either; :func:`read_step` reports it as ``call_in_prose``.
* A call record whose name is not a name (template tokens such as
  ``echo<|channel|>commentary``, spaces, stray symbols) is not a call, and the name is
  not repaired: the part before ``<|`` is *not* recovered as a call. The leaderboard
  decoder that stored such records kept the whole mangled name, so no function of
  that name ever ran; recovering ``echo`` would invent an action nobody executed.
  :func:`read_step` reports it as ``leaked_template_tokens`` or ``malformed_call_name``.

The family, lowest first: :mod:`~twinbench.reading.found` (what a reading finds),
:mod:`~twinbench.reading.text` (cleanup), :mod:`~twinbench.reading.python_calls`,
:mod:`~twinbench.reading.json_calls`, :mod:`~twinbench.reading.model_formats`,
:mod:`~twinbench.reading.code`, :mod:`~twinbench.reading.tagged`, and
:mod:`~twinbench.reading.step`, whose :func:`read_step` is the one entry;
:class:`~twinbench.reading.memo.StepMemo` reads each distinct stored step once.
:data:`~twinbench.reading.shapes.SHAPES` lists every shape, the order in which they are
tried and the leaderboard handler each mirrors.
"""

from __future__ import annotations

import importlib

#: every name this package offers, and the module that defines it: each module loads when one of its
#: names is first asked for (deciding from kept readings needs ``found`` alone, not the parsers)
_WHERE = {
    **dict.fromkeys(("EXCERPT_CHARS", "MAX_ARGUMENT_DEPTH", "MAX_PYTHON_CHARS", "MAX_TEXT_CHARS", "READ_AS_NO_CALL",
                     "TEXT_KEPT_CHARS", "UNREAD_KINDS", "StepReading", "Unread", "UnreadTally", "call_from_mapping"),
                    "found"),
    "parse_json_calls": "json_calls", "parse_native_records": "json_calls",
    "StepMemo": "memo",
    "parse_python_calls": "python_calls",
    **dict.fromkeys(("DEFAULT_PARSERS", "Parser", "parse_step", "read_step", "read_turns", "step_text", "texts_of"),
                    "step"),
    "parse_tool_call_blocks": "tagged",
}
__all__ = sorted(_WHERE)


def __getattr__(name: str):
    if name in _WHERE:
        return getattr(importlib.import_module(f"twinbench.reading.{_WHERE[name]}"), name)
    raise AttributeError(f"module 'twinbench.reading' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE})
