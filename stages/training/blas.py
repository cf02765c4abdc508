"""Put OpenBLAS under mlx[cpu] on Linux, in-process, before mlx is first imported.

The Linux `mlx[cpu]` wheel links `libmlx.so` against a bundled reference BLAS
(`mlx_cpu.libs/libblas-*.so`, ~6 GFLOP/s on a 2048x2048 fp32 matmul). `libmlx.so` is loaded by
Python with RTLD_LOCAL, so its undefined `cblas_sgemm` & co. are looked up in the *global* scope
first. Loading `libopenblas.so.0` (PyPI `cmeel-openblas`) with RTLD_GLOBAL before `import mlx`
therefore makes mlx call OpenBLAS (~100-200 GFLOP/s here), with no LD_PRELOAD and no re-exec.

OpenBLAS needs `libgfortran.so.5`, which a bare Linux may lack. The mlx[cpu] wheel bundles one under
an auditwheel-mangled soname (`libgfortran-<hash>.so.5.0.0`), which the dynamic linker will not
match against the name `libgfortran.so.5`. We copy it into a user cache folder with its
DT_SONAME string rewritten in place to `libgfortran.so.5` (shorter, so it fits), load its
libquadmath by path, load the copy, then OpenBLAS. A cached copy whose bytes differ (cut short,
garbage) is rewritten, and a cache that cannot be written (its root a file, a folder the user may
not write) gives way to an in-memory file (memfd). The dynamic linker matches already-loaded
objects by soname, so OpenBLAS's dependency resolves to the copy.

The cmeel-openblas wheels are not DYNAMIC_ARCH builds: each is compiled for one CPU (0.3.31 for
SKYLAKEX, which needs AVX-512; 0.3.29 for ZEN, AVX2 + FMA). Its first matmul on a CPU without
those instructions dies with SIGILL, so before the global load the library's build target
(`openblas_get_config`) is checked against the CPU's flags, and a mismatch keeps the reference BLAS
(with a warning) instead of killing the process.

Knobs: `RLVR_DISABLE_OPENBLAS=1` keeps the reference BLAS (used by the agreement test);
`RLVR_OPENBLAS_LIB=/path/libopenblas.so.0` picks another OpenBLAS; `OPENBLAS_NUM_THREADS`
defaults to 1 here (set it before import for large models). No effect on macOS (mlx uses
Accelerate there) or when mlx has a GPU backend only. If OpenBLAS cannot be loaded, that is logged
at info on import and one warning line when a model is first loaded (`warn_if_reference_blas`), so a
command that never computes prints nothing for it.
"""

from __future__ import annotations

import ctypes
import hashlib
import logging
import os
import stat
import struct
import sys
import tempfile
from pathlib import Path

DISABLE_ENV = "RLVR_DISABLE_OPENBLAS"
LIB_ENV = "RLVR_OPENBLAS_LIB"
_GFORTRAN_SONAME = b"libgfortran.so.5"
_SLOW = ("absent", "too-late", "failed", "unsupported-cpu")  # OpenBLAS wanted but not loaded
# stdlib logging, not structlog: this runs at import, before the CLI configures logging.
_log = logging.getLogger("rlvr.training")

_state: dict[str, str | None] = {"status": None, "detail": None}
_warned: list[bool] = []  # non-empty once `warn_if_reference_blas` has said it

_AVX512 = frozenset({"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"})
_AVX2 = frozenset({"avx2", "fma"})
# OpenBLAS build targets -> the CPU flags (as /proc/cpuinfo names them) their kernels execute
CORE_FLAGS: dict[str, frozenset[str]] = {
    "HASWELL": _AVX2,
    "ZEN": _AVX2,
    "SKYLAKEX": _AVX512,
    "COOPERLAKE": _AVX512 | {"avx512_bf16"},
    "SAPPHIRERAPIDS": _AVX512 | {"avx512_bf16", "amx_tile", "amx_bf16"},
}


def _find_openblas() -> Path | None:
    if os.environ.get(LIB_ENV):
        return Path(os.environ[LIB_ENV])
    for entry in sys.path:
        candidate = Path(entry) / "cmeel.prefix" / "lib" / "libopenblas.so.0"
        if candidate.exists():
            return candidate
    return None


def _elf_soname_offset(data: bytes) -> tuple[int, int]:
    """File offset and length of the DT_SONAME string of a little-endian ELF64 shared object."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("not a little-endian ELF64 file")
    (phoff,) = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    loads, dynamic = [], None
    for i in range(phnum):
        p_type, _, p_offset, p_vaddr, _, p_filesz, _, _ = struct.unpack_from(
            "<IIQQQQQQ", data, phoff + i * phentsize
        )
        if p_type == 1:
            loads.append((p_vaddr, p_offset, p_filesz))
        elif p_type == 2:
            dynamic = (p_offset, p_filesz)
    if dynamic is None:
        raise ValueError("no PT_DYNAMIC segment")
    strtab = soname = None
    for pos in range(dynamic[0], dynamic[0] + dynamic[1], 16):
        tag, value = struct.unpack_from("<qQ", data, pos)
        if tag == 0:
            break
        if tag == 5:
            strtab = value
        elif tag == 14:
            soname = value
    if strtab is None or soname is None:
        raise ValueError("no DT_STRTAB or DT_SONAME entry")
    for vaddr, offset, filesz in loads:
        if vaddr <= strtab < vaddr + filesz:
            start = strtab - vaddr + offset + soname
            return start, data.index(b"\0", start) - start
    raise ValueError("DT_STRTAB lies outside every PT_LOAD segment")


def _renamed_gfortran(source: Path) -> bytes:
    """The bytes of `source` with its DT_SONAME string rewritten to `libgfortran.so.5`."""
    data = bytearray(source.read_bytes())
    start, length = _elf_soname_offset(bytes(data))
    if length < len(_GFORTRAN_SONAME):
        raise ValueError(f"soname of {source} is too short to rename in place")
    data[start : start + length] = _GFORTRAN_SONAME + b"\0" * (length - len(_GFORTRAN_SONAME))
    return bytes(data)


def _cache_path(source: Path) -> Path:
    digest = hashlib.sha256(str(source.resolve()).encode()).hexdigest()[:16]
    cache_root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache_root / "rlvr-orchestrator" / "blas" / digest / _GFORTRAN_SONAME.decode()


def _holds(path: Path, data: bytes) -> bool:
    """`path` is a regular file (not a link) holding exactly `data`."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return False
    with os.fdopen(fd, "rb") as f:
        return stat.S_ISREG(os.fstat(fd).st_mode) and f.read(len(data) + 1) == data


def _write_cached(target: Path, data: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _load_gfortran_copy(source: Path) -> None:
    """Load a copy of `source` renamed to `libgfortran.so.5`: the user cache's copy once it holds
    exactly the expected bytes (a cut-short or garbage copy is rewritten, never trusted because it
    exists); an in-memory file when the cache cannot be written (a file at its root, a folder this
    user may not write), so the fast path does not depend on a writable home."""
    data = _renamed_gfortran(source)
    target = _cache_path(source)
    try:
        if not _holds(target, data):
            _write_cached(target, data)
        ctypes.CDLL(str(target), mode=os.RTLD_GLOBAL)
        return
    except OSError as e:
        _log.info("rlvr: BLAS cache %s unusable (%s); loading libgfortran from memory", target, e)
    fd = os.memfd_create(_GFORTRAN_SONAME.decode(), os.MFD_CLOEXEC)
    try:
        os.write(fd, data)
        ctypes.CDLL(f"/proc/self/fd/{fd}", mode=os.RTLD_GLOBAL)
    finally:
        os.close(fd)  # the loaded library keeps its mapping


def _load_fortran_runtime() -> None:
    """Make `libgfortran.so.5` resolvable for OpenBLAS unless the system already provides it."""
    try:
        ctypes.CDLL(_GFORTRAN_SONAME.decode(), mode=os.RTLD_GLOBAL)
        return
    except OSError:
        pass
    for package_libs in ("mlx_cpu.libs", "numpy.libs"):
        for base in sys.path:
            libs = Path(base) / package_libs
            gfortran = sorted(libs.glob("libgfortran-*.so*")) if libs.is_dir() else []
            if not gfortran:
                continue
            for quadmath in sorted(libs.glob("libquadmath-*.so*")):
                ctypes.CDLL(str(quadmath), mode=os.RTLD_GLOBAL)
            # The copy's RPATH is $ORIGIN: its mangled libquadmath name is already loaded above.
            _load_gfortran_copy(gfortran[0])
            return
    raise OSError("no libgfortran.so.5 on the system nor in mlx_cpu.libs / numpy.libs")


def enable_openblas() -> str:
    """Load OpenBLAS globally if this is Linux with mlx[cpu]; return what happened.

    Returns one of "loaded", "disabled", "not-linux", "not-cpu", "absent", "too-late",
    "unsupported-cpu", "failed". Idempotent.
    """
    if _state["status"] is not None:
        return _state["status"]
    status, detail = _enable()
    _state["status"], _state["detail"] = status, detail
    if status in _SLOW:
        # Info at import: a command that never computes (`rlvr pause`) prints nothing for it.
        _log.info("rlvr: mlx runs on its slow reference BLAS (%s)", detail)
    return status


def warn_if_reference_blas() -> None:
    """One warning line, once per process, when a model is about to compute on the slow
    reference BLAS for a reason the user can act on (not when they disabled OpenBLAS)."""
    if _state["status"] in _SLOW and not _warned:
        _warned.append(True)
        _log.warning("rlvr: mlx runs on its slow reference BLAS (%s)", _state["detail"])


def _enable() -> tuple[str, str | None]:
    if not sys.platform.startswith("linux"):
        return "not-linux", None
    if os.environ.get(DISABLE_ENV, "") not in ("", "0"):
        return "disabled", f"{DISABLE_ENV} is set"
    if not any((Path(p) / "mlx_cpu.libs").is_dir() for p in sys.path):
        return "not-cpu", "no mlx[cpu] backend installed"
    if "mlx.core" in sys.modules:
        return "too-late", "mlx was imported before stages.training; import it first"
    library = _find_openblas()
    if library is None or not library.exists():
        return "absent", "no libopenblas.so.0 found; pip install cmeel-openblas"
    # Small per-op matmuls gain nothing from more threads, and spinning BLAS threads halve the
    # speed when other processes share the cores (85 vs 155 ms per SFT step here).
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    try:
        _load_fortran_runtime()
        # Locally first: nothing resolves against it until its build target is known to run here.
        config = _build_config(ctypes.CDLL(str(library), mode=os.RTLD_LOCAL))
        missing = missing_cpu_flags(config, cpu_flags())
        if missing:
            return "unsupported-cpu", (
                f"{library} is built for {config!r}; this CPU lacks {', '.join(sorted(missing))}"
            )
        ctypes.CDLL(str(library), mode=os.RTLD_GLOBAL)  # dlopen promotes it to the global scope
    except (OSError, ValueError) as e:
        return "failed", f"loading {library} failed: {e}"
    return "loaded", str(library)


def _build_config(lib: ctypes.CDLL) -> str:
    get_config = lib.openblas_get_config
    get_config.restype = ctypes.c_char_p
    return (get_config() or b"").decode(errors="replace")


def cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> frozenset[str] | None:
    """The CPU's feature flags, or None when they cannot be read."""
    try:
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("flags"):
                return frozenset(line.partition(":")[2].split())
    except OSError:
        return None
    return None


def missing_cpu_flags(config: str, flags: frozenset[str] | None) -> frozenset[str]:
    """The flags an OpenBLAS build (its `openblas_get_config` string) needs that the CPU lacks.
    Empty for DYNAMIC_ARCH builds (they pick kernels at run time), unknown targets, or when the
    CPU's flags are unknown: only a known mismatch keeps OpenBLAS out."""
    words = config.upper().split()
    if flags is None or "DYNAMIC_ARCH" in words:
        return frozenset()
    for core, needed in CORE_FLAGS.items():
        if core in words:
            return needed - flags
    return frozenset()


def blas_status() -> dict[str, str | None]:
    """What `enable_openblas` did: {"status": ..., "detail": ...}."""
    return dict(_state)


__all__ = [
    "CORE_FLAGS",
    "DISABLE_ENV",
    "LIB_ENV",
    "blas_status",
    "cpu_flags",
    "enable_openblas",
    "missing_cpu_flags",
    "warn_if_reference_blas",
]
