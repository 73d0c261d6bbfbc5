#pragma once
/// Typed reading of MXNet's string attributes: "(3, 3)", "3", "[3,3]" for tuples, "True"/"1" for
/// booleans, "None" for absent optionals. Unknown keys are an error at finish() (keys starting
/// with "__", which Gluon and symbols add, are ignored).
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "braid/base/shape.h"
#include "braid/op/op_def.h"

namespace braid::op {

int64_t parse_int(const std::string& s);
double parse_float(const std::string& s);
bool parse_bool(const std::string& s);
/// "(3, 3)", "(3,)", "()", "[1, 2]", "3" -> dims.
std::vector<int64_t> parse_tuple(const std::string& s);
/// "(0.5, 0.25)", "0.5", "[1, 2]" -> numbers.
std::vector<double> parse_float_tuple(const std::string& s);
/// A number as an attribute string, exactly (round-trips through parse_float).
std::string format_number(double v);

class ParamReader {
 public:
  ParamReader(const AttrMap& attrs, std::string op) : attrs_(attrs), op_(std::move(op)) {}

  /// Required attribute.
  template <class T>
  T get(const std::string& key) {
    auto it = find(key);
    if (it == attrs_.end()) fail_missing(key);
    return convert<T>(key, it->second);
  }
  /// Optional attribute with a default.
  template <class T>
  T get(const std::string& key, T fallback) {
    auto it = find(key);
    return it == attrs_.end() ? fallback : convert<T>(key, it->second);
  }
  /// Absent or "None" gives nullopt.
  template <class T>
  std::optional<T> get_optional(const std::string& key) {
    auto it = find(key);
    if (it == attrs_.end() || it->second == "None") return std::nullopt;
    return convert<T>(key, it->second);
  }
  /// A string that must be one of `choices`.
  std::string get_enum(const std::string& key, const std::vector<std::string>& choices, const std::string& fallback);
  /// Throws on attributes that were never read.
  void finish() const;

 private:
  AttrMap::const_iterator find(const std::string& key) {
    read_.insert(key);
    return attrs_.find(key);
  }
  [[noreturn]] void fail_missing(const std::string& key) const;
  [[noreturn]] void fail_value(const std::string& key, const std::string& value, const std::string& expected) const;
  template <class T>
  T convert(const std::string& key, const std::string& value) const;

  const AttrMap& attrs_;
  std::string op_;
  std::set<std::string> read_;
};

// The attribute types ParamReader converts to (defined in param_reader.cc).
#define BRAID_PARAM_CONVERT(T) \
  template <>                  \
  T ParamReader::convert<T>(const std::string& key, const std::string& value) const;
BRAID_PARAM_CONVERT(int64_t)
BRAID_PARAM_CONVERT(int)
BRAID_PARAM_CONVERT(double)
BRAID_PARAM_CONVERT(float)
BRAID_PARAM_CONVERT(bool)
BRAID_PARAM_CONVERT(std::string)
BRAID_PARAM_CONVERT(std::vector<int64_t>)
BRAID_PARAM_CONVERT(std::vector<double>)
BRAID_PARAM_CONVERT(std::vector<std::optional<int64_t>>)
BRAID_PARAM_CONVERT(Shape)
#undef BRAID_PARAM_CONVERT

}  // namespace braid::op
