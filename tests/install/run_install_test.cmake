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
          ${LIBDIR}/cmake/boids/boidsConfig.cmake ${LIBDIR}/cmake/boids/boidsConfigVersion.cmake
          ${LIBDIR}/pkgconfig/boids.pc bin/boids)
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

# 4. Python ctypes + numpy on the installed shared library.
if(SHARED_LIB)
  run("Python example (ctypes, numpy)" ${CMAKE_COMMAND} -E env BOIDS_LIBRARY=${libdir}/${SHARED_LIB}
      /usr/bin/python3 ${SOURCE_DIR}/examples/numpy_view.py)
  expect_output("\\(python\\): 2000 boids.*zero-copy float32")
else()
  message(FATAL_ERROR "no shared library was built for the Python example (BOIDS_ALSO_SHARED=OFF?)")
endif()
