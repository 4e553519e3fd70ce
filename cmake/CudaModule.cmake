# libperfgate-cuda.so: the CUDA backend's device code (runner/backend/*.cu)
# with the CUDA runtime and cuBLAS, opened by runner/backend/cuda_load.c at the
# first GPU call. It resolves pg_error_set(), pg_error_last() and
# pg__instrument against the program that loads it, so every program linking
# perfgate_core exports those three (PG_CUDA_EXPORTS) and nothing else.
file(GLOB_RECURSE PG_CUDA_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/runner/*.cu)
add_library(perfgate-cuda MODULE ${PG_CUDA_SOURCES})
set_target_properties(perfgate-cuda PROPERTIES OUTPUT_NAME perfgate-cuda PREFIX lib
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR} CUDA_ARCHITECTURES "80;90"
  CUDA_VISIBILITY_PRESET hidden CXX_VISIBILITY_PRESET hidden)
# nvcc takes no -fsanitize: the module is plain, as the CUDA objects always were.
set_property(TARGET perfgate-cuda PROPERTY LINK_OPTIONS "")
target_include_directories(perfgate-cuda PRIVATE
  ${CMAKE_SOURCE_DIR}/include ${CMAKE_SOURCE_DIR}/runner ${CMAKE_BINARY_DIR}/generated)
target_compile_definitions(perfgate-cuda PRIVATE _GNU_SOURCE)
target_compile_options(perfgate-cuda PRIVATE
  "-Xcompiler=-Wall,-Wextra;$<$<BOOL:${PG_WERROR}>:-Werror=all-warnings>")
target_link_libraries(perfgate-cuda PRIVATE CUDA::cudart CUDA::cublas ${CMAKE_DL_LIBS})

set(PG_CUDA_EXPORTS "-Wl,--dynamic-list=${CMAKE_SOURCE_DIR}/cmake/cuda_exports.list")
target_link_options(perfgate_core INTERFACE ${PG_CUDA_EXPORTS})
target_compile_definitions(perfgate_core PRIVATE PG_CUDA_MODULE_BUILD_DIR="${CMAKE_BINARY_DIR}")
# Whatever links the library can load the module: build it first.
add_dependencies(perfgate_core perfgate-cuda)
