"""One model over MPI ranks: the communicator, the partition of bodies (recursive coordinate
bisection), the movement of body rows between ranks (migration and ghost copies) and the
exchanges a distributed step makes. Reference: Solfec-1.0 dom.c (DOM_Balance, children
bodies, external constraints) and bgs.c (the parallel Gauss-Seidel); mpi4py's buffer
interface (uppercase methods on numpy arrays).

A serial run never imports mpi4py: `comm.world()` is then a stand-in of size 1, and the
modules that need a real communicator are only imported by runs on several ranks.
"""
