"""Obstacles (layer 3): rigid geometry that ignores loads and contact reactions.
Reference: Solfec-1.0 user manual, BODY kinds, docs/integrators.md (Solfec bod.c, OBS kind).

Obstacles are rows of the rigid block with the `obstacle` flag set (their kinematics and
conf/velo layout are the rigid ones); this module holds what differs: the scheme names
BODY.scheme accepts for them (they report 'DEF_EXP' like Solfec) and the load rules.
"""
from __future__ import annotations

OBSTACLE_SCHEMES = ("DEF_EXP", "DEF_LIM")
LOAD_ERROR = "Cannot load an obstacle"
