"""A set from a seed: the schedule of families, the rows with their catalogs and prompts, dialogues
and shots, and the written set."""
