// The CUDA backend's printer, shared by emit_kernel.cpp (the kernel,
// statements and expressions), emit_copy.cpp (copy loops) and
// emit_ops.cpp (events, TMA, MMA). Not an interface.
#pragma once

#include <string>
#include <vector>

#include "backend/cuda/cuda_backend.hpp"
#include "ir/ir.hpp"

namespace croq::backend::cuda {

const char* cuda_type(DType t);
const char* cuda_type(const ir::Type& t);
// `value` converted to the element type: float(0), static_cast<unsigned char>(0).
std::string typed(DType t, const std::string& value);
std::string add_text(const std::string& a, const std::string& b);
std::string mul_text(const std::string& a, std::int64_t k);
// `#line N "name"`, the name escaped for the literal.
std::string line_directive(int line, const std::string& source_name);
// The __device__ code of the kernel with the #defines it sees (emit_kernel.cpp).
std::string device_code_text(const ir::Kernel& kernel);

class Printer {
 public:
  explicit Printer(const ir::Kernel& kernel) : kernel_(kernel), next_name_(kernel.next_name) {}

  std::string body_text(const ir::Stmt& body);

  // Expressions.
  std::string expr(const ir::ExprRef& e) const;
  // buffer[linear] for coordinates given as text, through the buffer's layout.
  std::string element(int buffer, const std::string& slot, const std::vector<std::string>& coords) const;
  std::string dim_text(int buffer, std::size_t d) const;
  std::string scaled_text(const std::string& a, std::int64_t k) const;
  std::string math_call(const ir::Expr& e, const std::vector<std::string>& args) const;
  std::string atomic_call(const ir::Expr& e, const std::vector<std::string>& args) const;
  // Whether the text printed so far calls croq_exp2_approx (the kernel then pastes it).
  bool uses_exp2_approx() const { return uses_exp2_approx_; }
  // Whether a __device__ function is passed a tile (the kernel then needs kDeviceArg).
  bool uses_device_args() const { return uses_device_args_; }
  // The C++ call of a __device__ function (emit_ops.cpp).
  std::string device_call(const ir::Expr& e) const;

 private:
  void line(const std::string& text);
  void raw(const std::string& text);
  void indent() { ++depth_; }
  void dedent() { --depth_; }
  std::string fresh(const std::string& base) { return base + "_" + std::to_string(next_name_++); }

  void stmt(const ir::Stmt& s);
  void list(const ir::StmtList& body);
  void braced_body(const ir::StmtPtr& body);  // the inside of { ... } already opened
  void inline_asm(const ir::InlineAsm& a);
  void print(const ir::Print& p);

  // emit_copy.cpp
  void copy(const ir::CopyTiles& c);
  std::vector<std::string> open_element_loop(const ir::CopyTiles& c, const std::vector<std::int64_t>& space,
                                             std::int64_t vec, std::int64_t inner_begin);
  void copy_loop(const ir::CopyTiles& c, std::int64_t vec, std::int64_t inner_begin, std::int64_t inner_count);
  void pad(const ir::CopyTiles& c);
  std::string tile_element(const ir::Tile& t, const std::vector<std::string>& idx) const;
  std::string in_buffer(const ir::Tile& t, const std::vector<std::string>& idx) const;

  // emit_ops.cpp
  void barrier_prologue(const ir::BarrierPrologue& p);
  void arrive(const ir::Arrive& a);
  void wait_event(const ir::WaitEvent& w);
  void tma_load(const ir::TmaLoad& t);
  void tma_store(const ir::TmaStore& t);
  void mma_fill(const ir::MmaFill& f);
  std::string accumulator_text(const std::string& name, const ir::ExprRef& index) const;
  void mma(const ir::Mma& m);
  void sparse_wgmma(const ir::Mma& m, const ir::Accumulator& acc);  // the .sp steps of mma()
  void mma_scale(const ir::MmaScale& m);
  void mma_rs(const ir::Mma& m);
  void mma_rs_fp8(const ir::Mma& m);  // emit_fp8_rs.cpp
  // RS-mode fp8 mmas of one fragment one after another in a statement list
  // (attention's P V, one per slab of D) share one repacking of it: whether
  // the statement list() prints now is such an mma, and whether it takes the
  // previous one's packed registers or leaves them to the next (emit_fp8_rs.cpp).
  struct Fp8PackSharing {
    const ir::Mma* mma = nullptr;
    bool from_previous = false, to_next = false;
  };
  static Fp8PackSharing fp8_pack_sharing(const ir::StmtList& body, std::size_t i);
  Fp8PackSharing fp8_pack_;
  std::string fp8_packed_name_;  // the registers the current run of such mmas shares
  void rs_open(const ir::Mma& m, const std::string& pack, const std::string& packed_count);
  void mma_ss_m_major(const ir::Mma& m, const ir::Accumulator& acc);  // col.*: the steps of mma()
  void mma_store(const ir::MmaStore& m);
  void mma_load(const ir::MmaLoad& m);
  std::string event_slot(int event, const ir::ExprRef& index) const;

  const ir::Kernel& kernel_;
  std::string out_;
  int depth_ = 0;
  int next_name_ = 0;
  mutable bool uses_exp2_approx_ = false;  // set by math_call, which is const like the rest of expr()
  mutable bool uses_device_args_ = false;  // set by device_call
};

}  // namespace croq::backend::cuda
