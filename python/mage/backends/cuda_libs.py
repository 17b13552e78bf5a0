"""Finding libnvrtc for the native extension before it needs it.

The Rust extension (cudarc) opens libnvrtc by bare name with ``dlopen``: that finds libraries
on LD_LIBRARY_PATH, in the ld.so cache, or already loaded in the process. The copy pip
installs with torch (the ``nvidia-cuda-nvrtc`` wheel, ``site-packages/nvidia/cu13/lib``) is
none of those, so Mage loads it here by absolute path, globally, together with the
``libnvrtc-builtins`` beside it, which NVRTC itself opens by bare name while compiling. The
extension's lookup then resolves to the library already loaded (matched by soname).

Tried in order, first hit wins:
1. ``$MAGE_NVRTC_LIB``, a path to the library file;
2. ``cuda.pathfinder`` (shipped with cuda-python): pip wheels, conda, ``$CUDA_HOME`` /
   ``$CUDA_PATH``, then the system;
3. ``nvidia/*/lib/libnvrtc.so.*`` under every ``sys.path`` entry (pip wheels, without
   cuda-python);
4. ``lib64`` of ``$CUDA_HOME``, ``$CUDA_PATH``, ``/usr/local/cuda``.
If none loads, nothing is preloaded and the extension searches the loader's path and the
toolkit directories itself, then raises CudaError naming every place it looked.

libcuda needs no help: it comes with the driver, in the ld.so cache, and torch has loaded it
by the time a CUDA tensor exists.
"""

from __future__ import annotations

import ctypes
import functools
import glob
import os
import sys

NVRTC_MAJOR = 13


def _candidates() -> list[str]:
    paths = []
    explicit = os.environ.get("MAGE_NVRTC_LIB")
    if explicit:
        paths.append(explicit)
    try:
        from cuda import pathfinder

        paths.append(pathfinder.load_nvidia_dynamic_lib("nvrtc").abs_path)
    except Exception:  # noqa: BLE001 - cuda-python missing, or it found nothing: try the rest
        pass
    for entry in sys.path:
        paths.extend(sorted(glob.glob(os.path.join(entry, "nvidia", "*", "lib", f"libnvrtc.so.{NVRTC_MAJOR}*"))))
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root:
            paths.append(os.path.join(root, "lib64", f"libnvrtc.so.{NVRTC_MAJOR}"))
    return [p for p in paths if p and os.path.isfile(p) and ".alt." not in os.path.basename(p)]


def _load(path: str) -> bool:
    for builtins in sorted(glob.glob(os.path.join(os.path.dirname(path), "libnvrtc-builtins.so.*"))):
        if ".alt." not in os.path.basename(builtins):
            try:
                ctypes.CDLL(builtins, mode=ctypes.RTLD_GLOBAL)
            except OSError:
                pass
    try:
        ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    except OSError:
        return False
    return True


@functools.lru_cache(maxsize=None)
def preload_nvrtc() -> str | None:
    """Load libnvrtc (and its builtins) globally; the path loaded, or None if none was found."""
    for path in _candidates():
        if _load(path):
            return path
    return None
