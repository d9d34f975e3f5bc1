# Warnings, determinism flags and sanitizers shared by every target of the project.
add_library(boids_build_flags INTERFACE)
target_compile_options(boids_build_flags INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow
  # Determinism: never let the compiler fuse a*b+c on its own; results must not depend on
  # which instruction set a translation unit was compiled for.
  -ffp-contract=off)
if(BOIDS_WERROR)
  target_compile_options(boids_build_flags INTERFACE -Werror)
endif()
if(BOIDS_SANITIZE)
  string(REPLACE ";" "," _san "${BOIDS_SANITIZE}")
  # A target with the property BOIDS_UNINSTRUMENTED (the ASan build's Catch2 test files,
  # tests/CMakeLists.txt) compiles without the instrumentation and still links the runtime, so
  # the library it calls is checked as everywhere else.
  string(REPLACE ";" "$<COMMA>" _san_ge "${BOIDS_SANITIZE}")
  set(_instrumented "$<NOT:$<BOOL:$<TARGET_PROPERTY:BOIDS_UNINSTRUMENTED>>>")
  target_compile_options(boids_build_flags INTERFACE
    "$<${_instrumented}:-fsanitize=${_san_ge}>" -fno-omit-frame-pointer
    "$<${_instrumented}:-fno-sanitize-recover=all>")
  target_link_options(boids_build_flags INTERFACE -fsanitize=${_san})
endif()
