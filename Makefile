# The two commands of the contract are `make run` and `make test`; both set everything up.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: run test stress bench screenshots package clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# Qt names none of the system libraries its X11 plugin misses; gui.system_libs prints the apt-get line.
run: $(STAMP)
	$(PY) -m gui.system_libs
	$(PY) -m gui

screenshots: $(STAMP)
	mkdir -p docs/screenshots
	$(PY) -m gui --demo --screenshot docs/screenshots/search.png --pane search --query "which editor does Maya use" --fact 41
	$(PY) -m gui --demo --screenshot docs/screenshots/timeline.png --pane timeline --fact 16
	$(PY) -m gui --demo --screenshot docs/screenshots/timeline-versions.png --pane timeline --fact 41
	$(PY) -m gui --demo --screenshot docs/screenshots/graph.png --pane graph --entity Kazan --steps "<located_in <works_at"
	$(PY) -m gui --demo --screenshot docs/screenshots/plans.png --pane plans --dry-run gc
	$(PY) -m gui --demo --screenshot docs/screenshots/contradictions.png --pane contradictions
	$(PY) -m gui --demo --screenshot docs/screenshots/profile.png --pane profile --session demo-1 --query "Ferrite ingest"
	$(PY) -m gui --demo --screenshot docs/screenshots/journal.png --pane journal

test: $(STAMP)
	$(PY) -m pytest

# The long reliability runs (issue 9): 200 SIGKILLs during writes, faults, corrupt inputs, load (2,000
# writes and 10,000 searches by four front ends on one file; 8,000 concurrent HTTP requests) (prints a
# table), then the long hostile-input property and fuzz runs.
stress: $(STAMP)
	MEMLENS_STRESS_KILLS=$${MEMLENS_STRESS_KILLS:-200} MEMLENS_STRESS_WRITES=$${MEMLENS_STRESS_WRITES:-2000} \
		MEMLENS_STRESS_SEARCHES=$${MEMLENS_STRESS_SEARCHES:-10000} MEMLENS_STRESS_HTTP_REQUESTS=$${MEMLENS_STRESS_HTTP_REQUESTS:-8000} \
		$(PY) -m pytest tests/reliability -q
	MEMLENS_STRESS=1 $(PY) -m pytest tests/hostile -q

bench: $(STAMP)
	$(PY) -m benchmarks $(if $(QUICK),--quick,)

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
