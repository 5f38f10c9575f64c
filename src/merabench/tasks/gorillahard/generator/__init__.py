"""The GorillaHard question generator: whole new, fully answerable question sets from a seed.

    corpus/      working files of many formats, built from the seed (a module per format group)
    library.py   the tool library (families, typed parameters, constraints, twins)
    model.py     the records: File, Question, reference envelopes
    families.py  one question generator per family, each with an independent checker
    catalog.py   per-question catalogs with the twin present and the reference placed fairly
    prompts.py   the five instruction wordings and the format block
    build.py     a set from a seed: rows, dialogues, shots
    validate.py  the proofs that a set is sound: runs the checks, in report order
    checks_*.py  the checks, a module per thing checked (files, picks, dialogues, wording...)
"""
