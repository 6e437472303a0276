// The remote cache's environment variables: their defaults, their values,
// and the exact errors for malformed ones.
#include <gtest/gtest.h>
#include <stdlib.h>

#include "common/scoped_env.hpp"
#include "croq/error.hpp"
#include "jit/jit_compiler.hpp"

namespace croq::jit {
namespace {

using std::chrono::milliseconds;

using test::ScopedEnv;

const std::map<std::string, std::string> kUnset{{"CROQ_CACHE_REMOTE", ""},
                                                {"CROQ_CACHE_REMOTE_SECRET", ""},
                                                {"CROQ_CACHE_REMOTE_TIMEOUT_MS", ""},
                                                {"CROQ_CACHE_WAIT_MS", ""}};

std::map<std::string, std::string> with(std::map<std::string, std::string> values) {
  values.insert(kUnset.begin(), kUnset.end());  // keeps the given ones
  return values;
}

std::string error_of(const std::map<std::string, std::string>& values) {
  ScopedEnv env(with(values));
  try {
    JitSettings::from_environment();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(RemoteSettings, DefaultsWithoutVariables) {
  ScopedEnv env(kUnset);
  const JitSettings s = JitSettings::from_environment();
  EXPECT_FALSE(s.remote.endpoint);
  EXPECT_TRUE(s.remote.secret.empty());
  EXPECT_EQ(s.remote.timeouts.connect, milliseconds(100));
  EXPECT_EQ(s.remote.timeouts.command, milliseconds(100));
  EXPECT_EQ(s.remote.lock_wait, milliseconds(10000));
  EXPECT_EQ(s.compile_wait, milliseconds(10000));
}

TEST(RemoteSettings, ReadsEveryVariable) {
  ScopedEnv env(with({{"CROQ_CACHE_REMOTE", "redis://:pw@10.1.2.3:6380/4"},
                      {"CROQ_CACHE_REMOTE_SECRET", "fleet"},
                      {"CROQ_CACHE_REMOTE_TIMEOUT_MS", "250"},
                      {"CROQ_CACHE_WAIT_MS", "0"}}));
  const JitSettings s = JitSettings::from_environment();
  ASSERT_TRUE(s.remote.endpoint);
  EXPECT_EQ(s.remote.endpoint->describe(), "redis://10.1.2.3:6380/4");
  EXPECT_EQ(s.remote.endpoint->password, "pw");
  EXPECT_EQ(s.remote.secret, "fleet");
  EXPECT_EQ(s.remote.timeouts.connect, milliseconds(250));
  EXPECT_EQ(s.remote.timeouts.command, milliseconds(250));
  EXPECT_EQ(s.remote.lock_wait, milliseconds(0));
  EXPECT_EQ(s.compile_wait, milliseconds(0));
}

TEST(RemoteSettings, MalformedValuesAreErrorsNamingTheVariable) {
  EXPECT_EQ(error_of({{"CROQ_CACHE_REMOTE_TIMEOUT_MS", "fast"}}),
            "CROQ_CACHE_REMOTE_TIMEOUT_MS=fast: expected a number of milliseconds from 0 to 60000");
  EXPECT_EQ(error_of({{"CROQ_CACHE_REMOTE_TIMEOUT_MS", "60001"}}),
            "CROQ_CACHE_REMOTE_TIMEOUT_MS=60001: expected a number of milliseconds from 0 to 60000");
  EXPECT_EQ(error_of({{"CROQ_CACHE_WAIT_MS", "-1"}}),
            "CROQ_CACHE_WAIT_MS=-1: expected a number of milliseconds from 0 to 3600000");
  EXPECT_EQ(error_of({{"CROQ_CACHE_REMOTE", "localhost:6379"}}),
            "CROQ_CACHE_REMOTE: the URL does not start with redis:// (expected "
            "redis://[user:password@]host[:port][/db])");
}

TEST(RemoteSettings, AZeroTimeoutIsOneMillisecond) {
  ScopedEnv env(with({{"CROQ_CACHE_REMOTE_TIMEOUT_MS", "0"}}));
  EXPECT_EQ(JitSettings::from_environment().remote.timeouts.command, milliseconds(1));
}

}  // namespace
}  // namespace croq::jit
