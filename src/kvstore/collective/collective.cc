// The public collective API (include/braid/kvstore/collective.h) on the coordinator's thread:
// allreduce and broadcast are engine operations reading the input and writing the output, the
// others read the input and hand their new array to the handle.
#include "braid/kvstore/collective.h"

#include <condition_variable>
#include <cstdlib>
#include <mutex>

#include "braid/base/error.h"
#include "braid/engine/engine.h"
#include "braid/profiler/profiler.h"
#include "braid/storage/storage.h"
#include "coordinator.h"

namespace braid::collective {

struct Handle::State {
  std::mutex mu;
  std::condition_variable cv;
  bool finished = false;
  std::exception_ptr error;
  NDArray result;
};

namespace {

using detail::Coordinator;
using detail::Entry;
using detail::Kind;

detail::Request request(Kind kind, const std::string& name, const NDArray& in) {
  BRAID_CHECK(!in.is_none(), "collective ", detail::kind_name(kind), " of '", name, "': the input is None");
  BRAID_CHECK(in.ctx().is_cpu_family(), "collective ", detail::kind_name(kind), " of '", name, "': the input is on ",
              in.ctx().str(), "; this build communicates CPU arrays");
  detail::Request r;
  r.kind = kind;
  r.name = name;
  r.dtype = in.dtype();
  r.shape = in.shape().dims();
  return r;
}

void finish(const std::shared_ptr<Handle::State>& s, std::exception_ptr error, NDArray result) {
  {
    std::lock_guard<std::mutex> lock(s->mu);
    s->finished = true;
    s->error = error;
    s->result = std::move(result);
  }
  s->cv.notify_all();
}

// An engine operation that reads `in`, writes `out` (if any), and lasts until the coordinator
// has run the entry.
Handle submit(Entry e, const NDArray& out) {
  auto state = std::make_shared<Handle::State>();
  std::vector<engine::VarHandle> writes;
  if (!out.is_none()) writes.push_back(out.var());
  const engine::VarHandle reads[] = {e.in.var()};
  auto entry = std::make_shared<Entry>(std::move(e));
  entry->out = out;
  engine::Engine::get().push_async(
      [entry, state](engine::Done done) {
        // A running profiler sees the collective as an exchange of the tensor's bytes, from its
        // submission to its end (negotiation, fusion, MPI).
        profiler::Exchange x{kind_name(entry->request.kind), -1,
                             static_cast<uint64_t>(entry->in.shape().size()) * dtype_size(entry->in.dtype()),
                             profiler::now_us()};
        entry->done = [state, done, x](std::exception_ptr error, NDArray result) mutable {
          if (!error && profiler::running()) {
            x.end_us = profiler::now_us();
            profiler::record_exchange(x);
          }
          finish(state, error, std::move(result));
          done(error);
        };
        try {
          Coordinator::get().submit(std::move(*entry));
        } catch (...) {  // not running, or the name is in flight
          finish(state, std::current_exception(), NDArray());
          done(std::current_exception());
        }
      },
      cpu(), reads, writes, 0, "collective");
  return Handle(state);
}

}  // namespace

void init() {
  if (Coordinator::get().running()) return;
  // The engine and storage outlive the exit handler below (statics are destroyed after the
  // handlers registered after them ran): the thread still frees arrays while it stops.
  engine::Engine::get();
  Storage::get();
  Coordinator::get().start();
  static bool registered = false;
  if (!registered) std::atexit([] { shutdown(); });
  registered = true;
}

void shutdown() { Coordinator::get().stop(); }
bool is_initialized() { return Coordinator::get().running(); }
void set_fusion_threshold(int64_t bytes) { Coordinator::get().set_fusion_bytes(bytes); }

// Known from init on, also after a shutdown.
static const detail::Topology& topology() {
  BRAID_CHECK(Coordinator::get().started(), "collective: call collective::init() first");
  return Coordinator::get().topology();
}
int rank() { return topology().rank; }
int size() { return topology().size; }
int local_rank() { return topology().local_rank; }
int local_size() { return topology().local_size; }
int cross_rank() { return topology().cross_rank; }
int cross_size() { return topology().cross_size; }

bool poll(const Handle& h) {
  BRAID_CHECK(h.state(), "collective::poll: an empty handle");
  std::lock_guard<std::mutex> lock(h.state()->mu);
  return h.state()->finished;
}

NDArray synchronize(const Handle& h) {
  BRAID_CHECK(h.state(), "collective::synchronize: an empty handle");
  std::unique_lock<std::mutex> lock(h.state()->mu);
  h.state()->cv.wait(lock, [&] { return h.state()->finished; });
  if (h.state()->error) std::rethrow_exception(h.state()->error);
  return h.state()->result;
}

Handle allreduce_async(const NDArray& in, const NDArray& out, const std::string& name, ReduceOp op, double prescale,
                       double postscale) {
  Entry e;
  e.request = request(Kind::Allreduce, name, in);
  BRAID_CHECK(!out.is_none() && out.shape() == in.shape() && out.dtype() == in.dtype() && out.ctx().is_cpu_family(),
              "collective allreduce of '", name, "': the output must be a CPU array of the input's shape and dtype");
  e.request.average = op == ReduceOp::Average;
  e.request.prescale = prescale;
  e.request.postscale = postscale;
  e.in = in;
  return submit(std::move(e), out);
}

NDArray allreduce(const NDArray& in, const std::string& name, ReduceOp op, double prescale, double postscale) {
  NDArray out(in.shape(), in.ctx(), in.dtype());
  return synchronize(allreduce_async(in, out, name, op, prescale, postscale));
}

Handle allgather_async(const NDArray& in, const std::string& name) {
  Entry e;
  e.request = request(Kind::Allgather, name, in);
  BRAID_CHECK(in.ndim() >= 1, "collective allgather of '", name, "': needs at least one dimension");
  e.in = in;
  return submit(std::move(e), NDArray());
}

NDArray allgather(const NDArray& in, const std::string& name) { return synchronize(allgather_async(in, name)); }

Handle broadcast_async(const NDArray& in, const NDArray& out, int root_rank, const std::string& name) {
  Entry e;
  e.request = request(Kind::Broadcast, name, in);
  BRAID_CHECK(!out.is_none() && out.shape() == in.shape() && out.dtype() == in.dtype() && out.ctx().is_cpu_family(),
              "collective broadcast of '", name, "': the output must be a CPU array of the input's shape and dtype");
  e.request.root = root_rank;
  e.in = in;
  return submit(std::move(e), out);
}

NDArray broadcast(const NDArray& in, int root_rank, const std::string& name) {
  NDArray out(in.shape(), in.ctx(), in.dtype());
  return synchronize(broadcast_async(in, out, root_rank, name));
}

Handle alltoall_async(const NDArray& in, const std::vector<int64_t>& splits, const std::string& name) {
  Entry e;
  e.request = request(Kind::Alltoall, name, in);
  BRAID_CHECK(in.ndim() >= 1, "collective alltoall of '", name, "': needs at least one dimension");
  e.request.splits = splits;
  if (splits.empty()) {  // equal parts
    const int n = size();
    BRAID_CHECK(in.shape()[0] % n == 0, "collective alltoall of '", name, "': ", in.shape()[0],
                " rows do not split evenly over ", n, " ranks; give the splits");
    e.request.splits.assign(static_cast<size_t>(n), in.shape()[0] / n);
  }
  e.in = in;
  return submit(std::move(e), NDArray());
}

NDArray alltoall(const NDArray& in, const std::vector<int64_t>& splits, const std::string& name) {
  return synchronize(alltoall_async(in, splits, name));
}

}  // namespace braid::collective
