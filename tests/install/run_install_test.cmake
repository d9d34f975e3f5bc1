# cmake -P script behind the install_package test (see CMakeLists.txt for the arguments).
cmake_minimum_required(VERSION 3.20)

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${what}: ok ${out}")
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

function(expect_output pattern)
  if(NOT last_output MATCHES "${pattern}")
    message(FATAL_ERROR "expected output matching '${pattern}', got:\n${last_output}")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
set(libdir ${prefix}/${LIBDIR})

# 1. Install the already built tree (no rebuild).
run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} --config ${CONFIG})
foreach(f include/boids/boids.h include/boids/boids.hpp include/boids/world.hpp
          include/boids/world_def.hpp include/boids/version.h include/boids/version.hpp
          include/boids/export.h include/boids/io.hpp include/boids/scenario.hpp
          include/boids/engine_info.hpp include/boids/metrics.hpp
          ${LIBDIR}/cmake/boids/boidsConfig.cmake ${LIBDIR}/cmake/boids/boidsConfigVersion.cmake
          ${LIBDIR}/pkgconfig/boids.pc ${LIBDIR}/pkgconfig/boids-static.pc ${LIBDIR}/libboids.a
          ${LIBDIR}/libboids.so ${LIBDIR}/libboids.so.0.1 bin/boids)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
# Public headers must not drag in the engine's private dependencies.
file(GLOB headers ${prefix}/include/boids/*)
foreach(h IN LISTS headers)
  file(STRINGS ${h} bad REGEX "#include[ \t]*[<\"](tbb|oneapi|xsimd|glm|toml)")
  if(bad)
    message(FATAL_ERROR "${h} includes a private dependency: ${bad}")
  endif()
endforeach()
# The shared library: versioned, SONAME libboids.so.0.1, and only the public API exported
# (hidden visibility): the C API and boids:: functions, no engine, kernel or store symbol.
run("readelf SONAME" readelf -d ${libdir}/libboids.so)
expect_output("SONAME[^\n]*libboids\\.so\\.0\\.1\\]")
run("exported symbols" nm -D -C --defined-only ${libdir}/libboids.so)
expect_output("boids_world_create")
expect_output("boids::World::create")
expect_output("boids::Recorder::frame")
expect_output("boids::load_scenario")
foreach(internal EngineT GridEngine BoidStore kernel_table AtomicFile init_state ModelParams)
  if(last_output MATCHES "${internal}")
    message(FATAL_ERROR "libboids.so exports an internal symbol (${internal}):\n${last_output}")
  endif()
endforeach()

# Which libboids an executable uses: NEEDED libboids.so.0.1 for the shared one, none for the
# static one.
function(expect_linked exe which)
  execute_process(COMMAND readelf -d ${exe} OUTPUT_VARIABLE dyn RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "readelf -d ${exe} failed")
  endif()
  if(which STREQUAL "shared" AND NOT dyn MATCHES "NEEDED[^\n]*libboids\\.so\\.0\\.1")
    message(FATAL_ERROR "${exe} should use the shared libboids:\n${dyn}")
  elseif(which STREQUAL "static" AND dyn MATCHES "libboids")
    message(FATAL_ERROR "${exe} should have libboids linked in statically:\n${dyn}")
  endif()
  message(STATUS "${exe}: ${which} libboids, as asked")
endfunction()

run("installed boids --version" ${prefix}/bin/boids --version)
expect_output("boids [0-9]+\\.[0-9]+\\.[0-9]+")

# 2. find_package(boids 0.1 CONFIG): the C++ and the C example.
run("configure examples" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples -B ${WORK_DIR}/examples
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=${C_COMPILER}
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
run("build examples" ${CMAKE_COMMAND} --build ${WORK_DIR}/examples -j2)
run("C++ example (find_package)" ${WORK_DIR}/examples/hello_boids)
expect_output("boids [0-9.]+: 2000 boids after 100 steps")
run("C example (find_package)" ${WORK_DIR}/examples/hello_boids_c)
expect_output("\\(C\\): 2000 boids")
expect_linked(${WORK_DIR}/examples/hello_boids shared)
expect_linked(${WORK_DIR}/examples/hello_boids_c shared)

# The static library through the same package: BOIDS_USE_STATIC_LIBS=ON.
run("configure examples (static)" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples
    -B ${WORK_DIR}/examples_static -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release
    -DBOIDS_USE_STATIC_LIBS=ON -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
run("build examples (static)" ${CMAKE_COMMAND} --build ${WORK_DIR}/examples_static -j2)
run("C++ example (find_package, static)" ${WORK_DIR}/examples_static/hello_boids)
expect_output("boids [0-9.]+: 2000 boids after 100 steps")
expect_linked(${WORK_DIR}/examples_static/hello_boids static)

# A version the package does not satisfy must be refused.
file(WRITE ${WORK_DIR}/v9/CMakeLists.txt
     "cmake_minimum_required(VERSION 3.20)\nproject(v9 LANGUAGES CXX)\n"
     "find_package(boids 9.0 CONFIG QUIET)\nif(boids_FOUND)\n  message(FATAL_ERROR found)\nendif()\n")
run("find_package(boids 9.0) is refused" ${CMAKE_COMMAND} -S ${WORK_DIR}/v9 -B ${WORK_DIR}/v9/b
    -DCMAKE_PREFIX_PATH=${prefix})

# 3. pkg-config: compile and link by hand, as a Makefile would.
set(ENV{PKG_CONFIG_PATH} ${libdir}/pkgconfig)
execute_process(COMMAND pkg-config --cflags --libs boids OUTPUT_VARIABLE pc RESULT_VARIABLE rc
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pkg-config --cflags --libs boids failed")
endif()
separate_arguments(pc UNIX_COMMAND "${pc}")
run("C example (pkg-config)" ${C_COMPILER} ${SOURCE_DIR}/examples/hello.c ${pc} -o ${WORK_DIR}/hello_pc_c)
run("C++ example (pkg-config)" ${CXX_COMPILER} -std=c++20 ${SOURCE_DIR}/examples/hello.cpp ${pc}
    -o ${WORK_DIR}/hello_pc_cpp)
run("run C example (pkg-config)" ${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${libdir} ${WORK_DIR}/hello_pc_c)
expect_output("\\(C\\): 2000 boids")
run("run C++ example (pkg-config)" ${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${libdir} ${WORK_DIR}/hello_pc_cpp)
expect_output("2000 boids after 100 steps")
expect_linked(${WORK_DIR}/hello_pc_cpp shared)
execute_process(COMMAND pkg-config --cflags --libs boids-static OUTPUT_VARIABLE pcs
                RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pkg-config --cflags --libs boids-static failed")
endif()
separate_arguments(pcs UNIX_COMMAND "${pcs}")
run("C++ example (pkg-config boids-static)" ${CXX_COMPILER} -std=c++20
    ${SOURCE_DIR}/examples/hello.cpp ${pcs} -o ${WORK_DIR}/hello_pc_static)
run("run C++ example (pkg-config boids-static)" ${WORK_DIR}/hello_pc_static)
expect_output("2000 boids after 100 steps")
expect_linked(${WORK_DIR}/hello_pc_static static)

# 4. Python ctypes + numpy on the installed shared library.
if(SHARED_LIB)
  run("Python example (ctypes, numpy)" ${CMAKE_COMMAND} -E env BOIDS_LIBRARY=${libdir}/${SHARED_LIB}
      /usr/bin/python3 ${SOURCE_DIR}/examples/numpy_view.py)
  expect_output("\\(python\\): 2000 boids.*zero-copy float32")
else()
  message(FATAL_ERROR "no shared library was built for the Python example (BOIDS_ALSO_SHARED=OFF?)")
endif()
