# warpex build.  `make` builds bin/warpex (with CUDA when nvcc is present),
# `make test` runs the CPU test suite, `make demo` explores a bundled example.
# Missing flex/bison are installed with apt-get when running as root.
#
# make runs one job per core unless the command line gives -j; each step
# prints one line (`make V=1` prints the full commands, `make -s` nothing).
# `make NVCC=` builds a CPU-only binary; `make CC=clang` builds with clang.

# One job per core, set only in the top-level make: a sub-make shares its
# parent's jobs, and a -j on the command line overrides this one.
ifeq ($(MAKELEVEL),0)
  ifeq ($(filter -j%,$(MAKEFLAGS)),)
    MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 1)
  endif
endif

# The step lines: "  CC      build/obj/util/pool.o"; V=1 prints the commands
# instead, -s neither.
V ?= 0
ifeq ($(V),1)
  step =
else ifneq ($(findstring s,$(firstword -$(MAKEFLAGS))),)
  step = @
else
  step = @printf '  %-7s %s\n' '$(1)' '$(2)';
endif

CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    ?= -Wall -Wextra -Werror -Wno-unused-parameter
CSTD    := -std=c11 -D_GNU_SOURCE
DEPS    := -MMD -MP
THREADS := -pthread
NVCC    ?= $(shell command -v nvcc 2>/dev/null)
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
# Only the command line may override the target (some hosts export NVARCH
# with another meaning, e.g. the CPU architecture).
ifneq ($(origin NVARCH),command line)
  NVARCH := -gencode=arch=compute_90,code=sm_90 -gencode=arch=compute_90,code=compute_90
endif
NVFLAGS ?= -O3 -std=c++17 $(NVARCH) -Xcompiler -Wall -Xcompiler -Werror --expt-relaxed-constexpr

B := build
LIB_DIRS := util parser network explorer hash graph analysis
LIB_SRC  := $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.c))
GEN_SRC  := $(B)/gen/exp_parse.c $(B)/gen/exp_lex.c
LIB_OBJ  := $(LIB_SRC:%.c=$(B)/obj/%.o) $(GEN_SRC:$(B)/gen/%.c=$(B)/obj/gen/%.o)
CLI_OBJ  := $(patsubst %.c,$(B)/obj/%.o,$(wildcard cli/*.c))
TEST_SRC := $(wildcard tests/test_*.c)
TEST_BIN := $(TEST_SRC:tests/%.c=bin/tests/%)
INC      := -I. -I$(B)/gen
# Fuzz targets (tests/fuzz/fuzz_*.c) and what they link: the readers and
# everything they call -- the library without explorers, analyses and GPU code.
FUZZ_LIB_SRC := $(wildcard util/*.c parser/*.c network/*.c graph/*.c) analysis/prop.c
FUZZ_NAMES   := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
SMOKE_BIN    := $(FUZZ_NAMES:%=bin/fuzz-smoke/%)

# The largest CUDA sources first: with parallel jobs the longest compiles
# start early instead of ending the build on one core.
CU_SRC := $(if $(NVCC),$(shell find kernels -name '*.cu' -exec ls -S {} +))
CU_HDR := $(shell find kernels -name '*.cuh' -o -name '*.h' | sort)
ifneq ($(CU_SRC),)
  GPU_OBJ := $(CU_SRC:%.cu=$(B)/obj/%.o)
  # The C++ runtime that CUDA's runtime and CUB need is linked statically:
  # the binary then runs where the build machine's libstdc++ is not
  # installed (a lent GPU host), and a process starts without loading it.
  GPU_LIBS := -L$(CUDA_HOME)/lib64 -L$(CUDA_HOME)/targets/x86_64-linux/lib -lcudart_static -ldl -lrt \
              -Wl,-Bstatic -lstdc++ -Wl,-Bdynamic -static-libgcc
  GPU_DEF := -DWX_HAVE_CUDA=1
else
  # Without nvcc every GPU module is replaced by its stub kernels/nogpu*.c.
  GPU_OBJ := $(patsubst %.c,$(B)/obj/%.o,$(shell find kernels -name 'nogpu*.c' | sort))
  GPU_LIBS :=
  GPU_DEF :=
endif

LIBS := -lm $(THREADS)

# Open MPI: `mpirun -np R warpex explore` runs the distributed explorer
# (docs/distributed.md).  mpicc only tells the flags (Open MPI's --showme);
# the objects are compiled by $(CC).  When mpicc is missing it is installed
# with apt-get (libopenmpi-dev, openmpi-bin) if running as root, once per
# build directory; without it explorer/dist_mpi.c builds its stub and
# warpex runs as one process.  `make MPICC=` builds without MPI.
# $(B)/mpi-config: line 1 the compile flags, line 2 the link flags (both
# empty without MPI); rewritten only when they change.
MPICC ?= mpicc

.PHONY: all test demo clean examples bench bench-gpu gpu-test fuzz fuzz-bins fuzz-run FORCE
all: bin/warpex

# What the C objects are compiled with; when it changes (another CC, CFLAGS or
# WARN, a build with or without CUDA) they are compiled again.
C_CONFIG := $(CC) $(CSTD) $(CFLAGS) $(WARN) $(THREADS) $(GPU_DEF)
$(B)/c-config: FORCE
	@mkdir -p $(B)
	@echo '$(C_CONFIG)' | cmp -s - $@ || echo '$(C_CONFIG)' > $@

# The same for the CUDA objects (another nvcc, NVFLAGS or target).
CU_CONFIG := $(NVCC) $(NVFLAGS)
$(B)/cu-config: FORCE
	@mkdir -p $(B)
	@echo '$(CU_CONFIG)' | cmp -s - $@ || echo '$(CU_CONFIG)' > $@

# An object without its dependency file (one left from a build that wrote
# none, or whose .d was removed) cannot tell which headers it was compiled
# from, so it is compiled again: the empty rule "makes" the missing .d, which
# makes the object out of date.  An object built against an older struct
# layout would otherwise link without complaint and fail at run time.  The
# .d files are named explicitly: a pattern rule's missing prerequisite would
# be an intermediate file, which does not make its target out of date.
OBJ_DEPS := $(patsubst %.o,%.d,$(filter $(B)/obj/%,$(LIB_OBJ) $(GPU_OBJ) $(CLI_OBJ)))
$(OBJ_DEPS): ;

$(B)/mpi-config: FORCE
	@mkdir -p $(B)
	@m='$(MPICC)'; c=; l=; \
	if [ -n "$$m" ] && ! command -v "$$m" >/dev/null 2>&1 && [ ! -e $(B)/mpi-tried ] && \
	   [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  touch $(B)/mpi-tried; echo "warpex: installing Open MPI (libopenmpi-dev, openmpi-bin)"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libopenmpi-dev openmpi-bin) >/dev/null 2>&1; \
	fi; \
	if [ -n "$$m" ] && command -v "$$m" >/dev/null 2>&1; then \
	  c=$$("$$m" --showme:compile 2>/dev/null) && l=$$("$$m" --showme:link 2>/dev/null) && c="-DWX_HAVE_MPI=1 $$c" \
	    || { echo "warpex: $$m is not Open MPI's (no --showme): building without MPI"; c=; l=; }; \
	fi; \
	printf '%s\n%s\n' "$$c" "$$l" | cmp -s - $@ || printf '%s\n%s\n' "$$c" "$$l" > $@

# flex and bison: installed with apt-get when missing and running as root.  A
# machine without them and without network (e.g. the GPU machine) can still
# build from parser sources generated elsewhere and carried in build/gen/.
ENSURE_TOOL = command -v $(1) >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "warpex: installing flex and bison"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq flex bison) >/dev/null 2>&1; \
	  fi; command -v $(1) >/dev/null 2>&1; }
NO_TOOL = { if [ -s $(1) ] && [ -s $(2) ]; then \
	      echo "warpex: $(3) unavailable; using the generated $(1)"; touch $(1) $(2); \
	    else echo "warpex needs flex and bison: run 'sudo apt-get install -y flex bison'"; exit 1; fi; }

$(B)/gen/exp_parse.c $(B)/gen/exp_parse.h &: parser/exp.y
	@mkdir -p $(B)/gen
	@if $(call ENSURE_TOOL,bison); then \
	  $(if $(step),printf '  %-7s %s\n' BISON parser/exp.y;,echo "bison parser/exp.y";) \
	  bison -Wall -Werror --defines=$(B)/gen/exp_parse.h -o $(B)/gen/exp_parse.c $<; \
	else $(call NO_TOOL,$(B)/gen/exp_parse.c,$(B)/gen/exp_parse.h,bison); fi

$(B)/gen/exp_lex.c $(B)/gen/exp_lex.h &: parser/exp.l $(B)/gen/exp_parse.h
	@mkdir -p $(B)/gen
	@if $(call ENSURE_TOOL,flex); then \
	  $(if $(step),printf '  %-7s %s\n' FLEX parser/exp.l;,echo "flex parser/exp.l";) \
	  flex --header-file=$(B)/gen/exp_lex.h -o $(B)/gen/exp_lex.c $<; \
	else $(call NO_TOOL,$(B)/gen/exp_lex.c,$(B)/gen/exp_lex.h,flex); fi

# Generated code gets the warnings it can pass; ours gets -Werror.
$(B)/obj/gen/%.o: $(B)/gen/%.c $(B)/gen/exp_parse.h $(B)/gen/exp_lex.h $(B)/c-config
	@mkdir -p $(dir $@)
	$(call step,CC,$@)$(CC) $(CSTD) $(CFLAGS) $(DEPS) $(INC) -w -c $< -o $@

$(B)/obj/%.o: %.c $(B)/obj/%.d $(B)/c-config | $(B)/gen/exp_parse.h $(B)/gen/exp_lex.h
	@mkdir -p $(dir $@)
	$(call step,CC,$@)$(CC) $(CSTD) $(CFLAGS) $(WARN) $(THREADS) $(GPU_DEF) $(DEPS) $(INC) -c $< -o $@

# The MPI transport is the one object compiled with MPI's headers.
$(B)/obj/explorer/dist_mpi.o: explorer/dist_mpi.c $(B)/obj/explorer/dist_mpi.d $(B)/mpi-config $(B)/c-config | $(B)/gen/exp_parse.h $(B)/gen/exp_lex.h
	@mkdir -p $(dir $@)
	$(call step,CC,$@)$(CC) $(CSTD) $(CFLAGS) $(WARN) $(THREADS) $(GPU_DEF) $(DEPS) $(INC) $$(sed -n 1p $(B)/mpi-config) -c $< -o $@

# nvcc writes each object's header dependencies (-MMD -MP) like cc does.
$(B)/obj/kernels/%.o: kernels/%.cu $(B)/obj/kernels/%.d $(B)/cu-config
	@mkdir -p $(dir $@)
	$(call step,NVCC,$@)$(NVCC) $(NVFLAGS) $(DEPS) $(INC) -c $< -o $@

$(B)/libwarpex.a: $(GPU_OBJ) $(LIB_OBJ)
	@rm -f $@
	$(call step,AR,$@)ar rcs $@ $^

# A build without CUDA says so where it is made (at run time --backend auto
# then uses the CPU without a notice, and --backend gpu is an error).
bin/warpex: $(B)/libwarpex.a $(CLI_OBJ) $(B)/mpi-config
	@mkdir -p bin
	$(call step,LD,$@)$(CC) $(CFLAGS) -o $@ $(CLI_OBJ) $(B)/libwarpex.a $(GPU_LIBS) $$(sed -n 2p $(B)/mpi-config) $(LIBS)
	$(if $(GPU_DEF),,@echo "warpex: $@ has no GPU support ($(if $(filter command line,$(origin NVCC)),built with NVCC=,nvcc is not on the PATH))")

bin/tests/%: tests/%.c tests/check.h $(B)/libwarpex.a $(B)/c-config
	@mkdir -p bin/tests
	$(call step,LD,$@)$(CC) $(CSTD) $(CFLAGS) $(WARN) $(THREADS) $(DEPS) $(INC) $< -o $@ $(B)/libwarpex.a $(GPU_LIBS) $(LIBS)

# The distributed explorer's differential test, an MPI program that
# tests/t_dist.sh runs under mpirun.
bin/tests-mpi/dist_check: tests/mpi/dist_check.c tests/check.h $(B)/libwarpex.a $(B)/mpi-config $(B)/c-config
	@mkdir -p bin/tests-mpi
	$(call step,LD,$@)$(CC) $(CSTD) $(CFLAGS) $(WARN) $(THREADS) $(DEPS) $(INC) -Itests $$(sed -n 1p $(B)/mpi-config) \
	  $< -o $@ $(B)/libwarpex.a $(GPU_LIBS) $$(sed -n 2p $(B)/mpi-config) $(LIBS)

test: bin/warpex $(TEST_BIN) $(SMOKE_BIN) bin/tests-mpi/dist_check
	@sh tests/run.sh

# The demo explores two bundled networks: the traffic light (no deadlock:
# exit 0) and dining philosophers (a deadlock with its shortest trace: exit 1,
# which is the expected answer, so it does not fail the target).
demo: bin/warpex
	./bin/warpex explore examples/traffic/traffic.exp --deadlock
	@echo
	./bin/warpex explore examples/philosophers/philosophers_n5.exp --deadlock --trace || [ $$? -eq 1 ]

# Large instances of the example families (up to >= 10^9 states).
examples:
	python3 examples/gen.py --large examples/large

# CPU benchmarks: the explorer on 1 and all threads over example families sized
# to ~10 s on one core, and the .aut reader; both append to bench/RESULTS.md.
BENCH_MODELS := milner/milner_n19 buffers/buffers_n23_d1 tokenring/tokenring_n18 \
                abp/abp_d1300 philosophers/philosophers_n11
bench: bin/warpex
	@[ -f examples/large/counts.tsv ] || python3 examples/gen.py --large examples/large
	@{ echo; echo "### make bench: bench/bench_cpu.sh, $$(date -u '+%Y-%m-%d %H:%M UTC'), $$(uname -n), $$(nproc) cores"; \
	  echo '```'; sh bench/bench_cpu.sh $(BENCH_MODELS:%=examples/large/%.exp); echo '```'; } | tee -a bench/RESULTS.md
	sh bench/aut_read.sh

# GPU suite and benchmarks: run on a machine with an NVIDIA GPU (sm_90).
gpu-test:
	bash bench/gpu_test.sh

bench-gpu:
	bash bench/bench_gpu.sh
	@for f in bench/bench_gpu_*.sh; do [ -f "$$f" ] || continue; bash "$$f" || exit 1; done

# ---- fuzzing (tests/fuzz/README.md) ----
FUZZ_HDR     := tests/fuzz/fuzz_common.h tests/fuzz/fuzz_check.h
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer

# Smoke run in `make test`: each target linked with tests/fuzz/driver.c by
# $(CC), under ASan/UBSan when the compiler can (gcc's libasan/libubsan,
# installed with apt-get when missing and running as root), else plain.  The
# flags chosen are kept in build/smoke/flags.
SMOKE_OBJ := $(FUZZ_LIB_SRC:%.c=$(B)/smoke/obj/%.o) $(GEN_SRC:$(B)/gen/%.c=$(B)/smoke/obj/gen/%.o)
SAN_PROBE = printf 'int main(void){return 0;}\n' > $(B)/smoke/probe.c && \
	$(CC) $(FUZZ_SAN) $(B)/smoke/probe.c -o $(B)/smoke/probe >/dev/null 2>&1 && $(B)/smoke/probe

$(B)/smoke/flags:
	@mkdir -p $(B)/smoke
	@if ! { $(SAN_PROBE); } && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "warpex: installing the sanitizer runtimes of $(CC) (libasan, libubsan)"; \
	  v=$$($(CC) -dumpversion | cut -d. -f1); \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libgcc-$$v-dev) >/dev/null 2>&1; \
	fi; \
	if $(SAN_PROBE); then echo "$(FUZZ_SAN)" > $@; \
	else echo "warpex: $(CC) cannot build with $(FUZZ_SAN): the fuzz smoke run is a plain build"; : > $@; fi

$(B)/smoke/obj/gen/%.o: $(B)/gen/%.c $(B)/gen/exp_parse.h $(B)/gen/exp_lex.h $(B)/smoke/flags
	@mkdir -p $(dir $@)
	$(call step,CC,$@)$(CC) $(CSTD) -g -O1 $$(cat $(B)/smoke/flags) $(DEPS) $(INC) -w -c $< -o $@

$(B)/smoke/obj/%.o: %.c $(B)/smoke/flags | $(B)/gen/exp_parse.h $(B)/gen/exp_lex.h
	@mkdir -p $(dir $@)
	$(call step,CC,$@)$(CC) $(CSTD) -g -O1 $$(cat $(B)/smoke/flags) $(WARN) $(THREADS) $(DEPS) $(INC) -c $< -o $@

$(B)/smoke/libsmoke.a: $(SMOKE_OBJ)
	@rm -f $@
	$(call step,AR,$@)ar rcs $@ $^

bin/fuzz-smoke/%: tests/fuzz/%.c tests/fuzz/driver.c $(FUZZ_HDR) $(B)/smoke/libsmoke.a
	@mkdir -p bin/fuzz-smoke
	$(call step,LD,$@)$(CC) $(CSTD) -g -O1 $$(cat $(B)/smoke/flags) $(WARN) $(THREADS) $(INC) $< tests/fuzz/driver.c \
	  -o $@ $(B)/smoke/libsmoke.a $(LIBS)

# libFuzzer targets: `make fuzz` builds bin/fuzz/fuzz_* with clang (clang-14
# and libclang-rt-14-dev installed with apt-get when missing and running as
# root); `make fuzz-run FUZZ_SECONDS=N` runs each for N seconds, nice'd, one
# at a time, on its corpus tests/fuzz/corpus/NAME (read only: new inputs go
# to tests/fuzz/out/NAME/corpus, findings to tests/fuzz/out/NAME/).
FUZZ_CC      ?= $(shell command -v clang-14 2>/dev/null || command -v clang 2>/dev/null)
FUZZ_SECONDS ?= 60
FUZZ_FLAGS   ?= -max_len=8192 -timeout=10 -rss_limit_mb=2048
FUZZ_BIN     := $(FUZZ_NAMES:%=bin/fuzz/%)
FUZZ_OBJ     := $(FUZZ_LIB_SRC:%.c=$(B)/fuzz/obj/%.o) $(GEN_SRC:$(B)/gen/%.c=$(B)/fuzz/obj/gen/%.o)
FUZZ_PROBE = printf '%s\n' '\#include <stdint.h>' '\#include <stddef.h>' \
	'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return 0; }' > $(B)/fuzz/probe.c && \
	$${FUZZ_CC:-$$(command -v clang-14 || command -v clang)} -fsanitize=fuzzer,address,undefined \
	  $(B)/fuzz/probe.c -o $(B)/fuzz/probe >/dev/null 2>&1

fuzz:
	@mkdir -p $(B)/fuzz
	@if ! { FUZZ_CC='$(FUZZ_CC)'; $(FUZZ_PROBE); }; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "warpex: installing clang-14 and libclang-rt-14-dev"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang-14 libclang-rt-14-dev) >/dev/null 2>&1; \
	  fi; \
	  FUZZ_CC=; $(FUZZ_PROBE) || { echo "make fuzz needs clang with libFuzzer: run 'sudo apt-get install -y clang-14 libclang-rt-14-dev'"; exit 1; }; \
	fi
	@$(MAKE) --no-print-directory fuzz-bins

fuzz-bins: $(FUZZ_BIN)

$(B)/fuzz/obj/gen/%.o: $(B)/gen/%.c $(B)/gen/exp_parse.h $(B)/gen/exp_lex.h
	@mkdir -p $(dir $@)
	$(call step,CC,$@)$(FUZZ_CC) $(CSTD) -g -O1 $(FUZZ_SAN) -fsanitize=fuzzer-no-link $(DEPS) $(INC) -w -c $< -o $@

$(B)/fuzz/obj/%.o: %.c | $(B)/gen/exp_parse.h $(B)/gen/exp_lex.h
	@mkdir -p $(dir $@)
	$(call step,CC,$@)$(FUZZ_CC) $(CSTD) -g -O1 $(FUZZ_SAN) -fsanitize=fuzzer-no-link $(WARN) $(THREADS) $(DEPS) $(INC) -c $< -o $@

$(B)/fuzz/libfuzz.a: $(FUZZ_OBJ)
	@rm -f $@
	$(call step,AR,$@)ar rcs $@ $^

bin/fuzz/%: tests/fuzz/%.c $(FUZZ_HDR) $(B)/fuzz/libfuzz.a
	@mkdir -p bin/fuzz
	$(call step,LD,$@)$(FUZZ_CC) $(CSTD) -g -O1 $(FUZZ_SAN) -fsanitize=fuzzer $(WARN) $(THREADS) $(INC) $< \
	  -o $@ $(B)/fuzz/libfuzz.a $(LIBS)

fuzz-run: fuzz
	@for n in $(FUZZ_NAMES); do \
	  r=$${n#fuzz_}; o=tests/fuzz/out/$$r; mkdir -p $$o/corpus; \
	  d=; [ -f tests/fuzz/$$r.dict ] && d=-dict=tests/fuzz/$$r.dict; \
	  echo "== $$n: $(FUZZ_SECONDS) s (log $$o/log)"; \
	  nice bin/fuzz/$$n $(FUZZ_FLAGS) -max_total_time=$(FUZZ_SECONDS) $$d -artifact_prefix=$(CURDIR)/$$o/ \
	    $(CURDIR)/$$o/corpus $(CURDIR)/tests/fuzz/corpus/$$r > $$o/log 2>&1; \
	  echo "   exit $$?: $$(grep -a -m1 'ERROR\|SUMMARY\|invariant broken\|Done' $$o/log)"; \
	done; \
	found=$$(ls tests/fuzz/out/*/crash-* tests/fuzz/out/*/leak-* tests/fuzz/out/*/timeout-* tests/fuzz/out/*/oom-* 2>/dev/null); \
	if [ -n "$$found" ]; then echo "findings:"; echo "$$found"; exit 1; else echo "no finding"; fi

clean:
	rm -rf $(B) bin

-include $(shell find $(B)/obj $(B)/smoke/obj $(B)/fuzz/obj bin/tests bin/tests-mpi -name '*.d' 2>/dev/null)
