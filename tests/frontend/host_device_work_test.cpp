// frontend/host_code.hpp on device work at the host level: which element
// stores and copies are host device work (a kernel of their own each), when
// they make a function a host program, their place among the launches, and
// host `while` loops.
#include <gtest/gtest.h>

#include "frontend/frontend.hpp"
#include "frontend/host_code.hpp"

namespace croq::frontend::ast {
namespace {

struct Parsed {
  std::unique_ptr<Program> program;
  const Function& fn() const { return program->functions.front(); }
  const Stmt& statement(std::size_t i) const { return *std::get<Block>(fn().body->node).statements[i]; }
};

Parsed parse(const std::string& source) { return Parsed{parse_program(source, CompileOptions{})}; }

TEST(HostDeviceWork, ElementStoresAndSynchronousCopiesAreDeviceWork) {
  Parsed p = parse("__co__ void f(f32 [8] a, f32 [8] b) {\n  a.at(0) = 1.0f;\n  b.at(1) += 2.0f;\n"
                   "  dma.copy a => b;\n  f = dma.copy a => b;\n  dma.copy.async a => b;\n  x = 3;\n}\n");
  EXPECT_TRUE(is_host_device_work(p.statement(0)));
  EXPECT_TRUE(is_host_device_work(p.statement(1)));
  EXPECT_TRUE(is_host_device_work(p.statement(2)));
  EXPECT_FALSE(is_host_device_work(p.statement(3)));  // a future
  EXPECT_FALSE(is_host_device_work(p.statement(4)));  // asynchronous
  EXPECT_FALSE(is_host_device_work(p.statement(5)));  // a scalar
  EXPECT_EQ(host_statement_problem(p.statement(4)),
            "this copy (the host copies with a synchronous `dma.copy a => b;`)");
}

TEST(HostDeviceWork, DeviceWorkBetweenKernelsMakesAHostProgramWithALaunchEach) {
  Parsed p = parse("__co__ void f(f32 [8] a, f32 [8] b) {\n  parallel p by 8 a.at(p) = 1.0f;\n  a.at(0) = 2.0f;\n"
                   "  dma.copy a => b;\n  parallel q by 8 b.at(q) = 0.0f;\n}\n");
  ASSERT_TRUE(is_host_program(p.fn()));
  ASSERT_EQ(launches(p.fn()).size(), 4u);
  EXPECT_EQ(launches(p.fn())[1]->location.line, 3);
  EXPECT_EQ(launches(p.fn())[2]->location.line, 4);
  EXPECT_EQ(kernel_count(p.fn()), 4);
}

TEST(HostDeviceWork, DeviceWorkBesideOneParallelStatementStaysOneKernel) {
  Parsed p = parse("__co__ void f(f32 [8] a) {\n  a.at(0) = 2.0f;\n  parallel p by 8 a.at(p) = 1.0f;\n}\n");
  EXPECT_FALSE(is_host_program(p.fn()));
  EXPECT_EQ(kernel_count(p.fn()), 1);
}

TEST(HostDeviceWork, WorkOnSharedTensorsIsNoHostDeviceWork) {
  Parsed p = parse("__co__ void f(f32 [8] a) {\n  shared f32 [8] s;\n  parallel p by 8 a.at(p) = 1.0f;\n"
                   "  s.at(0) = 1.0f;\n  dma.copy s => a;\n  parallel q by 8 a.at(q) = 0.0f;\n}\n");
  EXPECT_FALSE(is_host_program(p.fn()));
  EXPECT_EQ(host_device_work_problem(p.fn(), p.statement(2)), "a store into a tensor in shared or local memory");
  EXPECT_EQ(host_device_work_problem(p.fn(), p.statement(3)), "a copy of a tensor in shared or local memory");
}

TEST(HostDeviceWork, AWhileOfHostScalarsIsAHostLoop) {
  Parsed p = parse("__co__ void f(f32 [8] a) {\n  mutable int n = 3;\n  while (n > 0) {\n"
                   "    parallel p by 8 a.at(p) = n;\n    n -= 1;\n  }\n}\n");
  EXPECT_TRUE(is_host_program(p.fn()));
  EXPECT_EQ(host_statement_problem(p.statement(1)), "");
  Parsed q = parse("__co__ void f(f32 [8] a) {\n  while (a.at(0) > 0.0f) {\n    parallel p by 8 a.at(p) = 0.0f;\n"
                   "  }\n  println(\"x\");\n}\n");
  EXPECT_EQ(host_statement_problem(q.statement(0)), "this `while` condition (only scalars)");
  EXPECT_FALSE(is_host_program(q.fn()));
}

}  // namespace
}  // namespace croq::frontend::ast
