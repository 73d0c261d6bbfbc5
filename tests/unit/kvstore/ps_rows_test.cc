// Row_sparse values on the parameter server (two servers, the key split by rows between them):
// row_sparse_pull moves only the rows asked for (counted in bytes), pushed rows update only those
// rows (lazily with an optimizer; without one the value becomes them), dense and row pushes mix,
// and malformed row messages are refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "braid/base/error.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/sparse.h"
#include "braid/optim/optimizer.h"
#include "kvstore/ps/rows.h"
#include "ps_job_util.h"

namespace braid {
namespace {

constexpr int64_t kRows = 1000, kWidth = 8;

// Big keys (1,000 elements or more) are split over the servers.
class SmallBigArrayBound {
 public:
  SmallBigArrayBound() { setenv("MXNET_KVSTORE_BIGARRAY_BOUND", "1000", 1); }
  ~SmallBigArrayBound() { unsetenv("MXNET_KVSTORE_BIGARRAY_BOUND"); }
};

// Row r holds r * 10 + column.
NDArray numbered_rows() {
  std::vector<float> v;
  for (int64_t r = 0; r < kRows; ++r)
    for (int64_t c = 0; c < kWidth; ++c) v.push_back(static_cast<float>(r * 10 + c));
  return nd::array(v, Shape{kRows, kWidth});
}

// A row_sparse gradient holding `value` in each of `rows` (ascending).
NDArray rows_of(const std::vector<int64_t>& rows, float value) {
  const auto n = static_cast<int64_t>(rows.size());
  return sparse::row_sparse_array(nd::full(Shape{n, kWidth}, value), nd::array(rows, Shape{n}, cpu(), DType::Int64),
                                  Shape{kRows, kWidth});
}

void expect_job_ok(const test::JobStatus& status) {
  EXPECT_EQ(status.scheduler, 0);
  EXPECT_EQ(status.servers, std::vector<int>(2, 0));
}

TEST(PsRows, RowSparsePullCarriesOnlyTheRowsAsked) {
  SmallBigArrayBound bound;
  constexpr uint64_t kHeader = sizeof(kv::ps::Header);
  std::vector<int64_t> indices;
  std::vector<float> data;
  std::vector<kv::ps::Worker::Traffic> traffic;  // before, after a pull of 4 rows, of 40, of the whole
  auto status = test::run_job("dist_sync", 9110, 1, 2, [&](kv::KVStore& store) {
    store.init(3, numbered_rows());
    NDArray out = sparse::zeros(StorageType::RowSparse, Shape{kRows, kWidth});
    traffic.push_back(kv::ps::worker_traffic(store));
    // any order, repeats, float ids; rows 3 and 5 on server 0, 600 and 999 on server 1
    store.row_sparse_pull(3, {out}, {nd::array<float>({999, 5, 3, 5, 600}, Shape{5})});
    out.wait_to_read();
    indices = sparse::indices(out).to_vector<int64_t>();
    data = sparse::data(out).to_vector<float>();
    traffic.push_back(kv::ps::worker_traffic(store));
    std::vector<int64_t> forty;
    for (int64_t r = 0; r < 40; ++r) forty.push_back(r * 25);
    store.row_sparse_pull(3, {out}, {nd::array(forty, Shape{40}, cpu(), DType::Int64)});
    out.wait_to_read();
    traffic.push_back(kv::ps::worker_traffic(store));
    NDArray dense = nd::zeros(Shape{kRows, kWidth});
    store.pull(3, {dense});
    dense.wait_to_read();
    traffic.push_back(kv::ps::worker_traffic(store));
  });
  expect_job_ok(status);
  EXPECT_EQ(indices, (std::vector<int64_t>{3, 5, 600, 999}));
  std::vector<float> expected;
  for (int64_t r : {3, 5, 600, 999})
    for (int64_t c = 0; c < kWidth; ++c) expected.push_back(static_cast<float>(r * 10 + c));
  EXPECT_EQ(data, expected);
  // Each server is asked for its rows (8-byte ids) and answers with their values (32 bytes a row).
  auto delta = [&](size_t i) {
    return std::pair{traffic[i].sent - traffic[i - 1].sent, traffic[i].received - traffic[i - 1].received};
  };
  EXPECT_EQ(delta(1), std::pair(2 * kHeader + 4 * 8, 2 * kHeader + 4 * 32));
  EXPECT_EQ(delta(2), std::pair(2 * kHeader + 40 * 8, 2 * kHeader + 40 * 32));
  EXPECT_EQ(delta(3), std::pair(2 * kHeader, 2 * kHeader + kRows * 32));
}

TEST(PsRows, PushedRowsUpdateOnlyThoseRowsLazily) {
  SmallBigArrayBound bound;
  constexpr float kLr = 0.1f, kWd = 0.1f;
  std::vector<float> pulled, pulled_rows;
  auto status = test::run_job("dist_sync", 9111, 2, 2, [&](kv::KVStore& store) {
    const int rank = store.rank();
    store.init(0, numbered_rows());
    store.set_optimizer(optim::create("sgd", {{"learning_rate", "0.1"}, {"wd", "0.1"}, {"lazy_update", "true"}}));
    // worker r pushes 1 in rows r and 500 + r, and 2 in row 999 (both workers: 4 there)
    store.push(0, {rows_of({rank, 500 + rank}, 1.f)});
    store.push(0, {rows_of({999}, 2.f)});
    NDArray out = nd::zeros(Shape{kRows, kWidth});
    store.pull(0, {out});
    NDArray rows = sparse::zeros(StorageType::RowSparse, Shape{kRows, kWidth});
    store.row_sparse_pull(0, {rows}, {nd::array<float>({999, 1}, Shape{2})});
    if (rank == 0) {
      pulled = out.to_vector<float>();
      pulled_rows = sparse::data(rows).to_vector<float>();
    }
    store.barrier();
  });
  expect_job_ok(status);
  ASSERT_EQ(pulled.size(), static_cast<size_t>(kRows * kWidth));
  for (int64_t r = 0; r < kRows; ++r)
    for (int64_t c = 0; c < kWidth; ++c) {
      const float w = static_cast<float>(r * 10 + c);
      float g = 0;
      if (r == 0 || r == 1 || r == 500 || r == 501) g = 1;  // one push each, summed over the round
      if (r == 999) g = 4;
      // lazy: rows without a gradient keep their value (no weight decay either)
      const float expected = g == 0 ? w : w - kLr * (g + kWd * w);
      ASSERT_NEAR(pulled[static_cast<size_t>(r * kWidth + c)], expected, 1e-5 * std::abs(expected))
          << "row " << r << " column " << c;
    }
  ASSERT_EQ(pulled_rows.size(), static_cast<size_t>(2 * kWidth));
  EXPECT_FLOAT_EQ(pulled_rows[0], 10.f - kLr * (1 + kWd * 10.f));           // row 1
  EXPECT_FLOAT_EQ(pulled_rows[kWidth], 9990.f - kLr * (4 + kWd * 9990.f));  // row 999
}

TEST(PsRows, WithoutAnOptimizerTheValueBecomesTheRowsPushedAndDensePushesMix) {
  SmallBigArrayBound bound;
  std::vector<std::vector<float>> after;  // the value after each round
  auto status = test::run_job("dist_sync", 9112, 2, 2, [&](kv::KVStore& store) {
    const int rank = store.rank();
    store.init(5, numbered_rows());
    NDArray out = nd::zeros(Shape{kRows, kWidth});
    auto round = [&](const NDArray& value) {
      store.push(5, {value});
      store.pull(5, {out});
      if (rank == 0) after.push_back(out.to_vector<float>());
    };
    round(rows_of(rank == 0 ? std::vector<int64_t>{0, 10} : std::vector<int64_t>{10, 900}, 1.f));  // 10: twice
    round(nd::full(Shape{kRows, kWidth}, 3.f));  // dense: 6 everywhere
    round(rows_of({7}, 2.f));                    // only row 7 is left
  });
  expect_job_ok(status);
  ASSERT_EQ(after.size(), 3u);
  auto row_value = [&](size_t round, int64_t r) { return after[round][static_cast<size_t>(r * kWidth)]; };
  for (int64_t r = 0; r < kRows; ++r) {
    EXPECT_EQ(row_value(0, r), r == 0 || r == 900 ? 1.f : r == 10 ? 2.f : 0.f) << r;
    EXPECT_EQ(row_value(1, r), 6.f) << r;
    EXPECT_EQ(row_value(2, r), r == 7 ? 4.f : 0.f) << r;
  }
}

// dist_async: each worker's rows are applied as they come, sparse and dense keys in one store.
TEST(PsRows, AsyncRowPushesApplyAsTheyComeBesideDenseKeys) {
  SmallBigArrayBound bound;
  std::vector<float> rows_value, dense_value;
  auto status = test::run_job("dist_async", 9115, 2, 2, [&](kv::KVStore& store) {
    const int rank = store.rank();
    store.init(0, nd::zeros(Shape{kRows, kWidth}));
    store.init(1, nd::zeros(Shape{4}));
    store.set_optimizer(optim::create("sgd", {{"learning_rate", "1"}}));
    for (int step = 0; step < 3; ++step) {
      store.push(0, {rows_of({static_cast<int64_t>(rank), 999}, 1.f)});
      store.push(1, {nd::ones(Shape{4})});
    }
    NDArray a = nd::zeros(Shape{kRows, kWidth}), b = nd::zeros(Shape{4});
    store.pull(0, {a});
    store.pull(1, {b});
    a.wait_to_read();
    b.wait_to_read();
    store.barrier();  // every push has been applied once both workers are here
    store.pull(0, {a});
    store.pull(1, {b});
    if (rank == 0) {
      rows_value = a.to_vector<float>();
      dense_value = b.to_vector<float>();
    }
    store.barrier();
  });
  expect_job_ok(status);
  ASSERT_EQ(rows_value.size(), static_cast<size_t>(kRows * kWidth));
  EXPECT_EQ(rows_value[0], -3.f);                 // worker 0's row, 3 pushes of lr * 1
  EXPECT_EQ(rows_value[kWidth], -3.f);            // worker 1's
  EXPECT_EQ(rows_value[999 * kWidth + 5], -6.f);  // both workers'
  EXPECT_EQ(rows_value[2 * kWidth], 0.f);         // nobody's
  EXPECT_EQ(dense_value, std::vector<float>(4, -6.f));
}

// With 2-bit compression dense pushes are quantised while rows travel as they are (MXNet's rule).
TEST(PsRows, RowsPassUncompressedWhileDensePushesAreQuantised) {
  SmallBigArrayBound bound;
  std::vector<float> rows_value, dense_value;
  auto status = test::run_job("dist_sync", 9114, 1, 2, [&](kv::KVStore& store) {
    store.init(0, nd::zeros(Shape{kRows, kWidth}));
    store.init(1, nd::zeros(Shape{kRows, kWidth}));
    store.set_gradient_compression({{"type", "2bit"}, {"threshold", "0.5"}});
    store.push(0, {rows_of({2, 700}, 0.3f)});               // below the threshold: exact anyway
    store.push(1, {nd::full(Shape{kRows, kWidth}, 0.3f)});  // quantised: 0.3 < 0.5 sends 0
    NDArray a = nd::zeros(Shape{kRows, kWidth}), b = nd::zeros(Shape{kRows, kWidth});
    store.pull(0, {a});
    store.pull(1, {b});
    rows_value = a.to_vector<float>();
    dense_value = b.to_vector<float>();
  });
  expect_job_ok(status);
  EXPECT_FLOAT_EQ(rows_value[2 * kWidth], 0.3f);
  EXPECT_FLOAT_EQ(rows_value[700 * kWidth + 7], 0.3f);
  EXPECT_EQ(rows_value[3 * kWidth], 0.f);
  EXPECT_EQ(dense_value, std::vector<float>(kRows * kWidth, 0.f));
}

TEST(PsRows, RowSparseArraysAreRefusedWhereTheyDoNotFit) {
  SmallBigArrayBound bound;
  std::vector<std::string> errors;
  auto status = test::run_job("dist_async", 9113, 1, 2, [&](kv::KVStore& store) {
    store.init(1, numbered_rows());
    auto error_of = [&](const std::function<void()>& f) {
      try {
        f();
        errors.push_back("no error");
      } catch (const Error& e) {
        errors.push_back(e.what());
      }
    };
    NDArray rsp = sparse::zeros(StorageType::RowSparse, Shape{kRows, kWidth});
    error_of([&] { store.pull(1, {rsp}); });
    error_of([&] { store.row_sparse_pull(1, {nd::zeros(Shape{kRows, kWidth})}, {nd::array<float>({1}, Shape{1})}); });
    error_of([&] { store.row_sparse_pull(1, {rsp}, {nd::array<float>({1000}, Shape{1})}); });
  });
  expect_job_ok(status);
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_NE(errors[0].find("row_sparse_pull row_sparse ones"), std::string::npos) << errors[0];
  EXPECT_NE(errors[1].find("it must be row_sparse"), std::string::npos) << errors[1];
  EXPECT_NE(errors[2].find("row 1000 of key 1 is out of its 1000 rows"), std::string::npos) << errors[2];
}

// A server checks a row message before touching a row.
TEST(PsRows, MalformedRowMessagesAreRefused) {
  auto message = [](std::vector<int64_t> ids, size_t extra_bytes) {
    kv::ps::Message m;
    m.head.key = 4;
    m.payload = kv::ps::rows_payload(ids, nullptr, 0);
    m.payload.size += extra_bytes;
    return m;
  };
  auto error_of = [](const kv::ps::Message& m, bool with_values) {
    try {
      kv::ps::parse_rows(m, 16, with_values, 100, 200);
      return std::string("no error");
    } catch (const Error& e) {
      return std::string(e.what());
    }
  };
  const kv::ps::Message good = message({100, 150, 199}, 0);  // the rows point into its payload
  const kv::ps::Rows ok = kv::ps::parse_rows(good, 16, false, 100, 200);
  EXPECT_EQ(ok.n, 3);
  EXPECT_EQ(ok.ids[2], 199);
  EXPECT_NE(error_of(message({100, 120}, 0), true).find("no whole number of rows of 24 bytes"), std::string::npos);
  EXPECT_NE(error_of(message({100, 200}, 0), false).find("row 200 (at 1) is not an ascending row"), std::string::npos);
  EXPECT_NE(error_of(message({99}, 0), false).find("row 99"), std::string::npos);
  EXPECT_NE(error_of(message({150, 150}, 0), false).find("row 150 (at 1)"), std::string::npos);
  EXPECT_NE(error_of(message({150}, 4), false).find("no whole number"), std::string::npos);
}

}  // namespace
}  // namespace braid
