"""`run --batch`: a run's requests sent through its endpoint's Batch API, followed across processes.

`ledger.py` the run folder's record of its batches; `submit.py` the rows to send, split into files,
uploaded and created (and a batch whose id a killed run never wrote, found); `follow.py` polling
until the batches end, and their files downloaded; `source.py` the answers they hold, as the
runner's AnswerSource; `stage.py` the stage that runs them in order inside the run's folder lock.
"""
