# Included by tests/CMakeLists.txt. `fuzz_frontend_smoke` and
# `fuzz_compiler_smoke` build their libFuzzer target with clang in a shared
# folder (one at a time: RESOURCE_LOCK) and run it for 60 seconds; they are
# skipped (not failed) when clang++, libFuzzer or the target's dependencies
# are not installed.
find_program(CROQ_BASH bash)
if(CROQ_BASH)
  foreach(fuzzer frontend compiler)
    add_test(NAME fuzz_${fuzzer}_smoke
      COMMAND ${CROQ_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/run_smoke.sh
        ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/fuzz_smoke 60 croq_${fuzzer}_fuzzer)
    set_tests_properties(fuzz_${fuzzer}_smoke PROPERTIES
      LABELS fuzz SKIP_RETURN_CODE 77 TIMEOUT 900 RESOURCE_LOCK croq_fuzz_build)
  endforeach()
endif()
