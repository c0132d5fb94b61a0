"""The on-disk cache of legacy translations: a deck or module translated once is not
translated again while the file and the translator stay the same.  Entries live in
`user_cache_dir("legacy")` (next to numba's kernel cache, solfec_py/__init__.py), one JSON
file per (file, dialect mode) under a name hashed from the key; a Python 3 file is stored
as a verdict only.  Reference: docs/legacy.md ("Modules a deck imports").

Keys: a module is keyed by its absolute path, modification time (ns) and size; a deck by
its text (the runner has read it already).  Both also hold the mode and the translator
version: a digest of the translator's own source files and grammar, so any change of the
translator invalidates every entry.  Failing to read or write the cache is never an error
(a read-only home directory just means no caching).
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile

MAX_ENTRIES = 4000   # beyond this many files the older half is removed


def directory() -> str:
    from solfec_py import user_cache_dir

    return user_cache_dir("legacy")


@functools.lru_cache(maxsize=1)
def translator_version() -> str:
    """Digest of solfec-py's version, the legacy package's source files and the grammar."""
    from solfec_py import __version__
    from solfec_py.lang.legacy.parse import _grammar_path

    digest = hashlib.sha256(__version__.encode())
    package = os.path.dirname(os.path.abspath(__file__))
    paths = [os.path.join(package, n) for n in sorted(os.listdir(package)) if n.endswith(".py")]
    for path in paths + [str(_grammar_path())]:
        with open(path, "rb") as handle:
            digest.update(os.path.basename(path).encode() + b"\0" + handle.read())
    return digest.hexdigest()[:20]


def file_key(path: str, mode: str) -> str | None:
    """Key of the file at `path` (None when it cannot be stat'ed)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return f"file\0{os.path.abspath(path)}\0{st.st_mtime_ns}\0{st.st_size}\0{mode}"


def text_key(text: str, filename: str, mode: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()
    return f"text\0{digest}\0{filename}\0{mode}"


def _entry_path(key: str) -> str:
    name = hashlib.sha256(f"{key}\0{translator_version()}".encode("utf-8", "surrogateescape"))
    return os.path.join(directory(), name.hexdigest()[:40] + ".json")


def load(key: str | None) -> tuple[str | None, bool] | None:
    """(text, translated) stored under `key` (text None for a Python 3 verdict), or None."""
    if key is None:
        return None
    try:
        with open(_entry_path(key), encoding="utf-8", errors="surrogateescape") as handle:
            entry = json.load(handle)
        if entry.get("key") != key:
            return None
        return entry["text"], bool(entry["translated"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def store(key: str | None, text: str | None, translated: bool) -> None:
    """Keep (text, translated) under `key` (text None: the file runs as it is); written
    atomically, errors ignored."""
    if key is None:
        return
    try:
        folder = directory()
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as handle:
            json.dump({"key": key, "translated": translated, "text": text}, handle)
        os.replace(tmp, _entry_path(key))
        _prune(folder)
    except OSError:
        pass


def _prune(folder: str) -> None:
    names = [n for n in os.listdir(folder) if n.endswith(".json")]
    if len(names) <= MAX_ENTRIES:
        return
    paths = sorted((os.path.join(folder, n) for n in names), key=os.path.getmtime)
    for path in paths[: len(paths) // 2]:
        try:
            os.remove(path)
        except OSError:
            pass


def prepare_text(text: str, filename: str, mode: str) -> tuple[str, bool]:
    """`dialect.detect_and_prepare` of a deck's text, through the cache."""
    from solfec_py.lang.legacy.dialect import detect_and_prepare

    key = text_key(text, filename, mode)
    hit = load(key)
    if hit is not None:
        return (text if hit[0] is None else hit[0]), hit[1]
    out, translated = detect_and_prepare(text, filename, mode)
    store(key, out if (translated or out != text) else None, translated)
    return out, translated


def prepare_module(path: str, mode: str) -> tuple[str | None, bool]:
    """(Python 3 text, True) for a Python 2 module file, (None, False) for a Python 3 one
    (it is imported as it is), through the cache.  mode 'auto' detects the dialect as for
    a deck; 'on' reads the file as Python 2 when it is valid Python 2.  Raises
    LegacySyntaxError (naming the module's file and line) when it is neither."""
    from solfec_py.lang.legacy.dialect import detect_and_prepare, prepare_for_exec

    key = file_key(path, mode)
    hit = load(key)
    if hit is not None:
        return hit
    with open(path, "rb") as handle:
        source = handle.read().decode("utf-8", "surrogateescape")
    if mode == "on":
        out, translated = prepare_for_exec(source, path)
    else:
        out, translated = detect_and_prepare(source, path, "auto", program=False)
    result = (out if translated else None), translated
    store(key, *result)
    return result
