"""Writes pytest's assert-rewritten test modules to their cache before `make test` starts its processes.

pytest rewrites every test module's asserts when it imports it, and caches the result in `__pycache__` unless
PYTHONDONTWRITEBYTECODE is set, as on these machines and in CI. Then each of the test processes rewrote all
of them again: about 3 s of CPU each of its 7 s of collection. Written once here, on both cores, each process
reads them instead (the cache is keyed by the source's hash, so a changed file is rewritten as before).

`python -m tests.support.rewritten_tests`
"""

import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from _pytest.assertion.rewrite import PYC_TAIL, _read_pyc, _rewrite_test, _write_pyc_fp, get_cache_dir

TESTS = Path(__file__).resolve().parents[1]


def _test_modules() -> list[Path]:
    """What pytest rewrites here: test modules (pytest's default `python_files`) and conftest.py files."""
    found = [*TESTS.rglob("test_*.py"), *TESTS.rglob("*_test.py"), *TESTS.rglob("conftest.py")]
    return sorted(path for path in found if "__pycache__" not in path.parts)


def _write(module: Path) -> bool:
    """Rewrite one module unless its cache is current; whether it was written. Written to a file of this
    process's and renamed, as pytest does, so a test process never reads half a file."""
    cached = get_cache_dir(module) / (module.name[:-3] + PYC_TAIL)
    if _read_pyc(module, cached) is not None:
        return False
    source_hash, code = _rewrite_test(module, None)  # no config: pytest's defaults (no assertion pass hook)
    cached.parent.mkdir(exist_ok=True)
    partial = cached.with_name(f"{cached.name}.{os.getpid()}")
    with partial.open("wb") as file:
        _write_pyc_fp(file, source_hash, code)
    partial.replace(cached)
    return True


def main() -> None:
    modules = _test_modules()
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        written = sum(pool.map(_write, modules, chunksize=8))
    print(f"rewritten test modules: {written} written, {len(modules) - written} current", file=sys.stderr)


if __name__ == "__main__":
    main()
