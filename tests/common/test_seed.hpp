// Reproducible random data in tests: every seed comes from one base seed
// (2026, or the decimal value of CROQ_TEST_SEED), mixed with the running
// test's full name and how many seeds that test took before, so a test's
// data does not depend on which tests ran before it or on the filter. A
// failing test prints the base seed that reproduces it.
//
//   spandata.fill_random(-1, 1, croq::test::next_seed());
//   std::mt19937 rng(croq::test::next_seed());
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

namespace croq::test {

inline constexpr std::uint64_t kDefaultTestSeed = 2026;

// CROQ_TEST_SEED when it is a decimal number, else 2026 (an unusable value
// is reported once and ignored).
inline std::uint64_t base_seed() {
  static const std::uint64_t seed = [] {
    const char* text = std::getenv("CROQ_TEST_SEED");
    if (!text || !*text) return kDefaultTestSeed;
    char* end = nullptr;
    const unsigned long long v = std::strtoull(text, &end, 10);
    if (*end != '\0' || text[0] == '-') {
      std::cerr << "CROQ_TEST_SEED=" << text << " is not a decimal number: using " << kDefaultTestSeed << "\n";
      return kDefaultTestSeed;
    }
    return static_cast<std::uint64_t>(v);
  }();
  return seed;
}

namespace seed_detail {

struct State {
  std::string test;                      // the running test's full name
  std::atomic<std::uint64_t> taken{0};   // seeds it took (threads of a test may take some)
};

inline State& state() {
  static State s;
  return s;
}

inline std::uint64_t mix(std::uint64_t x) {  // splitmix64's finalizer
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Resets the per-test count at each test's start and prints the base seed
// after a failure.
class SeedListener : public ::testing::EmptyTestEventListener {
  void OnTestStart(const ::testing::TestInfo& info) override {
    state().test = std::string(info.test_suite_name()) + "." + info.name();
    state().taken = 0;
  }
  void OnTestEnd(const ::testing::TestInfo& info) override {
    if (info.result()->Failed())
      std::cout << "[  SEED    ] " << state().test << " failed with CROQ_TEST_SEED=" << base_seed() << " ("
                << state().taken.load() << " seed(s) taken by the test; rerun with that value to reproduce)\n";
  }
};

inline bool register_listener() {
  ::testing::UnitTest::GetInstance()->listeners().Append(new SeedListener);
  return true;
}

inline const bool listener_registered = register_listener();

}  // namespace seed_detail

// The seed number `index` of `name` (a test suite's shared data, set up
// outside any test).
inline std::uint64_t seed_for(const std::string& name, std::uint64_t index) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a of the name
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
  return seed_detail::mix(base_seed() ^ seed_detail::mix(h + index));
}

// The next seed of the running test.
inline std::uint64_t next_seed() {
  seed_detail::State& s = seed_detail::state();
  return seed_for(s.test, s.taken.fetch_add(1));
}

}  // namespace croq::test
