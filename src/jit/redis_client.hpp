// A minimal Redis client for the remote kernel cache, on hiredis: one
// connection, one command at a time, every step bounded in time.
//
// hiredis formats the commands and parses the replies; this file adds what
// the cache needs around it: the redis:// URL, connecting within a timeout,
// a deadline for each whole command (not only for each read, so a server
// that trickles bytes cannot hold a call), a cap on the size of a reply,
// and SIGPIPE kept from killing the process when the server has gone away.
// Nothing here throws except RedisEndpoint::parse.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct redisContext;

namespace croq::jit {

// redis://[user:password@]host[:port][/db]
struct RedisEndpoint {
  std::string host;
  int port = 6379;
  std::string user;      // empty: AUTH with the password alone (or no AUTH)
  std::string password;  // empty: no AUTH
  int db = 0;

  // Throws CacheError naming `what` (the variable the URL came from) when
  // `url` is not of the form above (user and password may be
  // percent-encoded; an IPv6 host is written in brackets).
  static RedisEndpoint parse(std::string_view url, const std::string& what);
  // redis://host:port/db, without the credentials: for messages.
  std::string describe() const;
};

struct RedisReply {
  enum class Kind { nil, string, integer, status, error, other };
  Kind kind = Kind::nil;
  std::string text;       // string, status and error replies
  long long integer = 0;  // integer replies
};

struct RedisTimeouts {
  std::chrono::milliseconds connect{100};
  std::chrono::milliseconds command{100};
};

class RedisConnection {
 public:
  // Connects, authenticates and selects the database, each within the
  // timeouts. nullptr with `*why` when any step fails.
  static std::unique_ptr<RedisConnection> connect(const RedisEndpoint& endpoint, const RedisTimeouts& timeouts,
                                                  std::size_t max_reply_bytes, std::string* why);
  ~RedisConnection();
  RedisConnection(const RedisConnection&) = delete;
  RedisConnection& operator=(const RedisConnection&) = delete;

  // Sends one command and reads its reply within the command timeout. An
  // error reply is a reply; nullopt (with `*why`) means the connection
  // failed (timeout, closed, a reply that is not Redis protocol or too
  // large) and must not be used again.
  std::optional<RedisReply> command(const std::vector<std::string_view>& args, std::string* why);

 private:
  RedisConnection(redisContext* context, const RedisTimeouts& timeouts, std::size_t max_reply_bytes)
      : context_(context), timeouts_(timeouts), max_reply_bytes_(max_reply_bytes) {}

  redisContext* context_;
  RedisTimeouts timeouts_;
  std::size_t max_reply_bytes_;
};

}  // namespace croq::jit
