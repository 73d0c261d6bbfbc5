#include "server.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "braid/base/error.h"
#include "braid/kvstore/ps.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/sparse.h"
#include "braid/optim/optimizer.h"
#include "braid/profiler/profiler.h"
#include "key_value.h"
#include "node.h"
#include "rows.h"
#include "server_states.h"
#include "two_bit.h"

namespace braid::kv::ps {
namespace {

std::mutex loader_mu;
OptimizerLoader& optimizer_loader() {
  static OptimizerLoader loader;
  return loader;
}

std::shared_ptr<optim::Optimizer> load_foreign_optimizer(const std::string& image) {
  OptimizerLoader loader;
  {
    std::lock_guard<std::mutex> lock(loader_mu);
    loader = optimizer_loader();
  }
  BRAID_CHECK(loader, "a worker sent an optimizer defined in Python, and this server runs without Python (`braid ",
              "server`); start the servers from the workers' script (braid launch ... -- python3 script.py), as ",
              "MXNet does, so that they can rebuild it");
  auto optimizer = loader(image);
  BRAID_CHECK(optimizer, "the optimizer loader returned no optimizer");
  return optimizer;
}

// A count sent as text, e.g. how many workers are left.
int parse_count(const std::string& text) {
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  BRAID_CHECK(!text.empty() && *end == '\0' && v >= 0 && v < (1 << 30), "'", text, "' is not a count");
  return static_cast<int>(v);
}

// One slice of a key on this server: whole rows of the key's value (key_value.h).
struct Value {
  DType dtype = DType::Float32;
  int64_t begin = 0, size = 0, total = 0;
  int64_t row_width = 0;  // elements per row; 0: a value of one axis (rows of one element)
  NDArray stored;         // the value, in shape()
  NDArray merged;         // the sum of the pushes so far (sync), or the push being applied (async)
  int pushes = 0;         // in this round
  struct Waiting {
    Header head;
    int64_t handled_us = 0, work_us = 0;  // when its sum was done, and how long that took
  };
  std::vector<Waiting> waiting;  // the pushes of this round, answered when it completes
  bool dense_round = false;      // a push of this round carried the whole slice
  std::vector<int64_t> touched;  // the rows row pushes of this round carried (whole-value numbers)
  bool merged_zero = false;      // `merged` holds zeros but in the rows of `touched`
  // `stored` while a pull reply may still be sending its bytes: it is then replaced, not
  // overwritten, by the next update.
  std::shared_ptr<const NDArray> lent;
  std::optional<int> optimizer_index;  // set at its first update (optimizer_index_of)

  int64_t width() const { return row_width > 0 ? row_width : 1; }
  int64_t first_row() const { return begin / width(); }
  int64_t rows() const { return size / width(); }
  size_t row_bytes() const { return static_cast<size_t>(width()) * dtype_size(dtype); }
  // As the optimizer sees it: rows of the key's width, so that dense and row updates share states.
  Shape shape() const { return row_width > 0 ? Shape{rows(), row_width} : Shape{size}; }
  char* row(NDArray& a, int64_t id) const { return a.data<char>() + (id - first_row()) * row_bytes(); }
};

struct Load {
  int64_t requests = 0, pushes = 0, pulls = 0, bytes_in = 0, bytes_out = 0;
};

class KeyValueServer {
 public:
  explicit KeyValueServer(Node& node) : node_(node) {}

  void handle(Message&& m) {
    std::lock_guard<std::mutex> lock(mu_);
    received_us_ = profiler::now_us();
    ++load_.requests;
    load_.bytes_in += static_cast<int64_t>(m.payload.size);
    try {
      switch (m.command()) {
        case Command::kInit:
          init(m);
          break;
        case Command::kPush:
          push(m);
          break;
        case Command::kPull:
          pull(m);
          break;
        case Command::kPushRows:
          push_rows(m);
          break;
        case Command::kPullRows:
          pull_rows(m);
          break;
        case Command::kServerCommand:
          command(m);
          break;
        default:
          throw Error(cat("a server does not handle ", command_name(m.command()), " messages"));
      }
    } catch (const std::exception& e) {
      try {
        fail(m.head, e.what());
      } catch (const Error& again) {  // the job failed meanwhile: nobody waits for the answer
        node_.log(
            cat("could not answer ", command_name(m.command()), " from node ", m.head.sender, ": ", again.what()));
      }
    }
  }

  /// One line: what this server held and served.
  std::string load_summary() const {
    std::lock_guard<std::mutex> lock(mu_);
    int64_t bytes = 0;
    std::set<int64_t> keys;
    for (const auto& [id, v] : values_) {
      bytes += v.size * static_cast<int64_t>(dtype_size(v.dtype));
      keys.insert(id.first);
    }
    return cat("load: ", keys.size(), " keys in ", values_.size(), " slices, ", bytes, " bytes stored; ",
               load_.requests, " requests (", load_.pushes, " pushes, ", load_.pulls, " pulls); ", load_.bytes_in,
               " bytes in, ", load_.bytes_out, " bytes out");
  }

 private:
  static Message reply_to(const Header& request) {
    Message r;
    r.head.command = static_cast<uint16_t>(Command::kReply);
    r.head.request = request.request;
    r.head.key = request.key;
    r.head.offset = request.offset;
    r.head.total = request.total;
    r.head.dtype = request.dtype;
    return r;
  }
  // The reply, with the server's time on the request when the worker asked for it, and the value
  // of `v` (a pull's, or a pushpull's after the round).
  void answer(const Header& request, ServerTiming timing = {}, Value* v = nullptr) {
    Message r = reply_to(request);
    if (request.flags & kFlagTimed) r.body = format_timing(timing);
    if (v) {
      if (!v->lent) v->lent = std::make_shared<const NDArray>(v->stored);
      r.payload = {v->stored.raw_data(), static_cast<size_t>(v->size) * dtype_size(v->dtype), v->lent};
      load_.bytes_out += static_cast<int64_t>(r.payload.size);
    }
    node_.send(request.sender, r);
  }
  ServerTiming work_so_far() const { return {profiler::now_us() - received_us_, 0}; }
  void fail(const Header& request, const std::string& why) {
    Message r = reply_to(request);
    node_.log(cat("error: ", r.describe(), " to node ", request.sender, ": ", why));
    r.head.flags = kFlagError;
    r.body = why;
    node_.send(request.sender, r);
  }

  Value& value_of(const Message& m) {
    auto it = values_.find({m.head.key, m.head.offset});
    if (it == values_.end()) {
      auto first = values_.lower_bound({m.head.key, INT64_MIN});
      BRAID_CHECK(first != values_.end() && first->first.first == m.head.key, "key ", m.head.key,
                  " has not been initialised on this server (worker 0 initialises every key before the workers ",
                  "push or pull it)");
      throw Error(cat("key ", m.head.key, ": this server holds no slice beginning at element ", m.head.offset,
                      " (do all workers use the same MXNET_KVSTORE_BIGARRAY_BOUND?)"));
    }
    Value& v = it->second;
    BRAID_CHECK(m.head.total == v.total, "key ", m.head.key, ": this server holds a slice of ", v.total,
                " elements, not of ", m.head.total, " (do all workers use the same MXNET_KVSTORE_BIGARRAY_BOUND?)");
    BRAID_CHECK(m.head.dtype == static_cast<int32_t>(v.dtype), "key ", m.head.key, " holds ", dtype_name(v.dtype),
                " values but the message carries dtype code ", m.head.dtype);
    return v;
  }

  // The bytes of an uncompressed value of `v`'s slice.
  static void check_bytes(const Message& m, const Value& v) {
    const auto expected = static_cast<size_t>(v.size) * dtype_size(v.dtype);
    BRAID_CHECK(m.payload.size == expected, "key ", m.head.key, ": expected ", expected, " bytes (", v.size, " ",
                dtype_name(v.dtype), " values) but got ", m.payload.size);
  }

  void init(const Message& m) {
    const DType dtype = dtype_from_code(m.head.dtype);
    const size_t width = dtype_size(dtype);
    BRAID_CHECK(m.payload.size % width == 0 && m.head.offset >= 0 && m.head.total > 0, "a malformed init of key ",
                m.head.key);
    const auto size = static_cast<int64_t>(m.payload.size / width);
    BRAID_CHECK(m.head.offset + size <= m.head.total, "init of key ", m.head.key, ": slice past the value's end");
    const int64_t row_width = m.head.row_width;
    BRAID_CHECK(row_width == 0 || (size % row_width == 0 && m.head.offset % row_width == 0), "init of key ", m.head.key,
                ": a slice of ", size, " elements at ", m.head.offset, " is no whole rows of ", row_width);
    if (values_.count({m.head.key, m.head.offset})) {  // a repeated init (MXNet's semantics: the first one stays)
      answer(m.head);
      return;
    }
    Value v;
    v.dtype = dtype;
    v.begin = m.head.offset;
    v.size = size;
    v.total = m.head.total;
    v.row_width = row_width;
    v.stored = nd::empty(v.shape(), cpu(), dtype);
    std::memcpy(v.stored.raw_data(), m.payload.data, m.payload.size);
    if (node_.config().verbose >= 1)
      node_.log(cat("key ", m.head.key, ": elements [", v.begin, ", ", v.begin + size, ") of ", v.total, ", ",
                    dtype_name(dtype)));
    values_.emplace(SliceId{m.head.key, m.head.offset}, std::move(v));
    answer(m.head);
  }

  void push(const Message& m) {
    Value& v = value_of(m);
    ++load_.pushes;
    if (!m.body.empty()) set_optimizer_params(m.body);
    if (v.merged.is_none()) v.merged = nd::empty(v.shape(), cpu(), v.dtype);
    const bool first = !sync_ || v.pushes == 0;
    v.dense_round = true;
    v.merged_zero = false;
    if (m.head.flags & kFlag2Bit) {
      BRAID_CHECK(v.dtype == DType::Float32, "2-bit compression needs float32 values; key ", m.head.key, " holds ",
                  dtype_name(v.dtype));
      BRAID_CHECK(threshold_ > 0, "a 2-bit push before the threshold (set_gradient_compression)");
      BRAID_CHECK(m.payload.size == static_cast<size_t>(two_bit::code_bytes(v.size)), "key ", m.head.key,
                  ": expected the 2-bit codes of ", v.size, " values but got ", m.payload.size, " bytes");
      if (first) v.merged.fill(0).wait_to_read();
      two_bit::add_decoded(static_cast<const uint8_t*>(m.payload.data), v.size, threshold_, v.merged.data<float>());
    } else {
      check_bytes(m, v);
      if (first)
        std::memcpy(v.merged.raw_data(), m.payload.data, m.payload.size);
      else
        add_elements(v.dtype, v.merged.raw_data(), m.payload.data, v.size);
    }
    end_push(m.head, v);
  }

  // Some rows: added to the round's sum, whose other rows are zeros.
  void push_rows(const Message& m) {
    Value& v = value_of(m);
    ++load_.pushes;
    if (!m.body.empty()) set_optimizer_params(m.body);
    const Rows rows = parse_rows(m, v.row_bytes(), true, v.first_row(), v.first_row() + v.rows());
    if (v.merged.is_none()) v.merged = nd::empty(v.shape(), cpu(), v.dtype);
    const bool first = !sync_ || v.pushes == 0;
    if (first && !v.merged_zero) {
      v.merged.fill(0).wait_to_read();
      v.merged_zero = true;
    }
    for (int64_t i = 0; i < rows.n; ++i)
      add_elements(v.dtype, v.row(v.merged, rows.ids[i]), rows.values + i * v.row_bytes(), v.width());
    v.touched.insert(v.touched.end(), rows.ids, rows.ids + rows.n);
    end_push(m.head, v);
  }

  // The round completes with the push of the last worker left (sync), or with each push (async).
  void end_push(const Header& head, Value& v) {
    const int64_t now = profiler::now_us();
    v.waiting.push_back({head, now, now - received_us_});
    if (sync_ && ++v.pushes < workers_left_) return;
    complete_round(head.key, v);
  }

  void complete_round(int64_t key, Value& v) {
    std::vector<Value::Waiting> round;
    round.swap(v.waiting);
    v.pushes = 0;
    std::string error;
    const int64_t start = profiler::now_us();
    try {
      apply(key, v);
    } catch (const std::exception& e) {
      error = e.what();  // every push of the round gets it
    }
    const int64_t applied = profiler::now_us() - start;
    for (const Value::Waiting& w : round) {
      if (!error.empty()) {
        fail(w.head, error);
        continue;
      }
      answer(w.head, {w.work_us + applied, start - w.handled_us}, (w.head.flags & kFlagReplyValue) ? &v : nullptr);
    }
  }

  // The round's sum updates the value (optimizer) or becomes it.
  void apply(int64_t key, Value& v) {
    const bool sending = v.lent && v.lent.use_count() > 1;
    v.lent.reset();
    if (!v.dense_round) {
      apply_rows(key, v, sending);
      return;
    }
    v.dense_round = false;
    v.touched.clear();
    if (!optimizer_) {
      if (sending) v.stored = nd::empty(v.shape(), cpu(), v.dtype);
      std::swap(v.stored, v.merged);
      return;
    }
    if (sending) v.stored = v.stored.copy();
    optimizer_->update(optimizer_index_of(key, v), v.stored, v.merged);
    v.stored.wait_to_read();
  }

  // A round of row pushes only: the optimizer updates the rows pushed (lazily, as a row_sparse
  // gradient), or the value becomes the sum: the rows pushed, zeros elsewhere (as MXNet's).
  void apply_rows(int64_t key, Value& v, bool sending) {
    std::vector<int64_t> ids;
    ids.swap(v.touched);
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    const auto n = static_cast<int64_t>(ids.size());
    NDArray sum = nd::empty(row_shape(v, n), cpu(), v.dtype);
    for (int64_t i = 0; i < n; ++i)
      std::memcpy(sum.data<char>() + i * v.row_bytes(), v.row(v.merged, ids[i]), v.row_bytes());
    if (optimizer_) {
      if (sending) v.stored = v.stored.copy();
      std::vector<int64_t> local(ids);
      for (int64_t& id : local) id -= v.first_row();
      const NDArray grad = sparse::row_sparse_array(sum, nd::array(local, Shape{n}, cpu(), DType::Int64), v.shape());
      optimizer_->update(optimizer_index_of(key, v), v.stored, grad);
      v.stored.wait_to_read();
    } else {
      if (sending) v.stored = nd::empty(v.shape(), cpu(), v.dtype);
      v.stored.fill(0).wait_to_read();
      for (int64_t i = 0; i < n; ++i)
        std::memcpy(v.row(v.stored, ids[i]), sum.data<char>() + i * v.row_bytes(), v.row_bytes());
    }
    for (int64_t id : ids) std::memset(v.row(v.merged, id), 0, v.row_bytes());  // zeros again
  }

  // `n` rows of `v` in the value's rank: (n, width), or (n) for a value of one axis.
  static Shape row_shape(const Value& v, int64_t n) { return v.row_width > 0 ? Shape{n, v.row_width} : Shape{n}; }

  void pull(const Message& m) {
    Value& v = value_of(m);
    ++load_.pulls;
    answer(m.head, work_so_far(), &v);
  }

  void pull_rows(const Message& m) {
    Value& v = value_of(m);
    ++load_.pulls;
    const Rows rows = parse_rows(m, v.row_bytes(), false, v.first_row(), v.first_row() + v.rows());
    auto bytes = std::make_shared<std::string>(static_cast<size_t>(rows.n) * v.row_bytes(), '\0');
    for (int64_t i = 0; i < rows.n; ++i)
      std::memcpy(bytes->data() + i * v.row_bytes(), v.row(v.stored, rows.ids[i]), v.row_bytes());
    Message r = reply_to(m.head);
    if (m.head.flags & kFlagTimed) r.body = format_timing(work_so_far());
    r.payload = {bytes->data(), bytes->size(), bytes};
    load_.bytes_out += static_cast<int64_t>(r.payload.size);
    node_.send(m.head.sender, r);
  }

  void command(const Message& m) {
    if (static_cast<ServerCommand>(m.head.key) == ServerCommand::kWorkersLeft) {
      BRAID_CHECK(m.head.sender == kSchedulerId, "only the scheduler says how many workers are left");
      workers_left_ = parse_count(m.body);
      for (auto& [id, v] : values_)
        if (sync_ && v.pushes > 0 && v.pushes >= workers_left_) complete_round(id.first, v);
      return;
    }
    Message r = reply_to(m.head);
    switch (static_cast<ServerCommand>(m.head.key)) {
      case ServerCommand::kSyncMode:
        set_mode(m);
        break;
      case ServerCommand::kOptimizer:
        set_optimizer(m.body, false);
        break;
      case ServerCommand::kForeignOptimizer:
        set_optimizer(m.body, true);
        break;
      case ServerCommand::kCompression: {
        char* end = nullptr;
        threshold_ = std::strtof(m.body.c_str(), &end);
        BRAID_CHECK(!m.body.empty() && *end == '\0' && threshold_ > 0 && std::isfinite(threshold_),
                    "the 2-bit threshold must be a positive number, got '", m.body, "'");
        break;
      }
      case ServerCommand::kGetStates: {
        BRAID_CHECK(optimizer_, "no optimizer runs on the servers (set_optimizer with update_on_kvstore)");
        auto image = std::make_shared<const std::string>(states_by_key(optimizer_->save_states(), slice_indices()));
        r.payload = {image->data(), image->size(), image};
        break;
      }
      case ServerCommand::kSetStates:
        BRAID_CHECK(optimizer_, "optimizer states came before the optimizer");
        optimizer_->load_states(
            states_by_slice(std::string(static_cast<const char*>(m.payload.data), m.payload.size), slice_indices()));
        break;
      default:
        throw Error(cat("unknown server command ", m.head.key));
    }
    node_.send(m.head.sender, r);
  }

  void set_mode(const Message& m) {
    BRAID_CHECK(m.body == "sync" || m.body == "async", "unknown mode '", m.body, "'");
    const bool sync = m.body == "sync";
    if (!mode_set_) {
      sync_ = sync;
      mode_set_ = true;
      return;
    }
    BRAID_CHECK(sync == sync_, "this job's workers run in ", sync_ ? "sync" : "async", " mode but worker node ",
                m.head.sender, " asked for ", m.body, "; start every worker with the same kvstore type");
  }

  void set_optimizer_params(const std::string& lines) {
    BRAID_CHECK(optimizer_, "optimizer settings came before the optimizer");
    std::istringstream in(lines);
    for (std::string line; std::getline(in, line);) {
      const auto eq = line.find('=');
      BRAID_CHECK(eq != std::string::npos, "a malformed optimizer setting '", line, "'");
      optimizer_->set_param(line.substr(0, eq), line.substr(eq + 1));
    }
  }

  // `image`: Optimizer::serialize(), or with `foreign` an Optimizer::foreign_image().
  void set_optimizer(const std::string& image, bool foreign) {
    if (image == optimizer_image_) return;  // every worker sends it
    if (optimizer_) node_.log("a worker sent a different optimizer; it replaces the one before, states included");
    optimizer_ = foreign ? load_foreign_optimizer(image) : optim::Optimizer::deserialize(image);
    optimizer_image_ = image;
    for (const auto& [alias, key] : aliases_) optimizer_->alias_index(alias, static_cast<int>(key));
  }

  // The optimizer's index for slice `v` of `key`: the key's own for its first slice here, an
  // alias of it for the others, so that each slice has a state and update count of its own.
  int optimizer_index_of(int64_t key, Value& v) {
    if (!v.optimizer_index) {
      if (values_.lower_bound({key, INT64_MIN})->second.begin == v.begin) {
        v.optimizer_index = static_cast<int>(key);
      } else {
        BRAID_CHECK(next_alias_ < 0, "this server holds more slices than it has optimizer indices for");
        v.optimizer_index = next_alias_++;
        aliases_[*v.optimizer_index] = key;
        if (optimizer_) optimizer_->alias_index(*v.optimizer_index, static_cast<int>(key));
      }
    }
    return *v.optimizer_index;
  }

  std::vector<SliceIndex> slice_indices() {
    std::vector<SliceIndex> out;
    for (auto& [id, v] : values_) out.push_back({id.first, optimizer_index_of(id.first, v), v.shape()});
    return out;
  }

  Node& node_;
  mutable std::mutex mu_;
  using SliceId = std::pair<int64_t, int64_t>;  // key, first element
  std::map<SliceId, Value> values_;
  // Optimizer indices of the slices after a key's first: from INT_MIN up, away from the keys'.
  std::map<int, int64_t> aliases_;  // -> key
  int next_alias_ = INT_MIN;
  bool sync_ = false, mode_set_ = false;
  float threshold_ = 0;                            // of 2-bit pushes
  int workers_left_ = node_.config().num_workers;  // those that have not finished
  std::shared_ptr<optim::Optimizer> optimizer_;
  std::string optimizer_image_;
  Load load_;
  int64_t received_us_ = 0;  // when handle() began on the current message
};

}  // namespace

int run_server_node(const Config& config) {
  Node node(config);
  KeyValueServer server(node);
  int status = 0;
  try {
    node.start([&server](Message&& m) { server.handle(std::move(m)); });
  } catch (const Error& e) {  // refused, timed out, or the job failed while this server joined it
    node.log(cat("could not join the job: ", e.what()));
    status = 1;
  }
  try {
    if (status == 0) node.wait_for_exit();
  } catch (const Error&) {
    status = 1;  // logged by the node
  }
  node.stop();  // no message reaches the server after this, so it can go first
  node.log(server.load_summary());
  return status;
}

}  // namespace braid::kv::ps

namespace braid::kv {

void set_optimizer_loader(OptimizerLoader loader) {
  std::lock_guard<std::mutex> lock(ps::loader_mu);
  ps::optimizer_loader() = std::move(loader);
}

}  // namespace braid::kv
