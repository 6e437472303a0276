// The environment knobs and the value syntaxes they share with croq-cache:
// byte counts (one overflow-checked parser), yes/no flags in the usual
// spellings, log levels in any case (seen through a child's stderr);
// unknown values are warned about.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <spdlog/sinks/ostream_sink.h>

#include <nlohmann/json.hpp>

#include "common/process.hpp"
#include "croq/error.hpp"
#include "support/env.hpp"
#include "support/log.hpp"

namespace croq::support {
namespace {

using croq::test::run_process;
using croq::test::TempDir;

const std::string kProbe = CROQ_BINARY_DIR "/tests/croq_jit_probe";
const std::string kSaxpyPath = CROQ_TEST_DATA_DIR "/jit/saxpy.cu";
// A cache directory that cannot be made: a source of one warning.
constexpr const char* kUnusableDir = "/dev/null/croq-cache";

std::string byte_count_error(const std::string& text) {
  try {
    parse_byte_count(text, "X");
  } catch (const Error& e) {
    return e.what();
  }
  return "accepted";
}

TEST(ByteCount, SuffixesAndLimits) {
  EXPECT_EQ(parse_byte_count("0", "X"), 0u);
  EXPECT_EQ(parse_byte_count("1048576", "X"), 1048576u);
  EXPECT_EQ(parse_byte_count("512K", "X"), 512u << 10);
  EXPECT_EQ(parse_byte_count("64m", "X"), 64u << 20);
  EXPECT_EQ(parse_byte_count("2G", "X"), 2ull << 30);
  EXPECT_EQ(parse_byte_count("3t", "X"), 3ull << 40);
  EXPECT_EQ(parse_byte_count("18446744073709551615", "X"), 18446744073709551615ull);
  EXPECT_EQ(parse_byte_count("17179869183G", "X"), 17179869183ull << 30);
  EXPECT_EQ(parse_byte_count("000000000000000000000000001K", "X"), 1024u);
}

TEST(ByteCount, OverflowIsAnErrorNotAWrap) {
  for (const char* text : {"18446744073709551616", "17179869184G", "16777216T", "18014398509481984K",
                           "99999999999999999999999999999999"})
    EXPECT_EQ(byte_count_error(text),
              std::string("X=") + text + ": byte count too large (at most 18446744073709551615)");
}

TEST(ByteCount, MalformedTextIsAnError) {
  for (const char* text : {"", "K", "m", "-1", "+1", " 1", "1 ", "1.5M", "1KB", "1KiB", "0x10", "1e9", "1P", "lots"})
    EXPECT_EQ(byte_count_error(text),
              std::string("X=") + text + ": expected a byte count such as 1048576, 512K, 64M or 2G")
        << "`" << text << "`";
}

TEST(Flags, UsualSpellingsInAnyCase) {
  for (const char* on : {"1", "true", "TRUE", "Yes", "on", "ON"}) EXPECT_EQ(parse_flag(on), true) << on;
  for (const char* off : {"0", "false", "False", "NO", "off", "Off"}) EXPECT_EQ(parse_flag(off), false) << off;
  for (const char* other : {"", "2", "nope", "offf", " on"}) EXPECT_EQ(parse_flag(other), std::nullopt) << other;
}

// A process with `env` compiling into a fresh cache; its stderr.
std::string probe_stderr(const std::map<std::string, std::string>& extra) {
  TempDir cache, logs;
  std::map<std::string, std::string> env{{"CROQ_CACHE_DIR", cache.str()}, {"CROQ_CACHE", ""},
                                         {"CROQ_LOG_LEVEL", ""}, {"CROQ_CACHE_SHARED", ""}};
  for (const auto& [k, v] : extra) env[k] = v;
  auto r = run_process({kProbe, "--source", kSaxpyPath, "--entry", "saxpy", "--define-tag", "env"}, env, logs.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.err;
}

// Several parts read the same knob (the kernel cache, tune records): an
// unknown value is warned about once per process, not once per reader.
TEST(Flags, AnUnknownValueIsWarnedOnce) {
  std::ostringstream captured;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(captured);
  log().sinks().push_back(sink);
  ::setenv("CROQ_TEST_ONCE_FLAG", "maybe", 1);
  EXPECT_TRUE(env_flag("CROQ_TEST_ONCE_FLAG", true));
  EXPECT_TRUE(env_flag("CROQ_TEST_ONCE_FLAG", true));
  ::setenv("CROQ_TEST_ONCE_FLAG", "perhaps", 1);
  EXPECT_FALSE(env_flag("CROQ_TEST_ONCE_FLAG", false));
  ::unsetenv("CROQ_TEST_ONCE_FLAG");
  log().sinks().pop_back();
  const std::string text = captured.str();
  const std::string maybe = "CROQ_TEST_ONCE_FLAG=maybe is not a yes/no value";
  EXPECT_NE(text.find(maybe), std::string::npos) << text;
  EXPECT_EQ(text.find(maybe), text.rfind(maybe)) << text;
  EXPECT_NE(text.find("CROQ_TEST_ONCE_FLAG=perhaps is not a yes/no value"), std::string::npos) << text;
}

TEST(Environment, LogLevelInAnyCaseIsHonoured) {
  for (const char* level : {"DEBUG", "Debug", "TRACE", "trace"}) {
    std::string err = probe_stderr({{"CROQ_LOG_LEVEL", level}});
    EXPECT_NE(err.find("[croq] [debug] nvrtc: compiled saxpy"), std::string::npos) << level << ": " << err;
  }
  for (const char* level : {"ERROR", "Off", "critical"}) {
    std::string err = probe_stderr({{"CROQ_LOG_LEVEL", level}, {"CROQ_CACHE_DIR", kUnusableDir}});
    EXPECT_EQ(err.find("[croq]"), std::string::npos) << level << ": " << err;
  }
  std::string warning = probe_stderr({{"CROQ_LOG_LEVEL", "WARNING"}, {"CROQ_CACHE_DIR", kUnusableDir}});
  EXPECT_NE(warning.find("[croq] [warning] kernel cache directory"), std::string::npos) << warning;
}

TEST(Environment, UnknownLogLevelWarnsAndKeepsWarnings) {
  std::string err = probe_stderr({{"CROQ_LOG_LEVEL", "garbage"}, {"CROQ_CACHE_DIR", kUnusableDir}});
  EXPECT_NE(err.find("CROQ_LOG_LEVEL=garbage is not a level"), std::string::npos) << err;
  // Warnings still reach the user (the level is warn, not off).
  EXPECT_NE(err.find("[croq] [warning] kernel cache directory"), std::string::npos) << err;
  EXPECT_EQ(err.find("[debug]"), std::string::npos) << err;
}

TEST(Environment, CacheOffSpellingsTurnTheDiskCacheOff) {
  for (const char* off : {"no", "false", "off", "OFF", "No"}) {
    TempDir parent, logs;
    const std::string dir = (parent.path() / "cache").string();
    auto r = run_process({kProbe, "--source", kSaxpyPath, "--entry", "saxpy"},
                         {{"CROQ_CACHE_DIR", dir}, {"CROQ_CACHE", off}}, logs.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["disk_enabled"], false) << off;
    EXPECT_FALSE(std::filesystem::exists(dir)) << off;
  }
  std::string err = probe_stderr({{"CROQ_CACHE", "maybe"}});
  const std::string warning = "CROQ_CACHE=maybe is not a yes/no value (1/true/yes/on or 0/false/no/off); using on";
  EXPECT_NE(err.find(warning), std::string::npos) << err;
  EXPECT_EQ(err.find(warning), err.rfind(warning)) << "warned more than once:\n" << err;  // issue 30
}

}  // namespace
}  // namespace croq::support
