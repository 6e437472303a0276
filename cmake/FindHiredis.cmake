# Finds hiredis (Debian libhiredis-dev). Its own HiredisConfig.cmake (0.14)
# defines no target and fails without a version request, so this module
# looks for the header and library and makes Hiredis::hiredis.
find_path(HIREDIS_INCLUDE_DIR hiredis/hiredis.h)
find_library(HIREDIS_LIBRARY NAMES hiredis)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Hiredis REQUIRED_VARS HIREDIS_LIBRARY HIREDIS_INCLUDE_DIR)
if(Hiredis_FOUND AND NOT TARGET Hiredis::hiredis)
  add_library(Hiredis::hiredis UNKNOWN IMPORTED)
  set_target_properties(Hiredis::hiredis PROPERTIES
    IMPORTED_LOCATION "${HIREDIS_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${HIREDIS_INCLUDE_DIR}")
endif()
