// croq::tune on the device: a second process reuses the recorded choice
// without timing; configurations that do not compile or give wrong results
// are skipped and reported; the chosen kernel is right on fresh data; device
// arguments the kernel writes get their values back.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "common/process.hpp"
#include "common/tune_sources.hpp"
#include "croq/croq.hpp"
#include "gpu/gpu_test_util.hpp"

namespace croq {
namespace {

namespace fs = std::filesystem;
using test::kTunedAdd;
using Status = TuneTrial::Status;

const char* const kTwiceInPlace =
    "#define T 32\n"
    "__co__ void twice(f32 [N] x) {\n"
    "  parallel p by N / T : block {\n"
    "    parallel i by T : thread {\n"
    "      x.at(p # i) = x.at(p # i) * 2.0;\n"
    "    }\n"
    "  }\n"
    "}\n";

TuneConfig config(std::map<std::string, DefineValue> defines) { return TuneConfig{std::move(defines)}; }

// Records go to a fresh directory for the test, and the variable is restored.
class ScopedCacheDir {
 public:
  explicit ScopedCacheDir(const fs::path& dir) {
    if (const char* old = std::getenv("CROQ_CACHE_DIR")) old_ = old;
    ::setenv("CROQ_CACHE_DIR", dir.c_str(), 1);
  }
  ~ScopedCacheDir() {
    if (old_) ::setenv("CROQ_CACHE_DIR", old_->c_str(), 1);
    else ::unsetenv("CROQ_CACHE_DIR");
  }

 private:
  std::optional<std::string> old_;
};

Tensor random_device(std::size_t rows, std::size_t cols) {
  std::vector<float> values = test::random_floats(rows * cols);
  return Tensor::copy_of(TensorView::contiguous(values.data(), DType::f32, {rows, cols}), MemoryKind::device);
}

std::vector<float> to_vector(const Tensor& t) {
  Tensor h = t.to_host();
  const float* p = static_cast<const float*>(h.data());
  return std::vector<float>(p, p + h.numel());
}

// The host reference of tuned_add with BIAS 0.
std::string check_sum(const TuneOutputs& out, const std::vector<float>& lhs, const std::vector<float>& rhs) {
  std::vector<float> got = to_vector(out.result);
  if (got.size() != lhs.size()) return "wrong size";
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(got[i] == lhs[i] + rhs[i]))
      return "element " + std::to_string(i) + " is " + std::to_string(got[i]) + ", expected " +
             std::to_string(lhs[i] + rhs[i]);
  return {};
}

std::vector<TuneConfig> tile_configs() {
  return cross_product({{"TM", {std::int64_t{8}, std::int64_t{16}, std::int64_t{32}}},
                        {"TN", {std::int64_t{8}, std::int64_t{32}}}});
}

// Run by TuneAcrossProcesses in a child process (disabled otherwise): tunes,
// checks the chosen kernel on fresh data, and prints what tune reported.
TEST(TuneChild, DISABLED_TunesAndReports) {
  if (!std::getenv("CROQ_TUNE_TEST_CHILD")) GTEST_SKIP() << "run by TuneAcrossProcesses";
  CROQ_REQUIRE_GPU();
  Tensor lhs = random_device(128, 256), rhs = random_device(128, 256);
  const std::vector<TuneConfig> configs = tile_configs();
  TuneResult tuned = tune(kTunedAdd, configs, lhs, rhs);
  int timed = 0;
  for (const TuneTrial& t : tuned.trials) timed += t.status == Status::timed;
  std::printf("tune-child from_cache=%d trials=%zu timed=%d chosen=%zu key=%s\n", tuned.from_cache ? 1 : 0,
              tuned.trials.size(), timed, tuned.index, tuned.key.c_str());
  Tensor a = random_device(128, 256), b = random_device(128, 256);
  Tensor out = tuned.kernel(a, b);
  TuneOutputs outputs;
  outputs.result = out;
  EXPECT_EQ(check_sum(outputs, to_vector(a), to_vector(b)), "");
}

struct ChildReport {
  test::ProcessResult process;
  int from_cache = -1, trials = -1, timed = -1;
  std::size_t chosen = 0;
  std::string key;
};

// Runs the child test once and reads its report line.
ChildReport run_child(const std::map<std::string, std::string>& env, const fs::path& dir) {
  const std::vector<std::string> argv{fs::read_symlink("/proc/self/exe").string(), "--gtest_also_run_disabled_tests",
                                      "--gtest_filter=TuneChild.DISABLED_TunesAndReports"};
  ChildReport r;
  r.process = test::run_process(argv, env, dir);
  std::size_t at = r.process.out.find("tune-child ");
  if (at == std::string::npos) return r;
  char key[64] = {};
  std::sscanf(r.process.out.c_str() + at, "tune-child from_cache=%d trials=%d timed=%d chosen=%zu key=%63s",
              &r.from_cache, &r.trials, &r.timed, &r.chosen, key);
  r.key = key;
  return r;
}

// The child succeeded and reported (from_cache, trials, timed).
void expect_report(const ChildReport& r, int from_cache, int trials, int timed) {
  ASSERT_EQ(r.process.exit_code, 0) << r.process.out << r.process.err;
  EXPECT_EQ(r.from_cache, from_cache) << r.process.out << r.process.err;
  EXPECT_EQ(r.trials, trials) << r.process.out;
  EXPECT_EQ(r.timed, timed) << r.process.out;
}

TEST(TuneAcrossProcesses, SecondProcessReusesTheChoiceWithoutTiming) {
  CROQ_REQUIRE_GPU();
  test::TempDir dir;
  const fs::path cache = dir.path() / "cache";
  const std::map<std::string, std::string> env{
      {"CROQ_TUNE_TEST_CHILD", "1"}, {"CROQ_CACHE_DIR", cache.string()}, {"CROQ_CACHE", "1"},
      {"CROQ_LOG_LEVEL", "info"}};

  ChildReport first = run_child(env, dir.path());
  expect_report(first, 0, 6, 6);
  EXPECT_NE(first.process.err.find("croq::tune: timing 6 configurations"), std::string::npos) << first.process.err;
  const fs::path record = cache / ("tune-" + first.key + ".json");
  ASSERT_TRUE(fs::is_regular_file(record)) << record;
  EXPECT_EQ(fs::status(record).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);

  ChildReport second = run_child(env, dir.path());
  expect_report(second, 1, 0, 0);
  EXPECT_EQ(second.chosen, first.chosen);
  EXPECT_EQ(second.key, first.key);
  EXPECT_EQ(second.process.err.find("croq::tune: timing"), std::string::npos) << second.process.err;
  EXPECT_NE(second.process.err.find("using the recorded choice"), std::string::npos) << second.process.err;

  // A damaged record is ignored with a warning and replaced after timing again.
  { std::ofstream(record, std::ios::trunc) << "{\"format\": 1, \"chosen\": "; }
  ChildReport third = run_child(env, dir.path());
  expect_report(third, 0, 6, 6);
  EXPECT_NE(third.process.err.find("is not used (not a JSON object)"), std::string::npos) << third.process.err;
  expect_report(run_child(env, dir.path()), 1, 0, 0);
}

TEST(TuneOnDevice, FailingConfigurationsAreSkippedAndReported) {
  CROQ_REQUIRE_GPU();
  test::TempDir dir;
  ScopedCacheDir cache(dir.path());
  Tensor lhs = random_device(64, 64), rhs = random_device(64, 64);
  const std::vector<TuneConfig> configs{
      config({{"TM", std::int64_t{16}}, {"TN", std::int64_t{16}}}),  // the reference
      config({{"TM", std::int64_t{0}}}),                             // divides by zero
      config({{"BIAS", std::int64_t{1}}}),                           // wrong sums
      config({{"TM", std::int64_t{3}}}),                             // row 63 never written
      config({{"TM", std::int64_t{8}}, {"TN", std::int64_t{32}}}),
  };
  TuneOptions options;
  options.reuse_record = false;
  TuneResult tuned = tune(kTunedAdd, configs, std::vector<Arg>{lhs, rhs}, options);
  ASSERT_EQ(tuned.trials.size(), 5u);
  const std::string table = format_tune_table(tuned.trials, tuned.index);
  EXPECT_EQ(tuned.trials[0].status, Status::timed) << table;
  EXPECT_EQ(tuned.trials[1].status, Status::compile_failed) << table;
  EXPECT_NE(tuned.trials[1].why.find("divides by zero"), std::string::npos) << tuned.trials[1].why;
  EXPECT_EQ(tuned.trials[2].status, Status::wrong_result) << table;
  EXPECT_NE(tuned.trials[2].why.find("differs in 4096 of 4096"), std::string::npos) << tuned.trials[2].why;
  EXPECT_EQ(tuned.trials[3].status, Status::wrong_result) << table;
  EXPECT_NE(tuned.trials[3].why.find("differs in 64 of 4096 elements; first at [63, 0]"), std::string::npos)
      << tuned.trials[3].why;
  EXPECT_EQ(tuned.trials[4].status, Status::timed) << table;
  EXPECT_TRUE(tuned.index == 0 || tuned.index == 4) << table;
  EXPECT_GT(tuned.trials[tuned.index].median_ms, 0) << table;
  EXPECT_FALSE(tuned.from_cache);

  // A wrong configuration listed first is not taken as the reference when
  // it leaves elements unwritten: its outputs change with the poison.
  const std::vector<TuneConfig> partial_first{configs[3], configs[0]};
  TuneResult second = tune(kTunedAdd, partial_first, std::vector<Arg>{lhs, rhs}, options);
  EXPECT_EQ(second.trials[0].status, Status::wrong_result);
  EXPECT_NE(second.trials[0].why.find("poisoned memory"), std::string::npos) << second.trials[0].why;
  EXPECT_EQ(second.trials[1].status, Status::timed);
  EXPECT_EQ(second.index, 1u);

  // A checker that throws rejects that configuration only.
  TuneOptions throwing = options;
  throwing.check = [](const TuneOutputs& out) -> std::string {
    if (out.config->defines.count("TN") && std::get<std::int64_t>(out.config->defines.at("TN")) == 32)
      throw std::runtime_error("no TN=32 today");
    return {};
  };
  TuneResult checked = tune(kTunedAdd, std::vector<TuneConfig>{configs[4], configs[0]}, std::vector<Arg>{lhs, rhs},
                            throwing);
  EXPECT_EQ(checked.trials[0].status, Status::wrong_result);
  EXPECT_EQ(checked.trials[0].why, "the checker threw: no TN=32 today");
  EXPECT_EQ(checked.trials[1].status, Status::timed);
  EXPECT_EQ(checked.index, 1u);

  // Nothing that works: TuneError with every reason.
  const std::vector<TuneConfig> all_bad{configs[1], configs[3]};
  try {
    tune(kTunedAdd, all_bad, std::vector<Arg>{lhs, rhs}, options);
    FAIL() << "tune returned without a working configuration";
  } catch (const TuneError& e) {
    ASSERT_EQ(e.trials().size(), 2u);
    EXPECT_EQ(e.trials()[0].status, Status::compile_failed);
    EXPECT_EQ(e.trials()[1].status, Status::wrong_result);
  }
}

TEST(TuneOnDevice, ChosenConfigurationIsRightOnFreshData) {
  CROQ_REQUIRE_GPU();
  test::TempDir dir;
  ScopedCacheDir cache(dir.path());
  const std::size_t rows = 256, cols = 192;
  std::vector<float> lhs = test::random_floats(rows * cols), rhs = test::random_floats(rows * cols);
  TuneOptions options;
  options.reuse_record = false;
  options.check = [&](const TuneOutputs& out) { return check_sum(out, lhs, rhs); };
  // Host arguments: tune stages them on the device itself. BIAS=1 fails the
  // caller's check even though it is listed first.
  std::vector<TuneConfig> configs{config({{"BIAS", std::int64_t{1}}})};
  for (const TuneConfig& c : tile_configs()) configs.push_back(c);
  TuneResult tuned = tune(kTunedAdd, configs,
                          std::vector<Arg>{TensorView::contiguous(lhs.data(), DType::f32, {rows, cols}),
                                           TensorView::contiguous(rhs.data(), DType::f32, {rows, cols})},
                          options);
  EXPECT_EQ(tuned.trials[0].status, Status::wrong_result);
  for (std::size_t i = 1; i < configs.size(); ++i)
    EXPECT_EQ(tuned.trials[i].status, Status::timed) << format_tune_table(tuned.trials);
  EXPECT_NE(tuned.index, 0u);
  EXPECT_EQ(tuned.config, configs[tuned.index]);

  // Fresh data, the output poisoned (NaN) before the launch.
  Tensor a = random_device(rows, cols), b = random_device(rows, cols);
  Tensor out = Tensor::empty(DType::f32, {rows, cols}, MemoryKind::device);
  CROQ_CU(cuMemsetD8, reinterpret_cast<CUdeviceptr>(out.data()), 0xff, out.bytes());
  const TensorView out_view = out.view();
  tuned.kernel.launch(std::vector<Arg>{a, b}, LaunchOptions{nullptr, 0, &out_view});
  CROQ_CU(cuCtxSynchronize);
  TuneOutputs outputs;
  outputs.result = out;
  EXPECT_EQ(check_sum(outputs, to_vector(a), to_vector(b)), "") << "chosen " << tuned.config.str();
}

TEST(TuneOnDevice, WrittenDeviceArgumentsAreRestored) {
  CROQ_REQUIRE_GPU();
  test::TempDir dir;
  ScopedCacheDir cache(dir.path());
  std::vector<float> values = test::random_floats(4096);
  Tensor x = Tensor::copy_of(TensorView::contiguous(values.data(), DType::f32, {4096}), MemoryKind::device);
  const std::vector<TuneConfig> configs = cross_product({{"T", {std::int64_t{32}, std::int64_t{128}, std::int64_t{256}}}});
  TuneOptions options;
  options.reuse_record = false;
  // Every run starts from the original values, so the default check passes.
  TuneResult tuned = tune(kTwiceInPlace, configs, std::vector<Arg>{x}, options);
  for (const TuneTrial& t : tuned.trials) EXPECT_EQ(t.status, Status::timed) << t.config.str() << ": " << t.why;
  EXPECT_EQ(to_vector(x), values);  // tuning left x as it was
  tuned.kernel(x);
  CROQ_CU(cuCtxSynchronize);
  std::vector<float> doubled = to_vector(x);
  for (std::size_t i = 0; i < values.size(); ++i) ASSERT_EQ(doubled[i], values[i] * 2.0f) << i;
}

}  // namespace
}  // namespace croq
