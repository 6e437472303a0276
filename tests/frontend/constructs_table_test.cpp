// Keeps tests/frontend/CONSTRUCTS.md honest: every parser test, golden
// file, golden snippet, negative case and exact message the table names
// exists where the table says (the message after its case's name).
#include <map>
#include <regex>
#include <set>

#include "frontend_test_util.hpp"

namespace croq::frontend::testing {
namespace {

const std::filesystem::path kTests = std::filesystem::path(CROQ_TEST_DATA_DIR).parent_path();

struct Row {
  int line = 0;
  std::vector<std::string> cells;  // construct, parser test, golden, negative test, message
};

// `a \| b` in a table cell is `a | b`.
std::string unescape_bars(std::string s) {
  for (std::size_t at = s.find("\\|"); at != std::string::npos; at = s.find("\\|", at)) s.erase(at, 1);
  return s;
}

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

// The body rows of every table of the document.
std::vector<Row> table_rows() {
  std::vector<Row> rows;
  std::istringstream in(read_file(kTests / "frontend" / "CONSTRUCTS.md"));
  std::string text;
  for (int line = 1; std::getline(in, text); ++line) {
    if (text.rfind("|", 0) != 0) continue;
    Row row{line, {}};
    std::string cell;
    for (std::size_t i = 1; i < text.size(); ++i) {
      if (text[i] == '|' && text[i - 1] != '\\') {
        row.cells.push_back(trim(cell));
        cell.clear();
      } else {
        cell += text[i];
      }
    }
    if (row.cells.empty() || row.cells[0] == "Construct" || row.cells[0].rfind("---", 0) == 0) continue;
    rows.push_back(std::move(row));
  }
  return rows;
}

// The `code spans` of a cell, unescaped.
std::vector<std::string> code_spans(const std::string& cell) {
  std::vector<std::string> spans;
  for (std::size_t open = cell.find('`'); open != std::string::npos; open = cell.find('`', open)) {
    const std::size_t close = cell.find('`', open + 1);
    if (close == std::string::npos) break;
    spans.push_back(unescape_bars(cell.substr(open + 1, close - open - 1)));
    open = close + 1;
  }
  return spans;
}

// A test source with adjacent string literals joined and `\"`, `\\` unescaped,
// as the messages read at run time.
std::string literal_text(const std::filesystem::path& path) {
  std::string text = std::regex_replace(read_file(path), std::regex("\"\\s+\""), "");
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size() && (text[i + 1] == '"' || text[i + 1] == '\\')) ++i;
    out += text[i];
  }
  return out;
}

bool defines_test(const std::string& source, const std::string& suite, const std::string& name) {
  const std::regex test("TEST(_F|_P)?\\(\\s*" + suite + "\\s*,\\s*" + name + "\\s*\\)");
  return std::regex_search(source, test);
}

// `FILE::Suite.Name` names a test of FILE (under tests/).
void expect_test(const Row& row, const std::string& reference) {
  const auto sep = reference.find("::");
  ASSERT_NE(sep, std::string::npos) << "line " << row.line << ": `" << reference << "` is not FILE::Suite.Name";
  const std::filesystem::path file = kTests / reference.substr(0, sep);
  const std::string test = reference.substr(sep + 2);
  const auto dot = test.find('.');
  ASSERT_TRUE(std::filesystem::exists(file)) << "line " << row.line << ": no file " << file;
  ASSERT_NE(dot, std::string::npos) << "line " << row.line << ": `" << test << "` is not Suite.Name";
  EXPECT_TRUE(defines_test(read_file(file), test.substr(0, dot), test.substr(dot + 1)))
      << "line " << row.line << ": " << file << " defines no test " << test;
}

TEST(ConstructsTable, ListsTheConstructsOnce) {
  const std::vector<Row> rows = table_rows();
  EXPECT_GE(rows.size(), 80u);
  std::set<std::string> seen;
  for (const Row& row : rows) {
    ASSERT_EQ(row.cells.size(), 5u) << "line " << row.line << " has " << row.cells.size() << " cells";
    EXPECT_TRUE(seen.insert(row.cells[0]).second) << "line " << row.line << ": `" << row.cells[0] << "` twice";
  }
}

TEST(ConstructsTable, ParserTestsExist) {
  for (const Row& row : table_rows()) {
    ASSERT_EQ(row.cells.size(), 5u);
    const bool error_only = row.cells[0].find("*(error only") != std::string::npos;
    if (error_only) {
      EXPECT_EQ(row.cells[1], "—") << "line " << row.line;
      continue;
    }
    const auto spans = code_spans(row.cells[1]);
    ASSERT_EQ(spans.size(), 1u) << "line " << row.line << ": one parser test per row";
    expect_test(row, spans[0]);
  }
}

TEST(ConstructsTable, GoldensHoldTheirSnippets) {
  for (const Row& row : table_rows()) {
    ASSERT_EQ(row.cells.size(), 5u);
    if (row.cells[0].find("*(error only") != std::string::npos) {
      EXPECT_EQ(row.cells[2], "—") << "line " << row.line;
      continue;
    }
    const auto spans = code_spans(row.cells[2]);
    ASSERT_EQ(spans.size(), 2u) << "line " << row.line << ": a golden file and a snippet of it";
    const std::filesystem::path file = data_dir() / spans[0];
    ASSERT_TRUE(std::filesystem::exists(file)) << "line " << row.line << ": no golden " << file;
    EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(file).replace_extension(".ast")))
        << "line " << row.line << ": " << file << " has no .ast";
    EXPECT_NE(read_file(file).find(spans[1]), std::string::npos)
        << "line " << row.line << ": " << file << " does not hold `" << spans[1] << "`";
  }
}

TEST(ConstructsTable, NegativeCasesAssertTheirMessages) {
  std::map<std::filesystem::path, std::string> sources;
  for (const Row& row : table_rows()) {
    ASSERT_EQ(row.cells.size(), 5u);
    const auto spans = code_spans(row.cells[3]);
    ASSERT_EQ(spans.size(), 1u) << "line " << row.line << ": one negative test per row";
    const auto sep = spans[0].find("::");
    ASSERT_NE(sep, std::string::npos) << "line " << row.line;
    const std::filesystem::path file = kTests / spans[0].substr(0, sep);
    ASSERT_TRUE(std::filesystem::exists(file)) << "line " << row.line << ": no file " << file;
    if (!sources.count(file)) sources[file] = literal_text(file);
    const std::string& source = sources[file];
    const std::string name = spans[0].substr(sep + 2);
    const std::size_t at = source.find("{\"" + name + "\",");
    ASSERT_NE(at, std::string::npos) << "line " << row.line << ": " << file << " has no case " << name;
    const std::string message = unescape_bars(row.cells[4]);
    ASSERT_FALSE(message.empty()) << "line " << row.line;
    // The message belongs to the case: it follows the name, before the next case.
    const std::size_t next = source.find("{\"", at + 2);
    const std::size_t found = source.find(message, at);
    EXPECT_TRUE(found != std::string::npos && (next == std::string::npos || found < next))
        << "line " << row.line << ": case " << name << " of " << file << " does not assert \"" << message << "\"";
  }
}

}  // namespace
}  // namespace croq::frontend::testing
