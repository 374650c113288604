# Thin entry points. `make run` and `make test` do all the set-up on a fresh
# Debian machine: build tools (apt-get, as root), the probe, and a local
# virtual environment with the host tool.
VENV    ?= .venv
BUILD   ?= build
ASAN    ?= build-asan
PYTHON  ?= python3
QUICK   ?=
ARGS    ?=
RTGAUGE := $(VENV)/bin/rtgauge
JOBS    := $(shell nproc 2>/dev/null || echo 2)

.PHONY: run test deps probe probe-asan venv test-c test-asan test-py bench clean

run: deps probe venv
	$(RTGAUGE) run --probe $(BUILD)/rtgauge-probe $(if $(QUICK),--quick) $(ARGS)

test: deps probe probe-asan venv test-c test-asan test-py

# Build tools: installed only when missing, so a prepared machine is untouched.
deps:
	@missing=""; \
	command -v cc >/dev/null || missing="$$missing build-essential"; \
	command -v cmake >/dev/null || missing="$$missing cmake"; \
	command -v $(PYTHON) >/dev/null || missing="$$missing python3"; \
	$(PYTHON) -c 'import venv, ensurepip' 2>/dev/null || missing="$$missing python3-venv"; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" != 0 ]; then echo "make: need root to install$$missing" >&2; exit 2; fi; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

probe:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

probe-asan:
	cmake -S . -B $(ASAN) -DCMAKE_BUILD_TYPE=Debug -DRTG_SANITIZE=ON >/dev/null
	cmake --build $(ASAN) -j $(JOBS)

venv: $(VENV)/.installed
$(VENV)/.installed: pyproject.toml
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q -e '.[test]'
	touch $@

test-c:
	cd $(BUILD) && ctest --output-on-failure

# The C unit tests once more under AddressSanitizer and UBSan.
test-asan:
	cd $(ASAN) && ctest --output-on-failure

test-py:
	RTGAUGE_PROBE=$(CURDIR)/$(BUILD)/rtgauge-probe \
	RTGAUGE_PROBE_HOOKS=$(CURDIR)/$(BUILD)/rtgauge-probe-hooks \
	RTGAUGE_PROBE_ASAN=$(CURDIR)/$(ASAN)/rtgauge-probe \
	$(VENV)/bin/python -m pytest -q tests

bench: deps probe venv
	bench/run_all.sh

clean:
	rm -rf $(BUILD) $(ASAN) $(VENV)
