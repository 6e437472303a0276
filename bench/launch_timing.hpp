// Shared by the benchmarks: host time per enqueue of two launch paths,
// measured in alternating rounds so drift affects both alike.
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

}  // namespace croq::bench
