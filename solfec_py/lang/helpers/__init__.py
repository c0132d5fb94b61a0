"""Modules that Solfec-1.0 decks import from its scripts/ directory (found there through the
`solfec` executable's folder on PATH): the deck runner appends this folder to sys.path, so a
deck's own copy, when it has one, is found first. Reference: Solfec-1.0 scripts/README.txt.
"""
