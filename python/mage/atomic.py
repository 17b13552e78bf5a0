"""Every file Mage writes is written whole or not at all.

The bytes go to a temporary file in the destination's folder (so the rename stays on one file
system), are flushed to disk, and only then replace the destination with ``os.replace``. A failed
write (a full disk, a read-only folder, Ctrl-C) leaves the previous file as it was and no temporary
file behind. Each fault is one MageError naming the file.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import IO, Iterator

from mage.errors import MageError


class OutputError(MageError):
    """An output path cannot be written as asked."""


@contextlib.contextmanager
def replacing(path: Path, binary: bool = False) -> Iterator[IO]:
    """A file open for writing whose content replaces ``path`` once the block ends without an error."""
    path = Path(path)
    if path.is_dir():
        raise OutputError(f"{path} is a directory; give a file name to write")
    if not path.parent.is_dir():
        raise OutputError(f"cannot write {path}: the folder {path.parent} does not exist")
    try:
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as error:
        raise OutputError(f"cannot write {path}: {error.strerror}") from None
    try:
        with open(handle, "wb" if binary else "w", encoding=None if binary else "utf-8") as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, 0o666 & ~_umask())  # as open() would have made it, not mkstemp's 0600
        os.replace(temporary, path)
    except BaseException as error:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        if isinstance(error, OSError):
            raise OutputError(f"cannot write {path}: {error.strerror or error}; the previous file, if any, is "
                              "unchanged") from None
        raise


def write_text(path: Path, text: str) -> None:
    with replacing(path) as out:
        out.write(text)


def output_folder(path: Path) -> Path:
    """``path`` as a folder to write into, created if missing; one clear error if it cannot be."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise OutputError(f"{path} is a file; give a folder to write the report into")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise OutputError(f"cannot create the folder {path}: {error.strerror or error}") from None
    return path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
