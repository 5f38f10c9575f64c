"""The edit types SAGE scores (scoring.md "SAGE"), apart from the classifier so that naming the
task's metrics loads none of the scorer."""

SPELL, PUNCT, CASE, YO = "SPELL", "PUNCT", "CASE", "YO"
TYPES = (SPELL, PUNCT, CASE, YO)
