// Shared by the benchmarks: host time per enqueue of two launch paths,
// measured in alternating rounds so drift affects both alike, and the
// median device time of one launch measured with CUDA events.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

#include "jit/driver.hpp"

namespace croq::bench {

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

struct LaunchComparison {
  double reference_us = 0;  // median host time per launch, reference path
  double candidate_us = 0;  // median host time per launch, path under test
};

// Each round enqueues `batch` launches and then synchronizes (so the queue
// never fills and back-pressure is not what gets measured); one warm-up
// round each, then `rounds` alternating rounds.
inline LaunchComparison compare_launch_paths(const std::function<void()>& reference,
                                             const std::function<void()>& candidate, int batch = 1000,
                                             int rounds = 21) {
  auto round = [&](const std::function<void()>& launch_once) {
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < batch; ++i) launch_once();
    double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / batch;
    CROQ_CU(cuCtxSynchronize);
    return us;
  };
  round(reference);
  round(candidate);
  std::vector<double> ref, cand;
  for (int r = 0; r < rounds; ++r) {
    ref.push_back(round(reference));
    cand.push_back(round(candidate));
  }
  return {median(ref), median(cand)};
}

// Median device time in ms of one `launch_once` (work enqueued on the
// default stream): `warmup` untimed launches, then `runs` samples, each the
// mean over `batch` back-to-back launches between two CUDA events. Batching
// lets the host enqueue while the device runs, so a sample is device time,
// not host launch overhead plus device time. The device's context must be
// current (any device allocation makes it so).
inline double median_event_ms(const std::function<void()>& launch_once, int warmup = 3, int runs = 20,
                              int batch = 10) {
  for (int i = 0; i < warmup; ++i) launch_once();
  CROQ_CU(cuCtxSynchronize);
  struct Events {  // destroyed even when a launch throws
    CUevent start = nullptr, stop = nullptr;
    ~Events() {
      if (start) jit::driver().cuEventDestroy(start);
      if (stop) jit::driver().cuEventDestroy(stop);
    }
  } ev;
  CROQ_CU(cuEventCreate, &ev.start, 0);
  CROQ_CU(cuEventCreate, &ev.stop, 0);
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    CROQ_CU(cuEventRecord, ev.start, nullptr);
    for (int b = 0; b < batch; ++b) launch_once();
    CROQ_CU(cuEventRecord, ev.stop, nullptr);
    CROQ_CU(cuEventSynchronize, ev.stop);
    float elapsed = 0;
    CROQ_CU(cuEventElapsedTime, &elapsed, ev.start, ev.stop);
    ms.push_back(static_cast<double>(elapsed) / batch);
  }
  return median(ms);
}

}  // namespace croq::bench
