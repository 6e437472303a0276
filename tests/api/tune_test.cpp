// croq::tune without a GPU: configurations and their cross product, the
// record's key, the record on disk (round trip, malformed and untrusted
// records ignored and replaced), the default output comparison, and the
// compile failures tune reports when nothing can run.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "api/tune_compare.hpp"
#include "api/tune_record.hpp"
#include "common/process.hpp"
#include "common/tune_sources.hpp"
#include "croq/croq.hpp"
#include "croq/tune.hpp"

namespace croq {
namespace {

namespace fs = std::filesystem;
using detail::TuneKeyInput;
using detail::TuneRecord;
using detail::TuneRecordStore;

using croq::test::kTunedAdd;

TuneConfig config(std::int64_t tm, std::int64_t tn) { return TuneConfig{{{"TM", tm}, {"TN", tn}}}; }

TensorView shape_only(DType dtype, Shape shape) { return TensorView::contiguous(nullptr, dtype, shape); }

TuneKeyInput key_input(std::string_view source = kTunedAdd, std::vector<TuneConfig> configs = {config(16, 16),
                                                                                               config(32, 8)},
                       Shape shape = {64, 64}, DType dtype = DType::f32, const std::string& arch = "sm_90a",
                       const std::string& device = "NVIDIA H100 80GB HBM3", CompileOptions base = {}) {
  std::vector<Arg> args{shape_only(dtype, shape), shape_only(dtype, shape)};
  return detail::tune_key_input(source, base, configs, args, arch, device);
}

TEST(TuneConfig, NamesItsDefines) {
  EXPECT_EQ(config(16, 32).str(), "TM=16 TN=32");
  EXPECT_EQ((TuneConfig{{{"SCALE", 2.0}, {"A", std::int64_t{2}}}}).str(), "A=2 SCALE=2.0");
  EXPECT_EQ((TuneConfig{{{"X", 0.25}}}).str(), "X=0.25");
  EXPECT_EQ(TuneConfig{}.str(), "(source defaults)");
}

TEST(TuneConfig, CrossProductVariesTheLastNameFastest) {
  auto configs = cross_product({{"TM", {std::int64_t{16}, std::int64_t{32}}},
                                {"TN", {std::int64_t{8}, std::int64_t{16}, std::int64_t{32}}}});
  std::vector<std::string> names;
  for (const auto& c : configs) names.push_back(c.str());
  EXPECT_EQ(names, (std::vector<std::string>{"TM=16 TN=8", "TM=16 TN=16", "TM=16 TN=32", "TM=32 TN=8",
                                             "TM=32 TN=16", "TM=32 TN=32"}));
  EXPECT_THROW(cross_product({{"TM", {}}}), ArgumentError);
  EXPECT_THROW(cross_product({{"TM", {std::int64_t{1}}}, {"TM", {std::int64_t{2}}}}), ArgumentError);
  EXPECT_EQ(cross_product({}).size(), 1u);  // no axes: the source's own defines
  // The documentation's form (docs/how-to/autotuning.md): plain integer literals are integer defines.
  auto readme = cross_product({{"TM", {8, 16, 32}}, {"TN", {8, 32}}});
  ASSERT_EQ(readme.size(), 6u);
  EXPECT_EQ(readme[5].str(), "TM=32 TN=32");
}

TEST(TuneKey, IsStableAndCoversEveryInput) {
  const std::string key = detail::tune_key(key_input());
  EXPECT_EQ(key.size(), 32u);
  EXPECT_EQ(key.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(detail::tune_key(key_input()), key);
  CompileOptions other_base;
  other_base.defines["EXTRA"] = std::int64_t{1};
  const std::vector<std::string> others = {
      detail::tune_key(key_input(std::string(kTunedAdd) + " ")),
      detail::tune_key(key_input(kTunedAdd, {config(32, 8), config(16, 16)})),  // order matters: ties go to the first
      detail::tune_key(key_input(kTunedAdd, {config(16, 16)})),
      detail::tune_key(key_input(kTunedAdd, {config(16, 16), TuneConfig{{{"TM", 32.0}, {"TN", std::int64_t{8}}}}})),
      detail::tune_key(key_input(kTunedAdd, {config(16, 16), config(32, 8)}, {128, 64})),
      detail::tune_key(key_input(kTunedAdd, {config(16, 16), config(32, 8)}, {64, 64}, DType::f16)),
      detail::tune_key(key_input(kTunedAdd, {config(16, 16), config(32, 8)}, {64, 64}, DType::f32, "sm_80")),
      detail::tune_key(key_input(kTunedAdd, {config(16, 16), config(32, 8)}, {64, 64}, DType::f32, "sm_90a",
                                 "NVIDIA H200")),
      detail::tune_key(key_input(kTunedAdd, {config(16, 16), config(32, 8)}, {64, 64}, DType::f32, "sm_90a",
                                 "NVIDIA H100 80GB HBM3", other_base)),
  };
  for (std::size_t i = 0; i < others.size(); ++i) {
    EXPECT_NE(others[i], key) << i;
    for (std::size_t j = 0; j < i; ++j) EXPECT_NE(others[i], others[j]) << i << " " << j;
  }
  // Where the data lives does not matter, only dtypes and shapes.
  float data[64 * 64];
  std::vector<Arg> host{TensorView::contiguous(data, DType::f32, {64, 64}),
                        TensorView::contiguous(data, DType::f32, {64, 64})};
  std::vector<TuneConfig> configs{config(16, 16), config(32, 8)};
  EXPECT_EQ(detail::tune_key(detail::tune_key_input(kTunedAdd, {}, configs, host, "sm_90a", "NVIDIA H100 80GB HBM3")),
            key);
}

TuneRecord record_for(const TuneKeyInput& input, std::size_t chosen = 1) {
  return TuneRecord{detail::tune_key(input), input, chosen, 0.125};
}

TEST(TuneRecord, RoundTrips) {
  const TuneKeyInput input = key_input();
  const TuneRecord r = record_for(input);
  std::string why;
  auto back = detail::record_from_json(detail::record_to_json(r), r.key, input, &why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(back->chosen, 1u);
  EXPECT_EQ(back->median_ms, 0.125);
  EXPECT_EQ(back->key, r.key);
}

TEST(TuneRecord, MalformedRecordsAreRefusedWithAReason) {
  const TuneKeyInput input = key_input();
  const TuneRecord r = record_for(input);
  const std::string good = detail::record_to_json(r);
  auto edited = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    std::size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? text : text.replace(at, from.size(), to);
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "not a JSON object"},
      {"{\"format\": 1", "not a JSON object"},
      {"[1, 2]", "not a JSON object"},
      {std::string(100000, '[') + std::string(100000, ']'), "nests deeper"},
      {edited("\"arguments\": [", "\"arguments\": [[[[["), "nests deeper"},
      {edited("\"format\": 1", "\"format\": 7"), "unknown format"},
      {edited("\"format\": 1", "\"format\": \"1\""), "unknown format"},
      {edited(r.key, "0123456789abcdef0123456789abcdef"), "names another key"},
      {edited("TM=32 TN=8\"\n", "TM=64 TN=8\"\n"), "other inputs"},
      {edited("NVIDIA H100", "NVIDIA H200"), "other inputs"},
      {edited("\"chosen\": 1", "\"chosen\": 2"), "not the index"},
      {edited("\"chosen\": 1", "\"chosen\": -1"), "not the index"},
      {edited("\"chosen\": 1", "\"chosen\": 0.5"), "not the index"},
      {edited("\"chosen_config\": \"TM=32 TN=8\"", "\"chosen_config\": \"TM=16 TN=16\""), "does not match"},
  };
  for (const auto& [text, reason] : cases) {
    std::string why;
    EXPECT_FALSE(detail::record_from_json(text, r.key, input, &why)) << text;
    EXPECT_NE(why.find(reason), std::string::npos) << why << "\n" << text;
  }
}

class TuneRecordStoreTest : public ::testing::Test {
 protected:
  TuneRecordStoreTest() {
    settings_.dir = dir_.path() / "cache";
    settings_.enabled = true;
  }
  TuneRecordStore store() const { return TuneRecordStore(settings_); }
  fs::path record_path(const std::string& key) const { return settings_.dir / detail::record_file_name(key); }
  void write(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

  test::TempDir dir_;
  jit::DiskCacheSettings settings_;
};

TEST_F(TuneRecordStoreTest, StoresAPrivateFileAndLoadsIt) {
  const TuneKeyInput input = key_input();
  const TuneRecord r = record_for(input);
  EXPECT_FALSE(store().load(r.key, input));  // no directory yet: a plain miss
  store().store(r);
  EXPECT_EQ(store().path_of(r.key), record_path(r.key).string());
  struct ::stat st{};
  ASSERT_EQ(::lstat(record_path(r.key).c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat(settings_.dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  auto loaded = store().load(r.key, input);
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->chosen, 1u);
  // Other inputs under the same key (a collision, or an edited file) are a miss.
  EXPECT_FALSE(store().load(r.key, key_input(kTunedAdd, {config(16, 16), config(64, 8)})));
  // Left next to the kernel cache's entries without disturbing them.
  EXPECT_EQ(record_path(r.key).filename().string().rfind("tune-", 0), 0u);
}

TEST_F(TuneRecordStoreTest, MemoryOnlyCacheWritesNothing) {
  settings_.enabled = false;  // CROQ_CACHE=0
  const TuneKeyInput input = key_input();
  store().store(record_for(input));
  EXPECT_FALSE(fs::exists(settings_.dir));
  EXPECT_EQ(store().path_of(record_for(input).key), "");
  EXPECT_FALSE(store().load(record_for(input).key, input));
}

TEST_F(TuneRecordStoreTest, MalformedRecordIsIgnoredAndReplaced) {
  const TuneKeyInput input = key_input();
  const TuneRecord r = record_for(input);
  store().store(r);
  for (const std::string& junk : {std::string("{ not json"), std::string(1 << 12, '\0'),
                                  std::string("{\"format\": 1, \"key\": \"") + r.key + "\", \"chosen\": 99}"}) {
    write(record_path(r.key), junk);
    EXPECT_FALSE(store().load(r.key, input));
    store().store(r);  // what tune does after timing again
    ASSERT_TRUE(store().load(r.key, input));
  }
  // Too large to be a record: refused before parsing.
  fs::resize_file(record_path(r.key), (4 << 20) + 1);
  EXPECT_FALSE(store().load(r.key, input));
}

TEST_F(TuneRecordStoreTest, UntrustedRecordsAreIgnoredAndReplaced) {
  const TuneKeyInput input = key_input();
  const TuneRecord r = record_for(input);
  store().store(r);
  const std::string good = detail::record_to_json(r);

  // Writable by others: anyone could have chosen the kernel.
  fs::permissions(record_path(r.key), fs::perms::owner_read | fs::perms::owner_write | fs::perms::others_write);
  EXPECT_FALSE(store().load(r.key, input));
  store().store(r);
  struct ::stat st{};
  ASSERT_EQ(::lstat(record_path(r.key).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_TRUE(store().load(r.key, input));

  // A link to a well-formed record elsewhere is not followed, and writing
  // replaces the link instead of writing through it.
  const fs::path elsewhere = dir_.path() / "elsewhere.json";
  write(elsewhere, good);
  fs::remove(record_path(r.key));
  fs::create_symlink(elsewhere, record_path(r.key));
  EXPECT_FALSE(store().load(r.key, input));
  store().store(r);
  EXPECT_FALSE(fs::is_symlink(record_path(r.key)));
  EXPECT_TRUE(store().load(r.key, input));
  EXPECT_EQ(croq::test::Child::slurp(elsewhere.string()), good);

  // A FIFO would block a plain read.
  fs::remove(record_path(r.key));
  ASSERT_EQ(::mkfifo(record_path(r.key).c_str(), 0600), 0);
  EXPECT_FALSE(store().load(r.key, input));
  store().store(r);
  EXPECT_TRUE(store().load(r.key, input));
}

TEST_F(TuneRecordStoreTest, UntrustedDirectoryIsNotUsed) {
  const TuneKeyInput input = key_input();
  const TuneRecord r = record_for(input);
  store().store(r);
  fs::permissions(settings_.dir, fs::perms::others_write, fs::perm_options::add);
  EXPECT_FALSE(store().load(r.key, input));
  settings_.shared = true;  // CROQ_CACHE_SHARED=1 trusts it
  EXPECT_TRUE(store().load(r.key, input));
}

Tensor host_f32(std::vector<float> values) {
  Tensor t = Tensor::empty(DType::f32, Shape{2, values.size() / 2}, MemoryKind::host);
  std::copy(values.begin(), values.end(), static_cast<float*>(t.data()));
  return t;
}

TEST(TuneCompare, FloatsWithinToleranceIntegersExactly) {
  Tensor want = host_f32({1, 2, 3, 4});
  EXPECT_EQ(detail::compare_tensors(host_f32({1, 2, 3, 4.0001f}), want, -1, -1, "the result"), "");
  std::string why = detail::compare_tensors(host_f32({1, 2, 3.5f, 4}), want, -1, -1, "the result");
  EXPECT_EQ(why, "the result differs in 1 of 4 elements; first at [1, 0]: 3.5, the reference 3");
  // An element left as poison (NaN) never matches, not even another NaN.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_NE(detail::compare_tensors(host_f32({1, 2, 3, nan}), want, -1, -1, "the result"), "");
  EXPECT_NE(detail::compare_tensors(host_f32({1, 2, 3, nan}), host_f32({1, 2, 3, nan}), -1, -1, "x"), "");
  // Explicit tolerances.
  EXPECT_EQ(detail::compare_tensors(host_f32({1, 2, 3.5f, 4}), want, 0, 0.5, "x"), "");
  EXPECT_NE(detail::compare_tensors(host_f32({1, 2, 3.5f, 4}), want, 0, 0.4, "x"), "");

  Tensor a = Tensor::empty(DType::s32, Shape{3}, MemoryKind::host), b = Tensor::empty(DType::s32, Shape{3},
                                                                                      MemoryKind::host);
  for (int i = 0; i < 3; ++i) static_cast<std::int32_t*>(a.data())[i] = static_cast<std::int32_t*>(b.data())[i] = i;
  EXPECT_EQ(detail::compare_tensors(a, b, 1, 1, "x"), "");
  static_cast<std::int32_t*>(a.data())[2] = 3;
  EXPECT_EQ(detail::compare_tensors(a, b, 1, 1, "x"), "x differs in 1 of 3 elements; first at [2]: 3, the reference 2");
  EXPECT_NE(detail::compare_tensors(a, want, -1, -1, "x"), "");  // dtype and shape
}

TEST(TuneTable, MarksTheChoiceAndGivesTheFirstLineOfEachReason) {
  std::vector<TuneTrial> trials(3);
  trials[0] = {config(16, 16), TuneTrial::Status::timed, 0.5, 0.25, ""};
  trials[1] = {config(0, 16), TuneTrial::Status::compile_failed, 0, 0, "k.co:6:23: error: divides by zero\n  ^~~"};
  trials[2] = {config(32, 8), TuneTrial::Status::timed, 0.125, 0.1, ""};
  EXPECT_EQ(format_tune_table(trials, 2),
            "  config       status          median ms    min ms\n"
            "  TM=16 TN=16  timed              0.5000    0.2500\n"
            "  TM=0 TN=16   compile failed  k.co:6:23: error: divides by zero\n"
            "* TM=32 TN=8   timed              0.1250    0.1000\n"
            "chosen: TM=32 TN=8\n");
}

TEST(Tune, RefusesAnEmptyConfigurationList) {
  std::vector<TuneConfig> none;
  float data[64 * 64] = {};
  EXPECT_THROW(tune(kTunedAdd, none, TensorView::contiguous(data, DType::f32, {64, 64}),
                    TensorView::contiguous(data, DType::f32, {64, 64})),
               ArgumentError);
}

TEST(Tune, NeedsTheArgumentsData) {
  std::vector<TuneConfig> configs{config(16, 16)};
  try {
    tune(kTunedAdd, configs, shape_only(DType::f32, {64, 64}), shape_only(DType::f32, {64, 64}));
    FAIL() << "tune ran on views without data";
  } catch (const ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("argument 1 has no data"), std::string::npos) << e.what();
  }
}

// Without a device nothing is timed, but every configuration is compiled:
// the one that does not build is reported as such.
TEST(Tune, ReportsConfigurationsThatDoNotCompileWithoutAGpu) {
  std::string why;
  if (cuda_available(&why)) GTEST_SKIP() << "a GPU is present: tests/gpu/tune_gpu_test.cpp covers this";
  std::vector<float> lhs(64 * 64, 1.0f), rhs(64 * 64, 2.0f);
  std::vector<TuneConfig> configs{config(16, 16), config(0, 16), TuneConfig{{{"TM", 1.5}}}};
  try {
    tune(kTunedAdd, configs, TensorView::contiguous(lhs.data(), DType::f32, {64, 64}),
         TensorView::contiguous(rhs.data(), DType::f32, {64, 64}));
    FAIL() << "tune without a device returned";
  } catch (const TuneError& e) {
    ASSERT_EQ(e.trials().size(), 3u);
    EXPECT_EQ(e.trials()[0].status, TuneTrial::Status::not_run);
    EXPECT_NE(e.trials()[0].why.find("no CUDA device"), std::string::npos) << e.trials()[0].why;
    EXPECT_EQ(e.trials()[1].status, TuneTrial::Status::compile_failed);
    EXPECT_NE(e.trials()[1].why.find("TM"), std::string::npos) << e.trials()[1].why;
    EXPECT_EQ(e.trials()[2].status, TuneTrial::Status::compile_failed);
    const std::string text = e.what();
    EXPECT_NE(text.find("TM=0 TN=16"), std::string::npos) << text;
    EXPECT_NE(text.find("compile failed"), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace croq
