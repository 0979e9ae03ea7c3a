"""Every stored-step shape the call readers know: one row each, in the order they are tried.

This table is the map of :mod:`twinbench.reading`: for each shape, an example step, the
module and function that read it, and the leaderboard handler whose output it mirrors
(BFCL's handler families, as ``design/BFCL-FORMATS.md`` lists them, and When2Call's
OpenAI-style responses). ``tests/test_reading_shapes.py`` reads every example through
:func:`twinbench.reading.read_step` and checks it gives the calls named here, so the table
cannot drift from the code. A new shape gets a row here, a reader in the module named,
and a place in the order of :func:`twinbench.reading.step.read_step`.

The order, for one step:

1. a list holding texts is read element by element (each as below); a list of records and a
   record are read as JSON call objects, then as native records;
2. a text is cleaned (:mod:`~twinbench.reading.text`: ``<think>``, fences, backticks,
   ``<|python_tag|>``, ``[TOOL_CALLS]``);
3. a text with tool-call tags is read as tagged blocks (:mod:`~twinbench.reading.tagged`),
   and nothing else of it;
4. otherwise a text that starts like code is read as code (:mod:`~twinbench.reading.code`):
   JSON values first, then GLM's name-and-arguments, then python calls;
5. what is left is prose: it never gives a call, and a call written inside it is noted
   (``call_in_prose``).
"""

from __future__ import annotations

import attrs


@attrs.frozen
class Shape:
    """One stored-step shape: what it looks like, who reads it, and whose output it is."""

    name: str
    example: object  # a stored step of this shape
    calls: tuple[str, ...]  # the names read from the example, in order
    reader: str  # module:function that reads it
    mirrors: str  # the leaderboard handler(s) that store steps like this


SHAPES: tuple[Shape, ...] = (
    Shape("native records, JSON argument strings", [{"cd": '{"folder": "docs"}'}], ("cd",),
          "json_calls:_native_record", "BFCL FC handlers (OpenAI, Claude, Mistral, ...): convert_to_function_call"),
    Shape("native records, argument objects", [{"cd": {"folder": "docs"}}, {"ls": {}}], ("cd", "ls"),
          "json_calls:_native_record", "BFCL Gemini, Nova, Arch, Granite3, PhiFC, MistralFC"),
    Shape("JSON call objects", [{"name": "cd", "arguments": {"folder": "docs"}}], ("cd",),
          "json_calls:_call_object", "OpenAI-style tool calls; BFCL Mining; When2Call replies"),
    Shape("tool_name/parameters objects", [{"tool_name": "cd", "parameters": {"folder": "docs"}}], ("cd",),
          "json_calls:_call_object", "BFCL Cohere FC"),
    Shape("tool_calls envelope", {"tool_calls": [{"function": {"name": "cd", "arguments": '{"folder": "d"}'}}]},
          ("cd",), "json_calls:_call_object", "OpenAI chat completions (When2Call's OpenAI suite)"),
    Shape("JSON calls in text, joined by ';'", '{"name": "cd", "parameters": {"folder": "d"}}; {"name": "ls", '
          '"parameters": {}}', ("cd", "ls"), "code:_read_code", "BFCL Llama 3.1 FC (its handler splits on '; ')"),
    Shape("python call list", "[cd(folder='docs'), mkdir(dir_name='x')]", ("cd", "mkdir"),
          "python_calls:parse_python_calls", "BFCL prompting handlers: default_decode_execute_prompting"),
    Shape("python calls, one missing bracket", "[cd(folder='docs')", ("cd",), "python_calls:_python_reading",
          "BFCL prompting handlers (the decoder restores the brackets)"),
    Shape("fenced python", "```python\n[cd(folder='docs')]\n```", ("cd",), "text:_clean_text",
          "BFCL Gemini (tool_code fences), Phi (json/python fences)"),
    Shape("reasoning before the calls", "<think>the folder first</think>[cd(folder='docs')]", ("cd",),
          "text:_strip_think", "BFCL Qwen, DeepSeek-reasoning (strip through </think>)"),
    Shape("Llama python tag", "<|python_tag|>cd(folder='docs')", ("cd",), "text:_code_text",
          "Llama 3.x built-in tool format"),
    Shape("Mistral tool-call prefix", '[TOOL_CALLS][{"name": "cd", "arguments": {"folder": "d"}}]', ("cd",),
          "text:_code_text", "Mistral raw output"),
    Shape("<tool_call> blocks", '<tool_call>\n{"name": "cd", "arguments": {"folder": "d"}}\n</tool_call>', ("cd",),
          "tagged:_read_tagged", "BFCL QwenFC, Granite4FC, NanbeigeFC, PelicanVLFC, Hermes, xLAM"),
    Shape("<|tool_call|> blocks", '<|tool_call|>[{"name": "cd", "arguments": {"folder": "d"}}]', ("cd",),
          "tagged:_read_tagged", "Granite3, PhiFC"),
    Shape("MiniCPM blocks", '<|tool_call_start|>[cd(folder="d")]<|tool_call_end|>', ("cd",),
          "tagged:_read_tagged", "BFCL MiniCPM-FC"),
    Shape("Nemotron blocks", '<TOOLCALL>[{"name": "cd", "arguments": {"folder": "d"}}]</TOOLCALL>', ("cd",),
          "tagged:_read_tagged", "BFCL Nemotron"),
    Shape("Granite function_call", '<function_call> {"name": "cd", "arguments": {"folder": "d"}}', ("cd",),
          "tagged:_read_block_body", "BFCL Granite (no_function is no call)"),
    Shape("Llama custom-tool tags", '<function=cd>{"folder": "docs"}</function>', ("cd",),
          "tagged:_read_function_tag", "Llama 3.x custom tools"),
    Shape("FunctionGemma calls", "<start_function_call>call:cd{folder:<escape>docs<escape>}<end_function_call>",
          ("cd",), "model_formats:_read_gemma_call", "BFCL FunctionGemma"),
    Shape("GLM name and arguments", 'cd\n{"folder": "docs"}', ("cd",), "model_formats:_glm_call", "BFCL GLM local"),
    Shape("a list of texts", ["[cd(folder='docs')]", "Done."], ("cd",), "step:_read_any",
          "BFCL Claude and Gemini text replies (lists of strings)"),
    Shape("prose", "I need the folder name first.", (), "step:_read_text",
          "every handler's text reply: never a call"),
)
