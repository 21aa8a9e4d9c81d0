# Three entry points, all self-contained on a machine with Python 3.11 and pip:
#   make demo   -> .venv, install, run the richest example, print where outputs went
#   make test   -> .venv, install with the dev extra, run every test, doctest and notebook
#   make docs   -> .venv, install with the docs extra, build the site into build/docs/html
#                  (from scratch, warnings are errors, every notebook run) and run the
#                  guide pages' examples
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
DOCS_STAMP := $(VENV)/.installed-docs

.PHONY: demo test docs install clean

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

$(DOCS_STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[docs]'
	touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	$(PY) -m sphinx -E -W --keep-going -b html docs build/docs/html
	MPLBACKEND=Agg $(PY) -m pytest -q -o addopts="" -p no:cacheprovider --doctest-glob='*.md' docs

clean:
	rm -rf $(VENV) out build *.egg-info docs/api/generated docs/api/*.rst docs/gallery/*.ipynb
