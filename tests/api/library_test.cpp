// The library must load and compile on machines without a GPU driver.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>

#include "croq/croq.hpp"
#include "jit/driver.hpp"

namespace croq {
namespace {

std::string run(const std::string& cmd) {
  std::string out;
  std::unique_ptr<FILE, int (*)(FILE*)> p(::popen(cmd.c_str(), "r"), ::pclose);
  char buf[512];
  while (p && std::fgets(buf, sizeof buf, p.get())) out += buf;
  return out;
}

// Both are loaded at first use (jit/driver.hpp, jit/nvrtc_library.hpp): the
// library loads where neither is installed, and a wheel finds NVRTC where
// the user's machine has it.
TEST(Library, LinksNeitherLibcudaNorNvrtc) {
  std::string needed = run("readelf -d " CROQ_BINARY_DIR "/libcroqjit.so");
  ASSERT_NE(needed.find("NEEDED"), std::string::npos) << "readelf printed nothing";
  EXPECT_EQ(needed.find("libcuda.so"), std::string::npos) << needed;
  EXPECT_EQ(needed.find("libnvrtc"), std::string::npos) << needed;
}

TEST(Library, DeviceUseWithoutDriverIsAClearCudaError) {
  std::string why;
  if (jit::driver_available(&why)) GTEST_SKIP() << "a CUDA driver is present here";
  try {
    Tensor::empty(DType::f32, Shape{16}, MemoryKind::device);
    FAIL() << "expected CudaError";
  } catch (const CudaError& e) {
    std::string what = e.what();
    EXPECT_TRUE(what.find("no CUDA driver found: ") != std::string::npos ||
                what.find("cuInit failed") != std::string::npos)
        << what;
  }
  // Host-only work keeps working after that failure.
  auto host = make_spandata<float>(4);
  EXPECT_NO_THROW(Tensor::copy_of(host.view(), MemoryKind::host));
}

}  // namespace
}  // namespace croq
