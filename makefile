# petsc-modsell: the modified Sliced ELLPACK matrix type and GPU preconditioners for PETSc.
#
#   make            configure (provision PETSc if PETSC_DIR is unset) and build build/lib/libpetscmodsell.so
#   make check      build and run every test through PETSc's test harness
#   make demo       the main job: FVM Poisson solve on an unstructured mesh, MATMODSELL against AIJ
#   make configure  re-run config/configure (CONFIGURE_OPTIONS="--with-cuda=1 ..." passes options)
#   make check-deps check that touching any header under include/ rebuilds every object including it
#
# With PETSC_DIR (and PETSC_ARCH) set in the environment, that PETSc is used.

TOP      := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
BUILD    ?= $(TOP)/build
# an absolute path: programs and tests find the library through an rpath into it, from any folder
override BUILD := $(abspath $(BUILD))
MS_LIBNAME := libpetscmodsell
SHELL    := /bin/bash

.DEFAULT_GOAL := all

# --- which PETSc --------------------------------------------------------------------------------
ENV_PETSC_DIR  := $(if $(filter environment command,$(firstword $(origin PETSC_DIR))),$(PETSC_DIR),)
ENV_PETSC_ARCH := $(if $(filter environment command,$(firstword $(origin PETSC_ARCH))),$(PETSC_ARCH),)
FILE_PETSC_DIR := $(shell sed -n 's/^PETSC_DIR=//p' $(BUILD)/petsc.env 2>/dev/null)
FILE_PETSC_ARCH:= $(shell sed -n 's/^PETSC_ARCH=//p' $(BUILD)/petsc.env 2>/dev/null)
# (re)configure when there is no build/petsc.env, or when the environment names another PETSc
NEED_CONFIGURE := $(if $(wildcard $(BUILD)/petsc.env),$(if $(ENV_PETSC_DIR),$(if $(filter-out $(ENV_PETSC_DIR)|$(ENV_PETSC_ARCH),$(FILE_PETSC_DIR)|$(FILE_PETSC_ARCH)),yes,),),yes)
ifeq ($(NEED_CONFIGURE),yes)
  ifeq ($(filter configure help clean distclean,$(MAKECMDGOALS)),)
    $(info [make] running config/configure $(CONFIGURE_OPTIONS))
    CONFIGURE_STATUS := $(shell $(if $(ENV_PETSC_DIR),PETSC_DIR='$(ENV_PETSC_DIR)' PETSC_ARCH='$(ENV_PETSC_ARCH)',env -u PETSC_DIR -u PETSC_ARCH) MS_BUILD='$(BUILD)' bash $(TOP)/config/configure $(CONFIGURE_OPTIONS) >&2; echo $$?)
    ifneq ($(CONFIGURE_STATUS),0)
      $(error config/configure failed)
    endif
  endif
endif
-include $(BUILD)/petsc.env
export PETSC_DIR PETSC_ARCH

PETSC_CONF := $(firstword $(wildcard $(PETSC_DIR)/$(PETSC_ARCH)/lib/petsc/conf $(PETSC_DIR)/lib/petsc/conf))
ifneq ($(PETSC_CONF),)
  include $(PETSC_CONF)/petscvariables
endif
PETSCCONF_H := $(firstword $(wildcard $(PETSC_DIR)/$(PETSC_ARCH)/include/petscconf.h $(PETSC_DIR)/include/petscconf.h))
PETSC_HAVE_CUDA := $(if $(PETSCCONF_H),$(shell grep -q '^\#define PETSC_HAVE_CUDA 1' $(PETSCCONF_H) && echo 1),)
NVCC := $(or $(CUDAC),$(shell command -v nvcc 2>/dev/null))

# --- sources ------------------------------------------------------------------------------------
CSRC := $(sort $(shell cd $(TOP) && find src -name '*.c' -not -path '*/tests/*' -not -path '*/tutorials/*'))
CUSRC := $(sort $(shell cd $(TOP) && find src -name '*.cu' -not -path '*/tests/*' -not -path '*/tutorials/*'))
OBJDIR := $(BUILD)/obj
COBJ := $(addprefix $(OBJDIR)/,$(CSRC:.c=.o))
CUOBJ := $(addprefix $(OBJDIR)/,$(CUSRC:.cu=.cu.o))
INCLUDES := -I$(TOP)/include $(PETSC_CC_INCLUDES)
comma := ,
# device code for Hopper (sm_90) plus PTX for newer GPUs; override with MS_CUDA_ARCH=...
MS_CUDA_ARCH ?= -gencode arch=compute_90$(comma)code=sm_90 -gencode arch=compute_90$(comma)code=compute_90
# nvcc flags without PETSc's (a PETSc without CUDA may still list nvcc): C++17, PIC, optimized, line info
MS_NVCC_FLAGS := -std=c++17 -O3 -lineinfo -Xcompiler -fPIC -Xcompiler -fvisibility=hidden $(MS_CUDA_ARCH) $(NVCCFLAGS)

MS_LIB := $(BUILD)/lib/$(MS_LIBNAME).$(or $(SL_LINKER_SUFFIX),so)
ifeq ($(PETSC_HAVE_CUDA),1)
  LIBOBJ := $(COBJ) $(CUOBJ)
  CUDA_LINK := -lcudart
else
  LIBOBJ := $(COBJ)
  CUDA_LINK :=
endif

.PHONY: all lib configure check check-deps demo clean distclean cuda-objs info help programs
all: lib $(BUILD)/lib/pkgconfig/petscmodsell.pc $(if $(NVCC),cuda-objs)
lib: $(MS_LIB)

configure:
	MS_BUILD='$(BUILD)' bash $(TOP)/config/configure $(CONFIGURE_OPTIONS)

info:
	@echo "PETSC_DIR=$(PETSC_DIR) PETSC_ARCH=$(PETSC_ARCH) CUDA=$(or $(PETSC_HAVE_CUDA),0) NVCC=$(NVCC)"

# Header dependencies come from the compilers: every object and program T is compiled with
# -MMD -MP -MT T -MF T.d (gcc and nvcc alike), and the T.d files are read below, so touching any
# header rebuilds exactly what includes it, directly or not (`make check-deps` verifies this).
MS_DEPFLAGS = -MMD -MP -MT $@ -MF $@.d

$(OBJDIR)/%.o: $(TOP)/%.c
	@mkdir -p $(dir $@)
	$(PCC) $(PCC_FLAGS) $(CFLAGS) $(MS_DEPFLAGS) $(INCLUDES) -c $< -o $@

# The CUDA kernels take raw pointers and need no PETSc header: they compile wherever nvcc is
# (CI compiles them), and are linked in when PETSc has CUDA.
$(OBJDIR)/%.cu.o: $(TOP)/%.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(MS_NVCC_FLAGS) $(MS_DEPFLAGS) -I$(TOP)/include -c $< -o $@

cuda-objs: $(CUOBJ)

# after a full build, `make -n -W <header>` must rebuild every library object whose source includes
# the header (the preprocessor's -MM says which do); the .cu objects count where nvcc is (CI runs it)
check-deps: all
	@MS_MAKE='$(MAKE)' MS_TOP='$(TOP)' MS_BUILD='$(BUILD)' MS_OBJDIR='$(OBJDIR)' \
	  MS_CSRC='$(CSRC)' MS_CUSRC='$(CUSRC)' MS_NVCC='$(NVCC)' \
	  MS_CC_M='$(PCC) $(PCC_FLAGS) $(CFLAGS) $(INCLUDES)' MS_NVCC_M='$(NVCC) $(MS_NVCC_FLAGS) -I$(TOP)/include' \
	  bash '$(TOP)/config/check-deps.sh'

$(MS_LIB): $(LIBOBJ)
	@mkdir -p $(dir $@)
	$(PCC_LINKER) $(PCC_LINKER_FLAGS) -shared -o $@ $(LIBOBJ) $(PETSC_WITH_EXTERNAL_LIB) $(CUDA_LINK)

$(BUILD)/lib/pkgconfig/petscmodsell.pc: $(BUILD)/petsc.env
	@mkdir -p $(dir $@)
	@printf 'prefix=%s\nlibdir=$${prefix}/build/lib\nincludedir=$${prefix}/include\n\nName: petscmodsell\nDescription: modified Sliced ELLPACK matrix type and GPU preconditioners for PETSc\nVersion: 0.1.0\nRequires: PETSc\nCflags: -I$${includedir}\nLibs: -L$${libdir} -Wl,-rpath,$${libdir} -lpetscmodsell\n' '$(TOP)' > $@
	@echo "[make] wrote $@ (PETSc: $(PETSC_DIR) $(PETSC_ARCH))"

# --- programs (examples, benchmarks): build/bin/<path of the .c without .c> ---------------------
MS_LINK := -Wl,-rpath,$(BUILD)/lib -L$(BUILD)/lib -lpetscmodsell $(PETSC_WITH_EXTERNAL_LIB) $(CUDA_LINK)
# (the test helpers in tests/include are on their include path, as for the harness's test programs)
$(BUILD)/bin/%: $(TOP)/%.c $(MS_LIB)
	@mkdir -p $(dir $@)
	$(PCC) $(PCC_FLAGS) $(CFLAGS) $(MS_DEPFLAGS) $(INCLUDES) -I$(TOP)/tests/include $< -o $@ $(MS_LINK)

# bench/ex45periter includes PETSc's tutorial ex45.c from its installed examples (MS_PETSC_EXAMPLES, config/test.mk)
$(BUILD)/bin/bench/ex45periter: INCLUDES += -I$(MS_PETSC_EXAMPLES)

# The compilers' dependency files (see MS_DEPFLAGS).  An object or program that exists without its
# .d (built by an older makefile, or the .d was deleted) is rebuilt once, which writes the .d; a
# first build needs none (nothing exists yet).
MS_DEP_TARGETS := $(COBJ) $(CUOBJ) $(shell find '$(BUILD)/bin' -type f ! -name '*.d' 2>/dev/null)
MS_DEP_FILES   := $(wildcard $(MS_DEP_TARGETS:=.d))
-include $(MS_DEP_FILES)
.PHONY: ms-no-depfile
$(filter-out $(MS_DEP_FILES:.d=),$(wildcard $(MS_DEP_TARGETS))): ms-no-depfile

# the same programs named relative to the top directory (make build/bin/tests/mat/ex1)
ifneq ($(filter $(TOP)/%,$(BUILD)),)
.PRECIOUS: $(BUILD)/bin/%
$(patsubst $(TOP)/%,%,$(BUILD))/bin/%: $(BUILD)/bin/% ;
endif

# the main job (README): FVM Poisson on a generated unstructured mesh (160^3 cells with CUDA, 64^3 without),
# CG with MATMODSELL + jacobi / bjsmooth against aijcusparse (aij) + jacobi / gamg, each warmed up, then timed
DEMO_OPTIONS ?=
demo: $(BUILD)/bin/examples/fvm/fvmpoisson
	$(BUILD)/bin/examples/fvm/fvmpoisson $(DEMO_OPTIONS)

# tests through PETSc's harness (make check) live in config/test.mk
-include $(TOP)/config/test.mk

clean:
	rm -rf $(BUILD)/obj $(BUILD)/lib $(BUILD)/tests $(BUILD)/bin

distclean:
	rm -rf $(BUILD)

help:
	@sed -n '2,9p' $(TOP)/makefile
