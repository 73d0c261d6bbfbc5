#include "operations.h"

#include <cstring>
#include <numeric>

#include "braid/ndarray/creation.h"
#include "mpi_ops.h"

namespace braid::collective::detail {
namespace {

// Brackets a phase of `names` in the timeline.
class Phase {
 public:
  Phase(const OpContext& c, std::vector<std::string> names, const char* phase)
      : trace_(c.trace), names_(std::move(names)), phase_(phase) {
    if (trace_)
      for (const auto& n : names_) trace_->begin(n, phase_);
  }
  ~Phase() {
    if (trace_)
      for (const auto& n : names_) trace_->end(n, phase_);
  }

 private:
  Timeline* trace_;
  std::vector<std::string> names_;
  const char* phase_;
};

// Bytes of one row (the dimensions after the first) of `q`'s tensor.
int64_t row_bytes(const Request& q) {
  const int64_t elements = std::accumulate(q.shape.begin() + 1, q.shape.end(), int64_t{1}, std::multiplies<int64_t>());
  return elements * static_cast<int64_t>(dtype_size(q.dtype));
}

// A new output of `q`'s shape with `rows` rows.
NDArray with_rows(const Request& q, int64_t rows) {
  std::vector<int64_t> shape = q.shape;
  shape[0] = rows;
  return nd::empty(Shape(shape), cpu(), q.dtype);
}

}  // namespace

void run_allreduce(std::vector<Entry>& entries, int64_t fused_bytes, const OpContext& c) {
  const Request& q = entries[0].request;
  const size_t width = dtype_size(q.dtype);
  const double post = q.postscale / (q.average ? c.size : 1);
  if (entries.size() == 1) {  // in place in the output
    Entry& e = entries[0];
    const int64_t n = e.out.size();
    if (e.out.raw_data() != e.in.raw_data()) std::memcpy(e.out.raw_data(), e.in.raw_data(), n * width);
    scale(q.dtype, e.out.raw_data(), n, q.prescale);
    {
      Phase p(c, {q.name}, "ALLREDUCE");
      check_mpi(MPI_Allreduce(MPI_IN_PLACE, e.out.raw_data(), static_cast<int>(n), mpi_type(q.dtype), mpi_sum(q.dtype),
                              c.comm),
                "MPI_Allreduce");
    }
    scale(q.dtype, e.out.raw_data(), n, post);
    return;
  }
  std::vector<char>& buffer = *c.fusion;
  buffer.resize(static_cast<size_t>(fused_bytes));
  std::vector<std::string> names;
  size_t at = 0;
  for (Entry& e : entries) {
    Phase p(c, {e.request.name}, "MEMCPY_IN_FUSION_BUFFER");
    const size_t bytes = static_cast<size_t>(e.in.size()) * width;
    std::memcpy(buffer.data() + at, e.in.raw_data(), bytes);
    scale(q.dtype, buffer.data() + at, e.in.size(), q.prescale);
    at += bytes;
    names.push_back(e.request.name);
  }
  {
    Phase p(c, names, "ALLREDUCE");
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, buffer.data(), static_cast<int>(at / width), mpi_type(q.dtype),
                            mpi_sum(q.dtype), c.comm),
              "MPI_Allreduce");
  }
  at = 0;
  for (Entry& e : entries) {
    Phase p(c, {e.request.name}, "MEMCPY_OUT_FUSION_BUFFER");
    const size_t bytes = static_cast<size_t>(e.out.size()) * width;
    scale(q.dtype, buffer.data() + at, e.out.size(), post);
    std::memcpy(e.out.raw_data(), buffer.data() + at, bytes);
    at += bytes;
  }
}

void run_broadcast(Entry& e, const OpContext& c) {
  const Request& q = e.request;
  const size_t bytes = static_cast<size_t>(e.out.size()) * dtype_size(q.dtype);
  if (c.rank == q.root && e.out.raw_data() != e.in.raw_data()) std::memcpy(e.out.raw_data(), e.in.raw_data(), bytes);
  Phase p(c, {q.name}, "BROADCAST");
  check_mpi(MPI_Bcast(e.out.raw_data(), static_cast<int>(bytes), MPI_BYTE, q.root, c.comm), "MPI_Bcast");
}

void run_allgather(Entry& e, const std::vector<int64_t>& rows, const OpContext& c) {
  const Request& q = e.request;
  const int64_t row = row_bytes(q);
  std::vector<int> counts, offsets;
  int64_t total = 0;
  for (int64_t r : rows) {
    offsets.push_back(static_cast<int>(total * row));
    counts.push_back(static_cast<int>(r * row));
    total += r;
  }
  e.out = with_rows(q, total);
  Phase p(c, {q.name}, "ALLGATHER");
  check_mpi(MPI_Allgatherv(e.in.raw_data(), counts[static_cast<size_t>(c.rank)], MPI_BYTE, e.out.raw_data(),
                           counts.data(), offsets.data(), MPI_BYTE, c.comm),
            "MPI_Allgatherv");
}

void run_alltoall(Entry& e, const std::vector<int64_t>& rows, const OpContext& c) {
  const Request& q = e.request;
  const int64_t row = row_bytes(q);
  std::vector<int> send_counts, send_offsets, recv_counts, recv_offsets;
  int64_t sent = 0, received = 0;
  for (int j = 0; j < c.size; ++j) {
    const int64_t out_rows = rows[static_cast<size_t>(c.rank * c.size + j)];
    const int64_t in_rows = rows[static_cast<size_t>(j * c.size + c.rank)];
    send_offsets.push_back(static_cast<int>(sent * row));
    send_counts.push_back(static_cast<int>(out_rows * row));
    recv_offsets.push_back(static_cast<int>(received * row));
    recv_counts.push_back(static_cast<int>(in_rows * row));
    sent += out_rows;
    received += in_rows;
  }
  e.out = with_rows(q, received);
  Phase p(c, {q.name}, "ALLTOALL");
  check_mpi(MPI_Alltoallv(e.in.raw_data(), send_counts.data(), send_offsets.data(), MPI_BYTE, e.out.raw_data(),
                          recv_counts.data(), recv_offsets.data(), MPI_BYTE, c.comm),
            "MPI_Alltoallv");
}

}  // namespace braid::collective::detail
