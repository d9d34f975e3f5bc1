# Installation and packaging of boids::boids:
#   <prefix>/include/boids/*.h[pp]          public headers (no TBB, xsimd, glm, toml++ types)
#   <prefix>/lib/libboids.a                 the static library
#   <prefix>/lib/libboids.so.0.1            the shared library (SONAME libboids.so.0.1)
#   <prefix>/lib/cmake/boids/               boidsConfig.cmake + version file + targets
#   <prefix>/lib/pkgconfig/boids.pc         pkg-config: the shared library
#   <prefix>/lib/pkgconfig/boids-static.pc  pkg-config: the static library and its deps
#   <prefix>/bin/boids                      the command-line program
# Both libraries are offered the same way by both tools (docs/architecture.md, "Packaging"):
# CMake's boids::boids is the shared one (boids::boids_static / boids::boids_shared name each;
# BOIDS_USE_STATIC_LIBS=ON before find_package picks the static one), pkg-config's boids is the
# shared one and boids-static the static one. A static build (the default) makes libboids.so
# from the same objects (BOIDS_ALSO_SHARED); a BUILD_SHARED_LIBS build has no static library.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

option(BOIDS_ALSO_SHARED "With a static libboids, also build and install libboids.so" ON)

get_target_property(_boids_type boids TYPE)
set_target_properties(boids PROPERTIES VERSION ${PROJECT_VERSION}
                                       SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})

# A static library carries its private link items into the export as $<LINK_ONLY:...>. Items
# that exist only at build time (our warning/sanitizer flags, header-only xsimd) must not reach
# the installed package, whichever CMakeLists linked them; wrap any such item in BUILD_INTERFACE.
get_target_property(_boids_iface boids INTERFACE_LINK_LIBRARIES)
if(_boids_iface)
  set(_boids_clean "")
  foreach(_item IN LISTS _boids_iface)
    if(_item MATCHES "^\\$<LINK_ONLY:(boids_build_flags|xsimd|Catch2::Catch2)>$")
      set(_item "$<LINK_ONLY:$<BUILD_INTERFACE:${CMAKE_MATCH_1}>>")
    endif()
    list(APPEND _boids_clean "${_item}")
  endforeach()
  set_property(TARGET boids PROPERTY INTERFACE_LINK_LIBRARIES "${_boids_clean}")
endif()

set(BOIDS_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/boids)
if(_boids_type STREQUAL "STATIC_LIBRARY")
  set_target_properties(boids PROPERTIES EXPORT_NAME boids_static)
else()
  set_target_properties(boids PROPERTIES EXPORT_NAME boids_shared)
endif()
install(TARGETS boids EXPORT boidsTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# boids/recording.hpp and boids/h5md.hpp are implemented in boids_io (HDF5), which is not
# installed: not their headers.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/boids DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h" PATTERN "*.hpp" PATTERN "recording.hpp" EXCLUDE
        PATTERN "h5md.hpp" EXCLUDE)
install(FILES ${PROJECT_BINARY_DIR}/include/boids/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/boids)

set(BOIDS_STATIC_LIBRARY OFF)
if(_boids_type STREQUAL "STATIC_LIBRARY")
  set(BOIDS_STATIC_LIBRARY ON)
endif()
# The shared companion of a static build: the same (position-independent, hidden-visibility)
# objects, linked once more; exported as boids::boids_shared.
if(BOIDS_STATIC_LIBRARY AND BOIDS_ALSO_SHARED)
  add_library(boids_shared SHARED $<TARGET_OBJECTS:boids>)
  set_target_properties(boids_shared PROPERTIES
    OUTPUT_NAME boids EXPORT_NAME boids_shared VERSION ${PROJECT_VERSION}
    SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
    LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/shared)
  target_include_directories(boids_shared INTERFACE
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_compile_features(boids_shared INTERFACE cxx_std_20)
  target_link_libraries(boids_shared PRIVATE boids_build_flags TBB::tbb tomlplusplus::tomlplusplus)
  install(TARGETS boids_shared EXPORT boidsTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
install(EXPORT boidsTargets NAMESPACE boids:: DESTINATION ${BOIDS_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/boidsConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/boidsConfig.cmake
                              INSTALL_DESTINATION ${BOIDS_CMAKE_DIR})
# 0.x: a minor release may change the API, so 0.1 accepts 0.1.x only.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/boidsConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/boidsConfig.cmake ${PROJECT_BINARY_DIR}/boidsConfigVersion.cmake
        DESTINATION ${BOIDS_CMAKE_DIR})

# pkg-config: prefix relative to the .pc file, so `cmake --install --prefix` anywhere works.
file(RELATIVE_PATH BOIDS_PC_PREFIX "/root/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/root")
string(REGEX REPLACE "/$" "" BOIDS_PC_PREFIX "${BOIDS_PC_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/boids.pc.in ${PROJECT_BINARY_DIR}/boids.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/boids.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(BOIDS_STATIC_LIBRARY)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/boids-static.pc.in ${PROJECT_BINARY_DIR}/boids-static.pc
                 @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/boids-static.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()

if(TARGET boids_cli)
  # Relocatable: the installed program finds a shared libboids beside it in ../lib.
  file(RELATIVE_PATH _boids_bin_to_lib "/root/${CMAKE_INSTALL_BINDIR}"
       "/root/${CMAKE_INSTALL_LIBDIR}")
  set_target_properties(boids_cli PROPERTIES INSTALL_RPATH "$ORIGIN/${_boids_bin_to_lib}")
  install(TARGETS boids_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()


if(BOIDS_BUILD_TESTS AND NOT BOIDS_SANITIZE)
  add_subdirectory(${PROJECT_SOURCE_DIR}/tests/install ${PROJECT_BINARY_DIR}/tests/install)
endif()
