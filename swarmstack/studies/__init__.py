"""Studies: sweeps of an experiment over key paths and seeds, run in batches by an executor
(in-process, a local process pool, or Ray), recorded in a resumable ledger, and read back as
one catalogue (:mod:`swarmstack.results`).

Modules: ``overrides`` (key paths and their values), ``plan`` (the study, its runs and
batches), ``batch`` (one batch, run by a worker), ``ledger`` (SQLite), ``executors``
(``make_executor``), ``progress`` and ``runner`` (``run_study``).
"""
