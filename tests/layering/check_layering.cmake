# The layering test (docs/architecture.md): fails, naming file, line and include, when an
# #include points the wrong way.
#   cmake -DSOURCE_DIR=<repo> -P tests/layering/check_layering.cmake
#
# Rules, in order of the layers from the top:
#   cli/ viewer/ bench/ python/ (the programs)  public headers only: no core/ parallel/ io/ api/
#   include/boids/ (the public API)             nothing of the project but boids/ itself
#   api/ (World facade, C API)                  anything below
#   parallel/ (engines)                         core/ and include/, never api/ or io/
#   core/ (model, formats)                      include/ only, never parallel/ api/ io/
#   io/ (H5MD files, a separate library)        core/ and include/, never api/ or parallel/
#   mpi/ (the distributed engine, BOIDS_MPI)    anything below; its hook mpi/distributed.hpp
#                                               includes only boids/ headers
# The exceptions are listed below, each with its reason; a stale exception (the file no longer
# includes what it is excused for) also fails, so the list cannot rot.
cmake_minimum_required(VERSION 3.20)
if(NOT SOURCE_DIR)
  message(FATAL_ERROR "give -DSOURCE_DIR=<repository root>")
endif()

# file;include-prefix;reason
set(exceptions
  # The program's MPI hook (a Session, rank(), a Stepper over a public World): it lives with
  # the optional distributed engine, is an inline no-op without BOIDS_MPI, and includes only
  # boids/world.hpp (checked below), so it is not installed as public API.
  "cli/main.cpp|mpi/distributed.hpp|the MPI hook of the program (docs/distributed.md)"
  "cli/sweep.cpp|mpi/distributed.hpp|the MPI hook of the program (docs/distributed.md)")

set(failures "")
set(used_exceptions "")

function(check_dir dir forbidden_regex what)
  file(GLOB_RECURSE files RELATIVE ${SOURCE_DIR} ${SOURCE_DIR}/${dir}/*.cpp ${SOURCE_DIR}/${dir}/*.hpp
       ${SOURCE_DIR}/${dir}/*.h ${SOURCE_DIR}/${dir}/*.c ${SOURCE_DIR}/${dir}/*.in)
  foreach(f IN LISTS files)
    file(STRINGS ${SOURCE_DIR}/${f} lines REGEX "^[ \t]*#[ \t]*include")
    foreach(line IN LISTS lines)
      if(NOT line MATCHES "#[ \t]*include[ \t]*[<\"]([^>\"]+)[>\"]")
        continue()
      endif()
      set(inc ${CMAKE_MATCH_1})
      if(NOT inc MATCHES "${forbidden_regex}")
        continue()
      endif()
      set(excused FALSE)
      foreach(e IN LISTS exceptions)
        string(REPLACE "|" ";" parts "${e}")
        list(GET parts 0 efile)
        list(GET parts 1 eprefix)
        string(LENGTH "${eprefix}" plen)
        string(SUBSTRING "${inc}" 0 ${plen} head)
        if(efile STREQUAL f AND head STREQUAL eprefix)
          set(excused TRUE)
          list(APPEND used_exceptions "${e}")
        endif()
      endforeach()
      if(NOT excused)
        list(APPEND failures "${f}: #include \"${inc}\": ${what}")
      endif()
    endforeach()
  endforeach()
  set(failures "${failures}" PARENT_SCOPE)
  set(used_exceptions "${used_exceptions}" PARENT_SCOPE)
endfunction()

set(internal "^(core|parallel|io|api|mpi)/")
foreach(dir cli viewer bench python)
  check_dir(${dir} "${internal}" "a program includes an internal header (public boids/ only)")
endforeach()
# Public headers: only the standard library and boids/ itself (no project internals, and no
# third-party header either: the install test checks those by name).
check_dir(include/boids "^(core|parallel|io|api|cli|viewer|bench|python)/"
          "a public header includes an internal one")
check_dir(core "^(parallel|io|api)/" "core/ (the model) includes a higher layer")
check_dir(parallel "^(io|api)/" "parallel/ (the engines) includes a higher layer")
check_dir(io "^(api|parallel)/" "io/ includes the facade or the engines")
file(STRINGS ${SOURCE_DIR}/mpi/distributed.hpp hook_includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
foreach(line IN LISTS hook_includes)
  if(NOT line MATCHES "\"boids/")
    list(APPEND failures "mpi/distributed.hpp: ${line}: the programs' MPI hook includes only boids/")
  endif()
endforeach()

foreach(e IN LISTS exceptions)
  if(NOT e IN_LIST used_exceptions)
    list(APPEND failures "stale exception (remove it from check_layering.cmake): ${e}")
  endif()
endforeach()

if(failures)
  list(LENGTH failures n)
  list(JOIN failures "\n  " text)
  message(FATAL_ERROR "layering: ${n} include(s) point the wrong way:\n  ${text}")
endif()
list(LENGTH exceptions n)
message(STATUS "layering: every include points down (${n} documented exceptions)")
