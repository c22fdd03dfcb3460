"""range-splits: slices of the sorted key space on shards, split by size or by load.

The boundary table (`table.py`) so far; the lab around it comes with issue 13.
"""
