// A rank of the collective tests (tests/dist/collective_test.cc), started by mpirun. Usage:
// braid_dist_collective_worker SCENARIO [OUT_FILE]. Prints what differs and exits 1 on a wrong
// value; exits 0 when every check passed.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "braid/base/error.h"
#include "braid/kvstore/collective.h"
#include "braid/ndarray/creation.h"

using namespace braid;
namespace hvd = braid::collective;

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::printf("FAIL rank %d: %s\n", hvd::rank(), what.c_str());
    ++failures;
  }
}

// Rank r's value of tensor t at element i: small integers, exact in every dtype.
double value(int t, int r, int64_t i) { return static_cast<double>((t * 7 + r * 3 + i) % 11); }

NDArray tensor(int t, int r, const Shape& shape, DType dtype) {
  std::vector<double> v(static_cast<size_t>(shape.size()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = value(t, r, static_cast<int64_t>(i));
  return nd::array<double>(v, shape).astype(dtype);
}

struct Case {
  DType dtype;
  Shape shape;
  hvd::ReduceOp op;
  double prescale, postscale;
};

// Many allreduces at once, submitted in a different random order on every rank; returns every
// result's values (for comparing runs with fusion on and off).
std::vector<double> allreduces() {
  const int n = hvd::size(), me = hvd::rank();
  std::vector<Case> cases;
  const std::vector<DType> dtypes = {DType::Float32, DType::Float64, DType::Int32, DType::Int64, DType::Float16};
  for (int t = 0; t < 40; ++t)
    cases.push_back({dtypes[static_cast<size_t>(t) % dtypes.size()], t % 3 == 0 ? Shape{17} : Shape{3, 1 + t % 5, 4},
                     t % 2 ? hvd::ReduceOp::Sum : hvd::ReduceOp::Average, t % 4 == 1 ? 2.0 : 1.0,
                     t % 4 == 3 ? 0.5 : 1.0});
  std::vector<int> order(cases.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::shuffle(order.begin(), order.end(), std::mt19937(static_cast<unsigned>(me) * 7919u + 1));
  std::vector<NDArray> outs(cases.size());
  std::vector<hvd::Handle> handles(cases.size());
  for (int t : order) {
    const Case& c = cases[static_cast<size_t>(t)];
    NDArray in = tensor(t, me, c.shape, c.dtype);
    outs[static_cast<size_t>(t)] = t % 5 == 0 ? in : nd::zeros(c.shape, cpu(), c.dtype);  // some in place
    handles[static_cast<size_t>(t)] = hvd::allreduce_async(in, outs[static_cast<size_t>(t)],
                                                           "grad." + std::to_string(t), c.op, c.prescale, c.postscale);
  }
  std::vector<double> all;
  for (size_t t = 0; t < cases.size(); ++t) {
    const Case& c = cases[t];
    const std::vector<double> got = hvd::synchronize(handles[t]).to_vector<double>();
    for (size_t i = 0; i < got.size(); ++i) {
      double sum = 0;
      for (int r = 0; r < n; ++r) sum += value(static_cast<int>(t), r, static_cast<int64_t>(i)) * c.prescale;
      double want = (c.op == hvd::ReduceOp::Average ? sum / n : sum) * c.postscale;
      if (c.dtype == DType::Int32 || c.dtype == DType::Int64) want = std::trunc(want);
      if (std::abs(got[i] - want) > 1e-3 * std::max(1.0, std::abs(want))) {
        expect(false, "allreduce grad." + std::to_string(t) + " (" + dtype_name(c.dtype) + ") element " +
                          std::to_string(i) + " is " + std::to_string(got[i]) + ", expected " + std::to_string(want));
        break;
      }
    }
    all.insert(all.end(), got.begin(), got.end());
  }
  return all;
}

void other_collectives() {
  const int n = hvd::size(), me = hvd::rank();
  // allgather: rank r has r + 1 rows of (row, r) pairs.
  std::vector<float> mine;
  for (int row = 0; row <= me; ++row) mine.insert(mine.end(), {static_cast<float>(row), static_cast<float>(me)});
  hvd::Handle g = hvd::allgather_async(nd::array<float>(mine, Shape{me + 1, 2}), "gather");
  // broadcast from the last rank, in place
  NDArray b = tensor(5, me, Shape{4, 3}, DType::Float64);
  hvd::Handle bh = hvd::broadcast_async(b, b, n - 1, "bcast");
  // alltoall: rank r sends (r + j) % 3 rows to rank j, each row (r, j, k)
  std::vector<int64_t> splits;
  std::vector<int32_t> rows;
  for (int j = 0; j < n; ++j) {
    splits.push_back((me + j) % 3);
    for (int k = 0; k < (me + j) % 3; ++k) rows.insert(rows.end(), {me, j, k});
  }
  const int64_t total = static_cast<int64_t>(rows.size() / 3);
  hvd::Handle a = hvd::alltoall_async(nd::array<int32_t>(rows, Shape{total, 3}, cpu(), DType::Int32), splits, "a2a");

  NDArray gathered = hvd::synchronize(g);
  std::vector<float> want;
  for (int r = 0; r < n; ++r)
    for (int row = 0; row <= r; ++row) want.insert(want.end(), {static_cast<float>(row), static_cast<float>(r)});
  expect(gathered.shape() == Shape({static_cast<int64_t>(want.size() / 2), 2}),
         "allgather shape " + gathered.shape().str());
  expect(gathered.to_vector<float>() == want, "allgather values");

  hvd::synchronize(bh);
  expect(b.to_vector<double>() == tensor(5, n - 1, Shape{4, 3}, DType::Float64).to_vector<double>(),
         "broadcast values");

  NDArray got = hvd::synchronize(a);
  std::vector<int32_t> expected;
  for (int r = 0; r < n; ++r)
    for (int k = 0; k < (r + me) % 3; ++k) expected.insert(expected.end(), {r, me, k});
  expect(got.dtype() == DType::Int32 && got.to_vector<int32_t>() == expected, "alltoall rows");

  expect(hvd::local_size() == n && hvd::local_rank() == me && hvd::cross_size() == 1 && hvd::cross_rank() == 0,
         "topology on one host");
}

void mismatch() {
  const int me = hvd::rank();
  try {
    hvd::allreduce(nd::zeros(me == 0 ? Shape{2, 3} : Shape{3, 2}), "w");
    expect(false, "an allreduce with different shapes succeeded");
  } catch (const Error& e) {
    const std::string m = e.what();
    expect(m.find("tensor 'w'") != std::string::npos && m.find("rank 0 (2, 3), rank 1 (3, 2)") != std::string::npos,
           "the error does not name the tensor and the ranks: " + m);
  }
  try {
    hvd::allreduce(nd::zeros(Shape{2}, cpu(), me == 0 ? DType::Float32 : DType::Float64), "d");
    expect(false, "an allreduce with different dtypes succeeded");
  } catch (const Error& e) {
    expect(std::string(e.what()).find("dtypes differ") != std::string::npos, std::string("dtype error: ") + e.what());
  }
  // Once cached, a tensor one rank then submits with another shape: the cache hit on rank 0 waits,
  // then goes through rank 0 in full, which rejects the pair (after 5 s of patience).
  hvd::allreduce(nd::ones(Shape{4}), "m");
  try {
    hvd::allreduce(nd::ones(me == 1 ? Shape{5} : Shape{4}), "m");
    expect(false, "a cached tensor submitted with another shape succeeded");
  } catch (const Error& e) {
    expect(std::string(e.what()).find("tensor 'm': shapes differ between ranks: rank 0 (4,), rank 1 (5,)") !=
               std::string::npos,
           std::string("cached mismatch error: ") + e.what());
  }
  // The job goes on.
  expect(hvd::allreduce(nd::ones(Shape{3}), "after", hvd::ReduceOp::Sum).to_vector<float>() ==
             std::vector<float>(3, static_cast<float>(hvd::size())),
         "an allreduce after the errors");
}

// A training loop's steady state: the same 12 tensors every step (cache hits after the first),
// one step with a changed shape (back through rank 0), values exact throughout.
void steady() {
  const int n = hvd::size(), me = hvd::rank();
  for (int step = 0; step < 20; ++step) {
    std::vector<NDArray> arrays;
    std::vector<hvd::Handle> handles;
    for (int t = 0; t < 12; ++t) {
      const Shape shape = step == 10 && t == 3 ? Shape{7} : Shape{5, 1 + t};  // step 10: another shape
      arrays.push_back(tensor(t + step, me, shape, DType::Float32));
      handles.push_back(
          hvd::allreduce_async(arrays.back(), arrays.back(), "w" + std::to_string(t), hvd::ReduceOp::Sum));
    }
    for (int t = 0; t < 12; ++t) {
      const std::vector<float> got = hvd::synchronize(handles[static_cast<size_t>(t)]).to_vector<float>();
      for (size_t i = 0; i < got.size(); ++i) {
        double want = 0;
        for (int r = 0; r < n; ++r) want += value(t + step, r, static_cast<int64_t>(i));
        if (got[i] != want) {
          expect(false, "step " + std::to_string(step) + " tensor w" + std::to_string(t) + " element " +
                            std::to_string(i) + " is " + std::to_string(got[i]) + ", expected " + std::to_string(want));
          break;
        }
      }
    }
  }
}

// Rank 1 submits "late" seconds after the others (HOROVOD_STALL_CHECK_TIME_SECONDS=1 in the test).
void stall() {
  if (hvd::rank() == 1) std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  try {
    NDArray r = hvd::allreduce(nd::ones(Shape{2}), "late", hvd::ReduceOp::Sum);
    std::printf("late done: %g\n", static_cast<double>(r.to_vector<float>()[0]));
  } catch (const Error& e) {
    std::printf("late failed: %s\n", e.what());
  }
}

// Rank 1 dies in the middle of the job.
void killed() {
  for (int step = 0;; ++step) {
    if (hvd::rank() == 1 && step == 20) raise(SIGKILL);
    hvd::allreduce(nd::ones(Shape{1000}), "step" + std::to_string(step));
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const std::string scenario = argc > 1 ? argv[1] : "";
  try {
    hvd::init();
    if (scenario == "values") {
      const std::vector<double> all = allreduces();
      other_collectives();
      if (argc > 2) {
        std::ofstream out(std::string(argv[2]) + "." + std::to_string(hvd::rank()), std::ios::binary);
        out.write(reinterpret_cast<const char*>(all.data()), static_cast<std::streamsize>(all.size() * sizeof(double)));
      }
    } else if (scenario == "steady") {
      steady();
    } else if (scenario == "mismatch") {
      mismatch();
    } else if (scenario == "stall") {
      stall();
    } else if (scenario == "killed") {
      killed();
    } else {
      throw Error("unknown scenario " + scenario);
    }
    std::printf("rank %d of %d: %s\n", hvd::rank(), hvd::size(), failures ? "FAILED" : "ok");
  } catch (const std::exception& e) {
    std::printf("FAIL error: %s\n", e.what());
    return 1;
  }
  return failures ? 1 : 0;
}
