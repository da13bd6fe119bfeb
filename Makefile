# orbit-trace - see README.md.  `sudo make demo`, `sudo make check`.
VERSION    := 0.1.0
CC         ?= cc
PKGS       := libelf libdw libdebuginfod libcap capstone libbpf libmicrohttpd
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lelf -ldw -ldebuginfod -lcap -lcapstone -lbpf -lmicrohttpd)
WARN       := -Wall -Wextra -Wformat=2 -Wshadow -Wmissing-prototypes \
              -Wstrict-prototypes -Wold-style-definition -Wundef \
              -Wwrite-strings -Wimplicit-fallthrough
CFLAGS     ?= -O2 -g
# -Werror in CI and `make check` (WERROR=1), not for people building by hand.
ifeq ($(WERROR),1)
WARN       += -Werror
endif
# make SAN=address,undefined: a sanitized build in build-san/.
ifneq ($(SAN),)
SANFLAGS   := -fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all
BUILD      := build-san
else
BUILD      := build
endif
# -MMD -MP: each compile writes the headers it read (a .d beside its
# output, included below), so a header change rebuilds what includes it.
ALL_CFLAGS := -std=gnu11 $(WARN) $(CPPFLAGS) $(CFLAGS) $(SANFLAGS) $(PKG_CFLAGS) \
              -D_GNU_SOURCE -DOT_VERSION='"$(VERSION)"' -I. -Ilib -MMD -MP
LDLIBS     := $(PKG_LIBS) -liberty -lm

# The machine's own code (registers, instruction decoding, the inject
# backend's encodings and runtime) is in lib/arch/$(ARCH) alone; its
# headers are found by name (-I), as uftrace's arch/ are.
ARCH       := $(shell uname -m)
ARCH_DIR   := lib/arch/$(ARCH)
ARCHES     := $(notdir $(patsubst %/.,%,$(wildcard lib/arch/*/.)))
ifeq ($(wildcard $(ARCH_DIR)/arch_defs.h),)
$(error orbit-trace does not support this machine, $(ARCH): no $(ARCH_DIR) (lib/arch/arch.h says what one provides; there is $(ARCHES)))
endif
ALL_CFLAGS += -I$(ARCH_DIR)

LIB_SRC    := $(filter-out %.bpf.c,$(wildcard lib/*/*.c $(ARCH_DIR)/*.c))
LIB_OBJ    := $(LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/lib/probes/uprobe_multi_obj.o \
              $(BUILD)/lib/probes/exitwatch_obj.o $(BUILD)/$(ARCH_DIR)/inject_rt.o
LIB_HDR    := $(wildcard lib/*/*.h $(ARCH_DIR)/*.h)
UNIT_SRC   := $(wildcard tests/unit/test_*.c)
UNIT_BIN   := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
FIXTURES   := $(BUILD)/tests/fixture-pie $(BUILD)/tests/fixture-nopie $(BUILD)/tests/fixture-relr
STRESS     := tests/stress/orbit-stress

# Debian packages the build and the tests need.
DEB_DEPS   := gcc g++ clang libclang-rt-14-dev make pkg-config libelf-dev libdw-dev libdebuginfod-dev libcap-dev libcapstone-dev libiberty-dev libcmocka-dev libbpf-dev libmicrohttpd-dev \
              python3 groff-base strace debhelper dpkg-dev fakeroot lintian valgrind \
              bpftrace xz-utils gzip pigz sqlite3 libc6-dbg systemtap-sdt-dev \
              prometheus prometheus-node-exporter curl php8.2-cli ruby3.1 debuginfod golang-go \
               postgresql nodejs linux-perf man-db luajit mono-runtime mono-mcs \
               nginx-light libpython3.11-dev python3-jsonschema

.PHONY: all deps check unit e2e demo clean lint-man install install-caps uninstall deb targets fuzz fuzz-reloc valgrind bench \
        check-phases check-quick lint-src lint-arch

PREFIX     ?= /usr/local
BINDIR     := $(PREFIX)/bin
MANDIR     := $(PREFIX)/share/man/man1
LIBEXECDIR := $(PREFIX)/libexec/orbit-trace
COMPDIR    := $(PREFIX)/share/bash-completion/completions
all: orbit-trace $(STRESS)

$(BUILD)/%.o: %.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<
-include $(wildcard $(BUILD)/*.d $(BUILD)/*/*.d $(BUILD)/*/*/*.d $(BUILD)/*/*/*/*.d)

# The runtime --backend inject copies into a traced process (the machine's).
$(BUILD)/$(ARCH_DIR)/inject_rt.o: $(ARCH_DIR)/inject_rt.S lib/inject/inject_layout.h Makefile
	@mkdir -p $(dir $@)
	$(CC) -c -Ilib/inject -o $@ $<

$(BUILD)/orbit-trace.o: ALL_CFLAGS += \
	-DOT_ELFUTILS_VERSION='"$(shell pkg-config --modversion libelf 2>/dev/null)"' \
	-DOT_LIBCAP_VERSION='"$(shell pkg-config --modversion libcap 2>/dev/null)"' \
	-DOT_MHD_VERSION='"$(shell pkg-config --modversion libmicrohttpd 2>/dev/null)"'
LIBBPF_DEF := -DOT_LIBBPF_VERSION='"$(shell pkg-config --modversion libbpf 2>/dev/null)"'
$(BUILD)/lib/probes/backend_multi.o: ALL_CFLAGS += $(LIBBPF_DEF)

# The BPF programs (the multi backend's, the exit watch's): compiled for
# the BPF target, then carried inside the executable by .incbin
# (lib/probes/*_obj.S).
BPF_ARCH   := $(patsubst x86_64,x86,$(patsubst aarch64,arm64,$(ARCH)))
$(BUILD)/lib/probes/%.bpf.o: lib/probes/%.bpf.c Makefile
	@mkdir -p $(dir $@)
	clang -O2 -g -target bpf -D__TARGET_ARCH_$(BPF_ARCH) \
		-I/usr/include/$(shell $(CC) -dumpmachine) -c -o $@ $<
$(BUILD)/lib/probes/uprobe_multi_obj.o: lib/probes/uprobe_multi_obj.S $(BUILD)/lib/probes/uprobe_multi.bpf.o
	$(CC) -c -I$(BUILD)/lib/probes -o $@ $<
$(BUILD)/lib/probes/exitwatch_obj.o: lib/probes/exitwatch_obj.S $(BUILD)/lib/probes/exitwatch.bpf.o
	$(CC) -c -I$(BUILD)/lib/probes -o $@ $<

# --compensate probes orbit-trace's own ot_calib_target: keep it in .dynsym
# so a stripped (packaged) binary still finds it.
$(BUILD)/orbit-trace: $(BUILD)/orbit-trace.o $(LIB_OBJ)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -Wl,--export-dynamic-symbol=ot_calib_target \
		-o $@ $^ $(LDLIBS)
ifneq ($(BUILD),build)
build/orbit-trace:
	$(MAKE) SAN= build/orbit-trace
endif

# ./orbit-trace is always the plain build, whatever SAN says.
orbit-trace: build/orbit-trace
	cp $< $@.tmp && mv -f $@.tmp $@

# The stress program is the thing traced: plain -O2, never sanitized.
# -rdynamic puts outer/middle/inner in .dynsym too, so the stripped copy a
# package ships can still be traced.
$(STRESS): tests/stress/orbit-stress.c
	$(CC) -std=gnu11 -O2 -g $(WARN) $(CPPFLAGS) $(LDFLAGS) -rdynamic -pthread -o $@ $<

# Programs the end-to-end fault tests trace (tests/e2e/targets/).
TARGETS    := build/targets/recurse build/targets/jump build/targets/throw build/targets/cxx \
              build/targets/uselib build/targets/libplug.so build/targets/rstress \
              build/targets/rstress-v0 build/targets/inl build/targets/nobpf \
              build/targets/cold build/targets/tails build/targets/usever \
              build/targets/fibers build/targets/forks build/targets/sum build/targets/values \
              build/targets/burst build/targets/execs build/targets/coldxx build/targets/tables \
              build/targets/migrate build/targets/sigcalls build/targets/cxxthreads \
              build/targets/leaderless build/targets/usdt build/targets/usdt_pairs build/targets/dwargs \
              build/targets/strs build/targets/asmswitch build/targets/hidswitch build/targets/altstack \
              build/targets/usecoro build/targets/asyncjmp build/targets/rpanic \
              build/targets/hidden build/targets/planted build/targets/hostile \
              build/targets/ends \
              build/targets/gop build/targets/gop-stripped build/targets/gop-pie
# Program shapes inject must not harm (issue 30): tests/e2e/inject-shapes.sh.
TARGETS    += build/targets/handjmp build/targets/vforks build/targets/prefork \
              build/targets/asan-gcc build/targets/asan-clang build/targets/execsuid \
              build/targets/libffiwork.so build/targets/libnwork.so
# Requests begun in one function and ended in another (issue 34): pairs.sh.
TARGETS    += build/targets/requests
# The README's and the man page's examples' stand-in (issue 34): examples.sh.
TARGETS    += build/targets/examples
# A capability install used by another user, and a filter after arming (issue 32).
TARGETS    += build/targets/secret build/targets/seccomp
# inject killed at each instant of its first mmap and last munmap (issue 32).
TARGETS    += build/targets/killat
# AddressSanitizer's runtime as a library (gcc) and linked in (clang).
build/targets/asan-gcc: tests/e2e/targets/asan.c
	@mkdir -p $(dir $@)
	gcc -std=gnu11 -O1 -g -fsanitize=address $(WARN) -o $@ $<
build/targets/asan-clang: tests/e2e/targets/asan.c
	@mkdir -p $(dir $@)
	clang -std=gnu11 -O1 -g -fsanitize=address -o $@ $<
# rustup's rustc if there is one, else Debian's (make deps installs it).
RUSTC      ?= $(shell command -v rustc 2>/dev/null || ls $$HOME/.cargo/bin/rustc 2>/dev/null || echo rustc)
build/targets/rstress: tests/e2e/targets/rstress.rs
	@mkdir -p $(dir $@)
	$(RUSTC) -O -C debuginfo=1 -o $@ $<
build/targets/rstress-v0: tests/e2e/targets/rstress.rs
	@mkdir -p $(dir $@)
	$(RUSTC) -O -C debuginfo=1 -C symbol-mangling-version=v0 -o $@ $<
build/targets/rpanic: tests/e2e/targets/rpanic.rs
	@mkdir -p $(dir $@)
	$(RUSTC) -O -C debuginfo=1 -o $@ $<
# Go (Debian's golang-go): one file, no module, nothing fetched; the build
# cache inside build/ (never $$HOME, which may not be ours under sudo).
GO         ?= go
GOENV_     := GOCACHE=$(abspath build/gocache) GOPATH=$(abspath build/gopath) GO111MODULE=off \
              GOFLAGS= GOPROXY=off CGO_ENABLED=0
build/targets/gop: tests/e2e/targets/gop.go
	@mkdir -p $(dir $@)
	$(GOENV_) $(GO) build -o $@ $<
# As Debian ships Go programs: no .symtab, .gopclntab still there.
build/targets/gop-stripped: build/targets/gop
	strip -o $@ $<
# Position-independent, stripped: its table in .data.rel.ro.gopclntab, relocated.
build/targets/gop-pie: tests/e2e/targets/gop.go
	@mkdir -p $(dir $@)
	$(GOENV_) $(GO) build -buildmode=pie -ldflags=-s -o $@ $<
$(BUILD)/tests/test_gobin: build/targets/gop build/targets/gop-stripped
targets: $(TARGETS)
build/targets/%: tests/e2e/targets/%.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g $(WARN) -o $@ $<
build/targets/lib%.so: tests/e2e/targets/lib%.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g $(WARN) -fPIC -shared -o $@ $<
build/targets/uselib: tests/e2e/targets/uselib.c build/targets/libwork.so
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -o $@ $< -Lbuild/targets -lwork \
		-Wl,-rpath,'$$ORIGIN' -ldl
# Coroutines whose swapcontext is in a library the program links.
build/targets/usecoro: tests/e2e/targets/usecoro.c build/targets/libcoro.so
	$(CC) -std=gnu11 -O2 -g $(WARN) -o $@ $< -Lbuild/targets -lcoro -Wl,-rpath,'$$ORIGIN'
# A container's program and its library (tests/e2e/container.sh).
build/targets/hidden: tests/e2e/targets/hidden.c build/targets/libhidden.so
	$(CC) -std=gnu11 -O2 -g $(WARN) -pthread -o $@ $< -Lbuild/targets -lhidden -Wl,-rpath,'$$ORIGIN'
# USDT probes (<sys/sdt.h>) in a program and in its library.
build/targets/usdt: tests/e2e/targets/usdt.c build/targets/libusdtlib.so
	$(CC) -std=gnu11 -O2 -g $(WARN) -o $@ $< -Lbuild/targets -lusdtlib -Wl,-rpath,'$$ORIGIN'
# A library with two versions of one function, found through RUNPATH $ORIGIN.
build/targets/libver.so.1: tests/e2e/targets/libver.c tests/e2e/targets/libver.map
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g $(WARN) -fPIC -shared -Wl,-soname,libver.so.1 \
		-Wl,--version-script=tests/e2e/targets/libver.map -o $@ $<
build/targets/usever: tests/e2e/targets/usever.c build/targets/libver.so.1
	$(CC) -std=gnu11 -O2 -g $(WARN) -o $@ $< build/targets/libver.so.1 -Wl,-rpath,'$$ORIGIN'
build/targets/%: tests/e2e/targets/%.cc
	@mkdir -p $(dir $@)
	$(CXX) -O2 -g -Wall -Wextra -pthread -o $@ $<

$(BUILD)/tests/fixture-pie: tests/unit/fixture.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -fPIE -pie -o $@ $<
$(BUILD)/tests/fixture-nopie: tests/unit/fixture.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -fno-pie -no-pie -o $@ $<
# Its relative relocations packed (DT_RELR), as Debian's libc has them.
$(BUILD)/tests/fixture-relr: tests/unit/fixture.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -fPIE -pie -Wl,-z,pack-relative-relocs -o $@ $<

$(BUILD)/tests/test_%: tests/unit/test_%.c $(LIB_OBJ) $(FIXTURES) $(wildcard tests/unit/*.h) \
			$(wildcard tests/unit/expected/*)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DOT_FIXTURE_DIR='"$(abspath $(BUILD))/tests"' \
		-DOT_EXPECTED_DIR='"$(abspath tests/unit/expected)"' \
		-o $@ $< $(TEST_OBJ) $(LIB_OBJ) $(LDLIBS) -lcmocka

# The relocator's differential fuzzer (tests/fuzz/reloc_*.c): a short run
# is a unit test, a long one `make fuzz-reloc FUZZ_RELOC_N=10000000`.
RELOC_DIFF_OBJ := $(BUILD)/tests/fuzz/reloc_diff.o $(BUILD)/tests/fuzz/reloc_gen.o \
                  $(BUILD)/tests/fuzz/reloc_sandbox.o
$(RELOC_DIFF_OBJ): tests/fuzz/reloc_diff.h
$(BUILD)/tests/test_relocate_diff: $(RELOC_DIFF_OBJ)
$(BUILD)/tests/test_relocate_diff: TEST_OBJ = $(RELOC_DIFF_OBJ)
$(BUILD)/fuzz_reloc: tests/fuzz/fuzz_reloc.c $(RELOC_DIFF_OBJ) $(LIB_OBJ)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(RELOC_DIFF_OBJ) $(LIB_OBJ) $(LDLIBS)
FUZZ_RELOC_N    ?= 1000000
FUZZ_RELOC_SEED ?= 1
FUZZ_RELOC_JOBS ?= 1
fuzz-reloc: $(BUILD)/fuzz_reloc
	$(BUILD)/fuzz_reloc -n $(FUZZ_RELOC_N) --seed $(FUZZ_RELOC_SEED) -j $(FUZZ_RELOC_JOBS)

# test_coderefs reads tests/unit/coderefs.S linked four ways (never run):
# PIE with RELA, PIE with DT_RELR, non-PIE, and with an unreadable LSDA.
CODEREFS_FIX := $(BUILD)/tests/coderefs-pie $(BUILD)/tests/coderefs-relr \
                $(BUILD)/tests/coderefs-nopie $(BUILD)/tests/coderefs-badlsda
$(BUILD)/tests/coderefs-pie: CODEREFS_LD := -pie -Wl,--export-dynamic-symbol=dyn_in
$(BUILD)/tests/coderefs-relr: CODEREFS_LD := -pie -Wl,--export-dynamic-symbol=dyn_in \
	-Wl,-z,pack-relative-relocs
$(BUILD)/tests/coderefs-nopie: CODEREFS_LD := -no-pie -DNOPIE
$(BUILD)/tests/coderefs-badlsda: CODEREFS_LD := -pie -DBAD_LSDA
$(CODEREFS_FIX): tests/unit/coderefs.S Makefile
	@mkdir -p $(dir $@)
	$(CC) -nostdlib $(CODEREFS_LD) -o $@ $<
$(BUILD)/tests/test_coderefs: $(CODEREFS_FIX)

# The USDT notes are read from a program built with <sys/sdt.h>.
$(BUILD)/tests/test_usdt: build/targets/usdt
# test_switches reads these targets' symbols.
$(BUILD)/tests/test_switches: build/targets/usecoro build/targets/altstack build/targets/asyncjmp
# test_dwarfarg reads these targets' DWARF.
$(BUILD)/tests/test_dwarfarg: build/targets/dwargs build/targets/cold

# The ptrace test holds a real process: the stress program; the relocator
# is run over its functions too.
$(BUILD)/tests/test_tracee $(BUILD)/tests/test_relocate: $(STRESS)

# libFuzzer targets (clang): make fuzz FUZZ_SECONDS=60 runs each that long,
# from the committed seeds in tests/fuzz/corpus-*, growing build-fuzz/.
FUZZ_SECONDS ?= 60
FUZZ_CFLAGS := -std=gnu11 -g -O1 -D_GNU_SOURCE -DOT_VERSION='"$(VERSION)"' -I. -Ilib -I$(ARCH_DIR) $(PKG_CFLAGS) $(LIBBPF_DEF) \
               -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
FUZZ_OBJ := build/lib/probes/uprobe_multi_obj.o build/lib/probes/exitwatch_obj.o build/$(ARCH_DIR)/inject_rt.o
build-fuzz/%: tests/fuzz/%.c $(LIB_SRC) $(LIB_HDR) $(FUZZ_OBJ)
	@mkdir -p build-fuzz
	clang $(FUZZ_CFLAGS) -o $@ $< $(LIB_SRC) $(FUZZ_OBJ) $(LDLIBS)

# -f lists, selected in a real program with USDT probes and its library.
build-fuzz/fuzz_spec: FUZZ_CFLAGS += -DOT_FUZZ_PROG='"$(abspath build/targets/usdt)"' \
	-DOT_FUZZ_LIB='"$(abspath build/targets/libusdtlib.so)"'
build-fuzz/fuzz_spec: build/targets/usdt

fuzz: build-fuzz/fuzz_elfsym build-fuzz/fuzz_records build-fuzz/fuzz_spec
	@set -e; for t in elfsym:corpus-elf records:corpus-records spec:corpus-spec; do \
		bin=build-fuzz/fuzz_$${t%%:*}; seeds=tests/fuzz/$${t#*:}; \
		mkdir -p build-fuzz/$${t#*:}; \
		echo "== $$bin for $(FUZZ_SECONDS) s"; \
		$$bin -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
			build-fuzz/$${t#*:} $$seeds 2>&1 | grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|==[0-9]+==ERROR|SUMMARY)' ; \
	done

# Installs what is missing, only when something is (apt-get needs root).
deps:
	@missing=$$(for p in $(DEB_DEPS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; \
	done); \
	$(RUSTC) --version >/dev/null 2>&1 || missing="$$missing rustc"; \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -qq --no-install-recommends $$missing; \
	fi

unit: $(UNIT_BIN)
	@set -e; for t in $(UNIT_BIN); do echo "== $$t"; $$t; done

# The end-to-end tests run $(BUILD)/orbit-trace: sanitized with SAN=...
# make e2e E2E="usdt inject" runs those scripts only.
e2e: $(BUILD)/orbit-trace $(STRESS) $(TARGETS)
	@OT=$(abspath $(BUILD)/orbit-trace) sh tests/e2e/run.sh $(E2E)

# One capture under valgrind's memcheck: what ASan cannot see (uninitialised reads).
valgrind: orbit-trace $(STRESS)
	valgrind --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite \
		--suppressions=tests/valgrind.supp \
		-q ./orbit-trace -q --json -o build/valgrind.json \
		--expect outer=400,middle=800,inner=2400 -f outer,middle,inner -- \
		$(STRESS) --stress-threads 2 --stress-hz 1000 --stress-calls 200 >/dev/null
	@echo "valgrind: memcheck clean"

lint-man:
	@out=$$(LC_ALL=C groff -man -ww -z man/orbit-trace.1 2>&1); \
	if [ -n "$$out" ]; then echo "$$out"; exit 1; fi; echo "man page: no warnings"

# The test command of README.md and .ci/run: everything plain, then the unit
# and end-to-end tests again under ASan+UBSan, then memcheck on a capture.
# `make check SAN=address,undefined` runs only the sanitized pass.  Each
# phase's seconds are printed as it ends (tests/timed.sh), and all of them
# with the total at the end, failed or not.
CHECK_TIMES := build/check-times
TIMED       := CHECK_TIMES=$(abspath $(CHECK_TIMES)) sh tests/timed.sh
SAN_BINS    := build-san/orbit-trace $(UNIT_SRC:tests/unit/%.c=build-san/tests/%)
check: deps
	@mkdir -p build && : >$(CHECK_TIMES); s=$$(date +%s); rc=0; \
	$(MAKE) check-phases || rc=$$?; \
	echo "== make check: $$(($$(date +%s) - s)) s$$([ $$rc = 0 ] || echo ', FAILED')"; \
	sed 's/^/  /' $(CHECK_TIMES); exit $$rc
check-phases:
ifeq ($(SAN),)
	@$(TIMED) build $(MAKE) WERROR=1 all targets build/orbit-trace $(UNIT_BIN)
	@$(TIMED) unit $(MAKE) WERROR=1 unit
	@$(TIMED) e2e $(MAKE) WERROR=1 e2e
	@$(TIMED) "build (sanitizers)" $(MAKE) WERROR=1 SAN=address,undefined $(SAN_BINS)
	@$(TIMED) "unit (sanitizers)" $(MAKE) WERROR=1 SAN=address,undefined unit
	@$(TIMED) "e2e (sanitizers)" $(MAKE) WERROR=1 SAN=address,undefined e2e
	@$(TIMED) lint $(MAKE) lint-man lint-src lint-arch
	@$(TIMED) valgrind $(MAKE) valgrind
else
	@$(TIMED) "build ($(SAN))" $(MAKE) WERROR=1 all targets $(BUILD)/orbit-trace $(UNIT_BIN)
	@$(TIMED) "unit ($(SAN))" $(MAKE) WERROR=1 unit
	@$(TIMED) "e2e ($(SAN))" $(MAKE) WERROR=1 e2e
endif

# The edit-test loop: the unit tests and the fastest end-to-end tier, the
# scripts that took at most 6 s each in a make check's plain pass (a clean
# clone on the 2-vCPU VM, 2026-12-03, busy with 5 other engineers' builds;
# seconds after each name).  Re-measure and re-pick when the list drifts.
QUICK_E2E  := completion misspelt options privileges slow stress-pid \
              goexporter inject-kill libs setcap \
              backend inject-loss install stop \
              compensate fibers inject-exec resolve \
              all inject-shared many names
# completion 1, misspelt 1, options 1, privileges 1, slow 1, stress-pid 1,
# goexporter 2, inject-kill 2, libs 2, setcap 2, backend 3, inject-loss 3,
# install 3, stop 3, compensate 4, fibers 4, inject-exec 4, resolve 4,
# all 5, inject-shared 5, many 5, names 6: 63 s in all.
check-quick:
	@s=$$(date +%s); rc=0; \
	{ $(MAKE) WERROR=1 all unit && $(MAKE) WERROR=1 e2e E2E="$(QUICK_E2E)"; } || rc=$$?; \
	echo "== make check-quick: $$(($$(date +%s) - s)) s$$([ $$rc = 0 ] || echo ', FAILED')"; exit $$rc

# The machine is named in lib/arch alone (the BPF programs excepted: libbpf's
# __TARGET_ARCH macros port them), and a machine without a folder there is
# refused by name.
ARCH_NAMES := __x86_64__|__aarch64__|EM_X86_64|R_X86_64_|X86_(REG|INS|OP|GRP|PREFIX)_|CS_ARCH_|ia32
lint-arch:
	@bad=$$(grep -rlE '$(ARCH_NAMES)' lib --include='*.[chS]' | grep -v '^lib/arch/' | \
		grep -v '\.bpf\.c$$'); \
	if [ -n "$$bad" ]; then echo "the machine named outside lib/arch:" $$bad; exit 1; fi; \
	out=$$($(MAKE) -n ARCH=no-such-machine all 2>&1); \
	echo "$$out" | grep -q 'does not support this machine, no-such-machine' || \
		{ echo "make ARCH=no-such-machine was not refused: $$out"; exit 1; }; \
	echo "machine: named in lib/arch only; an unknown one refused"

# Every .c file opens with a comment saying its job, before its includes.
lint-src:
	@bad=$$(for f in orbit-trace.c lib/*/*.c lib/arch/*/*.c tests/*.c tests/*/*.c tests/e2e/targets/*.c; do \
		sed -n '/[^[:space:]]/{p;q}' "$$f" | grep -q '^/[*/]' || echo "$$f"; done); \
	if [ -n "$$bad" ]; then echo "no opening comment saying the file's job:" $$bad; exit 1; fi; \
	echo "sources: each opens with its job"

# Benchmarks (not tests): orbit-trace against perf and bpftrace, medians;
# and the user-space pipeline alone on synthetic rings.
$(BUILD)/bench_pipeline: tests/bench_pipeline.c $(LIB_OBJ)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB_OBJ) $(LDLIBS)

# What lib/symbols/coderefs refuses of real files' USDT sites (a measure,
# not a test): make build/coderefs_survey && build/coderefs_survey FILE...
$(BUILD)/coderefs_survey: tests/coderefs_survey.c $(LIB_OBJ)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB_OBJ) $(LDLIBS)

bench: deps $(BUILD)/bench_pipeline
	$(BUILD)/bench_pipeline
	sh scripts/bench.sh

demo: deps
	$(MAKE) all
	./orbit-trace -f outer,middle,inner -- $(STRESS) \
		--stress-threads 2 --stress-hz 5000 --stress-calls 5000

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(COMPDIR)
	install -m 0755 orbit-trace $(DESTDIR)$(BINDIR)/orbit-trace
	install -m 0644 man/orbit-trace.1 $(DESTDIR)$(MANDIR)/orbit-trace.1
	install -m 0755 $(STRESS) scripts/stress-sweep.sh $(DESTDIR)$(LIBEXECDIR)/
	install -m 0644 scripts/orbit-trace.bash $(DESTDIR)$(COMPDIR)/orbit-trace

# The perf-security guide's install for one group: only its members may
# execute the binary, which carries CAP_SYS_ADMIN (a user of it traces only
# their own processes: PERMISSIONS in the man page).  chgrp first: a
# chown or chgrp drops file capabilities.
TRACE_GROUP ?= tracing
install-caps:
	@getent group $(TRACE_GROUP) >/dev/null || { echo "install-caps: no group '$(TRACE_GROUP)': create it (groupadd $(TRACE_GROUP)) or name one with TRACE_GROUP=NAME" >&2; exit 1; }
	chgrp $(TRACE_GROUP) $(DESTDIR)$(BINDIR)/orbit-trace
	chmod 0750 $(DESTDIR)$(BINDIR)/orbit-trace
	setcap cap_sys_admin+ep $(DESTDIR)$(BINDIR)/orbit-trace

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/orbit-trace $(DESTDIR)$(MANDIR)/orbit-trace.1 \
		$(DESTDIR)$(LIBEXECDIR)/orbit-stress $(DESTDIR)$(LIBEXECDIR)/stress-sweep.sh \
		$(DESTDIR)$(COMPDIR)/orbit-trace
	-rmdir $(DESTDIR)$(LIBEXECDIR) 2>/dev/null

# dpkg-buildpackage over debian/, in a copy of the tree: the package build
# cleans and rebuilds, which must not touch this tree's build.  The .deb is
# a file made from the tree's sources (git's list, else every file): `make
# deb` again (make check's sanitizer pass, tests/e2e/package.sh) reuses it
# until one of them changes.
DEB_FILE   := orbit-trace_$(VERSION)_$(shell dpkg --print-architecture 2>/dev/null).deb
DEB_SRC    := $(wildcard $(shell git ls-files 2>/dev/null || \
                find . -path './build*' -prune -o -path ./.git -prune -o -type f -print))
deb: $(DEB_FILE)
$(DEB_FILE): $(filter-out %.deb tests/e2e/%.dir,$(DEB_SRC))
	rm -rf build-deb && mkdir -p build-deb/orbit-trace-$(VERSION)
	tar -c --exclude=./build --exclude=./build-san --exclude=./build-deb \
		--exclude=./.git --exclude='./tests/e2e/*.dir' --exclude='./*.deb' . | \
		tar -x -C build-deb/orbit-trace-$(VERSION)
	$(MAKE) -C build-deb/orbit-trace-$(VERSION) clean
	cd build-deb/orbit-trace-$(VERSION) && dpkg-buildpackage -b -us -uc
	cp build-deb/orbit-trace_$(VERSION)_*.deb .

clean:
	rm -rf build build-san build-deb build-fuzz orbit-trace $(STRESS) orbit-trace_*.deb
