#pragma once
// Internal: what the ranks tell each other each cycle (Horovod's Request and Response). Every
// rank sends rank 0 the tensors it submitted since the last cycle; rank 0, once a name has been
// submitted by every rank, checks that they agree and answers every rank with the operations to
// run, in one order, fused where possible. Both travel as bytes (MPI_Gatherv, MPI_Bcast).
#include <cstdint>
#include <string>
#include <vector>

#include "braid/base/dtype.h"

namespace braid::collective::detail {

enum class Kind : int32_t { Allreduce = 0, Allgather, Broadcast, Alltoall };
const char* kind_name(Kind k);

struct Request {
  int32_t rank = 0;
  Kind kind = Kind::Allreduce;
  std::string name;
  DType dtype = DType::Float32;
  std::vector<int64_t> shape;
  int32_t root = 0;     // broadcast
  int32_t average = 1;  // allreduce: 1 average, 0 sum
  double prescale = 1, postscale = 1;
  std::vector<int64_t> splits;  // alltoall: rows to each rank
};

struct Response {
  Kind kind = Kind::Allreduce;
  std::vector<std::string> names;  // several: one fused allreduce
  std::string error;               // non-empty: every rank fails these tensors with it
  // allgather: every rank's first dimension; alltoall: rows from rank i to rank j at i*size+j
  std::vector<int64_t> sizes;
};

/// What a rank sends each cycle: its new requests and whether it wants to shut down.
struct RequestList {
  std::vector<Request> requests;
  bool shutdown = false;
};
/// What rank 0 answers.
struct ResponseList {
  std::vector<Response> responses;
  bool shutdown = false;
};

std::string encode(const RequestList& l);
RequestList decode_requests(const std::string& bytes);
std::string encode(const ResponseList& l);
ResponseList decode_responses(const std::string& bytes);

}  // namespace braid::collective::detail
