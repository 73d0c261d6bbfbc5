#pragma once
/// Shape of an array, any rank. A default-constructed Shape is *unknown* (ndim -1), the MXNet
/// notion used by shape inference; Shape({}) is a known scalar shape. A dimension of 0 in a known
/// shape means "not yet known" to inference (MXNet's deferred initialization), as in MXNet 1.x.
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

namespace braid {

class Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) : dims_(dims), known_(true) {}
  explicit Shape(std::vector<int64_t> dims) : dims_(std::move(dims)), known_(true) {}
  template <class It>
  Shape(It begin, It end) : dims_(begin, end), known_(true) {}

  bool known() const { return known_; }
  /// Known and no dimension is 0.
  bool fully_known() const;
  int ndim() const { return known_ ? static_cast<int>(dims_.size()) : -1; }
  int64_t size() const;  // product of dims; 1 for a scalar
  int64_t operator[](int i) const { return dims_[static_cast<size_t>(i)]; }
  int64_t& operator[](int i) { return dims_[static_cast<size_t>(i)]; }
  const std::vector<int64_t>& dims() const { return dims_; }
  int64_t back() const { return dims_.back(); }
  /// Product of dims in [begin, end).
  int64_t prod(int begin, int end) const;
  /// Normalizes a possibly negative axis; throws naming `what` when out of range.
  int axis(int a, const char* what = "axis") const;

  bool operator==(const Shape& o) const { return known_ == o.known_ && dims_ == o.dims_; }
  bool operator!=(const Shape& o) const { return !(*this == o); }
  /// MXNet's spelling: "(2, 3)", "(5,)", "()"; "?" when unknown.
  std::string str() const;

 private:
  std::vector<int64_t> dims_;
  bool known_ = false;
};

std::ostream& operator<<(std::ostream& os, const Shape& s);

}  // namespace braid
