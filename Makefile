# warpex build.  `make` builds bin/warpex (with CUDA when nvcc is present),
# `make test` runs the CPU test suite, `make demo` explores a bundled example.
# Missing flex/bison are installed with apt-get when running as root.

CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Werror -Wno-unused-parameter
CSTD    := -std=c11 -D_GNU_SOURCE
DEPS    := -MMD -MP
THREADS := -pthread
NVCC    ?= $(shell command -v nvcc 2>/dev/null)
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
NVARCH  ?= -gencode=arch=compute_90,code=sm_90 -gencode=arch=compute_90,code=compute_90
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

CU_SRC := $(if $(NVCC),$(shell find kernels -name '*.cu' | sort))
CU_HDR := $(shell find kernels -name '*.cuh' -o -name '*.h' | sort)
ifneq ($(CU_SRC),)
  GPU_OBJ := $(CU_SRC:%.cu=$(B)/obj/%.o)
  GPU_LIBS := -L$(CUDA_HOME)/lib64 -L$(CUDA_HOME)/targets/x86_64-linux/lib -lcudart_static -ldl -lrt -lstdc++
  GPU_DEF := -DWX_HAVE_CUDA=1
else
  # Without nvcc every GPU module is replaced by its stub kernels/nogpu*.c.
  GPU_OBJ := $(patsubst %.c,$(B)/obj/%.o,$(shell find kernels -name 'nogpu*.c' | sort))
  GPU_LIBS :=
  GPU_DEF :=
endif

LIBS := -lm $(THREADS)

.PHONY: all test demo clean examples bench bench-gpu gpu-test
all: bin/warpex

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
	  echo "bison parser/exp.y"; \
	  bison -Wall -Werror --defines=$(B)/gen/exp_parse.h -o $(B)/gen/exp_parse.c $<; \
	else $(call NO_TOOL,$(B)/gen/exp_parse.c,$(B)/gen/exp_parse.h,bison); fi

$(B)/gen/exp_lex.c $(B)/gen/exp_lex.h &: parser/exp.l $(B)/gen/exp_parse.h
	@mkdir -p $(B)/gen
	@if $(call ENSURE_TOOL,flex); then \
	  echo "flex parser/exp.l"; \
	  flex --header-file=$(B)/gen/exp_lex.h -o $(B)/gen/exp_lex.c $<; \
	else $(call NO_TOOL,$(B)/gen/exp_lex.c,$(B)/gen/exp_lex.h,flex); fi

# Generated code gets the warnings it can pass; ours gets -Werror.
$(B)/obj/gen/%.o: $(B)/gen/%.c $(B)/gen/exp_parse.h $(B)/gen/exp_lex.h
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(CFLAGS) $(DEPS) $(INC) -w -c $< -o $@

$(B)/obj/%.o: %.c | $(B)/gen/exp_parse.h $(B)/gen/exp_lex.h
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(CFLAGS) $(WARN) $(THREADS) $(GPU_DEF) $(DEPS) $(INC) -c $< -o $@

$(B)/obj/kernels/%.o: kernels/%.cu $(CU_HDR) network/image.h explorer/explore.h util/config.h
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) $(INC) -c $< -o $@

$(B)/libwarpex.a: $(LIB_OBJ) $(GPU_OBJ)
	@rm -f $@
	ar rcs $@ $^

bin/warpex: $(CLI_OBJ) $(B)/libwarpex.a
	@mkdir -p bin
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJ) $(B)/libwarpex.a $(GPU_LIBS) $(LIBS)

bin/tests/%: tests/%.c tests/check.h $(B)/libwarpex.a
	@mkdir -p bin/tests
	$(CC) $(CSTD) $(CFLAGS) $(WARN) $(THREADS) $(DEPS) $(INC) $< -o $@ $(B)/libwarpex.a $(GPU_LIBS) $(LIBS)

test: bin/warpex $(TEST_BIN)
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

clean:
	rm -rf $(B) bin

-include $(shell find $(B)/obj bin/tests -name '*.d' 2>/dev/null)
