# boids_isa_units(<sources-var> PREFIXES <prefix>... [SCALAR_OPTIONS <option>...])
#
# One family of units per prefix P in the calling directory, compiled once per instruction set
# and chosen at run time: P.cpp dispatches, P_scalar.cpp is the one-lane unit, and
# P_sse42.cpp, P_avx2.cpp, P_avx512.cpp get their -m flags here, and only they do (never a
# host-specific -march). Only the sets in BOIDS_BUILT_ISAS (below) get units; the others are
# removed from <sources-var>, and in a BOIDS_DISABLE_SIMD build, or off x86-64, only the scalar
# one exists. Used by core/ (the row and cluster kernels, the prey scan) and parallel/ (the
# metrics pair pass, the topological gather).
#
# BOIDS_BUILT_ISAS: the sets of BOIDS_SIMD_ISAS (default sse42;avx2;avx512) this compiler and
# target can build. The library gets BOIDS_HAVE_SSE42/AVX2/AVX512 for each, so the dispatchers
# fill only those tables and dispatched_isa() steps down to the best built set at or below
# what the CPU runs and BOIDS_MAX_ISA allows (every set gives the same bits). The sanitizer
# stages of scripts/test.sh build avx2 only, to fit CI's time (docs/testing.md).
#
# -Wno-ignored-attributes: the in-register lane reductions compare raw __m128/__m256/__m512
# types in std::is_same, and GCC warns that their vector attributes are dropped from the
# template argument, which is harmless there. -Wno-(maybe-)uninitialized (AVX-512): GCC 12
# warns falsely inside its own avx512fintrin.h _mm512_undefined_* helpers, whose
# `__m512d __Y = __Y;` is uninitialised on purpose: as "maybe" in a plain build, as "is used
# uninitialized" once the sanitizer build drops use-after-scope below.
#
# AddressSanitizer's use-after-scope instrumentation makes GCC 12 take about 8x longer on
# these heavily inlined SIMD units (measured on kernels_avx2.cpp: 143 s of CPU against 18 s
# without it, and 9 s unsanitized), which was most of CI's ASan build time. They keep no
# pointers to locals past their scope, so the sanitizer builds drop that check on every unit
# of a family. Three UBSan checks cost these units as much again: on metrics_pairs_sse42.cpp
# (user CPU, ASan alone 13.5 s) -fsanitize=null adds 7 s, alignment 6 s and pointer-overflow
# 6.5 s, every other UBSan check under 1 s (the checks fire on each of the thousands of inlined
# xsimd member calls and loads). The families drop those three: a null or wild access still
# stops the test under ASan, and a misaligned SIMD load faults; every other ASan and UBSan
# check stays on, and the rest of the library keeps all of them.
include_guard(GLOBAL)
include(CheckCXXCompilerFlag)
check_cxx_compiler_flag(-mavx512f BOIDS_CXX_HAS_AVX512F)
set(BOIDS_BUILT_ISAS)
foreach(isa IN LISTS BOIDS_SIMD_ISAS)
  if(NOT isa MATCHES "^(sse42|avx2|avx512)$")
    message(FATAL_ERROR "BOIDS_SIMD_ISAS: unknown instruction set '${isa}' "
                        "(expected a list of sse42, avx2 and avx512)")
  endif()
  if(NOT BOIDS_DISABLE_SIMD AND CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$"
     AND NOT (isa STREQUAL "avx512" AND NOT BOIDS_CXX_HAS_AVX512F))
    list(APPEND BOIDS_BUILT_ISAS ${isa})
  endif()
endforeach()

function(boids_isa_units sources_var)
  cmake_parse_arguments(A "" "" "PREFIXES;SCALAR_OPTIONS" ${ARGN})
  set(sources ${${sources_var}})
  set(opt_sse42 "-msse4.2;-Wno-ignored-attributes")
  set(opt_avx2 "-mavx2;-Wno-ignored-attributes")
  set(opt_avx512 "-mavx512f;-Wno-maybe-uninitialized;-Wno-uninitialized;-Wno-ignored-attributes")
  set(family)
  set(simd_units)
  foreach(p IN LISTS A_PREFIXES)
    list(APPEND family ${p}.cpp ${p}_scalar.cpp)
  endforeach()
  foreach(isa IN ITEMS sse42 avx2 avx512)
    set(units)
    foreach(p IN LISTS A_PREFIXES)
      list(APPEND units ${p}_${isa}.cpp)
    endforeach()
    if(NOT isa IN_LIST BOIDS_BUILT_ISAS)
      foreach(u IN LISTS units)
        list(REMOVE_ITEM sources ${CMAKE_CURRENT_SOURCE_DIR}/${u})
      endforeach()
    else()
      set_source_files_properties(${units} TARGET_DIRECTORY boids PROPERTIES
                                  COMPILE_OPTIONS "${opt_${isa}}")
      list(APPEND family ${units})
      list(APPEND simd_units ${units})
    endif()
  endforeach()
  set(scalar_units)
  foreach(p IN LISTS A_PREFIXES)
    list(APPEND scalar_units ${p}_scalar.cpp)
  endforeach()
  set_source_files_properties(${scalar_units} TARGET_DIRECTORY boids PROPERTIES
                              COMPILE_OPTIONS "-Wno-ignored-attributes;${A_SCALAR_OPTIONS}")
  # The fallback sets at -O2 in a Release build: the scalar units (the one-lane reference,
  # used only where a CPU has no SSE4.2 or BOIDS_MAX_ISA caps the dispatch) and SSE4.2 (CPUs
  # before 2013). AVX2 and AVX-512, the sets that run the flocks, keep -O3. GCC 12 took
  # kernels_scalar.cpp from 191 s of CPU at -O3 to 72 s at -O2 (same load), the build's longest
  # unit; every level gives the same bits (IEEE arithmetic, -ffp-contract=off, no -ffast-math).
  set(fallback)
  foreach(p IN LISTS A_PREFIXES)
    list(APPEND fallback ${p}_scalar.cpp)
    if(sse42 IN_LIST BOIDS_BUILT_ISAS)
      list(APPEND fallback ${p}_sse42.cpp)
    endif()
  endforeach()
  foreach(u IN LISTS fallback)
    set_property(SOURCE ${u} TARGET_DIRECTORY boids APPEND PROPERTY COMPILE_OPTIONS
                 $<$<CONFIG:Release>:-O2>)
  endforeach()
  if(BOIDS_SANITIZE MATCHES "address")
    foreach(u IN LISTS family)
      set_property(SOURCE ${u} TARGET_DIRECTORY boids APPEND PROPERTY COMPILE_OPTIONS
                   -fno-sanitize-address-use-after-scope)
    endforeach()
  endif()
  if(BOIDS_SANITIZE MATCHES "undefined")
    foreach(u IN LISTS family)
      set_property(SOURCE ${u} TARGET_DIRECTORY boids APPEND PROPERTY COMPILE_OPTIONS
                   -fno-sanitize=null,alignment,pointer-overflow)
    endforeach()
    # The SIMD units keep ASan but drop UBSan: the kernels are templates over a pack type, and
    # the scalar unit instantiates the same code (its index arithmetic, shifts, casts and
    # bounds) with UBSan on, while the intrinsics themselves have no undefined behaviour to
    # check. UBSan was a third of kernels_avx2.cpp's compile under the sanitizers (30 of 90 s
    # of CPU).
    foreach(u IN LISTS simd_units)
      set_property(SOURCE ${u} TARGET_DIRECTORY boids APPEND PROPERTY COMPILE_OPTIONS
                   -fno-sanitize=undefined)
    endforeach()
  endif()
  if(BOIDS_FUZZ)
    # The fuzz targets step worlds of at most 64 boids, so the families' speed does not matter
    # there, and their templates are most of the fuzz build: metrics_pairs_scalar.cpp takes
    # clang 86 s of CPU at -O1 with the fuzz build's sanitizers and coverage, 12 s at -O0.
    foreach(u IN LISTS family)
      set_property(SOURCE ${u} TARGET_DIRECTORY boids APPEND PROPERTY COMPILE_OPTIONS -O0)
    endforeach()
  endif()
  set(${sources_var} ${sources} PARENT_SCOPE)
endfunction()
