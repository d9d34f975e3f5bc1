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
  target_compile_options(boids_build_flags INTERFACE -fsanitize=${_san} -fno-omit-frame-pointer
                                                     -fno-sanitize-recover=all)
  target_link_options(boids_build_flags INTERFACE -fsanitize=${_san})
endif()
