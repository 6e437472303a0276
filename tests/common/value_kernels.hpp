// Kernels of values the language computes inside statements, with their host
// references: a name bound again in an inner scope (`base = base + ...`),
// `++` / `--` inside expressions, `yield`, and `select` among tiles and
// futures (with a copy into a selected tile `after` a future). Shared by the
// interpret-mode tests (tests/interp/value_interp_test.cpp) and the GPU
// tests (tests/gpu/value_gpu_test.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

namespace croq::test {

// Each thread: a rebinding per loop pass, updates inside expressions, and a
// yield for negative inputs (whose outputs keep what the host put there).
inline const char* kValueUpdatesKernel = R"(__co__ void value_updates(s32 [4, 64] input, s32 [4, 64] sums, s32 [4, 64] steps) {
  int base = 3;
  parallel b by 4 : block {
    parallel t by 64 : thread {
      s32 x = input.at(b, t);
      if (x < 0) {
        yield;
      }
      mutable s32 acc = 0;
      foreach k in [3] {
        base = base + k * x;
        acc += base;
      }
      sums.at(b, t) = acc;
      mutable s32 n = x % 5;
      s32 old = n++;
      s32 now = ++n;
      s32 down = n--;
      steps.at(b, t) = old * 1000 + now * 100 + down * 10 + --n;
    }
  }
}
)";

struct ValueUpdatesResult {
  std::int32_t sum, steps;
};

// What kValueUpdatesKernel writes for input x >= 0 (negative inputs yield).
inline ValueUpdatesResult value_updates_reference(std::int32_t x) {
  std::int32_t acc = 0;
  for (int k = 0; k < 3; ++k) acc += 3 + k * x;  // each pass binds a new `base` from the outer 3
  std::int32_t n = x % 5;
  const std::int32_t old = n++;
  const std::int32_t now = ++n;
  const std::int32_t down = n--;
  --n;
  return {acc, old * 1000 + now * 100 + down * 10 + n};
}

// Block p loads row p of `a` and of `b` into shared tiles and keeps the one
// `select` picks (a's on even blocks, b's on odd ones); copies row p of `a`
// `after` the first load into one of two tiles it selects, and reads it back
// through a second select; each thread picks one of two local tiles.
inline const char* kValueSelectKernel = R"(__co__ void value_select(f32 [8, 64] a, f32 [8, 64] b, f32 [8, 64] picked, f32 [8, 64] again, f32 [8, 64] locals) {
  parallel p by 8 : block {
    fa = dma.copy.async a.chunkat(p, _) => shared;
    fb = dma.copy.async b.chunkat(p, _) => shared;
    wait fa, fb;
    f = select(p % 2, fa, fb);
    shared f32 [1, 64] x0, x1;
    g = dma.copy.async a.chunkat(p, _) => select((p + 1) % 2, x0, x1) after fa;
    wait g;
    kept = select(p % 2, x1, x0);
    parallel t by 64 : thread {
      picked.at(p, t) = f.data.at(0, t) * 2.0f;
      again.at(p, t) = kept.at(0, t) + 1.0f;
      local f32 [2] l0, l1;
      l0.at(0) = a.at(p, t);
      l1.at(0) = b.at(p, t);
      l = select(t % 2, l0, l1);
      locals.at(p, t) = l.at(0);
    }
  }
}
)";

// Checks what kValueSelectKernel wrote for inputs `a` and `b` ([8, 64] each,
// row-major): `picked`, `again`, `locals` as the kernel's comment says.
template <typename Check>
void check_value_select(const float* a, const float* b, const float* picked, const float* again, const float* locals,
                        Check&& check) {
  for (std::size_t p = 0; p < 8; ++p)
    for (std::size_t t = 0; t < 64; ++t) {
      const std::size_t i = p * 64 + t;
      check(picked[i], (p % 2 ? b : a)[i] * 2.0f, "picked", p, t);
      check(again[i], a[i] + 1.0f, "again", p, t);
      check(locals[i], (t % 2 ? b : a)[i], "locals", p, t);
    }
}

}  // namespace croq::test
