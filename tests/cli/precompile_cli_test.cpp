// croq precompile (signatures from --shape or a file, several archs, no GPU
// needed) and croq compile --explain.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "cli/precompile_command.hpp"
#include "common/croq_command.hpp"

namespace croq::cli {
namespace {

class PrecompileCli : public ::testing::Test {
 protected:
  ProcessResult croq(std::vector<std::string> args, std::map<std::string, std::string> env = {}) {
    args.insert(args.begin(), kCroq);
    env.emplace("CROQ_CACHE_DIR", cache_.str());
    env.emplace("CROQ_CACHE", "");
    env.emplace("CROQ_ARCH", "");
    return run_process(args, env, files_.path());
  }
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = (files_.path() / name).string();
    std::ofstream(path) << text;
    return path;
  }
  TempDir cache_, files_;
};

TEST_F(PrecompileCli, FillsTheCacheAndASecondRunHitsIt) {
  auto r = croq({"precompile", kAdd, "--shape", "M=16", "--shape", "N=32"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("sm_90a    M=16 N=32                     compiled  "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(first call of `add`; not in the disk cache)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 specializations, 0 failed; cache: " + cache_.str()), std::string::npos) << r.out;
  r = croq({"precompile", kAdd, "--shape", "M=16", "--shape", "N=32"});
  EXPECT_NE(r.out.find("sm_90a    M=16 N=32                     disk\n"), std::string::npos) << r.out;
}

// The generated code names the source: the keys are the application's
// only under the name it compiles with.
TEST_F(PrecompileCli, SourceNameMustBeTheApplications) {
  const std::vector<std::string> shapes{"--shape", "M=8", "--shape", "N=8"};
  auto run = [&](std::vector<std::string> extra) {
    std::vector<std::string> args{"precompile", kAdd};
    args.insert(args.end(), shapes.begin(), shapes.end());
    args.insert(args.end(), extra.begin(), extra.end());
    return croq(args);
  };
  EXPECT_NE(run({"--source-name", "<source>"}).out.find(" compiled "), std::string::npos);
  EXPECT_NE(run({"--source-name", "<source>"}).out.find(" disk\n"), std::string::npos);
  EXPECT_NE(run({}).out.find(" compiled "), std::string::npos) << "another name, other keys";
}

TEST_F(PrecompileCli, SignaturesFileAndArchList) {
  const std::string sigs = write("sigs.txt",
                                 "# shapes served in production\n"
                                 "M=16 N=32\n"
                                 "\n"
                                 "M=64   # N from --shape\n");
  auto r = croq({"precompile", kAdd, "--signatures", sigs, "--shape", "N=32", "--arch", "sm_90a,sm_80", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto out = nlohmann::json::parse(r.out);
  EXPECT_EQ(out["failures"], 0);
  const auto& rows = out["specializations"];
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0]["arch"], "sm_90a");
  EXPECT_EQ(rows[0]["shapes"], "M=16 N=32");
  EXPECT_EQ(rows[1]["shapes"], "M=64 N=32");
  EXPECT_EQ(rows[1]["signature"], "f32 [64, 32], f32 [64, 32]");
  EXPECT_EQ(rows[1]["reason"],
            "argument 1 'lhs' dim 0 (M) changed from 16 to 64, argument 2 'rhs' dim 0 (M) changed from 16 to 64; "
            "not in the disk cache");
  EXPECT_EQ(rows[2]["arch"], "sm_80");
  EXPECT_EQ(rows[2]["reason"], "arch changed from sm_90a to sm_80; not in the disk cache");
  for (const auto& row : rows) EXPECT_EQ(row["source"], "compiled");
  std::size_t images = 0;
  for (const auto& f : std::filesystem::directory_iterator(cache_.path())) images += f.path().extension() == ".cubin";
  EXPECT_EQ(images, 4u);
}

TEST_F(PrecompileCli, BadSignatureLinesAreNamedByLine) {
  struct Case {
    std::string text, error;
  };
  const std::vector<Case> cases{
      {"M=16 N=32\nM=16 N=x\n", "sigs.txt:2: expected NAME=POSITIVE_INTEGER, got `N=x`"},
      {"M=16 N=32\n\nM=0 N=4\n", "sigs.txt:3: expected NAME=POSITIVE_INTEGER, got `M=0`"},
      {"M=16 M=32 N=1\n", "sigs.txt:1: M is bound twice"},
      {"M=99999999999999999999 N=1\n", "sigs.txt:1: expected NAME=POSITIVE_INTEGER, got `M=99999999999999999999`"},
      {"# nothing\n\n", "sigs.txt: no signatures (one line of NAME=VALUE dims per signature)"},
      {std::string(5000, 'M') + "=1\n", "sigs.txt:1: line longer than 4096 bytes"},
  };
  for (const Case& c : cases) {
    const std::string sigs = write("sigs.txt", c.text);
    auto r = croq({"precompile", kAdd, "--signatures", sigs});
    EXPECT_EQ(r.exit_code, 2) << c.error;
    EXPECT_NE(r.err.find("croq: " + files_.str() + "/" + c.error), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
  auto typo = croq({"precompile", kAdd, "--shape", "M=16", "--shape", "NN=32"});
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.err.find("precompile: `NN` is not a symbolic dim of `add`"), std::string::npos) << typo.err;
  auto missing = croq({"precompile", kAdd, "--shape", "M=16"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("croq precompile: M=16: parameter 'lhs' has the symbolic dim N; give it with --shape N=N"),
            std::string::npos)
      << missing.err;
  EXPECT_EQ(croq({"precompile", kAdd, "--arch", ","}).exit_code, 2);
  auto bad_arch = croq({"precompile", kAdd, "--shape", "M=1", "--shape", "N=1", "--arch", "sm_90a,sm_1"});
  EXPECT_EQ(bad_arch.exit_code, 1);
  EXPECT_NE(bad_arch.out.find("sm_90a    M=1 N=1"), std::string::npos) << bad_arch.out;
  EXPECT_NE(bad_arch.err.find("croq precompile: sm_1 M=1 N=1: "), std::string::npos) << bad_arch.err;
}

TEST_F(PrecompileCli, CompileExplainSaysWhereAndWhy) {
  auto r = croq({"compile", kAdd, "--shape", "M=16", "--shape", "N=32", "--explain"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("specialization: add(f32 [16, 32], f32 [16, 32]) for sm_90a\n"
                        "source: compiled\n"
                        "reason: first call of `add`; not in the disk cache\n"
                        "time: ",
                        0),
            0u)
      << r.out;
  r = croq({"compile", kAdd, "--shape", "M=16", "--shape", "N=32", "--explain"});
  EXPECT_NE(r.out.find("source: disk\nreason: nothing compiled\n"), std::string::npos) << r.out;
  // With --emit, the explanation goes to standard error.
  r = croq({"compile", kAdd, "--shape", "M=16", "--shape", "N=32", "--explain", "--emit", "cuda"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("extern \"C\" __global__"), std::string::npos);
  EXPECT_NE(r.err.find("source: disk\n"), std::string::npos) << r.err;
}

TEST(SignatureFile, ParsesBindingsAndComments) {
  std::vector<std::map<std::string, std::int64_t>> out;
  std::string error;
  ASSERT_TRUE(parse_signatures("M=1 N=0x10\n  # c\n\tK=3\t# x\n", "f", out, error)) << error;
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], (std::map<std::string, std::int64_t>{{"M", 1}, {"N", 16}}));
  EXPECT_EQ(out[1], (std::map<std::string, std::int64_t>{{"K", 3}}));
}

}  // namespace
}  // namespace croq::cli
