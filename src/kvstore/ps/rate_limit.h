#pragma once
// Internal: at most N events per time window (log lines about refused messages, refusals sent),
// so a flood from outside costs a bounded amount of disk and sockets.
#include <chrono>
#include <mutex>

namespace braid::kv::ps {

class RateLimit {
 public:
  RateLimit(int per_window, std::chrono::steady_clock::duration window) : limit_(per_window), window_(window) {}

  /// Whether one more event fits in the current window; `*missed`, when given, gets how many events
  /// the window before this one refused (once, at the first event of a new window).
  bool allow(int* missed = nullptr) {
    std::lock_guard<std::mutex> lock(mu_);
    const auto now = std::chrono::steady_clock::now();
    if (now - start_ >= window_) {
      if (missed) *missed = count_ > limit_ ? count_ - limit_ : 0;
      start_ = now;
      count_ = 0;
    }
    return ++count_ <= limit_;
  }

 private:
  std::mutex mu_;
  const int limit_;
  const std::chrono::steady_clock::duration window_;
  std::chrono::steady_clock::time_point start_{};
  int count_ = 0;
};

}  // namespace braid::kv::ps
