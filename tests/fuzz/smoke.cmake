# Included by tests/CMakeLists.txt. `fuzz_frontend_smoke` builds the libFuzzer
# target with clang in a separate folder and runs it for 60 seconds; it is
# skipped (not failed) when clang++ or libFuzzer is not installed.
find_program(CROQ_BASH bash)
if(CROQ_BASH)
  add_test(NAME fuzz_frontend_smoke
    COMMAND ${CROQ_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/run_smoke.sh
      ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/fuzz_smoke 60)
  set_tests_properties(fuzz_frontend_smoke PROPERTIES LABELS fuzz SKIP_RETURN_CODE 77 TIMEOUT 900)
endif()
