#include "messages.h"

#include <cstring>

#include "braid/base/error.h"

namespace braid::collective::detail {
namespace {

class Writer {
 public:
  template <class T>
  void put(T v) {
    out_.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void put(const std::string& s) {
    put<int64_t>(static_cast<int64_t>(s.size()));
    out_ += s;
  }
  void put(const std::vector<int64_t>& v) {
    put<int64_t>(static_cast<int64_t>(v.size()));
    for (int64_t x : v) put(x);
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(const std::string& in) : in_(in) {}
  template <class T>
  T get() {
    BRAID_CHECK(at_ + sizeof(T) <= in_.size(), "collective: a truncated message between ranks");
    T v;
    std::memcpy(&v, in_.data() + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  std::string str() {
    const auto n = static_cast<size_t>(get<int64_t>());
    BRAID_CHECK(at_ + n <= in_.size(), "collective: a truncated message between ranks");
    std::string s = in_.substr(at_, n);
    at_ += n;
    return s;
  }
  std::vector<int64_t> ints() {
    std::vector<int64_t> v(static_cast<size_t>(get<int64_t>()));
    for (auto& x : v) x = get<int64_t>();
    return v;
  }

 private:
  const std::string& in_;
  size_t at_ = 0;
};

}  // namespace

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::Allreduce:
      return "allreduce";
    case Kind::Allgather:
      return "allgather";
    case Kind::Broadcast:
      return "broadcast";
    case Kind::Alltoall:
      return "alltoall";
  }
  return "?";
}

std::string encode(const RequestList& l) {
  Writer w;
  w.put<int32_t>(l.shutdown);
  w.put<int64_t>(static_cast<int64_t>(l.requests.size()));
  for (const Request& r : l.requests) {
    w.put(r.rank);
    w.put(r.kind);
    w.put(r.name);
    w.put(static_cast<int32_t>(r.dtype));
    w.put(r.shape);
    w.put(r.root);
    w.put(r.average);
    w.put(r.prescale);
    w.put(r.postscale);
    w.put(r.splits);
  }
  return w.take();
}

RequestList decode_requests(const std::string& bytes) {
  Reader r(bytes);
  RequestList l;
  l.shutdown = r.get<int32_t>() != 0;
  l.requests.resize(static_cast<size_t>(r.get<int64_t>()));
  for (Request& q : l.requests) {
    q.rank = r.get<int32_t>();
    q.kind = r.get<Kind>();
    q.name = r.str();
    q.dtype = static_cast<DType>(r.get<int32_t>());
    q.shape = r.ints();
    q.root = r.get<int32_t>();
    q.average = r.get<int32_t>();
    q.prescale = r.get<double>();
    q.postscale = r.get<double>();
    q.splits = r.ints();
  }
  return l;
}

std::string encode(const ResponseList& l) {
  Writer w;
  w.put<int32_t>(l.shutdown);
  w.put<int64_t>(static_cast<int64_t>(l.responses.size()));
  for (const Response& r : l.responses) {
    w.put(r.kind);
    w.put<int64_t>(static_cast<int64_t>(r.names.size()));
    for (const auto& n : r.names) w.put(n);
    w.put(r.error);
    w.put(r.sizes);
  }
  return w.take();
}

ResponseList decode_responses(const std::string& bytes) {
  Reader r(bytes);
  ResponseList l;
  l.shutdown = r.get<int32_t>() != 0;
  l.responses.resize(static_cast<size_t>(r.get<int64_t>()));
  for (Response& q : l.responses) {
    q.kind = r.get<Kind>();
    q.names.resize(static_cast<size_t>(r.get<int64_t>()));
    for (auto& n : q.names) n = r.str();
    q.error = r.str();
    q.sizes = r.ints();
  }
  return l;
}

}  // namespace braid::collective::detail
