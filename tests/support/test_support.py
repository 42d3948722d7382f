"""tvm.support: temporary directories, the C compiler driver and the process pool."""

import math
import os
import time

import pytest

from tvm.support import cc, popen_pool, utils


def test_tempdir_relpath_listdir_and_cleanup():
    with utils.tempdir() as temp:
        path = temp.relpath("a.txt")
        with open(path, "w") as f:
            f.write("x")
        assert temp.listdir() == ["a.txt"]
        root = temp.path
        assert root / "a.txt" == temp / "a.txt" and (temp / "a.txt").exists()
    assert not os.path.exists(root)


@pytest.mark.skipif(cc.get_cc() is None, reason="needs a C compiler driver")
def test_create_shared_and_staticlib():
    temp = utils.tempdir()
    src = temp.relpath("f.c")
    with open(src, "w") as f:
        f.write("int pytvm_three(void) { return 3; }\n")
    cc.create_shared(temp.relpath("f.so"), [src])
    obj = temp.relpath("f.o")
    cc.create_executable(obj, [src], options=["-c"])
    cc.create_staticlib(temp.relpath("f.a"), [obj])
    assert {"f.so", "f.a"} <= set(temp.listdir())
    import ctypes

    assert ctypes.CDLL(temp.relpath("f.so")).pytvm_three() == 3
    with pytest.raises(RuntimeError, match="failed"):
        cc.create_shared(temp.relpath("g.so"), [temp.relpath("missing.c")])


def test_popen_worker_results_errors_and_timeout():
    worker = popen_pool.PopenWorker()
    worker.send(math.sqrt, (16,))
    assert worker.recv() == 4.0
    worker.send(math.sqrt, (-1,))
    with pytest.raises(ValueError, match="math domain"):
        worker.recv()
    worker.send(time.sleep, (5,), timeout=0.3)
    with pytest.raises(TimeoutError):
        worker.recv()
    assert not worker.is_alive()
    worker.send(pow, (2, 5))  # a new process after the timeout
    assert worker.recv() == 32
    worker.kill()


def test_popen_pool_map_with_error_catching():
    with popen_pool.PopenPoolExecutor(max_workers=2, timeout=5) as pool:
        results = list(pool.map_with_error_catching(math.sqrt, [1, 9, -1]))
        assert [r.status for r in results] == [
            popen_pool.StatusKind.COMPLETE,
            popen_pool.StatusKind.COMPLETE,
            popen_pool.StatusKind.EXCEPTION,
        ]
        assert results[1].value == 3.0
        assert pool.submit(pow, 3, 2).result() == 9
