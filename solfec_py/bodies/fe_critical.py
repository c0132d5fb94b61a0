"""The critical time step of explicit finite-element bodies (layer 3): Solfec's estimate
2 / sqrt(lambda_max(M^-1 K_e)) over each body's element of smallest current volume, and the
body and element that set it, for messages. Reference: Solfec-1.0 fem.c
(``FEM_Dynamic_Critical_Step``); docs/fem.md. Mixed into bodies/fe_dynamics.Stepper.
"""
from __future__ import annotations

import numpy as np

from solfec_py.fem import kernels as fem_kernels

TIED = 1e-9     # elements whose volumes differ by less than this share the smallest volume


class CriticalStep:
    """Critical-step methods of a block's stepper (needs `block`, `implicit_rows()` and the
    attributes `h_crit`, `h_crit_row`, which `invalidate` resets)."""

    def critical_step(self) -> float:
        """min over explicit bodies of their critical steps (`block.hcrit`), each
        2 / sqrt(lambda_max(M^-1 K_e)) of the body's element of smallest current volume
        (Solfec's estimate; the least of them when several share that volume) when it is
        first needed in a RUN: at the RUN's start, or when the
        body joined the block (a body made during the RUN). The value is the body's own and
        travels with its row, so a run on several ranks, whose blocks gain and lose copies of
        bodies every step, takes the serial run's steps."""
        if self.h_crit is None:
            self.h_crit = self._critical()
        return self.h_crit

    def _critical(self) -> float:
        blk = self.block
        self.h_crit_row = None
        if not blk.domain.dynamic:
            return np.inf
        n = blk.count
        explicit = ~self.implicit_rows()[:n]
        if not explicit.any():
            return np.inf
        need = np.flatnonzero(explicit & ~(blk.hcrit[:n] > 0))
        if need.size:
            blk.hcrit[need] = self._row_critical(need)
        live = np.flatnonzero(explicit)
        row = int(live[np.argmin(blk.hcrit[live])])
        self.h_crit_row = row
        return float(blk.hcrit[row])

    def _smallest_elements(self, rows: np.ndarray):
        """Per row of `rows`: (current volume, group, element index in the group) of its
        element of smallest current volume."""
        blk = self.block
        lay = blk.prepared()
        n = blk.count
        wanted = np.zeros(n, dtype=bool)
        wanted[rows] = True
        best_v, best_g, best_e = np.full(n, np.inf), np.full(n, -1), np.full(n, -1)
        for k, g in enumerate(lay.groups):
            mine = np.flatnonzero(wanted[g.row])
            if not mine.size:
                continue
            vol = self._volumes(g, mine)
            order = np.lexsort((vol, g.row[mine]))
            first = order[np.r_[True, g.row[mine][order][1:] != g.row[mine][order][:-1]]]
            at = g.row[mine][first]
            better = vol[first] < best_v[at]
            best_v[at[better]], best_g[at[better]], best_e[at[better]] = vol[first][better], k, mine[first][better]
        return best_v[rows], best_g[rows], best_e[rows]

    def _volumes(self, g, mine: np.ndarray) -> np.ndarray:
        """Current volumes of the elements `mine` of group g (of cut elements of background
        meshes, the whole element's, as Solfec)."""
        blk = self.block
        vol = fem_kernels.current_volumes(blk.q, g.conn[mine], g.dNdX[mine], g.wJ[mine])
        return vol if g.vscale is None else vol * g.vscale[mine]

    def _row_critical(self, rows: np.ndarray) -> np.ndarray:
        """The critical steps of `rows` in the current configuration: the least estimate
        (fem.kernels.critical_steps) of the elements of smallest current volume, all of
        them when several share it (within TIED: a ring or a regular grid), so that the
        step does not depend on which of them the numbering puts first."""
        blk = self.block
        lay = blk.prepared()
        n = blk.count
        least = np.full(n, np.inf)
        least[rows] = self._smallest_elements(rows)[0]
        wanted = np.zeros(n, dtype=bool)
        wanted[rows] = True
        out = np.full(n, np.inf)
        for g in lay.groups:
            mine = np.flatnonzero(wanted[g.row])
            if not mine.size:
                continue
            tied = mine[self._volumes(g, mine) <= least[g.row[mine]] * (1.0 + TIED)]
            if tied.size:
                h = fem_kernels.critical_steps(blk.q, g.conn, g.dNdX, g.wJ, g.mat, lay.mass, tied.astype(np.int64))
                np.minimum.at(out, g.row[tied], h)
        return out[rows]

    def critical_source(self) -> str:
        """Which body set the last critical step, with its element of smallest current
        volume and that element's material."""
        row = getattr(self, "h_crit_row", None)
        if row is None or row >= self.block.count:
            return ""
        return self._row_source(row)

    def _row_source(self, row: int) -> str:
        blk = self.block
        vols, groups, elems = self._smallest_elements(np.array([row]))
        vol, k, e = float(vols[0]), int(groups[0]), int(elems[0])
        if k < 0:
            return f"finite-element body {blk.bodies[row].id}"
        g = blk.prepared().groups[k]
        young, poisson, density = g.mat[e].tolist()
        obj = int(g.gid[e]) - int(blk.prepared().estart[row])
        element = int(blk.records[row].order[obj])
        return (f"finite-element body {blk.bodies[row].id}, element {element} (its smallest: volume"
                f" {vol:.3g}; young {young:.3g}, poisson {poisson:g}, density {density:.3g})")
