// Prints CUDA text line by line and owns the indentation.
#pragma once

#include <string>

namespace croq::codegen {

class Emitter {
 public:
  void line(const std::string& text) {
    last_was_barrier_ = false;
    out_.append(static_cast<std::size_t>(depth_) * 2, ' ');
    out_ += text;
    out_ += '\n';
  }
  void raw(const std::string& text) {  // preprocessor lines stay in column 0
    out_ += text;
    out_ += '\n';
  }
  // __syncthreads(), unless the previous line already was one.
  void barrier() {
    if (last_was_barrier_) return;
    line("__syncthreads();");
    last_was_barrier_ = true;
  }
  void indent() { ++depth_; }
  void dedent() { --depth_; }
  const std::string& text() const { return out_; }

 private:
  std::string out_;
  int depth_ = 0;
  bool last_was_barrier_ = false;
};

}  // namespace croq::codegen
