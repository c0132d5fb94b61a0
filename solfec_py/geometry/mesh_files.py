"""What is wrong with a mesh file, in words (layer 1): the file itself (missing, a directory,
a device, unreadable, empty) before a reader opens it, and a reader's failure (meshio's or
abaqus_inp's exception) translated into what it says about the file. Reference: meshio's
readers (the exceptions they raise on a bad file: ReadError, KeyError of an unknown cell
type, ValueError of a short or malformed line, UnicodeDecodeError of binary bytes).
"""
from __future__ import annotations

import os
import stat

from solfec_py.errors import InputError

_KINDS = ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a pipe"),
          (stat.S_ISSOCK, "a socket"))
_HEADERS = {"gmsh": (b"$MeshFormat", b"$NOD", b"$Comments"), "vtu": (b"<?xml", b"<VTKFile"),
            "vtk": (b"# vtk DataFile",), "abaqus": (b"*",)}


def check_file(path: str, empty: bool = True) -> None:
    """InputError naming `path` unless it is a readable regular file (and a non-empty one
    when `empty`)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise InputError(f"mesh file {path!r} not found") from None
    except OSError as exc:
        raise InputError(f"mesh file {path!r} cannot be opened: {exc.strerror}") from None
    if stat.S_ISDIR(info.st_mode):
        raise InputError(f"mesh file {path!r} is a directory, not a file")
    if not stat.S_ISREG(info.st_mode):
        what = next((name for test, name in _KINDS if test(info.st_mode)), "not a regular file")
        raise InputError(f"mesh file {path!r} is {what}, not a file holding a mesh")
    if not os.access(path, os.R_OK):
        raise InputError(f"mesh file {path!r} cannot be read (permission denied)")
    if empty and info.st_size == 0:
        raise InputError(f"mesh file {path!r} is empty (0 bytes)")


def _start(path: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read(4096)
    except OSError:
        return b""


def _xml_error(path: str) -> str:
    """The XML parser's complaint about the file, or '' when it parses."""
    import xml.etree.ElementTree as ET

    try:
        ET.parse(path)
    except ET.ParseError as exc:
        return str(exc)
    except (OSError, ValueError):
        return ""
    return ""


def reader_failure(exc: BaseException, fmt: str, path: str) -> InputError:
    """The InputError of a reader that failed on `path` read as `fmt`: what is wrong with
    the file in words first, the reader's own text after it."""
    head = _start(path)
    first = head.lstrip()[:64]
    text = str(exc).strip().splitlines()[0][:160] if str(exc).strip() else ""
    name = type(exc).__name__
    headers = _HEADERS.get(fmt)
    if headers and not any(first.startswith(h) for h in headers):
        words = (f"it does not start as a {fmt} file does ({' or '.join(h.decode() for h in headers)}); it begins"
                 f" with {first[:24]!r}: another format, or not a mesh")
    elif fmt in ("vtu", "xdmf") and _xml_error(path):
        words = f"it is not well-formed XML ({_xml_error(path)}): a truncated or damaged file"
    elif isinstance(exc, KeyError) and exc.args and isinstance(exc.args[0], int):
        words = f"it uses element type {exc.args[0]}, which is not one of the {fmt} element types the reader knows"
    elif isinstance(exc, KeyError):
        words = f"it lacks {exc.args[0]!r}, which a {fmt} file must have"
    elif isinstance(exc, UnicodeDecodeError) or (b"\0" in head and fmt in _HEADERS and fmt != "vtu"):
        words = "it holds binary bytes where text is expected (a binary file of another kind, or a damaged one)"
    elif isinstance(exc, (EOFError, IndexError)) or any(k in text for k in ("unpack", "to its end", "EOF", "end of")):
        words = "it ends before its data do (a truncated file), or a line holds fewer values than its header announces"
    elif isinstance(exc, ValueError) and ("invalid literal" in text or "could not convert" in text):
        words = "a value that must be a number is not (a damaged file, or another format)"
    else:
        words = f"the {fmt} reader cannot make sense of it (a damaged file, or another format)"
    detail = f"{name}: {text}" if text else name
    return InputError(f"cannot read {path!r} as a {fmt} mesh: {words} (reader: {detail})")
