#include "braid/module/callback.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>

namespace braid::mod {

BatchEndCallback Speedometer(int64_t batch_size, int frequent, bool auto_reset, std::ostream& out) {
  struct State {
    int last = 0;
    std::chrono::steady_clock::time_point tic = std::chrono::steady_clock::now();
  };
  auto st = std::make_shared<State>();
  return [=, &out](const BatchEndParam& p) {
    const int count = p.nbatch + 1;
    if (count < st->last) st->last = 0;  // a new epoch
    if (count % frequent != 0) return;
    auto now = std::chrono::steady_clock::now();
    double seconds = std::chrono::duration<double>(now - st->tic).count();
    double speed = static_cast<double>(frequent * batch_size) / std::max(seconds, 1e-9);
    char head[128];
    std::snprintf(head, sizeof head, "Epoch[%d] Batch [%d-%d]\tSpeed: %.2f samples/sec", p.epoch, count - frequent,
                  count, speed);
    out << head;
    if (p.eval_metric) {
      auto v = p.eval_metric->get();
      for (size_t i = 0; i < v.names.size(); ++i) {
        char m[128];
        std::snprintf(m, sizeof m, "\t%s=%f", v.names[i].c_str(), v.values[i]);
        out << m;
      }
      if (auto_reset) p.eval_metric->reset_local();
    }
    out << "\n";
    st->last = count;
    st->tic = now;
  };
}

EpochEndCallback do_checkpoint(const std::string& prefix, int period) {
  return [=](int epoch, const Symbol& symbol, const ParamMap& arg, const ParamMap& aux) {
    if ((epoch + 1) % period == 0) save_checkpoint(prefix, epoch + 1, symbol, arg, aux);
  };
}

}  // namespace braid::mod
