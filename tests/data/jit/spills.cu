// A hand-written kernel capped at 32 registers by its launch bounds (1024
// threads, 2 blocks per SM) below its 64 live doubles: ptxas spills.
extern "C" __global__ void __launch_bounds__(1024, 2) spills(double* data, int n) {
  double r[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) r[i] = data[i * n + threadIdx.x];
  for (int k = 0; k < n; ++k) {
#pragma unroll
    for (int i = 0; i < 64; ++i) r[i] = r[i] * r[(i + 1) & 63] + 1.0;
  }
#pragma unroll
  for (int i = 0; i < 64; ++i) data[i * n + threadIdx.x] = r[i];
}
