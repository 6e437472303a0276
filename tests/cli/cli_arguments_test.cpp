// The croq command's arguments as issue 30 found them: a flag without its
// value, `-` for standard input, flags given twice, an output that is the
// input, octal defines, architectures NVRTC refuses, messages that showed
// the AST instead of the source, and the shared memory of a static kernel.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/croq_command.hpp"
#include "croq/croq.hpp"

namespace croq::cli {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

ProcessResult shell(const std::string& command, const TempDir& dir) {
  return run_process({"/bin/sh", "-c", command}, {}, dir.path());
}

TEST(CroqArguments, AFlagWithoutItsValueSaysSo) {
  TempDir dir;
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {kCroq, "host", kAdd, "-o"}, {kCroq, "compile", kAdd, "-o"}, {kCroq, "compile", kAdd, "--emit"}}) {
    auto r = run_process(args, {}, dir.path());
    EXPECT_EQ(r.exit_code, 2) << args.back();
    EXPECT_NE(r.err.find("croq: " + args.back() + " needs a value"), std::string::npos) << r.err;
  }
}

TEST(CroqArguments, DashReadsStandardInput) {
  TempDir dir;
  auto compile = shell(kCroq + " compile - --shape M=4 --shape N=4 < " + kAdd, dir);
  EXPECT_EQ(compile.exit_code, 0) << compile.err;
  EXPECT_NE(compile.out.find("__global__"), std::string::npos) << compile.out;
  EXPECT_NE(compile.out.find("\"<stdin>\""), std::string::npos) << compile.out;  // the #line name
  auto run = shell(kCroq + " run - --random 1 --shape M=4 --shape N=4 < " + kAdd, dir);
  EXPECT_EQ(run.err.find("unexpected argument"), std::string::npos) << run.err;
  std::string why;
  if (!cuda_available(&why)) {
    EXPECT_EQ(run.exit_code, 1);
    EXPECT_NE(run.err.find("croq run: running a kernel needs a CUDA GPU"), std::string::npos) << run.err;
  }
}

TEST(CroqArguments, AFlagGivenTwiceIsAnError) {
  TempDir dir;
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"compile", kAdd, "--shape", "M=4", "--shape", "N=4", "--shape", "M=8"},
       "--shape M is given twice (M=4 and M=8); give it once"},
      {{"compile", kAdd, "--shape", "M=4", "--shape", "N=4", "--emit", "cuda", "--emit", "ir"},
       "--emit is given twice (`cuda` and `ir`); give it once"},
      {{"compile", kAdd, "--shape", "M=4", "--shape", "N=4", "-o", "a.cu", "-o", "b.cu"},
       "-o is given twice (`a.cu` and `b.cu`); give it once"},
      {{"compile", kAdd, "--arch", "sm_80", "--arch", "sm_90a"}, "--arch is given twice (`sm_80` and `sm_90a`); give it once"},
      {{"check", kAdd, "--define", "T=1", "--define", "T=2"}, "--define T is given twice; give it once"},
      {{"host", kAdd, "-o", "a.cpp", "-o", "b.cpp"}, "-o is given twice (`a.cpp` and `b.cpp`); give it once"},
  };
  for (const auto& [args, message] : cases) {
    std::vector<std::string> argv{kCroq};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = run_process(argv, {}, dir.path());
    EXPECT_EQ(r.exit_code, 2) << message;
    EXPECT_NE(r.err.find("croq: " + message), std::string::npos) << r.err;
  }
}

TEST(CroqArguments, TheOutputIsNeverTheInput) {
  TempDir dir;
  const std::string source = write(dir, "in.co", slurp(kAdd));
  std::filesystem::create_symlink(source, dir.path() / "link.co");
  for (const std::string& output :
       {source, (dir.path() / "." / "in.co").string(), (dir.path() / "link.co").string()}) {
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {kCroq, "compile", source, "--shape", "M=4", "--shape", "N=4", "-o", output},
             {kCroq, "host", source, "-o", output}}) {
      auto r = run_process(args, {}, dir.path());
      EXPECT_EQ(r.exit_code, 2) << args[1] << " " << output;
      EXPECT_NE(r.err.find("is the input file; refusing to overwrite it (choose another -o)"), std::string::npos)
          << r.err;
      EXPECT_EQ(slurp(source), slurp(kAdd));
    }
  }
}

// `--define T=010` reads the literal as `#define T 010` does: 8.
TEST(CroqArguments, DefineValuesAreLiteralsAsTheSourceWritesThem) {
  TempDir dir;
  const std::string kernel = "__co__ void f(s32 [T] x) {\n  parallel i by T\n    x.at(i) = 1;\n}\n";
  const std::string from_option = write(dir, "option.co", kernel);
  const std::string from_source = write(dir, "source.co", "#define T 010\n" + kernel);
  auto option = run_process({kCroq, "compile", from_option, "--define", "T=010", "--emit", "ir"}, {}, dir.path());
  auto source = run_process({kCroq, "compile", from_source, "--emit", "ir"}, {}, dir.path());
  ASSERT_EQ(option.exit_code, 0) << option.err;
  ASSERT_EQ(source.exit_code, 0) << source.err;
  EXPECT_NE(option.out.find("buffer arg_x: global s32 [8]\n"), std::string::npos) << option.out;
  EXPECT_NE(source.out.find("buffer arg_x: global s32 [8]\n"), std::string::npos) << source.out;
  for (const auto& [spec, value] : std::vector<std::pair<std::string, std::string>>{
           {"T=0x10", "16"}, {"T=0b101", "5"}, {"T=1'000", "1000"}, {"T=7u", "7"}, {"T=+012", "10"}}) {
    auto r = run_process({kCroq, "compile", from_option, "--define", spec, "--emit", "ir"}, {}, dir.path());
    EXPECT_EQ(r.exit_code, 0) << spec << ": " << r.err;
    EXPECT_NE(r.out.find("s32 [" + value + "]"), std::string::npos) << spec << ": " << r.out;
  }
  auto bad = run_process({kCroq, "check", from_option, "--define", "T=08"}, {}, dir.path());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--define T: `08` is no octal number: a leading 0 makes the digits octal, as in `#define`"),
            std::string::npos)
      << bad.err;
}

TEST(CroqArguments, ArchitecturesNvrtcRefusesAreRefusedFirst) {
  TempDir dir;
  auto check = run_process({kCroq, "check", kAdd, "--arch", "sm_1000"}, {}, dir.path());
  EXPECT_EQ(check.exit_code, 1);
  EXPECT_NE(check.err.find("unsupported architecture `sm_1000`: NVRTC"), std::string::npos) << check.err;
  auto family = run_process({kCroq, "check", kAdd, "--arch", "sm_90f"}, {}, dir.path());
  EXPECT_EQ(family.exit_code, 1);
  EXPECT_NE(family.err.find("unsupported architecture `sm_90f`: the `f` (family) suffix needs sm_100 or newer"),
            std::string::npos)
      << family.err;
  EXPECT_NE(family.err.find("hint: use `sm_90` or `sm_90a`"), std::string::npos) << family.err;
  auto env = run_process({kCroq, "compile", kAdd, "--shape", "M=4", "--shape", "N=4"}, {{"CROQ_ARCH", "sm_90f"}},
                         dir.path());
  EXPECT_EQ(env.exit_code, 1);
  EXPECT_NE(env.err.find("CROQ_ARCH=sm_90f: unsupported architecture `sm_90f`"), std::string::npos) << env.err;
  EXPECT_EQ(env.err.find("Command-line error"), std::string::npos) << env.err;  // NVRTC's own words
  auto arch_specific = run_process({kCroq, "check", kAdd, "--arch", "sm_80a"}, {}, dir.path());
  EXPECT_NE(arch_specific.err.find("the `a` (arch-specific) suffix needs sm_90 or newer"), std::string::npos)
      << arch_specific.err;
  for (const char* fine : {"sm_90a", "sm_100f", "compute_90a", "sm_80"}) {
    auto r = run_process({kCroq, "check", kAdd, "--arch", fine}, {}, dir.path());
    EXPECT_EQ(r.exit_code, 0) << fine << ": " << r.err;
  }
}

TEST(CroqArguments, MessagesShowDimsAsWritten) {
  TempDir dir;
  const std::string path = write(dir, "dim.co",
                                 "__co__ void f(s32 [q + 1] x, s32 [q] y) {\n  parallel i by q\n    y.at(i) = 1;\n}\n");
  auto r = run_process({kCroq, "compile", path, "--shape", "q=4"}, {}, dir.path());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "parameter 'x': dim `q + 1` cannot be sized from the command line\n");
}

TEST(CroqArguments, CoDeviceHelpersAreNoEntryCandidates) {
  TempDir dir;
  const std::string path = write(dir, "helper.co",
                                 "__co_device__ void helper(s32 [8] x) {\n  x.at(0) = 1;\n}\n"
                                 "__co__ void f(s32 [8] x) {\n  parallel i by 8\n    x.at(i) = 1;\n}\n");
  auto r = run_process({kCroq, "compile", path}, {}, dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("croq_f("), std::string::npos) << r.out;
  auto named = run_process({kCroq, "compile", path, "--entry", "helper"}, {}, dir.path());
  EXPECT_EQ(named.exit_code, 1);
  EXPECT_NE(named.err.find("`helper` is a __co_device__ helper, not a kernel; the source defines `f`"),
            std::string::npos)
      << named.err;
}

// A static kernel whose shared tiles exceed the target: refused by `croq
// check --arch` at the declaration, and at the declaration when compiled.
TEST(CroqArguments, SharedMemoryPastTheTargetIsFoundAtTheDeclaration) {
  TempDir dir;
  const std::string path = write(dir, "smem.co",
                                 "__co__ void f(f32 [64] x) {\n"
                                 "  parallel b by 1 : block {\n"
                                 "    shared f32 [256, 256] tile;\n"
                                 "    parallel t by 64 : thread\n"
                                 "      x.at(t) = 1;\n"
                                 "  }\n"
                                 "}\n");
  auto check = run_process({kCroq, "check", path, "--arch", "sm_90a"}, {}, dir.path());
  EXPECT_EQ(check.exit_code, 1);
  EXPECT_NE(check.err.find(path + ":3:27: error: `tile` (f32, 262144 bytes) brings the shared memory this kernel "
                                  "declares to 262144 bytes; sm_90a allows 232448 per block [shared-memory-limit]"),
            std::string::npos)
      << check.err;
  auto compile = run_process({kCroq, "compile", path}, {{"CROQ_ARCH", "sm_90a"}}, dir.path());
  EXPECT_EQ(compile.exit_code, 1);
  EXPECT_NE(compile.err.find(path + ":3:"), std::string::npos) << compile.err;
}

}  // namespace
}  // namespace croq::cli
