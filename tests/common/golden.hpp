// Golden files: tests compare what they produce with a reviewed file, and
// CROQ_UPDATE_GOLDEN=1 (exactly "1") rewrites the file instead and skips the
// test (review the diff); any other value, "0" included, compares.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "common/files.hpp"

namespace croq::test {

inline bool update_golden() {
  const char* value = std::getenv("CROQ_UPDATE_GOLDEN");
  return value && std::string(value) == "1";
}

// The golden file's text ("" when it does not exist yet).
inline std::string read_golden(const std::filesystem::path& path) { return read_file(path); }

inline void write_golden(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

}  // namespace croq::test

// Compares `actual` with the golden file `golden_file` (which must exist), or
// rewrites it and skips the test under CROQ_UPDATE_GOLDEN=1.
#define CROQ_EXPECT_GOLDEN(actual, golden_file)                                                                  \
  do {                                                                                                    \
    const std::filesystem::path golden_path_(golden_file);                                                       \
    if (::croq::test::update_golden()) {                                                                  \
      ::croq::test::write_golden(golden_path_, actual);                                                   \
      GTEST_SKIP() << "rewrote " << golden_path_ << " (CROQ_UPDATE_GOLDEN=1): review the diff";            \
    }                                                                                                     \
    ASSERT_TRUE(std::filesystem::exists(golden_path_))                                                    \
        << golden_path_ << " is missing; run with CROQ_UPDATE_GOLDEN=1 to create it";                     \
    EXPECT_EQ(actual, ::croq::test::read_golden(golden_path_))                                            \
        << "differs from " << golden_path_ << "; regenerate with CROQ_UPDATE_GOLDEN=1 and review the diff"; \
  } while (0)
