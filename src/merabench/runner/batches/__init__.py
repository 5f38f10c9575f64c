"""`run --batch`: a run's requests sent through its endpoint's Batch API, followed across processes.

`job.py` the flags and what the stage needs of the run; `ledger.py` the run folder's record of its
batches; `plan.py` what the next batch holds and what --max-cost leaves room for; `submit.py` input
files split at the API's limits, uploaded and created (and a batch whose id a killed run never
wrote, found); `follow.py` polling until the batches end, and their files downloaded;
`replay.py` a native tool-calling conversation put together from its waves; `source.py` the
answers they hold, as the runner's AnswerSource; `stage.py` the stage that runs them in order
inside the run's folder lock.
"""
