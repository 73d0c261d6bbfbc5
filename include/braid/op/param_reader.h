#pragma once
/// Typed reading of MXNet's string attributes: "(3, 3)", "3", "[3,3]" for tuples, "True"/"1" for
/// booleans, "None" for absent optionals. Unknown keys are an error at finish() (keys starting
/// with "__", which Gluon and symbols add, are ignored).
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "braid/base/error.h"
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

/// What operators' parsers read, collected instead of read (mx.operator.get_operator_arguments):
/// while one lives on a thread, every ParamReader there notes each attribute it is asked for, with
/// MXNet's description of its type ("int, required", "float, optional, default=0.5",
/// "{'avg', 'max'},optional, default='max'"), and answers a missing required one with a
/// stand-in value so that the parser goes on to the next.
class ParamCatalog {
 public:
  ParamCatalog();
  ~ParamCatalog();
  ParamCatalog(const ParamCatalog&) = delete;
  ParamCatalog& operator=(const ParamCatalog&) = delete;
  /// The innermost catalog of this thread, or null.
  static ParamCatalog* current();
  /// Notes `key` (a later note of the same key, more precise, replaces the description in place).
  void note(const std::string& key, const std::string& description);
  /// (attribute, description), in the order the parser first asked for them.
  const std::vector<std::pair<std::string, std::string>>& entries() const { return entries_; }

 private:
  ParamCatalog* outer_;
  std::vector<std::pair<std::string, std::string>> entries_;
};

/// MXNet's description of an operator's arguments (mx.operator.get_operator_arguments): its
/// inputs ("NDArray-or-Symbol"; one "data" of "NDArray-or-Symbol[]" for a variadic operator),
/// then its attributes as its parser asks for them (a ParamCatalog's entries).
std::vector<std::pair<std::string, std::string>> describe_arguments(const OpDef& def);

class ParamReader {
 public:
  ParamReader(const AttrMap& attrs, std::string op) : attrs_(attrs), op_(std::move(op)) {}

  /// Required attribute.
  template <class T>
  T get(const std::string& key) {
    auto it = find(key);
    if (it == attrs_.end()) {
      if (ParamCatalog* catalog = ParamCatalog::current()) {
        catalog->note(key, cat(type_name<T>(), ", required"));
        return stand_in<T>();
      }
      fail_missing(key);
    }
    return convert<T>(key, it->second);
  }
  /// Optional attribute with a default.
  template <class T>
  T get(const std::string& key, T fallback) {
    auto it = find(key);
    if (ParamCatalog* catalog = ParamCatalog::current(); catalog && it == attrs_.end())
      catalog->note(key, cat(type_name<T>(), ", optional, default=", default_text(fallback)));
    return it == attrs_.end() ? fallback : convert<T>(key, it->second);
  }
  /// Absent or "None" gives nullopt.
  template <class T>
  std::optional<T> get_optional(const std::string& key) {
    auto it = find(key);
    if (ParamCatalog* catalog = ParamCatalog::current(); catalog && it == attrs_.end())
      catalog->note(key, cat(type_name<T>(), " or None, optional, default='None'"));
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
  // For a ParamCatalog: MXNet's name of the type, a value a parser accepts, a default as MXNet
  // prints it.
  template <class T>
  static const char* type_name();
  template <class T>
  static T stand_in();
  template <class T>
  static std::string default_text(const T& value);

  const AttrMap& attrs_;
  std::string op_;
  std::set<std::string> read_;
};

// The attribute types ParamReader converts to (defined in param_reader.cc).
#define BRAID_PARAM_CONVERT(T)                                                       \
  template <>                                                                        \
  T ParamReader::convert<T>(const std::string& key, const std::string& value) const; \
  template <>                                                                        \
  const char* ParamReader::type_name<T>();                                           \
  template <>                                                                        \
  T ParamReader::stand_in<T>();                                                      \
  template <>                                                                        \
  std::string ParamReader::default_text<T>(const T& value);
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
