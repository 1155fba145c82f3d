# config/test.mk: `make check` runs every test of the repository through PETSc's own test harness.
# Included by the top makefile (which defines TOP, BUILD, PETSC_DIR, PETSC_ARCH, MS_LIB, INCLUDES,
# PCC and PETSc's variables).
#
# Tests are the .c (.cxx, .cu) files with a /*TEST ... TEST*/ block anywhere in the repository
# (tests/, examples/, src/**/tests/, bench/, ...); expected outputs are output/<exname>_<suffix>.out
# next to each source (PETSc's conventions: https://petsc.org/release/developers/testing/).
# config/harness.py runs PETSc's gmakegentest.py on them (as an external package, like SLEPc), which
# writes one script per test under $(BUILD)/tests; the scripts (PETSc's petsc_harness.sh) run the
# tests with mpiexec, diff with petscdiff and count.  Test programs link libpetscmodsell (rpath) and
# PETSc; every script exports PETSCMODSELL_LIB (the library's path, for -dll_append ${PETSCMODSELL_LIB};
# make check PETSCMODSELL_LIB=... tests another build of it) and PETSCMODSELL_BUILD.
#
#   make check                              all tests; ends with 'N passed, N failed[, N skipped]',
#                                           counted as the harness does (a run and the diff of its
#                                           output are two), plus one failure per test that did not
#                                           build and per TEST block that does not parse; tests whose
#                                           requires: this PETSc lacks (e.g. cuda) are 'skipped'
#   make check search='tests_loading-ex2*'  a subset by name (globs; '-' and '_' alike; also s=...),
#   make check search=tests/loading/        ... by directory or source file,
#   make check query=requires queryval=cuda ... by a TEST field (also q=/qv=), searchin=/i= filters more
#   make check test-fail=1                  rerun the tests that failed last time
#   make check EXTRA_OPTIONS='-vec_type cuda'        options appended to every test (-E); also
#                                           EXTRA_OPTIONS_INITIAL (-e), OPTIONS (replaces args, -a)
#   make check CUDAMEMCHECK=1               under compute-sanitizer (PETSC_CUDAMEMCHECK_COMMAND/_ARGS)
#   make check VALGRIND=1                   under valgrind
#   make check WRAPPER='compute-sanitizer --tool racecheck'  any command in front of each test executable
#   PETSC_OPTIONS='...' make check          the environment's PETSC_OPTIONS reach every test (with CUDA, plus
#                                           -use_gpu_aware_mpi 0 unless MS_GPU_AWARE_MPI=1)
#   PETSCMPIEXEC='srun' make check          another launcher than PETSc's MPIEXEC
#   make -j16 check GPU_JOBS=4              at most 4 tests that use the GPU at a time (the default; 0: no
#                                           limit): see config/gpuslot.sh
#   make -j32 check GPU_JOBS=12 GPU_DEVICES='0 1 2 3'  several GPUs: GPU slot i runs on device i mod 4
#   NP=2, TIMEOUT=120 (seconds), FORCE=1 (run skipped tests), REPLACE=1 (rewrite the expected outputs),
#   PRINTONLY=1 (print the commands), DIFF_NUMBERS=1, OUTPUT=1 (errors only), V=1 (verbose)
#   make -j2 check                          builds and runs tests in parallel
#   make check-list                         list the tests (honours search= etc.)
#   make python-env                         provision the Python environment of the tests that run Python
#                                           (config/python-env; make check runs it first)

MS_TESTDIR    := $(BUILD)/tests
MS_HARNESS_PY := $(TOP)/config/harness.py
# PETSc's harness: installed (prefix) or in a source tree
MS_CONFIGDIR  := $(patsubst %/gmakegentest.py,%,$(firstword $(wildcard \
                   $(if $(PETSC_ARCH),$(PETSC_DIR)/$(PETSC_ARCH)/share/petsc/examples/config/gmakegentest.py) \
                   $(PETSC_DIR)/share/petsc/examples/config/gmakegentest.py \
                   $(PETSC_DIR)/config/gmakegentest.py)))
# PETSc's example sources (tests/loading builds PETSc's tutorials from there)
MS_PETSC_EXAMPLES := $(abspath $(MS_CONFIGDIR)/../src)
MS_PYTHON     := $(or $(wildcard $(PYTHON)),$(shell command -v python3))
MS_TAPLOG     := $(MS_TESTDIR)/test__tap.log
GPU_JOBS      ?= 4
GPU_DEVICES   ?=
MS_ERRLOG     := $(MS_TESTDIR)/test__err.log

PETSCMODSELL_LIB ?= $(MS_LIB)

# A PETSc built with CUDA aborts every GPU test at startup when the MPI is not CUDA-aware (most Open MPI packages)
# unless -use_gpu_aware_mpi 0 is given: make check adds it to PETSC_OPTIONS then; MS_GPU_AWARE_MPI=1 (an MPI that is
# CUDA-aware) leaves PETSc's default, as bench/common.sh does. PETSC_HAVE_CUDA: the top makefile's, from petscconf.h.
ifeq ($(PETSC_HAVE_CUDA),1)
  ifneq ($(MS_GPU_AWARE_MPI),1)
    ifeq ($(findstring -use_gpu_aware_mpi,$(PETSC_OPTIONS)),)
      export PETSC_OPTIONS := $(PETSC_OPTIONS) -use_gpu_aware_mpi 0
    endif
  endif
endif
MS_HARNESS_ARGS = --config-dir '$(MS_CONFIGDIR)' --testdir '$(MS_TESTDIR)' --srcdir '$(TOP)' \
                  --petsc-dir '$(PETSC_DIR)' --petsc-arch '$(PETSC_ARCH)'

MS_SELECT_ARGS = --search '$(or $(search),$(s))' --query '$(or $(query),$(q))' --queryval '$(or $(queryval),$(qv))' \
                 --searchin '$(or $(searchin),$(i))' --test-fail '$(test-fail)'

# options of PETSc's test scripts (config/petsc_harness.sh), with gmakefile.test's variable names
MS_TESTFLAGS :=
ifeq ($(V),1)
  MS_TESTFLAGS += -v
endif
ifeq ($(FORCE),1)
  MS_TESTFLAGS += -f
endif
ifeq ($(CUDAMEMCHECK),1)
  MS_TESTFLAGS += -U
endif
ifeq ($(VALGRIND),1)
  MS_TESTFLAGS += -V
  # the MPI stack's own leaks and uninitialised bytes (Debian's Open MPI): suppressed, with PETSc's file
  export VALGRIND_OPTS := $(VALGRIND_OPTS) --suppressions=$(TOP)/config/valgrind.supp
  # and the tests that require !defined(PETSCTEST_VALGRIND) are left out (config/harness.py)
  export MS_VALGRIND := 1
endif
ifeq ($(REPLACE),1)
  MS_TESTFLAGS += -m
endif
ifeq ($(ALT),1)
  MS_TESTFLAGS += -M
endif
ifeq ($(OUTPUT),1)
  MS_TESTFLAGS += -o err_only
endif
ifeq ($(PRINTONLY),1)
  MS_TESTFLAGS += -p
endif
ifeq ($(DIFF_NUMBERS),1)
  MS_TESTFLAGS += -j
endif
ifdef OPTIONS
  MS_TESTFLAGS += -a '$(OPTIONS)'
endif
ifdef EXTRA_OPTIONS_INITIAL
  MS_TESTFLAGS += -e '$(EXTRA_OPTIONS_INITIAL)'
endif
ifdef EXTRA_OPTIONS
  MS_TESTFLAGS += -E '$(EXTRA_OPTIONS)'
endif
ifdef NP
  MS_TESTFLAGS += -n $(NP)
endif
ifdef TIMEOUT
  MS_TESTFLAGS += -t $(TIMEOUT)
endif

.PHONY: check check-list ms-check-run python-env

# The Python environment of the tests that run Python (requires: skfem, gmsh, petsc4py): config/python-env
# provisions it next to the PETSc cache (once; afterwards it only checks what imports) and writes
# $(BUILD)/python.env, which harness.py reads. PETSC_MODSELL_PYTHON_ENV=0 skips it (those tests are skipped).
python-env:
	@MS_BUILD='$(BUILD)' bash '$(TOP)/config/python-env'
check check-list: python-env

# The parent make generates the scripts and picks the tests; a second make (-k, so that one test that
# does not build stops nothing else) builds and runs them; harness.py report always prints the
# closing line, and the exit status says whether everything passed.
check:
	@test -n '$(MS_CONFIGDIR)' || { echo "[check] error: PETSc's test harness (share/petsc/examples/config/gmakegentest.py) is not under PETSC_DIR=$(PETSC_DIR)"; echo "0 passed, 1 failed"; exit 1; }
	@mkdir -p '$(MS_TESTDIR)'; \
	exec 9> '$(MS_TESTDIR)/.lock'; \
	if command -v flock > /dev/null && ! flock -n 9; then echo "[check] another make check is using $(MS_TESTDIR): waiting for it"; flock 9; fi; \
	rm -rf '$(MS_TESTDIR)/counts'; rm -f '$(MS_TAPLOG)' '$(MS_ERRLOG)'; touch '$(MS_TAPLOG)' '$(MS_ERRLOG)'; \
	gen=0; \
	'$(MS_PYTHON)' '$(MS_HARNESS_PY)' generate $(MS_HARNESS_ARGS) --lib '$(PETSCMODSELL_LIB)' --build '$(BUILD)' \
	  && '$(MS_PYTHON)' '$(MS_HARNESS_PY)' select $(MS_HARNESS_ARGS) $(MS_SELECT_ARGS) \
	  || gen=1; \
	rc=0; start=$$(date +%s); \
	if [ $$gen = 0 ]; then $(MAKE) --no-print-directory -k -f '$(TOP)/makefile' MS_CHECK_RUN=1 ms-check-run || rc=$$?; fi; \
	if [ '$(PRINTONLY)' = 1 ]; then exit $$rc; fi; \
	'$(MS_PYTHON)' '$(MS_HARNESS_PY)' report $(MS_HARNESS_ARGS) --elapsed $$(( $$(date +%s) - start )) --gen-failed $$gen --make-rc $$rc

check-list:
	@mkdir -p '$(MS_TESTDIR)'; exec 9> '$(MS_TESTDIR)/.lock'; if command -v flock > /dev/null; then flock 9; fi; \
	'$(MS_PYTHON)' '$(MS_HARNESS_PY)' generate $(MS_HARNESS_ARGS) --lib '$(PETSCMODSELL_LIB)' --build '$(BUILD)' > /dev/null && \
	'$(MS_PYTHON)' '$(MS_HARNESS_PY)' select $(MS_HARNESS_ARGS) $(MS_SELECT_ARGS) && \
	'$(MS_PYTHON)' -c 'import json,sys; s=json.load(open(sys.argv[1])); print("\n".join(s["labels"] + ["%s (skipped: %s)" % kv for kv in s["skipped"].items()]))' '$(MS_TESTDIR)/selection.json'

ifeq ($(MS_CHECK_RUN),1)
# ---- second make: build the test executables and run the selected scripts -------------------------
TESTDIR := $(MS_TESTDIR)
include $(MS_TESTDIR)/testfiles

MS_TEST_LANGS := c cxx cu
MS_TEST_SRCS  := $(foreach p,$(MS_TEST_PKGS),$(foreach l,$(MS_TEST_LANGS),$(testsrcs-$(p).$(l))))
MS_TEST_EXES  := $(addprefix $(MS_TESTDIR)/,$(basename $(MS_TEST_SRCS)))
MS_TEST_OBJS  := $(MS_TEST_EXES:=.o)
MS_SELECTED   := $(shell cat '$(MS_TESTDIR)/selected')
# the selected tests that use the GPU (requires: cuda, or a GPU type in their arguments) take a slot each
MS_SELECTED_GPU := $(shell cat '$(MS_TESTDIR)/selected-gpu' 2> /dev/null)
MS_GPU_SLOT   := '$(TOP)/config/gpuslot.sh' '$(MS_TESTDIR)/.gpu-slot' '$(GPU_JOBS)'

ms-check-run: $(addprefix $(MS_TESTDIR)/counts/,$(addsuffix .counts,$(MS_SELECTED)))

# gmakegentest wrote '<counts>: <script> <executable>' for each test: run the script.
# OMPI_ALLOW_RUN_AS_ROOT: containers and CI run as root; harmless otherwise.
$(MS_TESTDIR)/counts/%.counts:
	@printf ' %10s %s\n' TEST '$*'
	@OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PETSCMODSELL_LIB='$(PETSCMODSELL_LIB)' \
	  PETSCMODSELL_BUILD='$(BUILD)' PETSCMODSELL_WRAPPER='$(WRAPPER)' MS_GPU_DEVICES='$(GPU_DEVICES)' \
	  $(if $(filter $*,$(MS_SELECTED_GPU)),$(MS_GPU_SLOT)) $< $(MS_TESTFLAGS)

# Test programs: compiled with -I include, linked with libpetscmodsell (rpath) and PETSc.
MS_TEST_CPPFLAGS := -I$(TOP)/tests/include
MS_TEST_LIBS     := -Wl,-rpath,$(BUILD)/lib -L$(BUILD)/lib -lpetscmodsell $(PETSC_WITH_EXTERNAL_LIB) $(CUDA_LINK)
# tests/loading builds PETSc's unmodified tutorials (#include <ksp/ksp/tutorials/ex2.c>) and does not
# link the plugin: they get it only from -dll_append, as users' applications do.
$(MS_TESTDIR)/tests/loading/%.o: MS_TEST_CPPFLAGS := -I$(MS_PETSC_EXAMPLES) -I$(TOP)/tests/include
$(MS_TESTDIR)/tests/loading/%: MS_TEST_LIBS := $(PETSC_WITH_EXTERNAL_LIB)
# bench/ex45periter includes PETSc's ex45 tutorial (and links the plugin like the other benchmarks)
$(MS_TESTDIR)/bench/ex45periter.o: MS_TEST_CPPFLAGS := -I$(MS_PETSC_EXAMPLES) -I$(TOP)/tests/include

$(MS_TESTDIR)/%.o: $(TOP)/%.c
	@mkdir -p $(@D)
	$(PCC) -c $(PCC_FLAGS) $(CFLAGS) $(C_DEPFLAGS) $(INCLUDES) $(MS_TEST_CPPFLAGS) $< -o $@
$(MS_TESTDIR)/%.o: $(TOP)/%.cxx
	@mkdir -p $(@D)
	$(CXX) -c $(CXX_FLAGS) $(CXXFLAGS) $(C_DEPFLAGS) $(INCLUDES) $(MS_TEST_CPPFLAGS) $< -o $@
$(MS_TESTDIR)/%.o: $(TOP)/%.cu
	@mkdir -p $(@D)
	$(CUDAC) -c $(MPICXX_INCLUDES) $(CUDAC_FLAGS) $(CUDAFLAGS) $(INCLUDES) $(MS_TEST_CPPFLAGS) $< -o $@

# ('depends:' objects of the TEST blocks are extra prerequisites written in testfiles)
$(MS_TEST_EXES): $(MS_TESTDIR)/%: $(MS_TESTDIR)/%.o | $(MS_LIB)
	$(PCC_LINKER) $(PCC_LINKER_FLAGS) $(EXEFLAGS) -o $@ $(filter %.o,$^) $(MS_TEST_LIBS)

$(MS_TEST_OBJS): $(PETSC_CONF)/petscvariables
-include $(MS_TEST_OBJS:.o=.d)
.DELETE_ON_ERROR:
endif
