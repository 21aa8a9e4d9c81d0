# Two entry points, both self-contained on a machine with Python 3.11 and pip:
#   make demo   -> .venv, install, run the richest example, print where outputs went
#   make test   -> .venv, install with the dev extra, run every test, doctest and notebook
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo test install clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(PY) -m mechanisms.excavator run --mode valves --out out/demo

test: $(STAMP)
	MPLBACKEND=Agg $(PY) -m pytest -q

clean:
	rm -rf $(VENV) out build *.egg-info
