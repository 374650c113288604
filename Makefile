# Thin entry points. `make run` and `make test` do all the set-up on a fresh
# Debian machine: build tools (apt-get, as root), the probe, and a local
# virtual environment with the host tool.
VENV    ?= .venv
BUILD   ?= build
ASAN    ?= build-asan
C11     ?= build-c11
FREERTOS ?= build-freertos
PYTHON  ?= python3
QUICK   ?=
ARGS    ?=
RTGAUGE := $(VENV)/bin/rtgauge
JOBS    := $(shell nproc 2>/dev/null || echo 2)

# $(call need,CHECK,PACKAGES): a shell line that adds the Debian PACKAGES to
# $$missing when the shell CHECK fails. ($(comma) is a comma inside a CHECK.)
comma := ,
need = { $(1); } || missing="$$missing $(2)";
# $(call apt_install_missing,NEEDS): a recipe line that installs with apt-get
# what the NEEDS (calls of need) found missing, and nothing when nothing is;
# without root it says what is missing and exits 2. Another apt-get at work
# (two make targets, an unattended upgrade) is waited for, not failed on.
define apt_install_missing
@missing=""; $(1) \
if [ -n "$$missing" ]; then \
  echo "installing:$$missing"; \
  if [ "$$(id -u)" != 0 ]; then echo "make: need root to install$$missing" >&2; exit 2; fi; \
  apt-get -o DPkg::Lock::Timeout=600 update -qq && \
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq $$missing; \
fi
endef

.PHONY: run test deps deps-cross deps-qemu deps-ssh deps-fuzz deps-browser deps-postgres deps-trace fuzz probe probe-asan probe-c11 probe-static probe-musl probe-aarch64 \
        probe-armhf probe-cross deps-freertos firmware venv lint test-c test-asan test-py golden bench bench-server soak lab serve clean

# rtgauge's exit code says what happened (README, "Exit codes"). Exit 1 is a
# run that completed with a behaviour verdict failed: a finding about the
# system, not a failure of the build, so `make run` says which verdicts
# failed (rtgauge's last line) and ends with 0. Exit 2 (bad usage or input)
# and 3 (a test errored or was killed, the run interrupted) end make with
# that code, after a line saying what it means.
RUN_CMD = $(RTGAUGE) run --probe $(BUILD)/rtgauge-probe $(if $(QUICK),--quick) $(ARGS)
run: deps probe venv
	@echo "$(RUN_CMD)"
	@code=0; $(RUN_CMD) || code=$$?; \
	case $$code in \
	  0) ;; \
	  1) echo "make run: the run completed; exit code 1 means a behaviour verdict failed or a --limits limit was exceeded (named above)";; \
	  2) echo "make run: rtgauge exit 2: bad usage or input, nothing was run" >&2; exit 2;; \
	  *) echo "make run: rtgauge exit $$code: a test errored or was killed, or the run was interrupted" >&2; \
	     exit $$code;; \
	esac

test: deps deps-qemu deps-ssh deps-browser deps-postgres deps-trace probe probe-asan probe-c11 probe-cross firmware venv lint test-c test-asan fuzz test-py

# Build tools: installed only when missing, so a prepared machine is untouched.
deps:
	$(call apt_install_missing, \
	  $(call need,command -v cc >/dev/null,build-essential) \
	  $(call need,command -v cmake >/dev/null,cmake) \
	  $(call need,command -v $(PYTHON) >/dev/null,python3) \
	  $(call need,$(PYTHON) -c 'import venv$(comma) ensurepip' 2>/dev/null,python3-venv))

probe:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

probe-asan:
	cmake -S . -B $(ASAN) -DCMAKE_BUILD_TYPE=Debug -DRTG_SANITIZE=ON >/dev/null
	cmake --build $(ASAN) -j $(JOBS)

# The second OSAL (ISO C11 threads, nothing from POSIX): it proves the
# tests reach the OS only through the OSAL (docs/porting.md).
probe-c11:
	cmake -S . -B $(C11) -DCMAKE_BUILD_TYPE=Release -DRTG_OSAL=c11 >/dev/null
	cmake --build $(C11) -j $(JOBS)

# The catalogue as FreeRTOS firmware, one build per board of core/boards
# (build-freertos/<board>/): the cross toolchain, newlib, QEMU, and cargo,
# which fetches the kernel's sources (the crates.io package pinned in
# core/osal/freertos/kernel/).
deps-freertos:
	$(call apt_install_missing, \
	  $(call need,command -v arm-none-eabi-gcc >/dev/null,gcc-arm-none-eabi) \
	  $(call need,[ -f /usr/lib/arm-none-eabi/include/newlib.h ],libnewlib-arm-none-eabi) \
	  $(call need,command -v qemu-system-arm >/dev/null,qemu-system-arm) \
	  $(call need,command -v cargo >/dev/null || [ -x "$$HOME/.cargo/bin/cargo" ],cargo))

# Two profiles (docs/porting.md, "Profiles"): checked, the default, in
# <board>/ with its hooks build; lean in <board>-lean/, its plain firmware
# only (a hooks build is made on demand by the host).
BOARDS ?= mps2-an385 netduinoplus2 nucleo-f401re
firmware: deps-freertos
	@for b in $(BOARDS); do \
	  cmake -S core/boards -B $(FREERTOS)/$$b -DRTG_BOARD=$$b -DRTG_PROFILE=checked \
	    -DCMAKE_TOOLCHAIN_FILE=$(CURDIR)/cmake/toolchain-arm-none-eabi.cmake >/dev/null && \
	  cmake --build $(FREERTOS)/$$b -j $(JOBS) || exit 1; \
	  cmake -S core/boards -B $(FREERTOS)/$$b-lean -DRTG_BOARD=$$b -DRTG_PROFILE=lean \
	    -DCMAKE_TOOLCHAIN_FILE=$(CURDIR)/cmake/toolchain-arm-none-eabi.cmake >/dev/null && \
	  cmake --build $(FREERTOS)/$$b-lean -j $(JOBS) --target rtgauge-fw.elf || exit 1; \
	done

# Static and cross builds (Debian's musl-tools, gcc-aarch64-linux-gnu,
# gcc-arm-linux-gnueabihf; qemu-user-static runs the foreign ones in tests).
deps-cross:
	$(call apt_install_missing, \
	  $(call need,command -v musl-gcc >/dev/null,musl-tools) \
	  $(call need,command -v aarch64-linux-gnu-gcc >/dev/null,gcc-aarch64-linux-gnu) \
	  $(call need,command -v arm-linux-gnueabihf-gcc >/dev/null,gcc-arm-linux-gnueabihf) \
	  $(call need,command -v qemu-aarch64-static >/dev/null,qemu-user-static))

# Guests under QEMU: qemu-system-x86 and busybox-static (the guest's shell).
deps-qemu:
	$(call apt_install_missing, \
	  $(call need,command -v qemu-system-x86_64 >/dev/null,qemu-system-x86) \
	  $(call need,dpkg -s busybox-static >/dev/null 2>&1,busybox-static) \
	  $(call need,command -v dpkg-deb >/dev/null,dpkg))

# Reports and the dashboard are checked in headless Chromium (the dashboard
# driven through Selenium and Debian's chromedriver).
deps-browser:
	$(call apt_install_missing, \
	  $(call need,command -v chromium >/dev/null,chromium) \
	  $(call need,command -v chromedriver >/dev/null,chromium-driver))

# The store's tests start a throwaway PostgreSQL cluster (Debian's server binaries).
deps-postgres:
	$(call apt_install_missing, \
	  $(call need,ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1,postgresql))

# Traces taken by other tools (docs/traces.md): trace-cmd reads a trace.dat
# (and records one in the tests), cyclictest from rt-tests makes it.
deps-trace:
	$(call apt_install_missing, \
	  $(call need,command -v trace-cmd >/dev/null,trace-cmd) \
	  $(call need,command -v cyclictest >/dev/null,rt-tests))

# libFuzzer needs clang and its runtime.
deps-fuzz:
	$(call apt_install_missing, \
	  $(call need,command -v clang >/dev/null || command -v clang-14 >/dev/null,clang-14 libclang-rt-14-dev))

# The probe's command line under libFuzzer (ASan, UBSan), from tests/fuzz/corpus_cli.
FUZZ_SECONDS ?= 20
fuzz: deps-fuzz
	tests/fuzz/run.sh $(FUZZ_SECONDS)

# The SSH target's tests start a real OpenSSH server on 127.0.0.1.
deps-ssh:
	$(call apt_install_missing, \
	  $(call need,[ -x /usr/sbin/sshd ] && command -v ssh >/dev/null,openssh-server openssh-client))

probe-static:  # glibc, fully static
	cmake -S . -B build-static -DCMAKE_BUILD_TYPE=Release -DRTG_STATIC=ON >/dev/null
	cmake --build build-static -j $(JOBS) --target rtgauge-probe
probe-musl probe-aarch64 probe-armhf: probe-%: deps-cross
	cmake -S . -B build-$* -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-$*.cmake -DRTG_STATIC=ON \
	  -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build build-$* -j $(JOBS) --target rtgauge-probe
probe-cross: probe-static probe-musl probe-aarch64 probe-armhf

venv: $(VENV)/.installed
$(VENV)/.installed: pyproject.toml VERSION
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q -e '.[test]'
	touch $@

# Python: typed (mypy --strict), linted and formatted (ruff).
lint: venv
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/ruff format --check src tests bench
	$(VENV)/bin/mypy src

test-c:
	cd $(BUILD) && ctest --output-on-failure
	cd $(C11) && ctest --output-on-failure

# The C unit tests once more under AddressSanitizer and UBSan.
test-asan:
	cd $(ASAN) && ctest --output-on-failure

test-py:
	RTGAUGE_PROBE=$(CURDIR)/$(BUILD)/rtgauge-probe \
	RTGAUGE_PROBE_HOOKS=$(CURDIR)/$(BUILD)/rtgauge-probe-hooks \
	RTGAUGE_PROBE_ASAN=$(CURDIR)/$(ASAN)/rtgauge-probe \
	RTGAUGE_PROBE_C11=$(CURDIR)/$(C11)/rtgauge-probe \
	RTGAUGE_FIRMWARE_DIR=$(CURDIR)/$(FREERTOS) \
	$(VENV)/bin/python -m pytest -q tests

# After an intended change of the reports' output: rewrite the golden files,
# then review their diff.
golden: venv
	$(VENV)/bin/python -m pytest -q tests/unit/test_golden.py --update-golden

bench: deps probe probe-static probe-musl venv
	bench/run_all.sh

# The result server at scale: 10,000 runs in a throwaway PostgreSQL cluster,
# the runs page's first byte and a label's history over 1,000 runs
# (bench/RESULTS.md). A benchmark, never a test.
bench-server: deps-postgres venv
	$(VENV)/bin/python bench/server_scale.py

# The result server for a newcomer: this machine's store (SQLite), on
# 127.0.0.1 only. STORE=postgresql://… LISTEN=host:port for others (docs/server.md);
# the command is not echoed, so a URL's password is not shown.
STORE  ?= rtgauge-results
LISTEN ?= 127.0.0.1:8080
serve: deps venv
	@$(RTGAUGE) serve --store $(STORE) --listen $(LISTEN)

# The default run ten times back to back: nothing may grow or be left behind.
soak: deps probe
	python3 bench/soak.py --runs 10

# This machine, Debian 6.1 vanilla and PREEMPT_RT under QEMU, compared.
LAB_SET ?= default
# LAB_SET=rtos: this machine's Linux and FreeRTOS on an emulated board
# (BOARD=netduinoplus2 for the 128 KB one; MPS2 AN385 by default).
BOARD ?=
lab: deps deps-qemu probe probe-static venv $(if $(filter rtos,$(LAB_SET)),firmware)
	$(RTGAUGE) lab --set $(LAB_SET) $(if $(BOARD),--board $(BOARD)) $(if $(QUICK),--quick) \
	  --deadline 100us $(ARGS)

# Every build folder (build/, build-asan/, build-c11/, build-freertos/ with a
# folder per board,
# build-static/, the cross builds, build-fuzz/, a port's build-<name>/),
# cargo's output beside the FreeRTOS kernel's manifest, and the venv.
clean:
	rm -rf $(BUILD) $(ASAN) $(C11) $(FREERTOS) $(wildcard build build-*) \
	  core/osal/freertos/kernel/target $(VENV)
