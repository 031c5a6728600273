"""Sharpness and flatness measures, and ``check_invariance``: is a measure invariant under a symmetry group?"""
