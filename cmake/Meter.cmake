# perfgate-meter and libperfgate-memshim.so, beside perfgate (runner/meter/meter.h).
set(PG_METER_SOURCES
  runner/meter/main.c runner/meter/meter_child.c runner/base/region.c runner/base/case.c runner/base/util.c
  runner/base/error.c runner/base/text.c runner/base/model.c runner/base/instrument.c runner/measure/measure.c runner/measure/contention.c runner/stats/stats.c runner/stats/two_sample.c runner/stats/signed_rank.c
  runner/base/testhooks.c runner/plugin/loader.c runner/plugin/host.c)
file(GLOB PG_METER_KERNELS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/runner/kernels/*.c)
add_executable(perfgate-meter ${PG_METER_SOURCES} ${PG_METER_KERNELS})
# No sanitizers here: reset what add_compile_options/add_link_options gave every target.
set_property(TARGET perfgate-meter PROPERTY COMPILE_OPTIONS "")
set_property(TARGET perfgate-meter PROPERTY LINK_OPTIONS "")
target_compile_options(perfgate-meter PRIVATE ${PG_WARNINGS})
target_compile_definitions(perfgate-meter PRIVATE _GNU_SOURCE)
if(PG_TEST_HOOKS)
  target_compile_definitions(perfgate-meter PRIVATE PG_TEST_HOOKS=1)
endif()
target_include_directories(perfgate-meter PRIVATE
  ${CMAKE_SOURCE_DIR}/include ${CMAKE_SOURCE_DIR}/runner ${CMAKE_BINARY_DIR}/generated)
target_link_libraries(perfgate-meter PRIVATE PkgConfig::OPENBLAS PkgConfig::JANSSON
  Threads::Threads ${CMAKE_DL_LIBS} m)
if(PG_HAS_CUDA)
  # GPU plugin cases reach the device through the CUDA module (cmake/CudaModule.cmake).
  target_sources(perfgate-meter PRIVATE runner/backend/cuda_load.c)
  target_link_options(perfgate-meter PRIVATE ${PG_CUDA_EXPORTS})
  target_compile_definitions(perfgate-meter PRIVATE PG_CUDA_MODULE_BUILD_DIR="${CMAKE_BINARY_DIR}")
endif()

add_library(perfgate-memshim SHARED runner/meter/memshim.c)
set_property(TARGET perfgate-memshim PROPERTY COMPILE_OPTIONS "")
set_property(TARGET perfgate-memshim PROPERTY LINK_OPTIONS "")
set_target_properties(perfgate-memshim PROPERTIES OUTPUT_NAME perfgate-memshim
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR} C_VISIBILITY_PRESET hidden)
target_compile_options(perfgate-memshim PRIVATE ${PG_WARNINGS} -fno-builtin)
target_compile_definitions(perfgate-memshim PRIVATE _GNU_SOURCE)
target_include_directories(perfgate-memshim PRIVATE ${CMAKE_SOURCE_DIR}/include ${CMAKE_SOURCE_DIR}/runner)
set_target_properties(perfgate-meter PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
# They are part of perfgate at run time: building perfgate builds them.
add_dependencies(perfgate perfgate-meter perfgate-memshim)
# Tests run from the build tree find perfgate-meter there (runner/meter/programs.c).
set_source_files_properties(${CMAKE_SOURCE_DIR}/runner/meter/programs.c DIRECTORY ${CMAKE_SOURCE_DIR}
  PROPERTIES COMPILE_DEFINITIONS "PG_METER_BUILD_DIR=\"${CMAKE_BINARY_DIR}\"")
