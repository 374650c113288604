"""Neither the catalogue nor the probe calls the operating system except
through the OSAL; the probe's base (statistics, histogram, blocks, metrics,
JSON) calls nothing of the OSAL or the probe, so no two libraries depend on
each other.

Every undefined symbol of the compiled catalogue (core/catalogue/**) and of
the probe itself (core/src/runner: command line, registry, contexts, runner,
system record, main) must be the OSAL's or the probe's own (rtg_*) or from
the ISO C library; anything else (pthread_*, sem_*, clock_*, fork, waitpid
…) would bypass the OSAL and break a port. The check runs on the POSIX
build and on the build with the second OSAL (core/osal/c11, ISO C11 only),
whose own objects must need nothing beyond ISO C either.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILDS = {"posix": ROOT / "build", "c11": ROOT / "build-c11"}
# Where CMake puts each part's objects, and the objects looked for there.
OSAL_OBJS = Path("CMakeFiles") / "rtg_osal.dir" / "core" / "osal"
BASE_OBJS = Path("CMakeFiles") / "rtg_base.dir" / "core" / "src" / "base"
PARTS = {
    "catalogue": (Path("CMakeFiles") / "rtg_catalogue_objs.dir" / "core" / "catalogue", "**/*.o"),
    "probe": (Path("CMakeFiles") / "rtg_probe_objs.dir" / "core" / "src" / "runner", "*.o"),
    "probe main": (Path("CMakeFiles") / "rtgauge-probe.dir" / "core" / "src" / "runner", "*.o"),
    "probe base": (BASE_OBJS, "*.o"),
    "measuring clock": (OSAL_OBJS / "cpu_counter", "*.o"),
    "names shared by every port": (OSAL_OBJS, "*.o"),
}

# ISO C (C11) library functions a test may call, and what the compiler emits
# for them (glibc names ISO signal() __sysv_signal under -std=c11).
ISO_C = set(
    """abort abs atoi atol bsearch calloc exit free getenv labs llabs malloc qsort rand
    realloc srand strtod strtol strtoll strtoul strtoull memchr memcmp memcpy memmove memset
    strcat strchr strcmp strcpy strcspn strerror strlen strncat strncmp strncpy strpbrk
    strrchr strspn strstr strtok snprintf sprintf vsnprintf printf fprintf puts fputs
    fopen fclose fgets fwrite fflush fputc putchar stdout stderr gmtime strftime
    sqrt floor ceil fabs fmin fmax log log2 log10 exp pow round lround llround fmod
    isfinite isnan signal raise time clock
    __errno_location __stack_chk_fail __assert_fail __isoc99_sscanf __isoc23_strtol
    __isoc23_strtoul __isoc23_strtoll __isoc23_strtoull __memcpy_chk __memset_chk
    __snprintf_chk __vsnprintf_chk __sprintf_chk __fprintf_chk __printf_chk __strcpy_chk
    __strcat_chk __fdelt_chk __sysv_signal _GLOBAL_OFFSET_TABLE_""".split()
)
# ISO C11 <threads.h> and <time.h> additions: what the c11 OSAL is built on.
ISO_C11_THREADS = set(
    """thrd_create thrd_current thrd_detach thrd_equal thrd_exit thrd_join thrd_sleep
    thrd_yield mtx_init mtx_lock mtx_timedlock mtx_trylock mtx_unlock mtx_destroy cnd_init
    cnd_signal cnd_broadcast cnd_wait cnd_timedwait cnd_destroy tss_create tss_get tss_set
    tss_delete call_once timespec_get""".split()
)


def undefined(obj: Path) -> set[str]:
    out = subprocess.run(["nm", "-u", str(obj)], capture_output=True, text=True, check=True)
    return {line.split()[-1].split("@")[0] for line in out.stdout.splitlines() if line.strip()}


def objects_of(build: Path, sub: Path, pattern: str = "*.o") -> list[Path]:
    if not shutil.which("nm"):
        pytest.fail("nm (binutils) is missing")
    objects = sorted((build / sub).glob(pattern))
    assert objects, f"no objects under {build / sub}: build first (make probe probe-c11)"
    return objects


def bypasses(objects: list[Path]) -> dict[str, list[str]]:
    """Per object, the symbols it needs that are neither rtg_* nor ISO C."""
    found = {
        obj.name: sorted(s for s in undefined(obj) if not s.startswith("rtg_") and s not in ISO_C)
        for obj in objects
    }
    return {k: v for k, v in found.items() if v}


@pytest.mark.parametrize("part", sorted(PARTS))
@pytest.mark.parametrize("osal", sorted(BUILDS))
def test_reaches_the_os_only_through_the_osal(osal: str, part: str) -> None:
    sub, pattern = PARTS[part]
    assert bypasses(objects_of(BUILDS[osal], sub, pattern)) == {}, f"{part} calling the OS"


def defined(objects: list[Path]) -> set[str]:
    out = subprocess.run(
        ["nm", "--defined-only", *map(str, objects)], capture_output=True, text=True, check=True
    )
    return {line.split()[-1] for line in out.stdout.splitlines() if len(line.split()) == 3}


def calls_outside(objects: list[Path]) -> list[str]:
    """The rtg_* functions these objects call that none of them defines."""
    needed = {s for obj in objects for s in undefined(obj) if s.startswith("rtg_")}
    return sorted(needed - defined(objects))


@pytest.mark.parametrize("osal", sorted(BUILDS))
def test_the_base_needs_nothing_of_the_port(osal: str) -> None:
    """The base (statistics, histogram, blocks, metrics, JSON) calls nothing
    of the port or the probe: the port builds on the base, never the other
    way round, so the two libraries form no cycle."""
    assert calls_outside(objects_of(BUILDS[osal], BASE_OBJS)) == []


def test_the_base_check_catches_a_call_into_the_port(tmp_path: Path) -> None:
    src = tmp_path / "base.c"
    src.write_text(
        "unsigned long rtg_mono_ns(void);\n"
        "unsigned long rtg_base_f(void) { return rtg_mono_ns(); }\n"
        "unsigned long rtg_base_g(void) { return rtg_base_f(); }\n"
    )
    obj = tmp_path / "base.o"
    subprocess.run([os.environ.get("CC", "cc"), "-c", str(src), "-o", str(obj)], check=True)
    assert calls_outside([obj]) == ["rtg_mono_ns"]


@pytest.mark.parametrize("call", ["getpid()", "fork()", "waitpid(1, 0, 0)"])
def test_the_check_catches_a_direct_call(tmp_path: Path, call: str) -> None:
    src = tmp_path / "bad.c"
    src.write_text(
        f"#include <sys/wait.h>\n#include <unistd.h>\nint f(void) {{ return (int){call}; }}\n"
    )
    obj = tmp_path / "bad.o"
    subprocess.run([os.environ.get("CC", "cc"), "-c", str(src), "-o", str(obj)], check=True)
    name = call.split("(")[0]
    assert bypasses([obj]) == {"bad.o": [name]}
    assert name not in ISO_C11_THREADS  # the c11 check would catch it too


def test_the_c11_osal_itself_uses_only_iso_c() -> None:
    """The port's own objects and the shared parts its port.cmake names
    (core/osal/none, the CPU counter's clock, the names)."""
    objects = objects_of(BUILDS["c11"], OSAL_OBJS, "**/*.o")
    beyond = {
        obj.name: sorted(
            s
            for s in undefined(obj)
            if not s.startswith("rtg_") and s not in ISO_C and s not in ISO_C11_THREADS
        )
        for obj in objects
    }
    assert {k: v for k, v in beyond.items() if v} == {}, "the c11 OSAL calling POSIX"
