// LaunchOptions::output and CUDA graph capture on a real device: a prepared
// signature launched into a caller's output is captured as one kernel node,
// an unprepared one is refused without invalidating the capture, and the
// instantiated graph recomputes the result from new input contents.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

using test::DeviceBuffer;
using test::random_floats;

const char* kAdd = R"(__co__ f32 [M, N] add(f32 [M, N] lhs, f32 [M, N] rhs) {
  f32 [lhs.span] output;
  parallel {i, j} by [M, N]
    output.at(i, j) = lhs.at(i, j) + rhs.at(i, j);
  return output;
}
)";

// The graph API is not part of the library's driver table; the test loads it.
struct GraphApi {
  decltype(&::cuStreamBeginCapture) begin = nullptr;
  decltype(&::cuStreamEndCapture) end = nullptr;
  decltype(&::cuGraphInstantiate) instantiate = nullptr;
  decltype(&::cuGraphLaunch) launch = nullptr;
  decltype(&::cuGraphExecDestroy) exec_destroy = nullptr;
  decltype(&::cuGraphDestroy) destroy = nullptr;
  decltype(&::cuGraphGetNodes) nodes = nullptr;
  GraphApi() {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return;
    begin = reinterpret_cast<decltype(begin)>(dlsym(lib, "cuStreamBeginCapture_v2"));
    end = reinterpret_cast<decltype(end)>(dlsym(lib, "cuStreamEndCapture"));
    instantiate = reinterpret_cast<decltype(instantiate)>(dlsym(lib, "cuGraphInstantiateWithFlags"));
    launch = reinterpret_cast<decltype(launch)>(dlsym(lib, "cuGraphLaunch"));
    exec_destroy = reinterpret_cast<decltype(exec_destroy)>(dlsym(lib, "cuGraphExecDestroy"));
    destroy = reinterpret_cast<decltype(destroy)>(dlsym(lib, "cuGraphDestroy"));
    nodes = reinterpret_cast<decltype(nodes)>(dlsym(lib, "cuGraphGetNodes"));
  }
  bool complete() const { return begin && end && instantiate && launch && exec_destroy && destroy && nodes; }
};

void expect_sum(const std::vector<float>& got, const std::vector<float>& a, const std::vector<float>& b) {
  ASSERT_EQ(got.size(), a.size());
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], a[i] + b[i]) << "element " << i;
}

TEST(GpuCapture, LaunchIntoCallerOutputOnStream) {
  CROQ_REQUIRE_GPU();
  Kernel add = compile(kAdd);
  const std::size_t m = 77, n = 131, count = m * n;
  auto a = random_floats(count, -50, 50), b = random_floats(count, -50, 50);
  DeviceBuffer da(count * 4), db(count * 4), dout(count * 4);
  da.upload(a);
  db.upload(b);
  dout.poison();
  auto view = [&](DeviceBuffer& buf) {
    return TensorView::contiguous(reinterpret_cast<void*>(buf.ptr()), DType::f32, Shape{m, n}, MemoryKind::device);
  };
  TensorView out = view(dout);
  CUstream stream;
  CROQ_CU(cuStreamCreate, &stream, CU_STREAM_NON_BLOCKING);
  std::array<Arg, 2> args{Arg(view(da)), Arg(view(db))};
  LaunchOptions options;
  options.stream = stream;
  options.output = &out;
  Tensor none = add.launch(args, options);
  EXPECT_FALSE(none.defined());
  CROQ_CU(cuStreamSynchronize, stream);
  expect_sum(dout.download<float>(count), a, b);
  CROQ_CU(cuStreamDestroy, stream);
}

TEST(GpuCapture, PreparedLaunchIsCapturedAndUnpreparedIsRefused) {
  CROQ_REQUIRE_GPU();
  GraphApi graph_api;
  if (!graph_api.complete()) GTEST_SKIP() << "the driver lacks the graph API";
  Kernel add = compile(kAdd);
  const std::size_t m = 64, n = 300, count = m * n;
  DeviceBuffer da(count * 4), db(count * 4), dout(count * 4), dother(97 * 4);
  auto view = [](DeviceBuffer& buf, Shape shape) {
    return TensorView::contiguous(reinterpret_cast<void*>(buf.ptr()), DType::f32, shape, MemoryKind::device);
  };
  TensorView out = view(dout, {m, n});
  std::array<Arg, 2> args{Arg(view(da, {m, n})), Arg(view(db, {m, n}))};
  std::array<Arg, 2> unprepared{Arg(view(dother, {1, 97})), Arg(view(dother, {1, 97}))};
  CUstream stream;
  CROQ_CU(cuStreamCreate, &stream, CU_STREAM_NON_BLOCKING);
  LaunchOptions options;
  options.stream = stream;
  options.output = &out;
  CallInfo info = add.prepare(args, options);
  ASSERT_EQ(info.result_shape, (Shape{m, n}));

  ASSERT_EQ(graph_api.begin(stream, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
  add.launch(args, options);
  std::string refused;
  try {
    add.launch(unprepared, LaunchOptions{stream, -1, nullptr});
  } catch (const CudaError& e) {
    refused = e.what();
  }
  try {  // no output: the result would be allocated
    add.launch(args, LaunchOptions{stream, -1, nullptr});
  } catch (const CudaError& e) {
    refused += std::string("\n") + e.what();
  }
  CUgraph graph = nullptr;
  ASSERT_EQ(graph_api.end(stream, &graph), CUDA_SUCCESS) << "the refused launches must not invalidate the capture";
  EXPECT_NE(refused.find("`add`: compiling a new signature (f32 [1, 97] (device 0), f32 [1, 97] (device 0)) while the "
                         "stream is being captured into a CUDA graph would break the capture; call prepare() with the "
                         "same arguments before capturing"),
            std::string::npos)
      << refused;
  EXPECT_NE(refused.find("`add`: allocating the result while the stream is being captured"), std::string::npos)
      << refused;
  std::size_t node_count = 0;
  ASSERT_EQ(graph_api.nodes(graph, nullptr, &node_count), CUDA_SUCCESS);
  EXPECT_EQ(node_count, 1u);
  CUgraphExec exec = nullptr;
  ASSERT_EQ(graph_api.instantiate(&exec, graph, 0), CUDA_SUCCESS);

  // Each replay reads the inputs' current contents into the same output.
  for (int replay = 0; replay < 3; ++replay) {
    auto a = random_floats(count, -100, 100), b = random_floats(count, -100, 100);
    da.upload(a);
    db.upload(b);
    dout.poison();
    ASSERT_EQ(graph_api.launch(exec, stream), CUDA_SUCCESS);
    CROQ_CU(cuStreamSynchronize, stream);
    expect_sum(dout.download<float>(count), a, b);
  }
  graph_api.exec_destroy(exec);
  graph_api.destroy(graph);
  CROQ_CU(cuStreamDestroy, stream);
}

}  // namespace
}  // namespace croq
