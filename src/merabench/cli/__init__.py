"""The `merabench` command: flags and config files into the pipeline, and what the terminal shows."""
