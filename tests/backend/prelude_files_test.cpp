// The device prelude's files as the library embeds them
// (backend/cuda/prelude_files.hpp): every file of src/backend/cuda/prelude/
// is embedded, include-guarded, without its opening comment and its
// includes of sibling files; the generated code goes into the marked line;
// a missing file or marker is a fault of the library, said as such. (That
// each file compiles alone is the ctest prelude_header_<file>_<arch>.)
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <string>

#include "backend/cuda/prelude_files.hpp"
#include "common/files.hpp"

namespace croq::backend::cuda {
namespace {

const std::filesystem::path kPreludeDir = std::filesystem::path(CROQ_SAMPLES_DIR) / ".." / "src" / "backend" / "cuda" / "prelude";

TEST(PreludeFiles, EveryFileIsEmbeddedOnce) {
  std::set<std::string> on_disk, embedded;
  for (const auto& entry : std::filesystem::directory_iterator(kPreludeDir))
    if (entry.path().extension() == ".cuh") on_disk.insert(entry.path().filename().string());
  for (const PreludeFile& file : prelude_files()) EXPECT_TRUE(embedded.insert(std::string(file.name)).second) << file.name;
  EXPECT_EQ(embedded, on_disk);
  EXPECT_GE(on_disk.size(), 12u);
}

TEST(PreludeFiles, EmbeddedTextIsTheFileLessItsOpeningCommentAndSiblingIncludes) {
  for (const PreludeFile& file : prelude_files()) {
    const std::string source = croq::test::read_file(kPreludeDir / std::string(file.name));
    ASSERT_TRUE(source.starts_with("// ")) << file.name << " opens with a comment saying what it holds";
    EXPECT_FALSE(file.text.starts_with("//")) << file.name;
    EXPECT_EQ(file.text.find("#include \""), std::string_view::npos) << file.name;
    // Every embedded line is a line of the file, in order.
    std::size_t at = 0;
    for (std::size_t begin = 0; begin < file.text.size();) {
      const std::size_t end = file.text.find('\n', begin) + 1;
      const std::string_view line = file.text.substr(begin, end - begin);
      at = source.find(line, at);
      ASSERT_NE(at, std::string::npos) << file.name << ": " << line;
      at += line.size();
      begin = end;
    }
    // The include guard spans the whole text.
    const std::string guard = "CROQ_PRELUDE_" + std::string(file.name.substr(0, file.name.size() - 4)) + "_CUH";
    std::string upper = guard;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_TRUE(file.text.starts_with("#ifndef " + upper + "\n#define " + upper + "\n")) << file.name;
    EXPECT_TRUE(file.text.ends_with("#endif  // " + upper + "\n")) << file.name;
  }
}

TEST(PreludeFiles, GeneratedCodeReplacesTheMarkedLine) {
  const std::string text = prelude_with("hopper_fp8.cuh", "wgmma_fp8_ss", "// GENERATED\n");
  EXPECT_NE(text.find("};\n// GENERATED\n}  // namespace detail\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("croq-prelude: generated"), std::string::npos);
  EXPECT_EQ(text.size(), prelude_file("hopper_fp8.cuh").size() - std::string("// croq-prelude: generated wgmma_fp8_ss\n").size() +
                             std::string("// GENERATED\n").size());
}

TEST(PreludeFiles, AMissingFileOrMarkerIsAFaultOfTheLibrary) {
  try {
    prelude_file("nonexistent.cuh");
    ADD_FAILURE() << "no exception";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "device prelude file nonexistent.cuh is not embedded in this build");
  }
  try {
    prelude_with("subbyte.cuh", "wgmma_ss", "x");
    ADD_FAILURE() << "no exception";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "device prelude file subbyte.cuh has no line for generated wgmma_ss");
  }
}

}  // namespace
}  // namespace croq::backend::cuda
