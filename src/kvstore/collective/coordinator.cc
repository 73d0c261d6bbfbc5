#include "coordinator.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <numeric>

#include "braid/base/env.h"
#include "braid/base/error.h"
#include "braid/ndarray/creation.h"
#include "mpi_ops.h"

namespace braid::collective::detail {
namespace {

constexpr double kIdleCycleMs = 100;     // the cycle of a rank with nothing in flight
constexpr double kCachedPatienceS = 5;   // a cache hit waiting longer goes through rank 0 in full
constexpr double kStallCheckEveryS = 0.2;  // rank 0, while tensors wait for some ranks
constexpr int kBurstGapUs = 50;            // submissions closer than this belong to one burst

// Allreduces that one fusion buffer can carry together.
bool same_reduction(const Request& a, const Request& b) {
  return a.dtype == b.dtype && a.average == b.average && a.prescale == b.prescale && a.postscale == b.postscale;
}

double env_double(const char* name, double fallback) {
  const auto v = env_str({name});
  if (!v || v->empty()) return fallback;
  try {
    return std::stod(*v);
  } catch (const std::exception&) {
    throw Error(cat("collective: ", name, "='", *v, "' is not a number"));
  }
}

std::string shape_str(const std::vector<int64_t>& s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i) out += cat(i ? ", " : "", s[i]);
  return out + (s.size() == 1 ? ",)" : ")");
}

int64_t elements(const std::vector<int64_t>& s) {
  return std::accumulate(s.begin(), s.end(), int64_t{1}, std::multiplies<int64_t>());
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
    if (a.kind == Kind::Allreduce &&
        (b.average != a.average || b.prescale != a.prescale || b.postscale != a.postscale))
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

Coordinator& Coordinator::get() {
  static Coordinator c;
  return c;
}

bool Coordinator::running() const {
  std::lock_guard<std::mutex> lock(mu_);
  return running_;
}

void Coordinator::start() {
  std::unique_lock<std::mutex> lock(mu_);
  if (running_) return;
  BRAID_CHECK(!thread_.joinable(), "collective: init after shutdown; MPI cannot be initialised twice in a process");
  cycle_ms_ = env_double("HOROVOD_CYCLE_TIME", 1);
  fusion_bytes_ = static_cast<int64_t>(env_double("HOROVOD_FUSION_THRESHOLD", 128 << 20));
  stall_check_s_ = env_double("HOROVOD_STALL_CHECK_TIME_SECONDS", 60);
  stall_shutdown_s_ = env_double("HOROVOD_STALL_SHUTDOWN_TIME_SECONDS", 0);
  cache_.set_capacity(static_cast<size_t>(std::max(0.0, env_double("HOROVOD_CACHE_CAPACITY", 1024))));
  start_error_.clear();
  thread_ = std::thread([this] { run(); });
  changed_.wait(lock, [this] { return running_ || !start_error_.empty(); });
  if (!start_error_.empty()) {
    lock.unlock();
    thread_.join();
    throw Error(start_error_);
  }
}

bool Coordinator::started() const {
  std::lock_guard<std::mutex> lock(mu_);
  return started_;
}

void Coordinator::set_fusion_bytes(int64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  fusion_bytes_ = bytes;
}

void Coordinator::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;  // also when another rank's shutdown already ended the loop
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Coordinator::submit(Entry e) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!running_) throw Error("collective: not initialised (call collective::init() first) or already shut down");
  const std::string& name = e.request.name;
  BRAID_CHECK(!name.empty(), "collective: a tensor needs a name, the same on every rank");
  BRAID_CHECK(!in_flight_.count(name) && std::none_of(queued_.begin(), queued_.end(),
                                                      [&](const Entry& q) { return q.request.name == name; }),
              "collective: tensor '", name, "' is already in flight; give every operation in flight its own name");
  e.request.rank = topo_.rank;
  if (topo_.rank == 0) timeline_.begin(name, "NEGOTIATE");
  queued_.push_back(std::move(e));
  changed_.notify_all();  // the thread starts the next cycle now
}

void Coordinator::run() {
  // Waiting ranks give their core back rather than spin (the job's processes often share cores).
  setenv("OMPI_MCA_mpi_yield_when_idle", "1", 0);
  int provided = 0;
  int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
  try {
    check_mpi(rc, "MPI_Init_thread");
    create_mpi_types();
    MPI_Comm local, cross;
    MPI_Comm_rank(MPI_COMM_WORLD, &topo_.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &topo_.size);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, topo_.rank, MPI_INFO_NULL, &local);
    MPI_Comm_rank(local, &topo_.local_rank);
    MPI_Comm_size(local, &topo_.local_size);
    MPI_Comm_split(MPI_COMM_WORLD, topo_.local_rank, topo_.rank, &cross);
    MPI_Comm_rank(cross, &topo_.cross_rank);
    MPI_Comm_size(cross, &topo_.cross_size);
    MPI_Comm_free(&local);
    MPI_Comm_free(&cross);
    // Its own communicator: other threads of the program may use MPI_COMM_WORLD meanwhile.
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
    if (topo_.rank == 0) timeline_.open(env_str({"HOROVOD_TIMELINE", "BRAID_TIMELINE"}).value_or(""));
  } catch (const Error& e) {
    std::lock_guard<std::mutex> lock(mu_);
    start_error_ = e.what();
    changed_.notify_all();
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    running_ = started_ = true;
  }
  changed_.notify_all();
  try {
    while (cycle()) {
    }
    fail_everything("collective: shut down (a rank called collective::shutdown or exited)");
  } catch (const std::exception& e) {
    std::cerr << "[collective rank " << topo_.rank << "] error: " << e.what() << std::endl;
    fail_everything(e.what());
  }
  timeline_.close();
  free_mpi_types();
  MPI_Comm_free(&comm_);
  MPI_Finalize();
}

// One cycle: it starts as soon as this rank has something to submit (or to stop); else a cycle
// time after the last one while this rank waits for others to submit its tensors, and
// kIdleCycleMs after it when it waits for nothing (an idle rank costs the others nothing then,
// and still joins the cycles that check for stalls). The ranks meet in the gather.
bool Coordinator::cycle() {
  static thread_local Clock::time_point last = Clock::now();
  RequestList mine;
  {
    std::unique_lock<std::mutex> lock(mu_);
    const double wait_ms = in_flight_.empty() ? std::max(cycle_ms_, kIdleCycleMs) : cycle_ms_;
    const auto next = last + std::chrono::duration<double, std::milli>(wait_ms);
    changed_.wait_until(lock, next, [this] { return !queued_.empty() || stopping_; });
    // A burst of submissions (a backward pass, a loop of allreduce_async) goes into one cycle, so
    // that it fuses: wait while tensors keep coming, up to a cycle time.
    const auto burst_end = Clock::now() + std::chrono::duration<double, std::milli>(cycle_ms_);
    for (size_t seen = queued_.size(); seen > 0 && !stopping_ && Clock::now() < burst_end; seen = queued_.size())
      if (!changed_.wait_for(lock, std::chrono::microseconds(kBurstGapUs), [&] { return queued_.size() != seen || stopping_; }))
        break;
    last = Clock::now();
    mine.shutdown = stopping_;
    while (!queued_.empty()) {
      Entry e = std::move(queued_.front());
      queued_.pop_front();
      const auto id = uncacheable_.count(e.request.name) ? std::nullopt : cache_.lookup(e.request);
      if (id) cached_waiting_.emplace(*id, last);
      else mine.requests.push_back(e.request);
      in_flight_.emplace(e.request.name, std::move(e));
    }
  }
  if (!run_cached(mine)) return true;
  exchange(mine);
  return !shutdown_;
}

// Every rank ANDs the bits of the cached tensors it has ready, next to flags (inverted, so that
// the AND ORs them): someone has requests outside the cache, or has waited too long for a cached
// tensor (another rank never submitted it, or with other settings) — then every waiting cached
// tensor goes through rank 0 in full, where a stall is reported and a mismatch rejected.
bool Coordinator::run_cached(RequestList& mine) {
  constexpr uint64_t kExchange = 1, kResubmit = 2;
  const size_t words = 1 + (cache_.size() + 63) / 64;
  std::vector<uint64_t> bits(words, 0);
  uint64_t flags = !mine.requests.empty() || mine.shutdown ? kExchange : 0;
  const auto now = Clock::now();
  // Rank 0 checks tensors some ranks have not submitted for stalls at an exchange, every so often.
  if (topo_.rank == 0 && !table_.empty() && now - last_exchange_ > std::chrono::duration<double>(kStallCheckEveryS))
    flags |= kExchange;
  for (const auto& [id, since] : cached_waiting_) {
    bits[1 + static_cast<size_t>(id) / 64] |= uint64_t{1} << (id % 64);
    if (now - since > std::chrono::duration<double>(kCachedPatienceS)) flags |= kResubmit;
  }
  bits[0] = ~flags;
  std::vector<uint64_t> waiting(bits.begin() + 1, bits.end());
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, bits.data(), static_cast<int>(words), MPI_UINT64_T, MPI_BAND, comm_),
            "MPI_Allreduce");
  flags = ~bits[0];
  if (flags & kResubmit) {
    // The union of the ids waiting anywhere: those go in full, here and wherever they come later.
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, waiting.data(), static_cast<int>(words - 1), MPI_UINT64_T, MPI_BOR, comm_),
              "MPI_Allreduce");
    for (size_t id = 0; id < cache_.size(); ++id)
      if (waiting[id / 64] >> (id % 64) & 1) uncacheable_.insert(cache_.request(static_cast<int>(id)).name);
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [id, since] : cached_waiting_) mine.requests.push_back(in_flight_.at(cache_.request(id).name).request);
    cached_waiting_.clear();
    return true;
  }
  // Ready everywhere: run in id order (the same on every rank), consecutive allreduces fused.
  std::vector<Response> ready;
  const Request* head = nullptr;  // the first tensor of the last response
  int64_t fusion_bytes;
  {
    std::lock_guard<std::mutex> lock(mu_);
    fusion_bytes = fusion_bytes_;
  }
  for (size_t id = 0; id < cache_.size(); ++id) {
    if (!(bits[1 + id / 64] >> (id % 64) & 1)) continue;
    cached_waiting_.erase(static_cast<int>(id));
    const Request& q = cache_.request(static_cast<int>(id));
    if (topo_.rank == 0) timeline_.end(q.name, "NEGOTIATE", "cache hit");
    const int64_t bytes = elements(q.shape) * static_cast<int64_t>(dtype_size(q.dtype));
    if (head && q.kind == Kind::Allreduce && head->kind == Kind::Allreduce && same_reduction(*head, q) &&
        ready.back().sizes[0] + bytes <= fusion_bytes) {
      ready.back().names.push_back(q.name);
      ready.back().sizes[0] += bytes;
      continue;
    }
    head = &q;
    Response r;
    r.kind = q.kind;
    r.names = {q.name};
    if (q.kind == Kind::Allreduce) r.sizes = {bytes};
    ready.push_back(std::move(r));
  }
  for (const Response& r : ready) execute(r);
  return flags & kExchange;
}

// Rank 0 gathers every rank's requests and answers with the responses, which every rank runs.
void Coordinator::exchange(const RequestList& mine) {
  last_exchange_ = Clock::now();
  const std::string bytes = encode(mine);
  const int size = topo_.size;
  int length = static_cast<int>(bytes.size());
  std::vector<int> lengths(static_cast<size_t>(size)), offsets(static_cast<size_t>(size));
  check_mpi(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm_), "MPI_Gather");
  std::string all;
  if (topo_.rank == 0) {
    std::partial_sum(lengths.begin(), lengths.end() - 1, offsets.begin() + 1);
    all.resize(static_cast<size_t>(offsets.back() + lengths.back()));
  }
  check_mpi(MPI_Gatherv(bytes.data(), length, MPI_BYTE, all.data(), lengths.data(), offsets.data(), MPI_BYTE, 0,
                        comm_),
            "MPI_Gatherv");
  std::string answer;
  if (topo_.rank == 0) {
    std::vector<RequestList> lists;
    for (int r = 0; r < size; ++r)
      lists.push_back(decode_requests(all.substr(static_cast<size_t>(offsets[static_cast<size_t>(r)]),
                                                 static_cast<size_t>(lengths[static_cast<size_t>(r)]))));
    answer = encode(coordinate(lists));
  }
  int64_t answer_length = static_cast<int64_t>(answer.size());
  check_mpi(MPI_Bcast(&answer_length, 1, MPI_INT64_T, 0, comm_), "MPI_Bcast");
  answer.resize(static_cast<size_t>(answer_length));
  check_mpi(MPI_Bcast(answer.data(), static_cast<int>(answer_length), MPI_BYTE, 0, comm_), "MPI_Bcast");
  const ResponseList responses = decode_responses(answer);
  for (const Response& r : responses.responses) execute(r);
  shutdown_ = responses.shutdown;
}

ResponseList Coordinator::coordinate(const std::vector<RequestList>& lists) {
  ResponseList out;
  std::vector<std::string> ready;
  for (const RequestList& l : lists) {
    out.shutdown = out.shutdown || l.shutdown;
    for (const Request& r : l.requests) {
      auto [it, added] = table_.try_emplace(r.name);
      if (added) {
        it->second.first = Clock::now();
        table_order_.push_back(r.name);
      }
      it->second.requests.push_back(r);
      if (static_cast<int>(it->second.requests.size()) == topo_.size) ready.push_back(r.name);
    }
  }
  // In the order of first request, so that every cycle's order is the same on every rank.
  std::vector<Response> responses;
  for (const std::string& name : ready) {
    Pending p = std::move(table_.at(name));
    table_.erase(name);
    table_order_.erase(std::find(table_order_.begin(), table_order_.end(), name));
    timeline_.end(name, "NEGOTIATE");
    std::sort(p.requests.begin(), p.requests.end(), [](const Request& a, const Request& b) { return a.rank < b.rank; });
    Response r;
    r.kind = p.requests[0].kind;
    r.names = {name};
    r.error = disagreement(p.requests, topo_.size);
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
        const int64_t bytes = elements(q.shape) * static_cast<int64_t>(dtype_size(q.dtype));
        std::lock_guard<std::mutex> lock(mu_);
        return last.sizes[0] + bytes <= fusion_bytes_;
      };
      if (fusable()) {
        last.names.push_back(name);
        last.sizes[0] += elements(q.shape) * static_cast<int64_t>(dtype_size(q.dtype));
        continue;
      }
    }
    if (r.error.empty() && r.kind == Kind::Allreduce) {
      fused_head_ = p.requests[0];
      r.sizes = {elements(fused_head_.shape) * static_cast<int64_t>(dtype_size(fused_head_.dtype))};
    }
    responses.push_back(std::move(r));
  }
  check_stalls(responses);
  out.responses = std::move(responses);
  return out;
}

void Coordinator::check_stalls(std::vector<Response>& out) {
  const auto now = Clock::now();
  for (auto it = table_order_.begin(); it != table_order_.end();) {
    Pending& p = table_.at(*it);
    const double waited = std::chrono::duration<double>(now - p.first).count();
    if (stall_check_s_ > 0 && waited > stall_check_s_ &&
        std::chrono::duration<double>(now - p.warned).count() > stall_check_s_) {
      std::vector<int> have, missing;
      for (const Request& r : p.requests) have.push_back(r.rank);
      for (int r = 0; r < topo_.size; ++r)
        if (std::find(have.begin(), have.end(), r) == have.end()) missing.push_back(r);
      std::sort(have.begin(), have.end());
      std::cerr << "[collective] warning: tensor '" << *it << "' was submitted by rank(s) " << rank_list(have)
                << " " << static_cast<int>(waited) << " s ago but not yet by rank(s) " << rank_list(missing)
                << " (HOROVOD_STALL_CHECK_TIME_SECONDS=" << stall_check_s_
                << "): a rank stalled, or skipped this tensor" << std::endl;
      p.warned = now;
    }
    if (stall_shutdown_s_ > 0 && waited > stall_shutdown_s_) {
      Response r;
      r.kind = p.requests[0].kind;
      r.names = {*it};
      r.error = cat("tensor '", *it, "' was not submitted by every rank within HOROVOD_STALL_SHUTDOWN_TIME_SECONDS=",
                    stall_shutdown_s_);
      out.push_back(std::move(r));
      table_.erase(*it);
      it = table_order_.erase(it);
      continue;
    }
    ++it;
  }
}

void Coordinator::execute(const Response& r) {
  if (!r.error.empty()) {
    fail(r.names, "collective: " + r.error);
    return;
  }
  std::vector<Entry> entries;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& name : r.names) {
      auto it = in_flight_.find(name);
      BRAID_CHECK(it != in_flight_.end(), "collective: rank 0 scheduled tensor '", name, "' that this rank (",
                  topo_.rank, ") did not submit");
      entries.push_back(std::move(it->second));
      in_flight_.erase(it);
    }
  }
  const int me = topo_.rank, size = topo_.size;
  const bool trace = me == 0 && timeline_.enabled();
  try {
    const Request& q = entries[0].request;
    const size_t width = dtype_size(q.dtype);
    switch (r.kind) {
      case Kind::Allreduce: {
        const double post = q.postscale / (q.average ? size : 1);
        if (entries.size() == 1) {  // in place in the output
          Entry& e = entries[0];
          const int64_t n = e.out.size();
          if (e.out.raw_data() != e.in.raw_data()) std::memcpy(e.out.raw_data(), e.in.raw_data(), n * width);
          scale(q.dtype, e.out.raw_data(), n, q.prescale);
          if (trace) timeline_.begin(q.name, "ALLREDUCE");
          check_mpi(MPI_Allreduce(MPI_IN_PLACE, e.out.raw_data(), static_cast<int>(n), mpi_type(q.dtype),
                                  mpi_sum(q.dtype), comm_),
                    "MPI_Allreduce");
          if (trace) timeline_.end(q.name, "ALLREDUCE");
          scale(q.dtype, e.out.raw_data(), n, post);
          break;
        }
        fusion_.resize(static_cast<size_t>(r.sizes[0]));
        size_t at = 0;
        for (Entry& e : entries) {
          if (trace) timeline_.begin(e.request.name, "MEMCPY_IN_FUSION_BUFFER");
          const size_t bytes = static_cast<size_t>(e.in.size()) * width;
          std::memcpy(fusion_.data() + at, e.in.raw_data(), bytes);
          scale(q.dtype, fusion_.data() + at, e.in.size(), q.prescale);
          at += bytes;
          if (trace) timeline_.end(e.request.name, "MEMCPY_IN_FUSION_BUFFER");
        }
        if (trace)
          for (Entry& e : entries) timeline_.begin(e.request.name, "ALLREDUCE");
        check_mpi(MPI_Allreduce(MPI_IN_PLACE, fusion_.data(), static_cast<int>(at / width), mpi_type(q.dtype),
                                mpi_sum(q.dtype), comm_),
                  "MPI_Allreduce");
        at = 0;
        for (Entry& e : entries) {
          if (trace) {
            timeline_.end(e.request.name, "ALLREDUCE");
            timeline_.begin(e.request.name, "MEMCPY_OUT_FUSION_BUFFER");
          }
          const size_t bytes = static_cast<size_t>(e.out.size()) * width;
          scale(q.dtype, fusion_.data() + at, e.out.size(), post);
          std::memcpy(e.out.raw_data(), fusion_.data() + at, bytes);
          at += bytes;
          if (trace) timeline_.end(e.request.name, "MEMCPY_OUT_FUSION_BUFFER");
        }
        break;
      }
      case Kind::Broadcast: {
        Entry& e = entries[0];
        const size_t bytes = static_cast<size_t>(e.out.size()) * width;
        if (me == q.root && e.out.raw_data() != e.in.raw_data()) std::memcpy(e.out.raw_data(), e.in.raw_data(), bytes);
        if (trace) timeline_.begin(q.name, "BROADCAST");
        check_mpi(MPI_Bcast(e.out.raw_data(), static_cast<int>(bytes), MPI_BYTE, q.root, comm_), "MPI_Bcast");
        if (trace) timeline_.end(q.name, "BROADCAST");
        break;
      }
      case Kind::Allgather: {
        Entry& e = entries[0];
        const int64_t row = elements(std::vector<int64_t>(q.shape.begin() + 1, q.shape.end())) *
                            static_cast<int64_t>(width);
        std::vector<int> counts, displs;
        int64_t rows = 0;
        for (int64_t s : r.sizes) {
          displs.push_back(static_cast<int>(rows * row));
          counts.push_back(static_cast<int>(s * row));
          rows += s;
        }
        std::vector<int64_t> shape = q.shape;
        shape[0] = rows;
        e.out = nd::empty(Shape(shape), cpu(), q.dtype);
        if (trace) timeline_.begin(q.name, "ALLGATHER");
        check_mpi(MPI_Allgatherv(e.in.raw_data(), counts[static_cast<size_t>(me)], MPI_BYTE, e.out.raw_data(),
                                 counts.data(), displs.data(), MPI_BYTE, comm_),
                  "MPI_Allgatherv");
        if (trace) timeline_.end(q.name, "ALLGATHER");
        break;
      }
      case Kind::Alltoall: {
        Entry& e = entries[0];
        const int64_t row = elements(std::vector<int64_t>(q.shape.begin() + 1, q.shape.end())) *
                            static_cast<int64_t>(width);
        std::vector<int> send_counts, send_displs, recv_counts, recv_displs;
        int64_t sent = 0, received = 0;
        for (int j = 0; j < size; ++j) {
          const int64_t out_rows = r.sizes[static_cast<size_t>(me * size + j)];
          const int64_t in_rows = r.sizes[static_cast<size_t>(j * size + me)];
          send_displs.push_back(static_cast<int>(sent * row));
          send_counts.push_back(static_cast<int>(out_rows * row));
          recv_displs.push_back(static_cast<int>(received * row));
          recv_counts.push_back(static_cast<int>(in_rows * row));
          sent += out_rows;
          received += in_rows;
        }
        std::vector<int64_t> shape = q.shape;
        shape[0] = received;
        e.out = nd::empty(Shape(shape), cpu(), q.dtype);
        if (trace) timeline_.begin(q.name, "ALLTOALL");
        check_mpi(MPI_Alltoallv(e.in.raw_data(), send_counts.data(), send_displs.data(), MPI_BYTE, e.out.raw_data(),
                                recv_counts.data(), recv_displs.data(), MPI_BYTE, comm_),
                  "MPI_Alltoallv");
        if (trace) timeline_.end(q.name, "ALLTOALL");
        break;
      }
    }
  } catch (...) {
    for (Entry& e : entries) e.done(std::current_exception(), NDArray());
    throw;  // MPI failed: the job cannot go on
  }
  for (Entry& e : entries) {  // run on every rank alike: the next time, a cache hit
    cache_.insert(e.request);
    uncacheable_.erase(e.request.name);
    e.done(nullptr, e.out);
  }
}

void Coordinator::fail(const std::vector<std::string>& names, const std::string& why) {
  std::vector<Entry> failed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& name : names) {
      auto it = in_flight_.find(name);
      if (it == in_flight_.end()) continue;  // a stall error for a tensor this rank never submitted
      failed.push_back(std::move(it->second));
      in_flight_.erase(it);
    }
  }
  for (Entry& e : failed) e.done(std::make_exception_ptr(Error(why)), NDArray());
}

void Coordinator::fail_everything(const std::string& why) {
  std::vector<Entry> failed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    running_ = false;
    for (auto& [name, e] : in_flight_) failed.push_back(std::move(e));
    in_flight_.clear();
    for (auto& e : queued_) failed.push_back(std::move(e));
    queued_.clear();
  }
  for (Entry& e : failed) e.done(std::make_exception_ptr(Error(why)), NDArray());
}

}  // namespace braid::collective::detail
