"""Results -> a self-contained HTML report (no scripts, no external files)."""
