"""`from solfec import *` for decks and helper modules (Solfec-1.0 user manual, the deck namespace): the deck names of
solfec-py under the module name Solfec-1.0 used."""
from solfec_py.api import NAMES as _NAMES

globals().update(_NAMES)
__all__ = sorted(_NAMES)
