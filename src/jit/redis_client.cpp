#include "jit/redis_client.hpp"

#include <hiredis/hiredis.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "croq/error.hpp"

namespace croq::jit {
namespace {

using Clock = std::chrono::steady_clock;

// Blocks SIGPIPE in this thread while it talks to the server: a write to a
// connection the server has closed raises it, and its default action ends
// the process. A SIGPIPE raised meanwhile is taken off the thread's pending
// set before the mask is restored (unless one was pending before).
class SigpipeGuard {
 public:
  SigpipeGuard() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~SigpipeGuard() {
    sigset_t pending;
    sigpending(&pending);
    if (!was_pending_ && sigismember(&pending, SIGPIPE) == 1) {
      const timespec zero{};
      sigtimedwait(&pipe_, nullptr, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeGuard(const SigpipeGuard&) = delete;
  SigpipeGuard& operator=(const SigpipeGuard&) = delete;

 private:
  sigset_t pipe_{}, old_{};
  bool was_pending_ = false;
};

// Waits until `fd` is ready for `events`, at most until `deadline`.
bool wait_ready(int fd, short events, Clock::time_point deadline, std::chrono::milliseconds limit, std::string* why) {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      *why = "no answer within " + std::to_string(limit.count()) + " ms";
      return false;
    }
    pollfd p{fd, events, 0};
    const int n = ::poll(&p, 1, static_cast<int>(left));
    if (n > 0) return true;  // an error or hang-up is reported by the read or write that follows
    if (n < 0 && errno != EINTR) {
      *why = std::string("poll: ") + std::strerror(errno);
      return false;
    }
  }
}

std::string context_error(const redisContext* c) {
  if (c->err == REDIS_ERR_IO) return std::strerror(errno);
  if (c->err == REDIS_ERR_EOF) return "the server closed the connection";
  return c->errstr[0] != '\0' ? c->errstr : "unknown hiredis error";
}

RedisReply convert(const redisReply* r) {
  RedisReply out;
  switch (r->type) {
    case REDIS_REPLY_STRING: out.kind = RedisReply::Kind::string; break;
    case REDIS_REPLY_STATUS: out.kind = RedisReply::Kind::status; break;
    case REDIS_REPLY_ERROR: out.kind = RedisReply::Kind::error; break;
    case REDIS_REPLY_INTEGER: out.kind = RedisReply::Kind::integer; break;
    case REDIS_REPLY_NIL: out.kind = RedisReply::Kind::nil; break;
    default: out.kind = RedisReply::Kind::other; break;
  }
  if (r->type == REDIS_REPLY_INTEGER) out.integer = r->integer;
  else if (r->str != nullptr) out.text.assign(r->str, r->len);
  return out;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// `text` with %XX decoded; nullopt when a % is not followed by two hex digits.
std::optional<std::string> percent_decoded(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    if (i + 2 >= text.size() || hex_value(text[i + 1]) < 0 || hex_value(text[i + 2]) < 0) return std::nullopt;
    out += static_cast<char>(hex_value(text[i + 1]) * 16 + hex_value(text[i + 2]));
    i += 2;
  }
  return out;
}

// A decimal number in [min, max]; nullopt otherwise.
std::optional<int> parse_int(std::string_view text, int min, int max) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string_view::npos)
    return std::nullopt;
  const int value = std::stoi(std::string(text));
  if (value < min || value > max) return std::nullopt;
  return value;
}

}  // namespace

RedisEndpoint RedisEndpoint::parse(std::string_view url, const std::string& what) {
  const std::string form = "redis://[user:password@]host[:port][/db]";
  // The URL may hold a password: messages show only its form.
  auto fail = [&](const std::string& problem) { return CacheError(what + ": " + problem + " (expected " + form + ")"); };
  constexpr std::string_view scheme = "redis://";
  if (url.rfind("rediss://", 0) == 0)
    throw fail("TLS (rediss://) is not supported; reach Redis over a trusted network or a tunnel");
  if (url.rfind(scheme, 0) != 0) throw fail("the URL does not start with redis://");
  std::string_view rest = url.substr(scheme.size());
  RedisEndpoint e;
  const std::size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  if (slash != std::string_view::npos) {
    std::string_view db = rest.substr(slash + 1);
    if (!db.empty()) {
      auto n = parse_int(db, 0, 1 << 20);
      if (!n) throw fail("the database is not a number");
      e.db = *n;
    }
  }
  if (const std::size_t at = authority.rfind('@'); at != std::string_view::npos) {
    std::string_view credentials = authority.substr(0, at);
    authority = authority.substr(at + 1);
    const std::size_t colon = credentials.find(':');
    if (colon == std::string_view::npos) throw fail("credentials must be user:password or :password");
    auto user = percent_decoded(credentials.substr(0, colon));
    auto password = percent_decoded(credentials.substr(colon + 1));
    if (!user || !password) throw fail("bad percent-encoding in the credentials");
    if (password->empty()) throw fail("the password is empty");
    e.user = std::move(*user);
    e.password = std::move(*password);
  }
  std::string_view port;
  if (!authority.empty() && authority.front() == '[') {  // [IPv6]:port
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) throw fail("unclosed [ in the host");
    e.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty() && after.front() != ':') throw fail("unexpected text after the host");
    if (!after.empty()) port = after.substr(1);
    else port = "6379";
  } else {
    const std::size_t colon = authority.rfind(':');
    e.host = std::string(authority.substr(0, colon));
    port = colon == std::string_view::npos ? std::string_view("6379") : authority.substr(colon + 1);
  }
  if (e.host.empty()) throw fail("the host is missing");
  if (e.host.find_first_of(" \t\r\n/?#@") != std::string::npos) throw fail("the host is not a host name");
  auto port_number = parse_int(port, 1, 65535);
  if (!port_number) throw fail("the port is not a number from 1 to 65535");
  e.port = *port_number;
  return e;
}

std::string RedisEndpoint::describe() const {
  const bool v6 = host.find(':') != std::string::npos;
  return "redis://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port) + "/" + std::to_string(db);
}

std::unique_ptr<RedisConnection> RedisConnection::connect(const RedisEndpoint& endpoint, const RedisTimeouts& timeouts,
                                                          std::size_t max_reply_bytes, std::string* why) {
  SigpipeGuard guard;
  // Non-blocking: hiredis starts the connect, we wait for it within the
  // timeout, and every command after it polls against its deadline.
  redisContext* c = redisConnectNonBlock(endpoint.host.c_str(), endpoint.port);
  if (c == nullptr) {
    *why = "connect: out of memory";
    return nullptr;
  }
  std::unique_ptr<RedisConnection> conn(new RedisConnection(c, timeouts, max_reply_bytes));
  if (c->err != 0) {
    *why = "connect: " + context_error(c);
    return nullptr;
  }
  if (!wait_ready(c->fd, POLLOUT, Clock::now() + timeouts.connect, timeouts.connect, why)) {
    *why = "connect: " + *why;
    return nullptr;
  }
  int error = 0;
  socklen_t len = sizeof error;
  if (::getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &error, &len) != 0) error = errno;
  if (error != 0) {
    *why = std::string("connect: ") + std::strerror(error);
    return nullptr;
  }
  auto expect_ok = [&](std::vector<std::string_view> args, const char* step) {
    auto reply = conn->command(args, why);
    if (!reply) {
      *why = std::string(step) + ": " + *why;
      return false;
    }
    if (reply->kind != RedisReply::Kind::status) {
      *why = std::string(step) + ": " + (reply->kind == RedisReply::Kind::error ? reply->text : "unexpected reply");
      return false;
    }
    return true;
  };
  if (!endpoint.password.empty()) {
    std::vector<std::string_view> auth{"AUTH"};
    if (!endpoint.user.empty()) auth.push_back(endpoint.user);
    auth.push_back(endpoint.password);
    if (!expect_ok(auth, "AUTH")) return nullptr;
  }
  if (endpoint.db != 0) {
    const std::string db = std::to_string(endpoint.db);
    if (!expect_ok({"SELECT", db}, "SELECT")) return nullptr;
  }
  return conn;
}

RedisConnection::~RedisConnection() { redisFree(context_); }

std::optional<RedisReply> RedisConnection::command(const std::vector<std::string_view>& args, std::string* why) {
  SigpipeGuard guard;
  std::vector<const char*> argv;
  std::vector<std::size_t> lengths;
  for (std::string_view a : args) {
    argv.push_back(a.data());
    lengths.push_back(a.size());
  }
  if (redisAppendCommandArgv(context_, static_cast<int>(argv.size()), argv.data(), lengths.data()) != REDIS_OK) {
    *why = context_error(context_);
    return std::nullopt;
  }
  const auto deadline = Clock::now() + timeouts_.command;
  for (int done = 0; !done;) {
    if (!wait_ready(context_->fd, POLLOUT, deadline, timeouts_.command, why)) return std::nullopt;
    if (redisBufferWrite(context_, &done) != REDIS_OK) {
      *why = context_error(context_);
      return std::nullopt;
    }
  }
  void* raw = nullptr;
  for (;;) {
    if (redisGetReplyFromReader(context_, &raw) != REDIS_OK) {
      *why = "not a Redis reply: " + context_error(context_);
      return std::nullopt;
    }
    if (raw != nullptr) break;
    if (context_->reader->len > max_reply_bytes_) {
      *why = "a reply larger than " + std::to_string(max_reply_bytes_) + " bytes";
      return std::nullopt;
    }
    if (!wait_ready(context_->fd, POLLIN, deadline, timeouts_.command, why)) return std::nullopt;
    if (redisBufferRead(context_) != REDIS_OK) {
      *why = context_error(context_);
      return std::nullopt;
    }
  }
  RedisReply reply = convert(static_cast<redisReply*>(raw));
  freeReplyObject(raw);
  return reply;
}

}  // namespace croq::jit
