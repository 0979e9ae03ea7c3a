from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

REPO = HERE.parent
SHARED = REPO.parent / "shared"
BFCL_RUNS = SHARED / "bfcl-runs"
WHEN2CALL = SHARED / "when2call"
FIXTURES = HERE / "fixtures"


def need_shared(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"{path} is absent: these tests read the shared real data beside the repository")
    return path


def _release_adapter(release: str):
    from twinbench.errors import AdapterError
    from twinbench.adapters.bfcl import BFCLAdapter

    adapter = BFCLAdapter(release=release)
    try:
        adapter.items()
    except AdapterError as exc:  # offline without a cache
        if os.environ.get("CI"):
            raise
        pytest.skip(f"BFCL {release} data unavailable here: {exc}")
    return adapter


@pytest.fixture(scope="session")
def bfcl_adapter():
    """The BFCL adapter on the default release (downloaded once into the user cache)."""
    from twinbench.adapters.bfcl.release import DEFAULT_RELEASE

    return _release_adapter(DEFAULT_RELEASE)


@pytest.fixture(scope="session")
def bfcl_v3_adapter():
    from twinbench.adapters.bfcl.release import LAST_V3_RELEASE

    return _release_adapter(LAST_V3_RELEASE)


@pytest.fixture(scope="session")
def bfcl_manifest(bfcl_adapter):
    from twinbench.discovery import discover_for

    return discover_for(bfcl_adapter)
