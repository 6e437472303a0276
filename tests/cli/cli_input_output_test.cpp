// The croq command's input files and outputs: sizes, directories, full disks,
// define values, huge names. Nothing may crash, hang, or report success
// with an output that was not written.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "cli/npy.hpp"
#include "common/croq_command.hpp"
#include "croq/croq.hpp"

namespace croq::cli {
namespace {

ProcessResult shell(const std::string& command, const TempDir& dir) {
  return run_process({"/bin/sh", "-c", command}, {}, dir.path());
}

void require_dev_full() {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
}

TEST(CroqInput, EndlessInputStopsAtTheSourceLimit) {
  TempDir dir;
  auto start = std::chrono::steady_clock::now();
  for (const std::string& command : {"check", "compile"}) {
    auto r = run_process({kCroq, command, "/dev/zero"}, {}, dir.path());
    EXPECT_EQ(r.exit_code, 2) << command;
    EXPECT_NE(r.err.find("`/dev/zero` is larger than 16,777,216 bytes (16 MiB), the limit on Croqtile sources"),
              std::string::npos)
        << r.err;
  }
  auto piped = shell(kCroq + " check - < /dev/zero", dir);
  EXPECT_EQ(piped.exit_code, 2);
  EXPECT_NE(piped.err.find("standard input is larger than 16,777,216 bytes"), std::string::npos) << piped.err;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10.0);
}

TEST(CroqInput, DirectoriesAreNotSources) {
  TempDir dir;
  for (const std::string& command : {"check", "compile", "run"}) {
    auto r = run_process({kCroq, command, dir.str()}, {}, dir.path());
    EXPECT_EQ(r.exit_code, 2) << command << ": " << r.out;
    EXPECT_NE(r.err.find("`" + dir.str() + "` is a directory, not a file"), std::string::npos) << command << r.err;
  }
  auto arg = run_process({kCroq, "run", kAdd, "--arg", "lhs=" + dir.str(), "--random", "1", "--shape", "M=4",
                          "--shape", "N=4"},
                         {}, dir.path());
  EXPECT_EQ(arg.exit_code, 1);
  EXPECT_NE(arg.err.find("`" + dir.str() + "` is a directory, not a file"), std::string::npos) << arg.err;
}

TEST(CroqInput, DefineValuesMustBeFiniteNumbers) {
  TempDir dir;
  const std::pair<std::string, std::string> cases[] = {
      {"X=inf", "--define X: `inf` is not a number"},
      {"X=nan", "--define X: `nan` is not a number"},
      {"X=1e999", "--define X: `1e999` is out of range for double"},
      {"X=1e39f", "--define X: `1e39f` is out of range for float"},
      {"X=1.5_trap", "--define X: `1.5_trap` is not a number"},
      {"X=0x", "--define X: integer literal `0x` has the unknown suffix `x`"},  // as `#define X 0x` reads
      {"X=08", "--define X: `08` is no octal number: a leading 0 makes the digits octal, as in `#define`"},
      {"X=", "--define X: the value is empty"},
      {"X=99999999999999999999", "--define X: `99999999999999999999` does not fit in a 64-bit signed integer"},
      {"1X=3", "--define: `1X` is not a name"},
  };
  for (const auto& [spec, message] : cases) {
    for (const std::string& command : {"check", "compile"}) {
      auto r = run_process({kCroq, command, kAdd, "--define", spec}, {}, dir.path());
      EXPECT_EQ(r.exit_code, 2) << command << " " << spec;
      EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    }
  }
  for (const std::string& fine : {"X=-12", "X=0x7fffffffffffffff", "X=1.5", "X=-2.5e-3f", "X=.5", "X"}) {
    auto r = run_process({kCroq, "check", kAdd, "--define", fine}, {}, dir.path());
    EXPECT_EQ(r.exit_code, 0) << fine << ": " << r.err;
  }
  auto shape = run_process({kCroq, "compile", kAdd, "--shape", "M=99999999999999999999"}, {}, dir.path());
  EXPECT_EQ(shape.exit_code, 2);
  EXPECT_NE(shape.err.find("--shape M: `99999999999999999999` does not fit in a 64-bit signed integer"),
            std::string::npos)
      << shape.err;
}

TEST(CroqOutput, AFullDiskIsAnError) {
  require_dev_full();
  TempDir dir;
  auto file = run_process({kCroq, "compile", kAdd, "--shape", "M=4", "--shape", "N=4", "-o", "/dev/full"}, {},
                          dir.path());
  EXPECT_EQ(file.exit_code, 1);
  EXPECT_NE(file.err.find("croq compile: cannot write `/dev/full`: No space left on device"), std::string::npos)
      << file.err;
  auto stdout_full = shell(kCroq + " compile " + kAdd + " --shape M=4 --shape N=4 > /dev/full", dir);
  EXPECT_EQ(stdout_full.exit_code, 1);
  EXPECT_NE(stdout_full.err.find("croq compile: cannot write to standard output"),
            std::string::npos)
      << stdout_full.err;
  auto check_full = shell(kCroq + " check " + kAdd + " > /dev/full", dir);
  EXPECT_EQ(check_full.exit_code, 1);
  EXPECT_NE(check_full.err.find("cannot write to standard output"), std::string::npos) << check_full.err;
}

TEST(CroqOutput, AnUnwritablePathIsAnErrorAndLeavesNoFile) {
  TempDir dir;
  std::string missing = (dir.path() / "no" / "such" / "out.cu").string();
  auto r = run_process({kCroq, "compile", kAdd, "--shape", "M=4", "--shape", "N=4", "-o", missing}, {}, dir.path());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot write `" + missing + "`: No such file or directory"), std::string::npos) << r.err;
}

TEST(CroqOutput, NpyWritesAreChecked) {
  require_dev_full();
  Tensor t = Tensor::empty(DType::f32, Shape{64, 64}, MemoryKind::host);
  try {
    write_npy("/dev/full", t);
    FAIL() << "writing to /dev/full succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot write `/dev/full`: No space left on device");
  }
}

// A .npy header claiming `shape_text`, followed by `data_bytes` zero bytes.
std::string write_npy_header(const TempDir& dir, const std::string& shape_text, std::size_t data_bytes) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape_text + ", }";
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string path = (dir.path() / "claim.npy").string();
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  out.put(static_cast<char>(header.size() & 0xff));
  out.put(static_cast<char>(header.size() >> 8));
  out << header << std::string(data_bytes, '\0');
  return path;
}

TEST(CroqInput, NpyHeadersCannotClaimMoreThanTheFileHolds) {
  TempDir dir;
  const std::pair<std::string, std::string> cases[] = {
      {"(100000000000, 100000000000)", "shape (100000000000, 100000000000) has more bytes than fit in 64 bits"},
      {"(123456789012345678901234567890,)", "malformed shape (123456789012345678901234567890,)"},
      {"(1000000000000,)", "data ends before 4000000000000 bytes of f32 [1000000000000]"},
  };
  for (const auto& [shape, message] : cases) {
    std::string path = write_npy_header(dir, shape, 16);
    try {
      read_npy(path);
      FAIL() << shape;
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), path + ": not a readable .npy file: " + message);
    }
  }
  std::string fine = write_npy_header(dir, "(2, 2)", 16);
  EXPECT_EQ(read_npy(fine).shape(), (Shape{2, 2}));
}

TEST(CroqOutput, ErrorsAboutHugeNamesStaySmall) {
  TempDir dir;
  std::string source;
  for (int i = 0; i < 10000; ++i) source += "__co__ void f" + std::to_string(i) + "() { }\n";
  source += "__co__ void " + std::string(2 << 20, 'a') + "(int n) {\n  n = 1 " + std::string(2 << 20, 'b') + ";\n}\n";
  std::string path = (dir.path() / "huge.co").string();
  std::ofstream(path) << source;
  auto check = run_process({kCroq, "check", path}, {}, dir.path());
  EXPECT_EQ(check.exit_code, 1);
  EXPECT_LT(check.err.size(), 4000u) << check.err.substr(0, 4000);
  EXPECT_NE(check.err.find("expected `;`"), std::string::npos) << check.err.substr(0, 4000);
  std::ofstream(path, std::ios::trunc) << source.substr(0, source.find("__co__ void aaa"));
  auto entry = run_process({kCroq, "check", path, "--entry", "nope"}, {}, dir.path());
  EXPECT_EQ(entry.exit_code, 1);
  EXPECT_LT(entry.err.size(), 1000u) << entry.err.substr(0, 4000);
  EXPECT_NE(entry.err.find("`f9` and 9,990 more"), std::string::npos) << entry.err;
}

}  // namespace
}  // namespace croq::cli
