# The two commands of the contract are `make run` and `make test`; both set everything up.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: run test stress bench bench-peers screenshots docs package clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# Qt names none of the system libraries its X11 plugin misses; gui.system_libs prints the apt-get line.
run: $(STAMP)
	$(PY) -m gui.system_libs
	$(PY) -m gui

# Every pane at the smallest size the window is meant to work at and at a large one (issue 16), e.g.
# docs/screenshots/1024x700/search.png; the README shows the 1600x1000 ones.
SCREENSHOT_SIZES := 1024x700 1600x1000

screenshots: $(STAMP)
	@set -e; for size in $(SCREENSHOT_SIZES); do \
		out=docs/screenshots/$$size; mkdir -p $$out; \
		shot() { name=$$1; shift; $(PY) -m gui --demo --size $$size --screenshot $$out/$$name.png "$$@"; }; \
		shot search --pane search --query "which editor does Maya use" --fact 41; \
		shot timeline --pane timeline --fact 16; \
		shot timeline-versions --pane timeline --fact 41; \
		shot graph --pane graph --entity Kazan --steps "<located_in <works_at"; \
		shot plans --pane plans --dry-run gc; \
		shot contradictions --pane contradictions; \
		shot profile --pane profile --session demo-1 --query "Ferrite ingest"; \
		shot journal --pane journal; \
	done

test: $(STAMP)
	$(PY) -m pytest

# docs/cli.md's reference part, made from the parser (tests/cli/test_reference.py fails while it is stale).
docs: $(STAMP)
	$(PY) -m engine.faces.cli.reference --write docs/cli.md

# The long reliability runs (issue 9): 200 SIGKILLs during writes, faults, corrupt inputs, load (2,000
# writes and 10,000 searches by four front ends on one file; 8,000 concurrent HTTP requests) (prints a
# table), then the long hostile-input property and fuzz runs.
stress: $(STAMP)
	MEMLENS_STRESS_KILLS=$${MEMLENS_STRESS_KILLS:-200} MEMLENS_STRESS_WRITES=$${MEMLENS_STRESS_WRITES:-2000} \
		MEMLENS_STRESS_SEARCHES=$${MEMLENS_STRESS_SEARCHES:-10000} MEMLENS_STRESS_HTTP_REQUESTS=$${MEMLENS_STRESS_HTTP_REQUESTS:-8000} \
		$(PY) -m pytest tests/reliability -q --timeout 7200
	MEMLENS_STRESS=1 $(PY) -m pytest tests/hostile -q --timeout 7200

# make bench SIZE=1m [OUT=/tmp/bench-1m.json]: other sizes (1k, 100k, 1m, or a list: SIZE=10k,1m); with SIZE
# given, LoCoMo is skipped (its quality does not depend on the store size).
bench: $(STAMP)
	$(PY) -m benchmarks $(if $(QUICK),--quick,) $(if $(SIZE),--sizes $(SIZE),) $(if $(OUT),--out $(OUT),)

# MemLens beside agentrecall-db and mcp-memory-service-lite on LoCoMo (issue 18): the peers are installed
# from the package registry into .bench/peers/<name> on the first run; writes .bench/peers.json.
# CACHE=/tmp/recall reuses MemLens's stores from benchmarks.locomo's cache folder.
bench-peers: $(STAMP)
	$(PY) -m benchmarks.peers $(if $(CACHE),--cache $(CACHE),) $(if $(OUT),--out $(OUT),)

# The one-folder desktop build in dist/memlens/ (packaging/memlens.spec), smoke-tested offscreen.
PACKAGE_STAMP := $(VENV)/.package-stamp

$(PACKAGE_STAMP): $(STAMP) pyproject.toml
	$(PY) -m pip install --quiet -e '.[package]'
	touch $(PACKAGE_STAMP)

package: $(PACKAGE_STAMP)
	rm -rf build/icons
	$(PY) packaging/render_icons.py build/icons
	$(PY) -m PyInstaller --noconfirm --log-level WARN --workpath build/pyinstaller --distpath dist packaging/memlens.spec
	mkdir -p dist/memlens/share/applications dist/memlens/share/metainfo dist/memlens/share/icons
	cp packaging/memlens.desktop dist/memlens/share/applications/io.memlens.MemLens.desktop
	cp packaging/io.memlens.MemLens.metainfo.xml dist/memlens/share/metainfo/
	cp -r build/icons/hicolor dist/memlens/share/icons/
	$(PY) packaging/smoke_test.py dist/memlens
	@du -sh dist/memlens

clean:
	rm -rf $(VENV) .bench build dist *.egg-info
