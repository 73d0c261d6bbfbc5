#include "braid/util/progress_bar.h"

#include <unistd.h>

#include <cmath>

namespace braid::util {

std::string format_duration(double seconds) {
  const auto s = static_cast<int64_t>(std::llround(std::max(0.0, seconds)));
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", static_cast<long long>(s / 3600),
                  static_cast<long long>(s / 60 % 60), static_cast<long long>(s % 60));
  else
    std::snprintf(buf, sizeof buf, "%lld:%02lld", static_cast<long long>(s / 60), static_cast<long long>(s % 60));
  return buf;
}

ProgressBar::ProgressBar(int epochs, int64_t total, std::FILE* out, int64_t plain_every)
    : epochs_(epochs), total_(total), out_(out), plain_every_(plain_every), interactive_(isatty(fileno(out)) != 0) {}

void ProgressBar::start_epoch(int epoch) {
  epoch_ = epoch;
  last_done_ = last_samples_ = 0;
  last_loss_ = 0;
  last_acc_ = -1;
  start_ = last_draw_ = std::chrono::steady_clock::now();
}

std::string ProgressBar::line(int64_t done, int64_t samples, double loss, double acc) const {
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double rate = secs > 0 ? static_cast<double>(samples) / secs : 0;
  const double eta = done > 0 ? secs / static_cast<double>(done) * static_cast<double>(total_ - done) : 0;
  const int width = 30;
  const int filled = total_ > 0 ? static_cast<int>(width * done / total_) : width;
  std::string bar(static_cast<size_t>(filled), '=');
  if (filled < width) bar += '>' + std::string(static_cast<size_t>(width - filled - 1), ' ');
  char buf[256];
  int n = std::snprintf(buf, sizeof buf, "epoch %d/%d [%s] %3d%% %lld/%lld  loss %.4f", epoch_, epochs_, bar.c_str(),
                        total_ > 0 ? static_cast<int>(100 * done / total_) : 100, static_cast<long long>(done),
                        static_cast<long long>(total_), loss);
  std::string s(buf, static_cast<size_t>(n));
  if (acc >= 0) {
    std::snprintf(buf, sizeof buf, "  acc %.4f", acc);
    s += buf;
  }
  std::snprintf(buf, sizeof buf, "  %.0f samples/s  %s %s", rate, done < total_ ? "ETA" : "in",
                format_duration(done < total_ ? eta : secs).c_str());
  return s + buf;
}

void ProgressBar::update(int64_t done, int64_t samples, double loss, double acc) {
  last_done_ = done;
  last_samples_ = samples;
  last_loss_ = loss;
  last_acc_ = acc;
  if (interactive_) {
    auto now = std::chrono::steady_clock::now();
    if (done < total_ && now - last_draw_ < std::chrono::milliseconds(100)) return;  // redraw at most 10x/s
    last_draw_ = now;
    std::fprintf(out_, "\r%s\033[K", line(done, samples, loss, acc).c_str());
  } else if (plain_every_ > 0 && done % plain_every_ == 0 && done < total_) {
    std::fprintf(out_, "%s\n", line(done, samples, loss, acc).c_str());
  }
  std::fflush(out_);
}

void ProgressBar::finish_epoch(const std::string& summary) {
  std::string l = line(last_done_, last_samples_, last_loss_, last_acc_);
  if (!summary.empty()) l += "  " + summary;
  std::fprintf(out_, interactive_ ? "\r%s\033[K\n" : "%s\n", l.c_str());
  std::fflush(out_);
}

}  // namespace braid::util
