// Parse benchmark: lexes, preprocesses, parses and checks (sema, every
// function) a ~200-line kernel file many times and prints the median time
// of one run, and of the check alone; the budget is 1 ms for all of it.
//   parse_bench [FILE.co] [ITERATIONS]
// Default input: tests/data/frontend/bench_200_lines.co.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "croq/error.hpp"
#include "frontend/frontend.hpp"
#include "sema/sema.hpp"

int main(int argc, char** argv) {
  std::filesystem::path path = argc > 1 ? std::filesystem::path(argv[1])
                                        : std::filesystem::path(__FILE__).parent_path() / ".." / "tests" / "data" /
                                              "frontend" / "bench_200_lines.co";
  int iterations = argc > 2 ? std::atoi(argv[2]) : 2000;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "parse_bench: cannot read %s\n", path.c_str());
    return 2;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string source = ss.str();
  int lines = static_cast<int>(std::count(source.begin(), source.end(), '\n'));

  croq::CompileOptions options;
  size_t functions = 0;
  try {
    for (int i = 0; i < 50; ++i) {
      auto program = croq::frontend::parse_program(source, options);
      croq::sema::check(*program);
      functions = program->functions.size();
    }
  } catch (const croq::CompileError& e) {
    std::fprintf(stderr, "%s", e.what());
    return 1;
  }

  std::vector<double> micros, check_micros;
  micros.reserve(static_cast<size_t>(iterations));
  check_micros.reserve(static_cast<size_t>(iterations));
  for (int i = 0; i < iterations; ++i) {
    auto start = std::chrono::steady_clock::now();
    auto program = croq::frontend::parse_program(source, options);
    auto parsed = std::chrono::steady_clock::now();
    auto checked = croq::sema::check(*program);
    auto stop = std::chrono::steady_clock::now();
    functions = checked.functions.size();
    micros.push_back(std::chrono::duration<double, std::micro>(stop - start).count());
    check_micros.push_back(std::chrono::duration<double, std::micro>(stop - parsed).count());
  }
  std::sort(micros.begin(), micros.end());
  std::sort(check_micros.begin(), check_micros.end());
  double median = micros[micros.size() / 2];
  double p90 = micros[micros.size() * 9 / 10];
  std::printf("parse_bench: %s: %d lines, %zu bytes, %zu __co__ functions\n", path.filename().c_str(), lines,
              source.size(), functions);
  std::printf("parse_bench: median %.1f us per lex+preprocess+parse+check (p90 %.1f us, min %.1f us, %d runs)\n",
              median, p90, micros.front(), iterations);
  std::printf("parse_bench: of which check (sema) median %.1f us (min %.1f us)\n", check_micros[check_micros.size() / 2],
              check_micros.front());
  std::printf("parse_bench: %s the 1 ms budget\n", median < 1000.0 ? "within" : "OVER");
  return median < 1000.0 ? 0 : 1;
}
