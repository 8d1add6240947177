"""Experiments: the TOML schema, building and stepping a batch of runs, results on disk and
the papers' validations (`reproduce`)."""
