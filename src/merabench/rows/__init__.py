"""Rows in: the MERA row model, local/hub/bundled loading, the guards on input files, SAGE's
spellcheck pairs and prompt rendering (which task's rows a `--data` spec names: tasks/datasource.py)."""
