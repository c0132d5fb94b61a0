"""`python -m solfec_py deck.py` — same as the `solfec-py` command."""
from solfec_py.cli import main

raise SystemExit(main())
