#include "graph_replay.h"

#include <atomic>

#include "braid/base/env.h"
#include "device/kernel_graph.h"

namespace braid::symbol::detail {

struct GraphReplay::Graph {
  gpu_runtime::KernelGraph kernels;
  std::atomic<bool> refused{false};  // CUDA could not capture the run: never try again
};

GraphReplay::GraphReplay() = default;
GraphReplay::~GraphReplay() = default;

bool graphs_allowed(const Plan& plan) {
  static const bool enabled = env_int({"BRAID_CUDA_GRAPHS", "MXNET_ENABLE_CUDA_GRAPHS"}, 1) != 0;
  if (!enabled || !plan.bulk || plan.steps.empty() || plan.steps[0].ctx.is_cpu_family()) return false;
  for (const Step& s : plan.steps)
    if (!s.def || s.def->needs_rng || s.def->runs_on_host()) return false;
  return true;
}

std::vector<NDArray> GraphReplay::bind(const std::vector<NDArray>& outside, bool training,
                                       const std::vector<bool>& fresh) {
  std::vector<const void*> now;
  for (const auto& a : outside) now.push_back(a.is_none() ? nullptr : a.raw_data());
  const bool refused = graph_ && graph_->refused.load();
  const bool same_kind = training == training_ && now.size() == last_.size();
  ++calls_;
  if (refused || calls_ == 1 || !same_kind) {
    // A first call in this mode sets up the kernels' own state (workspaces, algorithms).
    mode_ = Mode::Direct;
    calls_ = 1;
  } else if (calls_ == 2) {
    // Capture, with the arrays that moved since the last call bound to staging buffers.
    staging_.assign(outside.size(), NDArray());
    for (size_t i = 0; i < outside.size(); ++i)
      if (now[i] && (fresh[i] || now[i] != last_[i]))
        staging_[i] = NDArray(outside[i].shape(), outside[i].ctx(), outside[i].dtype());
    graph_ = std::make_shared<Graph>();
    mode_ = Mode::Capture;
  } else {
    mode_ = Mode::Replay;
    bool moved = false;
    for (size_t i = 0; i < outside.size() && !moved; ++i) moved = staging_[i].is_none() && now[i] != last_[i];
    if (moved) {  // an array the graph reads in place moved
      calls_ = 0;
      return bind(outside, training, fresh);  // Direct now, captured again at the next call
    }
  }
  if (mode_ != Mode::Replay) {
    last_ = now;
    training_ = training;
  }
  outside_ = outside;
  if (mode_ == Mode::Direct) return outside;
  std::vector<NDArray> bound = outside;
  for (size_t i = 0; i < outside.size(); ++i)
    if (!staging_[i].is_none()) bound[i] = staging_[i];
  return bound;
}

imperative::Kernel GraphReplay::wrap(imperative::Kernel bulk, const std::vector<bool>& written) {
  if (mode_ == Mode::Direct) return bulk;
  struct Copy {
    NDArray from, to;
    size_t bytes;
  };
  std::vector<Copy> in, out;
  for (size_t i = 0; i < outside_.size(); ++i) {
    if (staging_[i].is_none()) continue;
    const size_t bytes = static_cast<size_t>(outside_[i].size()) * dtype_size(outside_[i].dtype());
    in.push_back({outside_[i], staging_[i], bytes});
    bulk.reads.push_back(outside_[i].var());
    if (written[i]) {
      out.push_back({staging_[i], outside_[i], bytes});
      bulk.writes.push_back(outside_[i].var());
    }
  }
  bulk.fn = [run = std::move(bulk.fn), graph = graph_, capture = mode_ == Mode::Capture, in, out] {
    for (const Copy& c : in) gpu_runtime::copy_on_stream(c.to.raw_data(), c.from.raw_data(), c.bytes);
    if (capture ? !graph->kernels.capture_and_launch(run) : !graph->kernels.captured()) {
      if (capture) graph->refused = true;
      run();
    } else if (!capture) {
      graph->kernels.launch();
    }
    for (const Copy& c : out) gpu_runtime::copy_on_stream(c.to.raw_data(), c.from.raw_data(), c.bytes);
  };
  return bulk;
}

}  // namespace braid::symbol::detail
