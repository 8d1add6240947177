"""Geometry kernels (Numba): the robot grid, the static-shape index, segment casting."""
