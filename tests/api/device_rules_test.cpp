// Which device a call runs on and which device tensors it may take
// (LaunchOptions::device, LaunchOptions::peer_access), without a GPU: the
// rule function, the peer table it reads, and the messages through
// Kernel::prepare with views that only describe a signature.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <thread>
#include <vector>

#include "api/device_rules.hpp"
#include "common/error_text.hpp"
#include "croq/croq.hpp"
#include "jit/peer_access.hpp"

namespace croq {
namespace {

using detail::device_argument_problem;
using detail::LaunchDevice;
using test::error_of;

const LaunchDevice kOnZero{0, "LaunchOptions::device"};

TEST(DeviceRules, SameDeviceIsAlwaysFine) {
  EXPECT_EQ(device_argument_problem("argument 1 'x'", 0, kOnZero, false, false), "");
  EXPECT_EQ(device_argument_problem("argument 1 'x'", 0, kOnZero, true, false), "");
}

TEST(DeviceRules, AnotherDeviceWithoutOptInSaysHowToAllowIt) {
  EXPECT_EQ(device_argument_problem("argument 2 'y'", 1, kOnZero, false, false),
            "argument 2 'y' is on device 1 but the kernel runs on device 0 (LaunchOptions::device); pass a tensor "
            "on device 0, or read it over the peer link: croq::enable_peer_access(0, 1) and "
            "LaunchOptions::peer_access");
  // Enabled peer access alone does not let a tensor through: the call opts in.
  EXPECT_NE(device_argument_problem("argument 2 'y'", 1, kOnZero, false, true), "");
}

TEST(DeviceRules, OptInNeedsEnabledPeerAccess) {
  EXPECT_EQ(device_argument_problem("argument 2 'y'", 3, LaunchDevice{2, "the current device"}, true, false),
            "argument 2 'y' is on device 3 but the kernel runs on device 2 (the current device), and peer access "
            "from device 2 to device 3 is not enabled: call croq::enable_peer_access(2, 3) first");
  EXPECT_EQ(device_argument_problem("argument 2 'y'", 3, LaunchDevice{2, "the current device"}, true, true), "");
}

TEST(PeerTable, RecordsDirectedPairs) {
  jit::PeerTable table;
  EXPECT_TRUE(table.enabled(5, 5));  // a device always reaches its own memory
  EXPECT_FALSE(table.enabled(0, 1));
  table.mark(0, 1);
  EXPECT_TRUE(table.enabled(0, 1));
  EXPECT_FALSE(table.enabled(1, 0));  // one direction per call
  table.mark(63, 0);
  EXPECT_TRUE(table.enabled(63, 0));
  // Out of range: never enabled, and marking it changes nothing.
  table.mark(-1, 0);
  table.mark(0, 64);
  EXPECT_FALSE(table.enabled(-1, 0));
  EXPECT_FALSE(table.enabled(0, 64));
  EXPECT_FALSE(table.enabled(64, 64));
}

const char* kScale = R"(__co__ void scale(s32 [N] x, s32 [N] y, int f) {
  parallel i by N
    y.at(i) = x.at(i) * f;
}
)";

TensorView on_device(int device) {
  return TensorView::contiguous(nullptr, DType::s32, {64}, MemoryKind::device, device);
}

TEST(DeviceRules, PrepareNamesTheArgumentAndBothDevices) {
  const Kernel k = compile(kScale);
  const Arg mixed[] = {on_device(1), on_device(0), 2};
  EXPECT_EQ(error_of([&] { k.prepare(mixed); }),
            "argument 2 'y' is on device 0 but the kernel runs on device 1 (the device of argument 1 'x'); pass a "
            "tensor on device 1, or read it over the peer link: croq::enable_peer_access(1, 0) and "
            "LaunchOptions::peer_access");
  LaunchOptions on_two;
  on_two.device = 2;
  const Arg on_one[] = {on_device(1), on_device(1), 2};
  EXPECT_EQ(error_of([&] { k.prepare(on_one, on_two); }),
            "argument 1 'x' is on device 1 but the kernel runs on device 2 (LaunchOptions::device); pass a tensor "
            "on device 2, or read it over the peer link: croq::enable_peer_access(2, 1) and "
            "LaunchOptions::peer_access");
  on_two.peer_access = true;
  EXPECT_EQ(error_of([&] { k.prepare(on_one, on_two); }),
            "argument 1 'x' is on device 1 but the kernel runs on device 2 (LaunchOptions::device), and peer access "
            "from device 2 to device 1 is not enabled: call croq::enable_peer_access(2, 1) first");
}

TEST(DeviceRules, PeerAccessLetsAPeerTensorThrough) {
  // Devices 40 and 41 exist on no machine this runs on, so nothing is loaded:
  // the table entry stands for croq::enable_peer_access(40, 41).
  jit::peer_table().mark(40, 41);
  const Kernel k = compile(kScale);
  LaunchOptions options;
  options.device = 40;
  options.peer_access = true;
  const Arg args[] = {on_device(41), on_device(40), 2};
  EXPECT_EQ(error_of([&] { k.prepare(args, options); }), "no error");
  const Arg reverse[] = {on_device(40), on_device(41), 2};
  options.device = 41;  // 41 -> 40 was never enabled
  EXPECT_EQ(error_of([&] { k.prepare(reverse, options); }),
            "argument 1 'x' is on device 40 but the kernel runs on device 41 (LaunchOptions::device), and peer "
            "access from device 41 to device 40 is not enabled: call croq::enable_peer_access(41, 40) first");
}

// The specialization table without a GPU: threads asking for the same
// signatures on several devices (ordinals no machine has, so nothing is
// loaded) get one specialization per (signature, device), each made once
// however many threads asked; the images are shared through the memory
// cache (one compile per distinct code).
TEST(DeviceRules, OneSpecializationPerSignatureAndDeviceFromManyThreads) {
  const Kernel k = compile(kScale);
  constexpr int kThreads = 4, kDevices = 4, kCalls = 60;
  const std::size_t extents[] = {64, 96, 128};
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int c = 0; c < kCalls && errors[t].empty(); ++c) {
        const int device = 50 + (t + c) % kDevices;
        const TensorView v = TensorView::contiguous(nullptr, DType::s32, {extents[(c / kDevices) % 3]},
                                                    MemoryKind::device, device);
        const Arg args[] = {v, v, c};
        errors[t] = error_of([&] {
          if (k.prepare(args).argument_written != std::vector<bool>{false, true, false})
            throw Error("wrong CallInfo");
        });
        if (errors[t] == "no error") errors[t].clear();
      }
    });
  for (std::thread& th : threads) th.join();
  for (const std::string& e : errors) EXPECT_EQ(e, "");
  const KernelStats stats = k.stats();
  ASSERT_EQ(stats.specializations.size(), 3u * kDevices);
  std::map<std::string, int> per_signature;
  for (const SpecializationStats& s : stats.specializations) ++per_signature[s.signature];
  for (const auto& [signature, count] : per_signature) EXPECT_EQ(count, kDevices) << signature;
  EXPECT_LE(stats.nvrtc_compiles, 3u);  // the devices share each image
}

TEST(DeviceRules, PublicPeerFunctionsRefuseNegativeOrdinals) {
  EXPECT_EQ(error_of([] { enable_peer_access(-1, 0); }), "croq::enable_peer_access: device ordinal -1 is negative");
  EXPECT_EQ(error_of([] { can_access_peer(0, -2); }), "croq::can_access_peer: device ordinal -2 is negative");
  EXPECT_EQ(device_count() > 0, cuda_available());
}

}  // namespace
}  // namespace croq
