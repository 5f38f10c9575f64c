"""The GorillaHard question generator: whole new, fully answerable question sets from a seed.

    build/       a set from a seed: the family schedule, rows, catalogs, prompts, dialogues, shots
    corpus/      working files of many formats, built from the seed (a module per format group)
    families/    one question maker per family, each with an independent checker
    library/     the tool library (typed parameters, constraints, twins), other providers' names, catalogs
    wording/     the Russian of the questions: address, asides, numerals, spelling, the instruction prompts
    checks/      the validator: the proofs that a set is sound, a module per thing checked, and the audit
    card.py      what the card asks of a set (rows per tier, specials, variety goals)
    model.py     the records: File, Question, reference envelopes
"""
