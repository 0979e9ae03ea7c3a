"""``python -m twinbench.cli``: the ``twinbench`` command."""

from twinbench.cli.main import run

run()
