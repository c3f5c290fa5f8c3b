# PipeLink: plkc, the contract-guided linker for GPU kernel components.
#
#   make            build/plkc
#   make example    check, place and link examples/gemm_swiglu.plk for sm_90a
#   make test       unit + golden tests, then the same under ASan/UBSan
#   make fuzz       libFuzzer on the front end (FUZZ_SECONDS, default 60;
#                   FUZZ_TARGET=object: the object reader; manifest: the
#                   runtime's manifest reader; check: resolve, check,
#                   place and a megakernel's schedule; FUZZ_SAN=memory:
#                   MemorySanitizer, all but check)
#   make runtime    runtime/libplkrt.so and plk-run (gcc + -lcuda only)
#   make install PREFIX=DIR [DESTDIR=...] [PYTHON=python3]
#                   DIR/bin/{plkc,plk-run}, DIR/lib/libplkrt.{so,a},
#                   DIR/include/plkrt.h, DIR/share/pipelink/{stdlib,components,
#                   examples,docs/errors}, and the pipelink Python package
#                   (pip --prefix DIR; PYTHON= skips it)
#
# Build dependencies are installed by scripts/install-deps.sh when missing.

CUDA_HOME ?= /usr/local/cuda
LLVM_CONFIG ?= llvm-config-14
CC ?= cc
B ?= build

CFLAGS_BASE = -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter \
	-Wno-sign-compare -Icompiler -Igrammar -I$(B)/gen -I$(CUDA_HOME)/include \
	-I$(shell $(LLVM_CONFIG) --includedir 2>/dev/null) \
	-DPLK_DEFAULT_CUDA_HOME='"$(CUDA_HOME)"'
OPT ?= -O2 -g
CFLAGS += $(CFLAGS_BASE) $(OPT)
LDLIBS = -L$(shell $(LLVM_CONFIG) --libdir 2>/dev/null) -lLLVM-14 \
	-L$(CUDA_HOME)/lib64 -lnvJitLink -lnvvm -lnvrtc -lelf -lm \
	-Wl,-rpath,$(CUDA_HOME)/lib64 -Wl,-rpath,$(shell $(LLVM_CONFIG) --libdir 2>/dev/null)

PLK_H = compiler/plk.h compiler/graph.h compiler/stages.h
GEN = $(B)/gen/lexer.c $(B)/gen/parser.c $(B)/gen/parser.h
SRCS = $(filter-out compiler/main.c,$(wildcard compiler/*.c))
OBJS = $(SRCS:compiler/%.c=$(B)/%.o) $(B)/lexer.o $(B)/parser.o
UNIT = $(patsubst tests/unit/%.c,$(B)/unit/%,$(wildcard tests/unit/*.c))

all: deps $(B)/plkc

deps:
	@scripts/install-deps.sh --check-or-install

$(B)/gen/lexer.c: grammar/lexer.re $(B)/gen/parser.h
	@mkdir -p $(B)/gen
	re2c -W --no-generation-date --no-version -o $@ $<

# A pattern rule with two targets: one bison run makes both (two explicit
# targets would be two rules, and make -j ran bison twice at once).
$(B)/gen/%.c $(B)/gen/%.h: grammar/%.y
	@mkdir -p $(B)/gen
	bison -Wall -Werror --defines=$(B)/gen/$*.h -o $(B)/gen/$*.c $<

$(B)/lexer.o: $(B)/gen/lexer.c $(PLK_H)
	$(CC) $(CFLAGS) -Wno-unused-function -c -o $@ $<
$(B)/parser.o: $(B)/gen/parser.c $(PLK_H)
	$(CC) $(CFLAGS) -c -o $@ $<
$(B)/%.o: compiler/%.c $(PLK_H) $(B)/gen/parser.h
	@mkdir -p $(B)
	$(CC) $(CFLAGS) -c -o $@ $<
# The checker's files, the glue's and the driver's share private headers.
$(patsubst compiler/%.c,$(B)/%.o,$(wildcard compiler/check*.c)): compiler/check.h
$(patsubst compiler/%.c,$(B)/%.o,$(wildcard compiler/glue*.c)): compiler/glue.h
$(B)/main.o $(B)/cli.o $(B)/output.o $(B)/unit/test_driver: compiler/driver.h
# the hand-built compositions two unit tests share
$(B)/unit/test_glue $(B)/unit/test_link: tests/link/fixture.h

# plk.h and stdlib.c include the X-macro tables of stdlib/
$(OBJS) $(B)/main.o: $(wildcard stdlib/*.def)

$(B)/libplkc.a: $(OBJS)
	rm -f $@; ar rcs $@ $^

$(B)/plkc: $(B)/main.o $(B)/libplkc.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(B)/unit/%: tests/unit/%.c $(B)/libplkc.a tests/unit/unit.h
	@mkdir -p $(B)/unit
	$(CC) $(CFLAGS) -Itests/unit -o $@ $< $(B)/libplkc.a $(LDLIBS)

unit: $(UNIT)

example: all
	$(B)/plkc examples/gemm_swiglu.plk -arch sm_90a --emit=placement
	$(B)/plkc examples/gemm_swiglu.plk -arch sm_90a -o $(B)/gemm_swiglu.cubin --time
	@ls -l $(B)/gemm_swiglu.cubin $(B)/gemm_swiglu.manifest.json

# The whole suite; then again built with ASan + UBSan.
SAN = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
test: all unit
	@$(MAKE) --no-print-directory B=build/san OPT="$(SAN)" build/san/plkc sanunit
	@ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp tests/run.sh $(B) build/san

sanunit: $(UNIT)

fuzz: deps
	@FUZZ_SAN=$(FUZZ_SAN) scripts/fuzz.sh $(or $(FUZZ_SECONDS),60) $(or $(FUZZ_TARGET),frontend)

runtime:
	$(MAKE) -C runtime

# An installed plkc finds PREFIX/share/pipelink from its own location
# (compiler/sys.c: sys_home), so the prefix is not built into it.
PREFIX ?= /usr/local
PYTHON ?= python3
DATADIR = $(DESTDIR)$(PREFIX)/share/pipelink
install: all
	$(MAKE) -C runtime B=$(abspath $(B))/runtime CUDA_HOME=$(CUDA_HOME)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include \
		$(DATADIR)/stdlib $(DATADIR)/docs/errors $(DATADIR)/examples
	install -m 755 $(B)/plkc $(B)/runtime/plk-run $(DESTDIR)$(PREFIX)/bin/
	install -m 755 $(B)/runtime/libplkrt.so $(DESTDIR)$(PREFIX)/lib/
	install -m 644 $(B)/runtime/libplkrt.a $(DESTDIR)$(PREFIX)/lib/
	install -m 644 runtime/plkrt.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 stdlib/*.cuh stdlib/*.h stdlib/*.def $(DATADIR)/stdlib/
	install -m 644 docs/errors/*.md $(DATADIR)/docs/errors/
	install -m 644 examples/*.plk $(DATADIR)/examples/
	cd components && find . -type f \( -name '*.plk' -o -name '*.cu' -o -name '*.cuh' -o -name '*.h' \) \
		-exec install -D -m 644 {} $(DATADIR)/components/{} \;
	@if [ -n "$(PYTHON)" ]; then \
		site=$$($(PYTHON) -c 'import sys, sysconfig; print(sysconfig.get_path("purelib", "posix_prefix", \
			{"base": sys.argv[1], "platbase": sys.argv[1]}))' "$(PREFIX)") || exit 1; \
		if $(PYTHON) -c 'import setuptools, wheel' 2>/dev/null; then \
			echo "$(PYTHON) -m pip install --prefix $(DESTDIR)$(PREFIX) ./python"; \
			PIP_ROOT_USER_ACTION=ignore $(PYTHON) -m pip install -q --no-deps --no-build-isolation --no-warn-script-location \
				--prefix $(DESTDIR)$(PREFIX) ./python || exit 1; \
			rm -rf python/build python/pipelink.egg-info; \
		else \
			install -d $(DESTDIR)$$site/pipelink && install -m 644 python/pipelink/*.py $(DESTDIR)$$site/pipelink/; \
			echo "install: copied pipelink to $$site (pip needs setuptools and wheel to install it)"; \
		fi; \
	fi

# the libraries plkc links, for the scripts that link the compiler's
# sources themselves (scripts/fuzz.sh check, tests/scripts/fuzz_replay.sh)
print-ldlibs:
	@echo $(LDLIBS)

clean:
	rm -rf build

.PHONY: all deps unit sanunit example test fuzz runtime install print-ldlibs clean
.SECONDARY:
