// Every example of the tutorial chapters and language.md (extracted into
// tests/data/frontend/corpus) parses without a diagnostic.
#include "frontend_test_util.hpp"

namespace croq::frontend::testing {
namespace {

TEST(Corpus, EveryExampleParsesCleanly) {
  auto files = files_in(data_dir() / "corpus", ".co");
  ASSERT_GE(files.size(), 10u);
  for (const auto& path : files) {
    SCOPED_TRACE(path.string());
    CompileOptions options;
    options.source_name = path.filename().string();
    auto program = parse_ok(read_file(path), options);
    ASSERT_NE(program, nullptr);
    EXPECT_FALSE(program->functions.empty());
    EXPECT_TRUE(program->warnings.empty());
  }
}

TEST(Corpus, EachChapterHasExamples) {
  // The corpus names say where the examples come from: ch2 = seeds/000,
  // adv = seeds/001, ch3 = seeds/004, language = language.md.
  for (const char* prefix : {"ch2_", "adv_", "ch3_", "language_"}) {
    bool found = false;
    for (const auto& path : files_in(data_dir() / "corpus", ".co"))
      found = found || path.filename().string().rfind(prefix, 0) == 0;
    EXPECT_TRUE(found) << "no corpus file for " << prefix;
  }
}

TEST(Corpus, SeedChaptersAreReadable) {
  // The chapters the corpus was extracted from are where the tests expect them.
  for (const char* seed : {"000_66a4f9526c375981.txt", "001_f1df22a3d441e6fa.txt", "004_a5858e9901a72390.txt"}) {
    std::filesystem::path path = std::filesystem::path(CROQ_SPEC_DIR) / "seeds" / seed;
    if (!std::filesystem::exists(path)) GTEST_SKIP() << "spec folder not present: " << path;
    EXPECT_NE(read_file(path).find("__co__"), std::string::npos) << path;
  }
}

TEST(Corpus, BenchmarkInputParses) {
  std::string text = read_file(data_dir() / "bench_200_lines.co");
  EXPECT_GE(std::count(text.begin(), text.end(), '\n'), 190);
  auto program = parse_ok(text);
  ASSERT_NE(program, nullptr);
  EXPECT_GE(program->functions.size(), 4u);
}

}  // namespace
}  // namespace croq::frontend::testing
