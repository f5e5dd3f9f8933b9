# Two entry points: `make run` and `make test`. Both create .venv from requirements.txt when missing.
PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
FIXTURE ?= fixtures/finance_qa.zh.json

.PHONY: run test bench clean

$(VENV)/.installed: requirements.txt pyproject.toml setup.py $(wildcard layerzero_viz/*.pyx layerzero_viz/*.pxi)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements.txt
	$(PY) -m pip install -q --disable-pip-version-check --no-deps -e .
	touch $@

run: $(VENV)/.installed
	$(PY) -m streamlit run app.py -- --fixture $(FIXTURE)

test: $(VENV)/.installed
	$(PY) -m pytest layerzero_viz tests

bench: $(VENV)/.installed
	$(PY) bench/engine.py
	$(PY) bench/client.py
	@echo "longer runs: $(PY) bench/batch.py (200 MB log), $(PY) bench/mine.py (200 MB history)"

clean:
	rm -rf $(VENV) .pytest_cache .layerzero
