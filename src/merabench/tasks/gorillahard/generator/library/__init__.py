"""The tool library: tools with typed parameters and constraints, their names at other providers,
and the per-question catalogs."""
