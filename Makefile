# Two entry points: `make demo` and `make test`. Each creates .venv on first use.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[test]"
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/swarmstack run examples/epuck2_diffusion.toml --out runs/demo --overwrite

test: $(STAMP)
	$(BIN)/python -m pytest -n 2

bench: $(STAMP)
	$(BIN)/python benchmarks/epuck2_sensors.py --robots 50 --sensors proximity --sim-seconds 600

clean:
	rm -rf $(VENV) runs .pytest_cache .hypothesis
