"""``twinbench``: parse the command line, run the handler, turn every user mistake into one line.

User mistakes end in one ``twinbench: error: ...`` line and exit status 2; nothing a user can
cause ends in a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from twinbench.adapters import registry
from twinbench.cli.messages import say
from twinbench.cli.parser import DEFAULT_ADAPTER, build_parser
from twinbench.errors import AdapterError, TwinbenchError
from twinbench.render.output import session


def _adapter_name(argv: Sequence[str]) -> str:
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--adapter", default=DEFAULT_ADAPTER)
    known, _ = pre.parse_known_args(list(argv))
    return known.adapter


def subcommand_parser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    """The parser of one subcommand (argparse keeps no public accessor for it)."""
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return action.choices[name]


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        adapter_cls = registry.get(_adapter_name(argv))
    except AdapterError as exc:
        say(f"error: {exc}")
        return 2
    parser = build_parser(adapter_cls)
    args, extra = parser.parse_known_args(argv)
    if extra:  # said by the subcommand's own parser, with its usage (argparse would give the top-level one)
        subcommand_parser(parser, args.command).error(f"unrecognized arguments: {' '.join(extra)} (see "
                                                      f"`twinbench {args.command} --help`)")
    try:
        with session():  # every output of the command is checked against its inputs
            return int(args.func(args, adapter_cls) or 0)
    except BrokenPipeError:  # the reader went away (e.g. `| head`): not an error
        import os

        try:  # keep the interpreter from complaining when it flushes stdout at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        return 0
    except (TwinbenchError, OSError) as exc:  # a message may quote the input: made safe
        say(f"error: {exc}")
        return 2
    except MemoryError:
        say("error: out of memory (is --bootstrap very large?)")
        return 2
    except KeyboardInterrupt:
        say("interrupted")
        return 130


def run() -> None:  # pragma: no cover - the console entry point; tests call main()
    """``twinbench`` on the command line: :func:`main`, then out at once.

    Everything is written and closed by then (the output, the workers, temporary folders),
    so the interpreter's teardown of a heap of records (a tenth of a second at leaderboard
    scale) is skipped, as other command-line tools skip it.
    """
    import os

    # the bootstrap's products are small (resamples x pairs times pairs x models): one BLAS thread
    # computes them in milliseconds, and each further thread's buffers cost ~10 MiB of memory
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from twinbench import gc_pause

    gc_pause.OWN_PROCESS = True  # the process is the command's: what reading leaves alive is frozen
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the reader went away: as in main
        code = code or 0
    except (OSError, ValueError):
        code = code or 1
    os._exit(code)
