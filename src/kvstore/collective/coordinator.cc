#include "coordinator.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <numeric>
#include <thread>

#include "braid/base/env.h"
#include "braid/base/error.h"
#include "mpi_ops.h"

namespace braid::collective::detail {
namespace {

constexpr double kIdleCycleMs = 100;       // the cycle of a rank with nothing in flight
constexpr double kCachedPatienceS = 5;     // a cache hit waiting longer goes through rank 0 in full
constexpr double kStallCheckEveryS = 0.2;  // rank 0, while tensors wait for some ranks
constexpr int kBurstGapUs = 50;            // submissions closer than this belong to one burst

double env_double(const char* name, double fallback) {
  const auto v = env_str({name});
  if (!v || v->empty()) return fallback;
  try {
    return std::stod(*v);
  } catch (const std::exception&) {
    throw Error(cat("collective: ", name, "='", *v, "' is not a number"));
  }
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
  negotiation_.set_stall_times(env_double("HOROVOD_STALL_CHECK_TIME_SECONDS", 60),
                               env_double("HOROVOD_STALL_SHUTDOWN_TIME_SECONDS", 0));
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
  BRAID_CHECK(!in_flight_.count(name) &&
                  std::none_of(queued_.begin(), queued_.end(), [&](const Entry& q) { return q.request.name == name; }),
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
    negotiation_.set_size(topo_.size);
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
  RequestList mine;
  {
    std::unique_lock<std::mutex> lock(mu_);
    const double wait_ms = in_flight_.empty() ? std::max(cycle_ms_, kIdleCycleMs) : cycle_ms_;
    const auto next = last_cycle_ + std::chrono::duration<double, std::milli>(wait_ms);
    changed_.wait_until(lock, next, [this] { return !queued_.empty() || stopping_; });
    // A burst of submissions (a backward pass, a loop of allreduce_async) goes into one cycle, so
    // that it fuses: wait while tensors keep coming, up to a cycle time.
    const auto burst_end = Clock::now() + std::chrono::duration<double, std::milli>(cycle_ms_);
    for (size_t seen = queued_.size(); seen > 0 && !stopping_ && Clock::now() < burst_end; seen = queued_.size())
      if (!changed_.wait_for(lock, std::chrono::microseconds(kBurstGapUs),
                             [&] { return queued_.size() != seen || stopping_; }))
        break;
    last_cycle_ = Clock::now();
    mine.shutdown = stopping_;
    while (!queued_.empty()) {
      Entry e = std::move(queued_.front());
      queued_.pop_front();
      const auto id = uncacheable_.count(e.request.name) ? std::nullopt : cache_.lookup(e.request);
      if (id)
        cached_waiting_.emplace(*id, last_cycle_);
      else
        mine.requests.push_back(e.request);
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
  if (topo_.rank == 0 && negotiation_.waiting() &&
      now - last_exchange_ > std::chrono::duration<double>(kStallCheckEveryS))
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
    for (const auto& [id, since] : cached_waiting_)
      mine.requests.push_back(in_flight_.at(cache_.request(id).name).request);
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
    const int64_t bytes = tensor_bytes(q);
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
  check_mpi(MPI_Gatherv(bytes.data(), length, MPI_BYTE, all.data(), lengths.data(), offsets.data(), MPI_BYTE, 0, comm_),
            "MPI_Gatherv");
  std::string answer;
  if (topo_.rank == 0) {
    std::vector<RequestList> lists;
    for (int r = 0; r < size; ++r)
      lists.push_back(decode_requests(all.substr(static_cast<size_t>(offsets[static_cast<size_t>(r)]),
                                                 static_cast<size_t>(lengths[static_cast<size_t>(r)]))));
    int64_t fusion_bytes;
    {
      std::lock_guard<std::mutex> lock(mu_);
      fusion_bytes = fusion_bytes_;
    }
    answer = encode(negotiation_.coordinate(lists, fusion_bytes));
  }
  int64_t answer_length = static_cast<int64_t>(answer.size());
  check_mpi(MPI_Bcast(&answer_length, 1, MPI_INT64_T, 0, comm_), "MPI_Bcast");
  answer.resize(static_cast<size_t>(answer_length));
  check_mpi(MPI_Bcast(answer.data(), static_cast<int>(answer_length), MPI_BYTE, 0, comm_), "MPI_Bcast");
  const ResponseList responses = decode_responses(answer);
  for (const Response& r : responses.responses) execute(r);
  shutdown_ = responses.shutdown;
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
  const OpContext c{comm_, topo_.rank, topo_.size, topo_.rank == 0 && timeline_.enabled() ? &timeline_ : nullptr,
                    &fusion_};
  try {
    switch (r.kind) {
      case Kind::Allreduce:
        run_allreduce(entries, r.sizes[0], c);
        break;
      case Kind::Broadcast:
        run_broadcast(entries[0], c);
        break;
      case Kind::Allgather:
        run_allgather(entries[0], r.sizes, c);
        break;
      case Kind::Alltoall:
        run_alltoall(entries[0], r.sizes, c);
        break;
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
