// TMA misuses that only the call's real tensors reveal, through croq::compile
// and a call: a device base address off 16 bytes, and rows whose byte size
// is not a multiple of 16 (so the dense row stride is not). Each is an
// ArgumentError naming the argument and the tma.copy's line:column, raised
// when the descriptor is encoded, before the launch. Needs an sm_90 device.
#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <string>

#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

// A tile copy through shared memory with a TMA load (line 3, `copy` at
// column 13) and a TMA store.
const char* kTmaCopy = R"(__co__ void tile_copy(global f16 [M, K] lhs, global f16 [M, K] out) {
  parallel b by cdiv(M, 64) : block {
    t = tma.copy lhs.subspan(64, 64).at(b, 0) => shared;
    tma.copy t.data => out.subspan(64, 64).at(b, 0);
  }
}
)";

const std::string kWhere = "argument 1 'lhs' (tma.copy of 'lhs' at 3:13): ";

#define CROQ_REQUIRE_SM90()                                                                     \
  do {                                                                                          \
    CROQ_REQUIRE_GPU();                                                                         \
    if (jit::device_info(0).cc_major < 9) GTEST_SKIP() << "tma.copy needs sm_90 or newer";      \
  } while (0)

template <typename F>
std::string argument_error(F&& call) {
  try {
    call();
  } catch (const ArgumentError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an ArgumentError";
  return "";
}

TEST(GpuTmaArgumentErrors, DeviceBaseOff16Bytes) {
  CROQ_REQUIRE_SM90();
  Kernel k = compile(kTmaCopy);
  // A view 8 bytes into an allocation: aligned for f16, not for TMA.
  Tensor storage = Tensor::empty(DType::f16, Shape{128 * 64 + 8});
  void* base = static_cast<char*>(storage.data()) + 8;
  TensorView lhs = TensorView::contiguous(base, DType::f16, Shape{128, 64}, MemoryKind::device, 0);
  Tensor out = Tensor::empty(DType::f16, Shape{128, 64});
  std::ostringstream address;
  address << std::hex << reinterpret_cast<std::uintptr_t>(base);
  EXPECT_EQ(argument_error([&] { k(lhs, out.view()); }),
            kWhere + "the TMA base address 0x" + address.str() + " is not 16-byte aligned");
}

TEST(GpuTmaArgumentErrors, HostRowsOf200Bytes) {
  CROQ_REQUIRE_SM90();
  Kernel k = compile(kTmaCopy);
  // K = 100 f16: each row is 200 bytes, so the row stride is not a multiple
  // of 16 bytes; the staged device copy keeps that stride.
  auto lhs = make_spandata<croq::f16>(128, 100);
  auto out = make_spandata<croq::f16>(128, 100);
  EXPECT_EQ(argument_error([&] { k(lhs.view(), out.view()); }),
            kWhere + "the dense row-major stride of dim 0 is 100 elements = 200 bytes; TMA strides must be "
                     "multiples of 16 bytes");
}

}  // namespace
}  // namespace croq
