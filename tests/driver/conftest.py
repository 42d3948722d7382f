"""Keep the on-disk LLVM compilation cache of the driver tests out of the home directory."""

import pytest


@pytest.fixture(autouse=True, scope="session")
def _isolated_llvm_disk_cache(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("PYTVM_CACHE_DIR", str(tmp_path_factory.mktemp("pytvm_cache")))
    yield
    mp.undo()
