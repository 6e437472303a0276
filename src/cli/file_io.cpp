// Checked file input and output for the croq command; see file_io.hpp.
#include "cli/file_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "frontend/limits.hpp"

namespace croq::cli {

std::string input_file_problem(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "cannot read `" + path + "`: " + std::strerror(errno);
  if (S_ISDIR(st.st_mode)) return "`" + path + "` is a directory, not a file";
  return "";
}

std::string read_source(const std::string& path, std::string& text) {
  int fd = STDIN_FILENO;
  if (path != "-") {
    if (std::string problem = input_file_problem(path); !problem.empty()) return problem;
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return "cannot read `" + path + "`: " + std::strerror(errno);
  }
  const std::string name = path == "-" ? "standard input" : "`" + path + "`";
  constexpr std::size_t limit = frontend::limits::kMaxSourceBytes;
  std::string problem;
  text.clear();
  char buffer[1 << 16];
  while (true) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      problem = "cannot read " + name + ": " + std::strerror(errno);
      break;
    }
    if (n == 0) break;
    // Stop at the limit: /dev/zero or a runaway pipe never ends.
    if (text.size() + static_cast<std::size_t>(n) > limit) {
      problem = name + " is larger than " + frontend::limits::group_digits(limit) +
                " bytes (16 MiB), the limit on Croqtile sources";
      break;
    }
    text.append(buffer, static_cast<std::size_t>(n));
  }
  if (fd != STDIN_FILENO) ::close(fd);
  if (!problem.empty()) text.clear();
  return problem;
}

std::string output_overwrites_input(const std::string& output, const std::string& input) {
  if (output.empty() || input.empty() || input == "-") return "";
  struct stat in {}, out {};
  if (::stat(input.c_str(), &in) != 0 || ::stat(output.c_str(), &out) != 0) return "";
  if (in.st_dev != out.st_dev || in.st_ino != out.st_ino) return "";
  return "the output `" + output + "` is the input file; refusing to overwrite it (choose another -o)";
}

std::string write_file(const std::string& path, std::initializer_list<std::string_view> pieces) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return "cannot write `" + path + "`: " + std::strerror(errno);
  int error = 0;
  for (std::string_view piece : pieces) {
    const char* p = piece.data();
    std::size_t left = piece.size();
    while (left > 0 && error == 0) {
      ssize_t n = ::write(fd, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        error = n < 0 ? errno : EIO;
        break;
      }
      p += n;
      left -= static_cast<std::size_t>(n);
    }
  }
  struct stat st {};
  bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error == 0) return "";
  if (regular) ::unlink(path.c_str());  // never leave a truncated output behind (devices stay)
  return "cannot write `" + path + "`: " + std::strerror(error);
}

std::string flush_stdout() {
  // std::cout writes through stdout's buffer (synced with stdio): the first
  // flush is the one that fails, with the reason in errno.
  errno = 0;
  bool failed = std::fflush(stdout) != 0;
  const int error = errno;
  std::cout.flush();
  errno = error;
  // A write that failed earlier (the buffer filled up) leaves only the error flag; its errno is gone.
  if (!failed && !std::ferror(stdout) && std::cout) return "";
  return std::string("cannot write to standard output") + (failed && errno ? std::string(": ") + std::strerror(errno) : "");
}

int write_output(const std::string& text, const std::string& output, std::string_view command) {
  if (output.empty()) {
    std::cout << text;
    return 0;
  }
  if (std::string problem = write_file(output, {text}); !problem.empty()) {
    std::cerr << command << ": " << problem << "\n";
    return 1;
  }
  return 0;
}

}  // namespace croq::cli
