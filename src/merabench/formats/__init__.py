"""What a run writes and reads back: results.json, samples files, lm-eval logs, submission ZIPs,
batch files, saved predictions and side-by-side comparisons."""
