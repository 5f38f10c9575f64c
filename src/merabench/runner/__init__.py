"""The runner: requests to answers with a worker pool, the response cache, budgets, the run folder
and the redaction of secrets in whatever a run writes."""
