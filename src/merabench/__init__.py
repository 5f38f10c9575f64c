"""merabench: run, score and report the MERA tasks SAGE, RussianRegions and GorillaHard."""

__version__ = "0.1.0"
