"""Rows in: `--data` specs, the MERA row model, local/hub/bundled loading, and prompt rendering."""
