// What the tests of the croq command share: where it is, the small program
// they compile (tests/data/cli/add.co), and the process helpers, by the
// names the CLI tests use (namespace croq::cli).
#pragma once

#include <string>

#include "common/files.hpp"
#include "common/process.hpp"

namespace croq::test {

inline const std::string kCroq = CROQ_BINARY_DIR "/croq";
inline const std::string kAdd = CROQ_TEST_DATA_DIR "/cli/add.co";

}  // namespace croq::test

namespace croq::cli {

using croq::test::kAdd;
using croq::test::kCroq;
using croq::test::ProcessResult;
using croq::test::run_process;
using croq::test::TempDir;

// `text` as the file `name` in `dir`; its path.
inline std::string write(const TempDir& dir, const std::string& name, const std::string& text) {
  return croq::test::write_file(dir.path(), name, text);
}

}  // namespace croq::cli
