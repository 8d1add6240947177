# Two entry points: `make demo` and `make test`. Each creates .venv on first use.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench clean

$(STAMP): pyproject.toml swarmstack/viewer/web/package-lock.json
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[test]"
	command -v chromium >/dev/null || { $$(test "$$(id -u)" = 0 || echo sudo) apt-get update -q && \
		$$(test "$$(id -u)" = 0 || echo sudo) apt-get install -y -q chromium; }
	cd swarmstack/viewer/web && npm ci --no-audit --no-fund && npm run build
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/swarmstack run examples/epuck2_diffusion.toml --out runs/demo --overwrite --record
	$(BIN)/swarmstack view runs/demo --screenshot runs/demo.png

test: $(STAMP)
	$(BIN)/python -m pytest -n 2

bench: $(STAMP)
	$(BIN)/python benchmarks/epuck2_sensors.py --robots 50 --sensors proximity --sim-seconds 600

clean:
	rm -rf $(VENV) runs .pytest_cache .hypothesis
