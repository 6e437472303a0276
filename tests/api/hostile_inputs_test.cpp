// Every public entry point of include/croq/ (croq.hpp's headers) with inputs
// a careless or hostile caller can pass: values outside an enum, null data,
// sizes past memory or 64 bits, invalid UTF-8, out-of-range indices. Each
// must throw a croq::Error saying what is wrong (error_of fails the test on
// any other exception; a crash fails the whole binary), or do something
// defined. The test runs without a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/error_text.hpp"
#include "croq/croq.hpp"
#include "support/utf8.hpp"

namespace croq {
namespace {

using test::error_of;

const DType kBadDType = static_cast<DType>(200);
const MemoryKind kBadMemory = static_cast<MemoryKind>(7);

const char* kAdd = R"(__co__ f32 [N] add(f32 [N] lhs, f32 [N] rhs) {
  f32 [lhs.span] output;
  parallel i by N
    output.at(i) = lhs.at(i) + rhs.at(i);
  return output;
}
)";

// A host view whose fields are set one by one, bypassing contiguous()'s checks.
TensorView raw_view(void* data, DType dtype, Shape shape, MemoryKind memory = MemoryKind::host) {
  TensorView v;
  v.data = data;
  v.dtype = dtype;
  v.shape = shape;
  v.memory = memory;
  std::int64_t stride = 1;
  for (int d = shape.rank() - 1; d >= 0; --d) {
    v.strides[static_cast<std::size_t>(d)] = stride;
    stride *= static_cast<std::int64_t>(shape[static_cast<std::size_t>(d)]);
  }
  return v;
}

TEST(HostileInputs, DTypeValuesOutsideTheEnum) {
  EXPECT_FALSE(dtype_valid(kBadDType));
  EXPECT_TRUE(dtype_valid(DType::f8_ue4m3));
  EXPECT_EQ(dtype_name(kBadDType), "<invalid dtype>");
  DType parsed = DType::f32;
  EXPECT_FALSE(parse_dtype("", parsed));
  EXPECT_FALSE(parse_dtype(std::string("f32\0", 4), parsed));
  float value = 1;
  EXPECT_EQ(error_of([&] { TensorView::contiguous(&value, kBadDType, {1}); }),
            "croq::TensorView: dtype value 200 is not a croq::DType (0 to 27)");
  // str() names whatever a view holds: it is what messages about bad views use.
  const TensorView bad = raw_view(&value, kBadDType, {4});
  EXPECT_EQ(bad.str(), "<dtype 200> [4] (host)");
  EXPECT_EQ(raw_view(&value, DType::f32, {4}, kBadMemory).str(), "f32 [4] (memory kind 7)");
  EXPECT_EQ(error_of([&] { (void)bad.bytes(); }), "croq::TensorView: dtype value 200 is not a croq::DType (0 to 27)");
  EXPECT_EQ(error_of([&] { Tensor::empty(kBadDType, {4}, MemoryKind::host); }),
            "croq::Tensor::empty: dtype value 200 is not a croq::DType (0 to 27)");
  EXPECT_EQ(error_of([&] { Tensor::copy_of(bad, MemoryKind::host); }),
            "croq::Tensor::copy_of: source <dtype 200> [4] (host): dtype value 200 is not a croq::DType (0 to 27)");
  ElementRef element(&bad, 0, 1);
  EXPECT_EQ(error_of([&] { (void)element.as_double(); }),
            "croq::Tensor: reading an element of <dtype 200> [4] (host): dtype value 200 is not a croq::DType (0 to 27)");
  std::uint8_t bytes[4] = {};
  EXPECT_EQ(error_of([&] { pack_elements(kBadDType, bytes, 4, bytes); }),
            "croq::pack_elements: dtype value 200 is not a croq::DType (0 to 27)");
  EXPECT_EQ(error_of([&] { unpack_elements(kBadDType, bytes, 4, bytes); }),
            "croq::unpack_elements: dtype value 200 is not a croq::DType (0 to 27)");
  EXPECT_EQ(error_of([&] { subbyte_value(kBadDType, 0); }),
            "croq::subbyte_value: <invalid dtype> is not a sub-byte type");
}

TEST(HostileInputs, MemoryKindsAndDevicesOutsideTheirRange) {
  float value = 1;
  EXPECT_EQ(error_of([&] { TensorView::contiguous(&value, DType::f32, {1}, kBadMemory); }),
            "croq::TensorView::contiguous: memory kind 7 is neither MemoryKind::host nor MemoryKind::device");
  EXPECT_EQ(error_of([&] { TensorView::contiguous(&value, DType::f32, {1}, MemoryKind::device, -2); }),
            "croq::TensorView::contiguous: device ordinal -2 is negative");
  EXPECT_EQ(error_of([&] { Tensor::empty(DType::f32, {4}, kBadMemory); }),
            "croq::Tensor::empty: memory kind 7 is neither MemoryKind::host nor MemoryKind::device");
  const TensorView on_device = raw_view(&value, DType::f32, {1}, MemoryKind::device);
  ElementRef element(&on_device, 0, 1);
  EXPECT_EQ(error_of([&] { (void)element.as_int(); }),
            "croq::Tensor: cannot read device memory on the host; call to_host() first");
  ElementRef null_view(nullptr, 0, 0);
  EXPECT_EQ(error_of([&] { (void)null_view[0]; }), "croq::Tensor: indexing a null view");
  EXPECT_EQ(error_of([&] { (void)null_view.as_double(); }), "croq::Tensor: reading an element of a null view");
  EXPECT_EQ(error_of([&] { (void)(null_view == 1); }), "croq::Tensor: reading an element of a null view");
}

TEST(HostileInputs, NullData) {
  const TensorView null_source = raw_view(nullptr, DType::f32, {4});
  EXPECT_EQ(error_of([&] { Tensor::copy_of(null_source, MemoryKind::host); }),
            "croq::Tensor::copy_of: source f32 [4] (host): null data pointer");
  Tensor t = Tensor::empty(DType::f32, {4}, MemoryKind::host);
  EXPECT_EQ(error_of([&] { t.copy_to(null_source); }),
            "croq::Tensor::copy_to: destination f32 [4] (host): null data pointer");
  EXPECT_EQ(error_of([&] { t.copy_from(null_source); }),
            "croq::Tensor::copy_from: source f32 [4] (host): null data pointer");
  // An empty view has nothing to read: no data is fine.
  EXPECT_EQ(Tensor::copy_of(raw_view(nullptr, DType::f32, {0, 3}), MemoryKind::host).numel(), 0u);
  const TensorView null_element = raw_view(nullptr, DType::f32, {4});
  ElementRef element(&null_element, 0, 1);
  EXPECT_EQ(error_of([&] { (void)element.as_double(); }),
            "croq::Tensor: reading an element of f32 [4] (host): null data pointer");
  EXPECT_EQ(error_of([&] { pack_elements(DType::u4, nullptr, 4, t.data()); }),
            "croq::pack_elements: null source pointer for 4 elements");
  EXPECT_EQ(error_of([&] { unpack_elements(DType::u4, t.data(), 4, nullptr); }),
            "croq::unpack_elements: null destination pointer for 4 elements");
  pack_elements(DType::u4, nullptr, 0, nullptr);  // nothing to move
}

TEST(HostileInputs, SizesPastMemoryOr64Bits) {
  EXPECT_EQ(error_of([] { make_spandata<float>(1ull << 40); }),
            "croq::spandata: f32 [1099511627776] needs 4,398,046,511,104 bytes of host memory, which could not be "
            "allocated");
  EXPECT_EQ(error_of([] { make_spandata<double>(1ull << 62); }),
            "croq::spandata: f64 [4611686018427387904] needs more bytes than 2^63 - 1 of host memory, which could "
            "not be allocated");
  EXPECT_EQ(error_of([] { make_spandata<float>(1ull << 32, 1ull << 32); }),
            "croq::Shape [4294967296, 4294967296]: the element count does not fit in 64 bits");
  EXPECT_EQ(error_of([] { make_spandata<float>(-1); }),
            "croq::Shape [18446744073709551615]: the element count does not fit in 64 bits");
  EXPECT_EQ(error_of([] { Tensor::empty(DType::f32, {1ull << 40}, MemoryKind::host); }),
            "croq::Tensor::empty: f32 [1099511627776] needs 4,398,046,511,104 bytes of host memory, which could "
            "not be allocated");
  EXPECT_EQ(error_of([] { Tensor::empty(DType::f64, {1ull << 61}, MemoryKind::host); }),
            "croq::Tensor::empty: f64 [2305843009213693952] holds more bytes than a 64-bit size can count (2^63 - 1)");
  float value = 0;
  EXPECT_EQ(error_of([&] { (void)raw_view(&value, DType::f64, {1ull << 61}).bytes(); }),
            "croq::TensorView: f64 [2305843009213693952] holds more bytes than a 64-bit size can count (2^63 - 1)");
  std::uint8_t bytes[1] = {};
  EXPECT_EQ(error_of([&] { pack_elements(DType::f64, bytes, std::size_t{1} << 61, bytes); }),
            "croq::pack_elements: 2305843009213693952 elements of f64 hold more bytes than a 64-bit size can count "
            "(2^63 - 1)");
}

TEST(HostileInputs, IndicesAndRanges) {
  Shape shape{2, 3};
  EXPECT_EQ(error_of([&] { (void)shape[2]; }), "croq::Shape: index 2 is out of range for [2, 3] (rank 2)");
  EXPECT_EQ(error_of([&] { shape[1000] = 1; }), "croq::Shape: index 1000 is out of range for [2, 3] (rank 2)");
  EXPECT_EQ(error_of([] { Shape{1, 1, 1, 1, 1, 1, 1, 1, 1}; }), "croq::Shape: rank above 8 is not supported");
  auto data = make_spandata<int>(2, 2);
  EXPECT_EQ(error_of([&] { (void)data[2]; }), "croq::spandata: index 2 out of range for dimension 0 of extent 2");
  EXPECT_EQ(error_of([&] { data.fill_random(5, 1, 0); }),
            "croq::spandata::fill_random: [5.000000, 1.000000] is not a range of integers from low to high");
  EXPECT_EQ(error_of([&] { data.fill_random(0, 1e30, 0); }),
            "croq::spandata::fill_random: [0.000000, 1000000000000000019884624838656.000000] is not a range of "
            "integers from low to high");
  auto floats = make_spandata<float>(2);
  EXPECT_EQ(error_of([&] { floats.fill_random(0, std::numeric_limits<double>::quiet_NaN(), 0); }),
            "croq::spandata::fill_random: [0.000000, nan] is not a range of finite numbers from low to high");
  Tensor t = Tensor::empty(DType::f32, {2}, MemoryKind::host);
  EXPECT_EQ(error_of([&] { (void)t[2]; }), "croq::Tensor: index 2 is out of range for dimension 0 of f32 [2] (host)");
  EXPECT_EQ(error_of([&] { (void)Tensor()[0]; }), "croq::Tensor: indexing an empty tensor");
}

TEST(HostileInputs, DiagnosticsWithAnyBytesRenderAsValidUtf8) {
  const std::string invalid = "bad \xC3 byte \xFF";
  std::vector<Diagnostic> diags = {
      Diagnostic{static_cast<Severity>(9), invalid, -4, -7, -1, invalid, invalid, {invalid}},
      Diagnostic{Severity::error, "m", 1, std::numeric_limits<int>::max(), std::numeric_limits<int>::max()},
      Diagnostic{Severity::note, "past the end", 1000, 1, 1},
  };
  const std::string source = "line \xE6\xBC one\n";
  const std::string rendered = render_diagnostics(diags, source, "name \xF0\x9F");
  EXPECT_TRUE(support::is_valid_utf8(rendered)) << rendered;
  CompileError e(diags, source, "name \xF0\x9F");
  EXPECT_TRUE(support::is_valid_utf8(e.what()));
  const nlohmann::json j = nlohmann::json::parse(e.to_json());
  EXPECT_EQ(j["source"], "name \xEF\xBF\xBD");
  EXPECT_EQ(j["diagnostics"][0]["message"], "bad \xEF\xBF\xBD byte \xEF\xBF\xBD");
  EXPECT_EQ(j["diagnostics"][0]["severity"], "error");
  // Every croq::Error's what() is valid UTF-8, whoever builds it.
  EXPECT_STREQ(Error("path /tmp/\xFF").what(), "path /tmp/\xEF\xBF\xBD");
  EXPECT_STREQ(CacheError(std::string("dir \xC3")).what(), "dir \xEF\xBF\xBD");
  EXPECT_STREQ(Error(static_cast<const char*>(nullptr)).what(), "");
}

TEST(HostileInputs, KernelCallsWithValuesOutsideTheirEnums) {
  Kernel add = compile(kAdd);
  float data[4] = {};
  const TensorView good = TensorView::contiguous(data, DType::f32, {4});
  TensorView bad_dtype = good;
  bad_dtype.dtype = kBadDType;
  std::vector<Arg> args = {bad_dtype, good};
  EXPECT_EQ(error_of([&] { add.prepare(args); }),
            "argument 1 'lhs': dtype value 200 is not a croq::DType (0 to 27)");
  EXPECT_EQ(error_of([&] { add.launch(args); }),
            "argument 1 'lhs': dtype value 200 is not a croq::DType (0 to 27)");
  TensorView bad_memory = good;
  bad_memory.memory = kBadMemory;
  args = {good, bad_memory};
  EXPECT_EQ(error_of([&] { add.prepare(args); }),
            "argument 2 'rhs': memory kind 7 is neither MemoryKind::host nor MemoryKind::device");
  // An extra argument is checked too, before the arity error.
  args = {good, good, bad_dtype};
  EXPECT_EQ(error_of([&] { add.prepare(args); }), "`add` takes 2 arguments, got 3");
  LaunchOptions on_device;
  on_device.device = -5;
  EXPECT_EQ(error_of([&] { add.prepare(std::vector<Arg>{good, good}, on_device); }),
            "croq::LaunchOptions::device -5 is neither -1 (the current device) nor a device ordinal");
  TensorView output = good;
  output.dtype = kBadDType;
  LaunchOptions options;
  options.output = &output;
  args = {good, good};
  EXPECT_EQ(error_of([&] { add.launch(args, options); }).rfind("`add`: LaunchOptions::output <dtype 200> [4] (host): "
                                                               "dtype value 200 is not a croq::DType (0 to 27)", 0),
            0u);
}

TEST(HostileInputs, CompileOptionsAndSources) {
  CompileOptions options;
  options.source_name = "bad \xFF name";
  const std::string message = error_of([&] { compile("__co__ void f() { x = ; }", options); });
  EXPECT_TRUE(support::is_valid_utf8(message)) << message;
  EXPECT_EQ(message.rfind("bad \xEF\xBF\xBD name:1:", 0), 0u) << message;
  // Invalid UTF-8 and NUL bytes in the source are errors, not crashes.
  EXPECT_TRUE(support::is_valid_utf8(error_of([] { compile(std::string("__co__ void f() { \xC3\0 }", 22)); })));
  // Names that cannot be #defines or dims are refused by name.
  for (const char* name : {"", "a b", "\xFF", "1x"}) {
    CompileOptions bad;
    bad.defines[name] = std::int64_t{1};
    const std::string define_error = error_of([&] { compile(kAdd, bad); });
    EXPECT_TRUE(support::is_valid_utf8(define_error)) << name;
    EXPECT_NE(define_error.find("(CompileOptions::defines, --define) is not a name"), std::string::npos) << define_error;
    CompileOptions dims;
    dims.dynamic_dims = {name};
    const std::string dim_error = error_of([&] { compile(kAdd, dims); });
    EXPECT_TRUE(support::is_valid_utf8(dim_error)) << name;
    EXPECT_NE(dim_error.find("but no tensor parameter of `add` has it as a dimension"), std::string::npos) << dim_error;
  }
  CompileOptions spaced;
  spaced.defines["a b"] = std::int64_t{1};
  EXPECT_EQ(error_of([&] { compile(kAdd, spaced); }),
            "<source>: error: the define `a b` (CompileOptions::defines, --define) is not a name\n"
            "  hint: a define's name is a letter or `_` followed by letters, digits and `_`\n");
  CompileOptions not_a_number;
  not_a_number.defines["N"] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(error_of([&] { compile(kAdd, not_a_number); }),
            "<source>: error: the define `N` (CompileOptions::defines, --define) is nan, not a finite number\n"
            "  hint: give an integer or a finite floating value\n");
  CompileOptions bad_entry;
  bad_entry.entry = "\xFF";
  const std::string entry_error = error_of([&] { compile(kAdd, bad_entry); });
  EXPECT_TRUE(support::is_valid_utf8(entry_error));
  EXPECT_EQ(entry_error.rfind("<source>: error: no __co__ function named `", 0), 0u) << entry_error;
  CompileOptions bad_arch;
  bad_arch.arch = "sm_\xFF";
  // The invalid byte shows as U+FFFD (the rest of the message is the target's).
  EXPECT_EQ(error_of([&] { compile(kAdd, bad_arch); }).rfind("<options>: error: malformed architecture `sm_\xEF\xBF\xBD`", 0),
            0u);
}

TEST(HostileInputs, TuneEntryPoints) {
  EXPECT_EQ(error_of([] { cross_product({{"A", {}}}); }), "croq::cross_product: `A` has no values");
  EXPECT_EQ(error_of([] { cross_product({{"A", {std::int64_t{1}}}, {"A", {std::int64_t{2}}}}); }),
            "croq::cross_product: `A` is given twice");
  EXPECT_EQ(cross_product({}).size(), 1u);
  EXPECT_STREQ(status_name(static_cast<TuneTrial::Status>(42)), "?");
  EXPECT_EQ(format_tune_table({}, 5), "  config  status          median ms    min ms\n");
  float data[4] = {};
  TensorView bad = TensorView::contiguous(data, DType::f32, {4});
  bad.dtype = kBadDType;
  const std::vector<TuneConfig> configs = {TuneConfig{}};
  std::vector<Arg> args = {bad, bad};
  EXPECT_EQ(error_of([&] { tune(kAdd, configs, args); }),
            "croq::tune: argument 1: dtype value 200 is not a croq::DType (0 to 27)");
  EXPECT_EQ(error_of([&] { tune(kAdd, std::span<const TuneConfig>(), args); }), "croq::tune: the configuration list is empty");
  TuneOptions on_device;
  on_device.device = -2;
  args = {TensorView::contiguous(data, DType::f32, {4}), TensorView::contiguous(data, DType::f32, {4})};
  EXPECT_EQ(error_of([&] { tune(kAdd, configs, args, on_device); }),
            "croq::TuneOptions::device -2 is neither -1 (the arguments' or current device) nor a device ordinal");
}

}  // namespace
}  // namespace croq
