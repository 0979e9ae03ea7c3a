"""Time of the call parsers on adversarial texts of 1 KB, 100 KB and 1 MB.

    python benchmarks/bench_parsers.py [--repeats N] [--sizes 1000,100000,1000000]

Every parser of ``twinbench.calls`` (and ``read_step``) reads hostile inputs: many
``<``, ``{``, ``[``, ``(`` or ``;``, long unbalanced brackets, deeply nested JSON,
thousands of tool-call tags, call keys scattered in prose, huge numbers, and a real
worst case of many valid calls. For each input and size it prints the best time of
``--repeats`` runs in seconds per MB (1 MB = 1,000,000 characters, the parsers'
``MAX_TEXT_CHARS``). A linear parser shows about the same figure at every size; a
quadratic one grows about 10x from 100 KB to 1 MB. The last lines give the worst
figure per parser and the worst growth from 100 KB to 1 MB. Asserts nothing; needs
nothing but the project itself.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from twinbench.reading import (
    parse_json_calls,
    parse_native_records,
    parse_python_calls,
    parse_tool_call_blocks,
    read_step,
)

PARSERS: dict[str, Callable[[str], object]] = {
    "python": parse_python_calls,
    "json": parse_json_calls,
    "native": parse_native_records,
    "tool_call": parse_tool_call_blocks,
    "read_step": read_step,
}


def repeat_to(unit: str, size: int, head: str = "", tail: str = "") -> str:
    """``head + unit * k + tail`` cut to ``size`` characters (the tail kept)."""
    body = size - len(head) - len(tail)
    return head + (unit * (body // len(unit) + 1))[: max(body, 0)] + tail


def nested_json(size: int) -> str:
    depth = max(1, (size - 1) // 6)
    return '{"a":' * depth + "1" + "}" * depth


INPUTS: dict[str, Callable[[int], str]] = {
    "'<' + spaces": lambda n: repeat_to(" ", n, head="<"),
    "'<|' + spaces + tool_call": lambda n: repeat_to(" ", n, head="<|", tail="tool_cal"),
    "many '<'": lambda n: repeat_to("<", n),
    "many '< /'": lambda n: repeat_to("< /", n),
    "many '{'": lambda n: repeat_to("{", n),
    "many '['": lambda n: repeat_to("[", n),
    "many '('": lambda n: repeat_to("(", n),
    "many 'f('": lambda n: repeat_to("f(", n),
    "many ';'": lambda n: repeat_to(";", n),
    "unbalanced '[{('": lambda n: repeat_to("[{(", n),
    "nested JSON": nested_json,
    "many '{\"name\":'": lambda n: repeat_to('{"name":', n),
    "prose with call keys": lambda n: repeat_to('so {"name": "cd", "x', n, head="Well "),
    "prose with '[f('": lambda n: repeat_to("see [cd( and ", n, head="Well "),
    "many <tool_call>": lambda n: repeat_to("<tool_call>", n),
    "many <tool_call>{": lambda n: repeat_to("<tool_call>{", n),
    "many <function=": lambda n: repeat_to("<function=", n),
    "gemma escapes": lambda n: repeat_to("<escape>a:", n, head="<start_function_call>call:f{"),
    "backticks": lambda n: repeat_to("`", n),
    "open fence": lambda n: repeat_to("x", n, head="```"),
    "huge number": lambda n: repeat_to("7", n, head='{"name": "f", "arguments": {"n": ', tail="}}"),
    "many valid JSON calls": lambda n: repeat_to('{"name": "cd", "parameters": {"folder": "x"}}; ', n).rstrip("; "),
    "many valid python calls": lambda n: repeat_to("cd(folder='x'); ", n).rstrip("; "),
    "prose words": lambda n: repeat_to("the file was moved ", n),
}


def best_time(parser: Callable[[str], object], text: str, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        parser(text)
        best = min(best, time.perf_counter() - start)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sizes", default="1000,100000,1000000")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))

    print(f"seconds per MB (best of {args.repeats}); sizes: {', '.join(f'{s:,}' for s in sizes)} characters")
    head = f"{'input':28s} {'size':>9s} " + " ".join(f"{name:>10s}" for name in PARSERS)
    print(head)
    print("-" * len(head))
    worst: dict[str, float] = dict.fromkeys(PARSERS, 0.0)
    per_size: dict[tuple[str, str, int], float] = {}
    for label, make in INPUTS.items():
        for size in sizes:
            text = make(size)
            cells = []
            for name, fn in PARSERS.items():
                seconds = best_time(fn, text, args.repeats)
                per_mb = seconds / (len(text) / 1_000_000)
                per_size[(label, name, size)] = per_mb
                worst[name] = max(worst[name], per_mb)
                cells.append(f"{per_mb:10.3f}")
            print(f"{label:28s} {size:9,d} " + " ".join(cells))
    print("-" * len(head))
    print(f"{'worst s/MB':28s} {'':9s} " + " ".join(f"{worst[name]:10.3f}" for name in PARSERS))
    if len(sizes) >= 2:
        small, large = sizes[-2], sizes[-1]
        growth = {
            name: max(
                per_size[(label, name, large)] / max(per_size[(label, name, small)], 1e-9) for label in INPUTS
            )
            for name in PARSERS
        }
        print(f"{'worst growth ' + f'{small:,}->{large:,}':28s} {'':9s} "
              + " ".join(f"{growth[name]:9.1f}x" for name in PARSERS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
