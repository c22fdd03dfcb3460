"""polyglot: still coming (its manifest says where it sits in the course)."""
