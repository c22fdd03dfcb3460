"""graph-traversal: paths as pointers (a traversal), paths as joins (recursive SQL)."""

from simulators.labs.graph_traversal.lab import GraphTraversalLab

__all__ = ["GraphTraversalLab"]
