#include "negotiation.h"

#include <algorithm>
#include <iostream>
#include <numeric>

#include "braid/base/error.h"

namespace braid::collective::detail {
namespace {

std::string shape_str(const std::vector<int64_t>& s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i) out += cat(i ? ", " : "", s[i]);
  return out + (s.size() == 1 ? ",)" : ")");
}

std::string rank_list(const std::vector<int>& ranks) {
  std::string out;
  for (int r : ranks) out += (out.empty() ? "" : ", ") + std::to_string(r);
  return out;
}

// Why the requests of one name (one per rank, in rank order) cannot run together, or "".
std::string disagreement(const std::vector<Request>& rs, int size) {
  const Request& a = rs[0];
  for (const Request& b : rs) {
    auto differ = [&](const std::string& what, const std::string& x, const std::string& y) {
      return cat("tensor '", a.name, "': ", what, " differ between ranks: rank ", a.rank, " ", x, ", rank ", b.rank,
                 " ", y);
    };
    if (b.kind != a.kind) return differ("operations", kind_name(a.kind), kind_name(b.kind));
    if (b.dtype != a.dtype) return differ("dtypes", dtype_name(a.dtype), dtype_name(b.dtype));
    const bool rows_may_differ = a.kind == Kind::Allgather || a.kind == Kind::Alltoall;
    if (rows_may_differ) {
      if (b.shape.size() != a.shape.size() || b.shape.empty() ||
          !std::equal(a.shape.begin() + 1, a.shape.end(), b.shape.begin() + 1))
        return differ("shapes beyond the first dimension", shape_str(a.shape), shape_str(b.shape));
    } else if (b.shape != a.shape) {
      return differ("shapes", shape_str(a.shape), shape_str(b.shape));
    }
    if (a.kind == Kind::Broadcast && b.root != a.root)
      return differ("root ranks", std::to_string(a.root), std::to_string(b.root));
    if (a.kind == Kind::Allreduce && (b.average != a.average || b.prescale != a.prescale || b.postscale != a.postscale))
      return differ("reductions (op or scaling)", a.average ? "average" : "sum", b.average ? "average" : "sum");
    if (a.kind == Kind::Alltoall) {
      const int64_t rows = b.shape.empty() ? 0 : b.shape[0];
      if (static_cast<int>(b.splits.size()) != size ||
          std::accumulate(b.splits.begin(), b.splits.end(), int64_t{0}) != rows)
        return cat("tensor '", a.name, "': rank ", b.rank, "'s splits do not give one count per rank (", size,
                   ") adding up to its ", rows, " rows");
    }
  }
  if (a.kind == Kind::Broadcast && (a.root < 0 || a.root >= size))
    return cat("tensor '", a.name, "': root rank ", a.root, " is not a rank of the ", size, " processes");
  return "";
}

}  // namespace

int64_t tensor_bytes(const Request& r) {
  return std::accumulate(r.shape.begin(), r.shape.end(), int64_t{1}, std::multiplies<int64_t>()) *
         static_cast<int64_t>(dtype_size(r.dtype));
}

bool same_reduction(const Request& a, const Request& b) {
  return a.dtype == b.dtype && a.average == b.average && a.prescale == b.prescale && a.postscale == b.postscale;
}

ResponseList Negotiation::coordinate(const std::vector<RequestList>& lists, int64_t fusion_bytes) {
  ResponseList out;
  std::vector<std::string> ready;
  for (const RequestList& l : lists) {
    out.shutdown = out.shutdown || l.shutdown;
    for (const Request& r : l.requests) {
      auto [it, added] = table_.try_emplace(r.name);
      if (added) {
        it->second.first = Clock::now();
        order_.push_back(r.name);
      }
      it->second.requests.push_back(r);
      if (static_cast<int>(it->second.requests.size()) == size_) ready.push_back(r.name);
    }
  }
  // In the order of first request, so that every cycle's order is the same on every rank.
  std::vector<Response> responses;
  for (const std::string& name : ready) {
    Pending p = std::move(table_.at(name));
    table_.erase(name);
    order_.erase(std::find(order_.begin(), order_.end(), name));
    timeline_.end(name, "NEGOTIATE");
    std::sort(p.requests.begin(), p.requests.end(), [](const Request& a, const Request& b) { return a.rank < b.rank; });
    Response r;
    r.kind = p.requests[0].kind;
    r.names = {name};
    r.error = disagreement(p.requests, size_);
    if (r.error.empty() && r.kind == Kind::Allgather)
      for (const Request& q : p.requests) r.sizes.push_back(q.shape[0]);
    if (r.error.empty() && r.kind == Kind::Alltoall)
      for (const Request& q : p.requests) r.sizes.insert(r.sizes.end(), q.splits.begin(), q.splits.end());
    // Fusion: consecutive allreduces of one dtype and reduction share one buffer up to the threshold.
    if (!responses.empty() && r.error.empty() && r.kind == Kind::Allreduce) {
      Response& last = responses.back();
      const Request& q = p.requests[0];
      auto fusable = [&] {
        if (last.kind != Kind::Allreduce || !last.error.empty() || last.sizes.size() != 1) return false;
        if (!same_reduction(fused_head_, q)) return false;
        return last.sizes[0] + tensor_bytes(q) <= fusion_bytes;
      };
      if (fusable()) {
        last.names.push_back(name);
        last.sizes[0] += tensor_bytes(q);
        continue;
      }
    }
    if (r.error.empty() && r.kind == Kind::Allreduce) {
      fused_head_ = p.requests[0];
      r.sizes = {tensor_bytes(fused_head_)};
    }
    responses.push_back(std::move(r));
  }
  check_stalls(responses);
  out.responses = std::move(responses);
  return out;
}

void Negotiation::check_stalls(std::vector<Response>& out) {
  const auto now = Clock::now();
  for (auto it = order_.begin(); it != order_.end();) {
    Pending& p = table_.at(*it);
    const double waited = std::chrono::duration<double>(now - p.first).count();
    if (stall_check_s_ > 0 && waited > stall_check_s_ &&
        std::chrono::duration<double>(now - p.warned).count() > stall_check_s_) {
      std::vector<int> have, missing;
      for (const Request& r : p.requests) have.push_back(r.rank);
      for (int r = 0; r < size_; ++r)
        if (std::find(have.begin(), have.end(), r) == have.end()) missing.push_back(r);
      std::sort(have.begin(), have.end());
      std::cerr << "[collective] warning: tensor '" << *it << "' was submitted by rank(s) " << rank_list(have) << " "
                << static_cast<int>(waited) << " s ago but not yet by rank(s) " << rank_list(missing)
                << " (HOROVOD_STALL_CHECK_TIME_SECONDS=" << stall_check_s_
                << "): a rank stalled, or skipped this tensor" << std::endl;
      p.warned = now;
    }
    if (stall_shutdown_s_ > 0 && waited > stall_shutdown_s_) {
      Response r;
      r.kind = p.requests[0].kind;
      r.names = {*it};
      r.error = cat("tensor '", *it,
                    "' was not submitted by every rank within HOROVOD_STALL_SHUTDOWN_TIME_SECONDS=", stall_shutdown_s_);
      out.push_back(std::move(r));
      table_.erase(*it);
      it = order_.erase(it);
      continue;
    }
    ++it;
  }
}

}  // namespace braid::collective::detail
