# cmake -P script behind the subproject_library_only test: configures a tiny project that adds
# boids with add_subdirectory() and links boids::boids, then checks from inside it that the
# library target exists and that no program, test or benchmark target was defined (a host that
# embeds boids gets the library only, unless it asks: BOIDS_BUILD_CLI, BOIDS_BUILD_TESTS, ...).
cmake_minimum_required(VERSION 3.20)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR}/host)
file(WRITE ${WORK_DIR}/host/CMakeLists.txt "cmake_minimum_required(VERSION 3.25)
project(host LANGUAGES C CXX)
add_subdirectory(\"${SOURCE_DIR}\" boids)
if(NOT TARGET boids::boids)
  message(FATAL_ERROR \"boids::boids is missing\")
endif()
foreach(t boids_cli boids_tests boids-bench boids_bench_lib boids-microbench boids_view boids_python)
  if(TARGET \${t})
    message(FATAL_ERROR \"a subproject defined the target \${t}\")
  endif()
endforeach()
add_executable(host_app \"${SOURCE_DIR}/examples/hello.cpp\")
target_link_libraries(host_app PRIVATE boids::boids)
message(STATUS \"subproject: library only\")
")
execute_process(COMMAND ${CMAKE_COMMAND} -S ${WORK_DIR}/host -B ${WORK_DIR}/build
                        -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_C_COMPILER=${C_COMPILER}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring a host project with add_subdirectory(boids) failed:\n${out}\n${err}")
endif()
if(NOT out MATCHES "subproject: library only")
  message(FATAL_ERROR "the host project's checks did not run:\n${out}")
endif()
message(STATUS "subproject: ok")
