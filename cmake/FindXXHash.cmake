# Finds xxHash. Debian's libxxhash-dev ships no CMake config; we only need
# the header (XXH_INLINE_ALL), so the GPU machine can carry just headers.
find_path(XXHASH_INCLUDE_DIR xxhash.h)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(XXHash REQUIRED_VARS XXHASH_INCLUDE_DIR)
if(XXHash_FOUND AND NOT TARGET XXHash::XXHash)
  add_library(XXHash::XXHash INTERFACE IMPORTED)
  set_target_properties(XXHash::XXHash PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${XXHASH_INCLUDE_DIR}"
    INTERFACE_COMPILE_DEFINITIONS "XXH_INLINE_ALL")
endif()
