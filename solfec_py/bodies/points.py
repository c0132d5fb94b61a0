"""Points of bodies of several families in one call per family (layer 3): the helper behind
every "map these referential / current points of these bodies" of the contact and solver
layers. Reference: Solfec bod.c BODY_Cur_Point / BODY_Ref_Point (one body at a time there).
"""
from __future__ import annotations

import numpy as np


def per_family(domain, names, codes, rows, method: str, values, elem=None) -> np.ndarray:
    """`block.method(rows, values, elem)` entry by entry, one call per family.

    `names` lists family names, `codes` (k,) indexes it for every entry, `rows` (k,) are
    block rows, `values` (k, 3) points or directions and `elem` (k,) the geometric objects
    (None: unknown). Returns (k, 3).
    """
    codes = np.asarray(codes)
    if codes.size and codes.flat[0] >= 0 and bool((codes == codes.flat[0]).all()):   # one family: no masks
        block = domain.blocks[names[int(codes.flat[0])]]
        return np.asarray(getattr(block, method)(rows, values, elem), dtype=float).reshape(codes.size, 3)
    out = np.zeros((codes.size, 3))
    for code in np.unique(codes).tolist():
        if code < 0:
            continue
        m = codes == code
        block = domain.blocks[names[int(code)]]
        out[m] = getattr(block, method)(rows[m], values[m], None if elem is None else elem[m])
    return out
