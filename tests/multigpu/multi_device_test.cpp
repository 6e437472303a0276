// Several devices of one node (ctest labels gpu and multigpu; each test
// skips with the reason on fewer than 2 devices): one Kernel serving every
// device from many threads at once, the device rules on real devices, and
// kernels that read and write a peer's memory once peer access is on.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/error_text.hpp"
#include "croq/croq.hpp"
#include "jit/driver.hpp"

namespace croq {
namespace {

using test::error_of;

#define CROQ_REQUIRE_DEVICES(n)                                                            \
  do {                                                                                     \
    std::string why_no_gpu;                                                                \
    if (!::croq::jit::driver_available(&why_no_gpu)) GTEST_SKIP() << why_no_gpu;           \
    if (::croq::jit::device_count() < (n))                                                 \
      GTEST_SKIP() << "needs " << (n) << " CUDA devices, " << ::croq::jit::device_count() \
                   << " present";                                                          \
  } while (0)

const char* kAxpb = R"(__co__ void axpb(s32 [N] x, s32 [N] y, int a, int b) {
  parallel i by N
    y.at(i) = x.at(i) * a + b;
}
)";

// A device buffer of s32 on `device`, freed on scope exit.
class Buffer {
 public:
  Buffer(int device, std::size_t n) : device_(device) {
    jit::make_current(device);
    CROQ_CU(cuMemAlloc, &ptr_, n * sizeof(std::int32_t));
  }
  ~Buffer() {
    jit::make_current(device_);
    jit::driver().cuMemFree(ptr_);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  TensorView view(std::size_t n) const {
    return TensorView::contiguous(reinterpret_cast<void*>(ptr_), DType::s32, {n}, MemoryKind::device, device_);
  }
  void upload(const std::vector<std::int32_t>& v, CUstream stream) const {
    jit::make_current(device_);
    CROQ_CU(cuMemcpyHtoDAsync, ptr_, v.data(), v.size() * sizeof(std::int32_t), stream);
    CROQ_CU(cuStreamSynchronize, stream);
  }
  std::vector<std::int32_t> download(std::size_t n, CUstream stream) const {
    jit::make_current(device_);
    std::vector<std::int32_t> v(n);
    CROQ_CU(cuMemcpyDtoHAsync, v.data(), ptr_, n * sizeof(std::int32_t), stream);
    CROQ_CU(cuStreamSynchronize, stream);
    return v;
  }
  int device() const { return device_; }

 private:
  int device_;
  CUdeviceptr ptr_ = 0;
};

// N threads x N devices x 1,000 calls: thread t's call c runs on device
// (t + c) % N with one of 7 shapes (7 * N specializations, made while the
// other threads launch), its own a and b, and its result is checked
// before the next call: a result from the wrong device, a wrong
// specialization or a lost launch fails it.
TEST(MultiDevice, EveryThreadOnEveryDeviceWithChangingShapes) {
  CROQ_REQUIRE_DEVICES(2);
  const int devices = jit::device_count();
  const int threads = devices;
  constexpr int kCalls = 1000;
  const std::size_t shapes[] = {64, 1000, 1024, 3001, 4096, 65536, 100003};
  const Kernel k = compile(kAxpb);
  std::atomic<int> checked{0};
  std::vector<std::string> failures(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      try {
        // Per device: this thread's stream, input and output.
        std::vector<CUstream> streams(devices);
        std::vector<std::unique_ptr<Buffer>> xs, ys;
        std::vector<std::int32_t> x_host(shapes[6]);
        for (std::size_t i = 0; i < x_host.size(); ++i) x_host[i] = static_cast<std::int32_t>((i * 7 + t) % 1001) - 500;
        for (int d = 0; d < devices; ++d) {
          jit::make_current(d);
          CROQ_CU(cuStreamCreate, &streams[d], CU_STREAM_NON_BLOCKING);
          xs.push_back(std::make_unique<Buffer>(d, shapes[6]));
          ys.push_back(std::make_unique<Buffer>(d, shapes[6]));
          xs.back()->upload(x_host, streams[d]);
        }
        for (int c = 0; c < kCalls && failures[t].empty(); ++c) {
          const int d = (t + c) % devices;
          const std::size_t n = shapes[(c * 3 + t) % 7];
          const std::int32_t a = t * 1000 + c % 997 + 1, b = c - t;
          LaunchOptions options;
          options.stream = streams[d];
          options.device = d;
          const Arg args[] = {xs[d]->view(n), ys[d]->view(n), a, b};
          k.launch(args, options);
          const std::vector<std::int32_t> y = ys[d]->download(n, streams[d]);
          for (std::size_t i = 0; i < n; ++i)
            if (y[i] != x_host[i] * a + b) {
              failures[t] = "thread " + std::to_string(t) + " call " + std::to_string(c) + " on device " +
                            std::to_string(d) + ", N " + std::to_string(n) + ": y[" + std::to_string(i) + "] = " +
                            std::to_string(y[i]) + ", want " + std::to_string(x_host[i] * a + b);
              break;
            }
          ++checked;
        }
        for (int d = 0; d < devices; ++d) {
          jit::make_current(d);
          jit::driver().cuStreamDestroy(streams[d]);
        }
      } catch (const std::exception& e) {
        failures[t] = "thread " + std::to_string(t) + ": " + e.what();
      }
    });
  for (std::thread& th : pool) th.join();
  for (const std::string& f : failures) EXPECT_EQ(f, "");
  EXPECT_EQ(checked.load(), threads * kCalls);
  // One specialization per (shape, device), however many threads asked.
  EXPECT_EQ(k.stats().specializations.size(), 7u * static_cast<std::size_t>(devices));
}

TEST(MultiDevice, WrongDeviceIsAnArgumentErrorNamingBoth) {
  CROQ_REQUIRE_DEVICES(2);
  const Kernel k = compile(kAxpb);
  Buffer x0(0, 256), y1(1, 256);
  const Arg args[] = {x0.view(256), y1.view(256), 2, 3};
  // The whole text is tests/api/device_rules_test.cpp's; here, on real
  // devices, the argument, both devices and where the device came from.
  auto starts = [](const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; };
  EXPECT_PRED2(starts, error_of([&] { k.launch(args); }),
               "argument 2 'y' is on device 1 but the kernel runs on device 0 (the device of argument 1 'x'); ");
  LaunchOptions on_one;
  on_one.device = 1;
  EXPECT_PRED2(starts, error_of([&] { k.launch(args, on_one); }),
               "argument 1 'x' is on device 0 but the kernel runs on device 1 (LaunchOptions::device); ");
}

// A kernel on device 0 reads x from device 1 and writes y on device 1,
// over the peer link; then the other way round.
TEST(MultiDevice, PeerTensorsAreReadAndWrittenInPlace) {
  CROQ_REQUIRE_DEVICES(2);
  if (!can_access_peer(0, 1) || !can_access_peer(1, 0)) GTEST_SKIP() << "devices 0 and 1 cannot be peers";
  enable_peer_access(0, 1);
  enable_peer_access(1, 0);
  enable_peer_access(0, 1);  // again: already enabled is fine
  const Kernel k = compile(kAxpb);
  constexpr std::size_t n = 1 << 20;
  std::vector<std::int32_t> x_host(n);
  for (std::size_t i = 0; i < n; ++i) x_host[i] = static_cast<std::int32_t>(i % 4099) - 2000;
  for (int here : {0, 1}) {
    const int there = 1 - here;
    Buffer x(there, n), y(there, n);
    x.upload(x_host, nullptr);
    LaunchOptions options;
    options.device = here;
    options.peer_access = true;
    const Arg args[] = {x.view(n), y.view(n), 3, -here};
    k.launch(args, options);
    jit::make_current(here);
    CROQ_CU(cuCtxSynchronize);
    const std::vector<std::int32_t> got = y.download(n, nullptr);
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_EQ(got[i], x_host[i] * 3 - here) << "kernel on device " << here << ", element " << i;
    options.peer_access = false;  // the opt-in is per call
    EXPECT_NE(error_of([&] { k.launch(args, options); }).find("is on device " + std::to_string(there)),
              std::string::npos);
  }
}

TEST(MultiDevice, EnablePeerAccessRefusesDevicesThatDoNotExist) {
  CROQ_REQUIRE_DEVICES(2);
  const int count = jit::device_count();
  EXPECT_EQ(error_of([&] { enable_peer_access(0, count); }),
            "cuDeviceGet: device " + std::to_string(count) + " does not exist (" + std::to_string(count) +
                " CUDA device(s) present)");
  enable_peer_access(1, 1);  // the same device: nothing to do
  EXPECT_TRUE(can_access_peer(1, 1));
}

}  // namespace
}  // namespace croq
