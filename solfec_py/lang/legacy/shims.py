"""Python 2 module names in legacy decks: renamed standard modules (`cPickle` -> `pickle`),
small compatibility modules for the ones Python 3 changed (`string.letters`, `commands`,
`sets`, `types.StringType`, `itertools.izip`, `time.clock`), and a clear error for GUI
modules.
Reference: docs/legacy.md (modules `commands`, `sets` in the shipped decks); Python 3
porting guide (what moved where).

The translator rewrites `import X` to `import <new> as X` (and `from X import ...` to
`from <new> import ...`).  Compatibility modules are named `_solfec_py2_<X>` and created
on first import by a finder on `sys.meta_path` (installed by `install()`; it answers
only to that prefix).
"""
from __future__ import annotations

import importlib.abc
import importlib.util
import sys
import types

from solfec_py.errors import SolfecError

PREFIX = "_solfec_py2_"
_GUI = ("Tkinter", "tkMessageBox", "tkFileDialog", "tkSimpleDialog", "tkColorChooser",
        "tkFont", "Tix", "ttk", "ScrolledText", "Tkconstants")
_SHIMMED = ("string", "types", "itertools", "commands", "sets", "time") + _GUI

MODULE_RENAMES = {
    "cPickle": "pickle", "StringIO": "io", "cStringIO": "io", "ConfigParser": "configparser",
    "Queue": "queue", "copy_reg": "copyreg", "__builtin__": "builtins",
    "exceptions": "builtins", "repr": "reprlib", "thread": "_thread",
    "httplib": "http.client", "urlparse": "urllib.parse", "urllib2": "urllib.request",
    "htmlentitydefs": "html.entities", "HTMLParser": "html.parser",
    "SocketServer": "socketserver", "UserDict": "collections", "UserList": "collections",
    "UserString": "collections", "anydbm": "dbm", "cookielib": "http.cookiejar",
    "Cookie": "http.cookies", "BaseHTTPServer": "http.server",
    "SimpleHTTPServer": "http.server", "xmlrpclib": "xmlrpc.client",
    **{name: PREFIX + name for name in _SHIMMED},
}


# Python 2 builtins a translated deck gets from runtime.py (which defines one object per
# name); `solfec-py translate` lists those a deck uses in its import line
BUILTIN_NAMES = frozenset(
    "xrange raw_input input unicode basestring long unichr file reduce cmp apply execfile map "
    "filter zip range round sorted oct intern reload StandardError".split())


class LegacyImportError(SolfecError, ImportError):
    """A Python 2 module that legacy decks cannot have under solfec-py."""


def _copy_of(module_name: str, name: str) -> types.ModuleType:
    base = __import__(module_name)
    mod = types.ModuleType(PREFIX + name, f"Python 2 '{name}' for legacy decks (solfec-py)")
    mod.__dict__.update({k: v for k, v in vars(base).items() if not k.startswith("__")})
    return mod


def _string():
    mod = _copy_of("string", "string")
    mod.letters, mod.lowercase, mod.uppercase = (mod.ascii_letters, mod.ascii_lowercase,
                                                 mod.ascii_uppercase)
    mod.maketrans = str.maketrans

    def join(words, sep=" "):
        return sep.join(words)

    def split(s, sep=None, maxsplit=-1):
        return s.split(sep, maxsplit)

    def replace(s, old, new, maxreplace=-1):
        return s.replace(old, new, maxreplace)

    def atoi(s, base=10):
        return int(s, base)

    def translate(s, table, deletions=""):
        if deletions:
            s = s.translate({ord(c): None for c in deletions})
        return s.translate(table) if table is not None else s

    plain = dict(join=join, joinfields=join, split=split, splitfields=split, replace=replace,
                 atoi=atoi, atol=atoi, atof=float, translate=translate)
    for name in ("lower upper swapcase capitalize strip lstrip rstrip find rfind index rindex "
                 "count ljust rjust center zfill expandtabs").split():
        plain.setdefault(name, getattr(str, name))
    plain["zfill"] = lambda x, width: str(x).zfill(width)
    mod.__dict__.update(plain)
    return mod


def _types():
    mod = _copy_of("types", "types")
    mod.__dict__.update(
        StringType=str, UnicodeType=str, StringTypes=(str,), IntType=int, LongType=int,
        FloatType=float, BooleanType=bool, ComplexType=complex, ListType=list,
        TupleType=tuple, DictType=dict, DictionaryType=dict, NoneType=type(None),
        ObjectType=object, TypeType=type, ClassType=type, InstanceType=object,
        SliceType=slice, XRangeType=range, FileType=__import__("io").IOBase,
        UnboundMethodType=types.FunctionType)
    return mod


def _itertools():
    import itertools

    mod = _copy_of("itertools", "itertools")
    mod.__dict__.update(izip=zip, imap=map, ifilter=filter, ifilterfalse=itertools.filterfalse,
                        izip_longest=itertools.zip_longest)
    return mod


def _commands():
    import subprocess

    mod = types.ModuleType(PREFIX + "commands", "Python 2 'commands' for legacy decks")
    mod.getoutput, mod.getstatusoutput = subprocess.getoutput, subprocess.getstatusoutput
    return mod


def _sets():
    mod = types.ModuleType(PREFIX + "sets", "Python 2 'sets' for legacy decks")
    mod.Set, mod.ImmutableSet = set, frozenset
    return mod


def _time():
    import time

    mod = _copy_of("time", "time")
    # Python 2's time.clock() on POSIX (Solfec's platforms) was the processor time of
    # the process (C clock()); Python 3.8 removed it
    mod.clock = time.process_time
    return mod


_BUILDERS = {"string": _string, "types": _types, "itertools": _itertools,
             "commands": _commands, "sets": _sets, "time": _time}


class _ShimFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Creates `_solfec_py2_<name>` modules; refuses the GUI ones with a clear message."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname.startswith(PREFIX) and fullname[len(PREFIX):] in _SHIMMED:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        name = spec.name[len(PREFIX):]
        if name in _GUI:
            raise LegacyImportError(
                f"module '{name}' is part of Python 2's Tk GUI toolkit; solfec-py runs decks "
                "without a GUI (Solfec's viewer is not provided): remove the import or guard "
                "it with `if VIEWER():`", name=name)
        return _BUILDERS[name]()

    def exec_module(self, module):
        return None


def install() -> None:
    """Put the finder on sys.meta_path (once)."""
    if not any(isinstance(f, _ShimFinder) for f in sys.meta_path):
        sys.meta_path.append(_ShimFinder())
