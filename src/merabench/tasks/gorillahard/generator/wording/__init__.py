"""The Russian of the questions: forms of address, asides, numerals, spelling, a set's own surface
wordings and the instruction prompts."""
