#include "braid/op/param_reader.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace braid::op {
namespace {

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// MXNet's spelling of a set of choices: sorted, quoted, None bare.
std::string choice_set(std::vector<std::string> choices) {
  std::sort(choices.begin(), choices.end(), [](const std::string& a, const std::string& b) {
    return (a == "None") != (b == "None") ? a == "None" : a < b;
  });
  std::string text;
  for (const auto& c : choices) text += cat(text.empty() ? "" : ", ", c == "None" ? c : cat("'", c, "'"));
  return "{" + text + "}";
}

// A tuple default as MXNet prints it: "[]" when empty, "(1,1)", "(2,)".
template <class V, class F>
std::string tuple_text(const V& values, F item) {
  if (values.empty()) return "[]";
  std::string text;
  for (const auto& v : values) text += cat(text.empty() ? "" : ",", item(v));
  return "(" + text + (values.size() == 1 ? ",)" : ")");
}

std::string quoted_number(int64_t v) { return cat("'", v, "'"); }

thread_local ParamCatalog* innermost_catalog = nullptr;

}  // namespace

ParamCatalog::ParamCatalog() : outer_(innermost_catalog) { innermost_catalog = this; }
ParamCatalog::~ParamCatalog() { innermost_catalog = outer_; }
ParamCatalog* ParamCatalog::current() { return innermost_catalog; }

void ParamCatalog::note(const std::string& key, const std::string& description) {
  for (auto& [k, d] : entries_)
    if (k == key) {
      d = description;
      return;
    }
  entries_.emplace_back(key, description);
}

std::vector<std::pair<std::string, std::string>> describe_arguments(const OpDef& def) {
  ParamCatalog catalog;
  std::any param;
  try {
    param = def.parse({});
  } catch (...) {  // a stand-in the parser refused: what it asked for before still counts
  }
  std::vector<std::pair<std::string, std::string>> described;
  if (!def.key_var_num_args.empty()) {
    described.emplace_back("data", "NDArray-or-Symbol[]");
  } else {
    try {
      for (const auto& names : {def.list_arguments(param), def.list_aux(param)})
        for (const auto& name : names) described.emplace_back(name, "NDArray-or-Symbol");
    } catch (...) {  // inputs that depend on attributes the stand-ins do not give
    }
  }
  described.insert(described.end(), catalog.entries().begin(), catalog.entries().end());
  return described;
}

// MXNet's descriptions (dmlc parameters): integers' defaults quoted, tuples as Shape(tuple).
#define BRAID_PARAM_DESCRIBE(T, NAME, STAND_IN, DEFAULT_TEXT) \
  template <>                                                 \
  const char* ParamReader::type_name<T>() {                   \
    return NAME;                                              \
  }                                                           \
  template <>                                                 \
  T ParamReader::stand_in<T>() {                              \
    return STAND_IN;                                          \
  }                                                           \
  template <>                                                 \
  std::string ParamReader::default_text<T>(const T& value) {  \
    return DEFAULT_TEXT;                                      \
  }
BRAID_PARAM_DESCRIBE(int64_t, "int", 1, quoted_number(value))  // MXNet declares most as int
BRAID_PARAM_DESCRIBE(int, "int", 1, quoted_number(value))
BRAID_PARAM_DESCRIBE(double, "float", 1.0, format_number(value))  // as MXNet declares most
BRAID_PARAM_DESCRIBE(float, "float", 1.0f, format_number(value))
BRAID_PARAM_DESCRIBE(bool, "boolean", false, value ? "1" : "0")
BRAID_PARAM_DESCRIBE(std::string, "string", "", cat("'", value, "'"))
BRAID_PARAM_DESCRIBE(std::vector<int64_t>, "Shape(tuple)", (std::vector<int64_t>{1, 1}),
                     tuple_text(value, [](int64_t v) { return std::to_string(v); }))
BRAID_PARAM_DESCRIBE(Shape, "Shape(tuple)", (Shape{1, 1}),
                     tuple_text(value.dims(), [](int64_t v) { return std::to_string(v); }))
BRAID_PARAM_DESCRIBE(std::vector<double>, "tuple of <float>", (std::vector<double>{1.0}),
                     tuple_text(value, [](double v) { return format_number(v); }))
BRAID_PARAM_DESCRIBE(std::vector<std::optional<int64_t>>, "Shape(tuple)", (std::vector<std::optional<int64_t>>{1}),
                     tuple_text(value, [](const std::optional<int64_t>& v) {
                       return v ? std::to_string(*v) : std::string("None");
                     }))
#undef BRAID_PARAM_DESCRIBE

int64_t parse_int(const std::string& s) {
  std::string t = trim(s);
  if (t.size() > 1 && t.back() == 'L') t.pop_back();  // Python 2 longs in old JSON
  char* end = nullptr;
  long long v = std::strtoll(t.c_str(), &end, 10);
  if (t.empty() || *end != '\0') throw Error(cat("'", s, "' is not an integer"));
  return v;
}

double parse_float(const std::string& s) {
  std::string t = trim(s);
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (t.empty() || *end != '\0') throw Error(cat("'", s, "' is not a number"));
  return v;
}

bool parse_bool(const std::string& s) {
  std::string t = trim(s);
  if (t == "True" || t == "true" || t == "1") return true;
  if (t == "False" || t == "false" || t == "0") return false;
  throw Error(cat("'", s, "' is not a boolean (True, False, 1, 0)"));
}

std::string format_number(double v) {
  char buf[32];
  // Whole numbers as integers ("640", not "6.4e+02"): integer attributes must parse back.
  if (std::abs(v) < 1e15 && v == std::floor(v)) {
    std::snprintf(buf, sizeof buf, "%.0f", v == 0 ? 0.0 : v);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%.17g", v);
  // Prefer the shortest spelling that reads back the same value.
  for (int prec = 1; prec < 17; ++prec) {
    char shorter[32];
    std::snprintf(shorter, sizeof shorter, "%.*g", prec, v);
    if (std::strtod(shorter, nullptr) == v) return shorter;
  }
  return buf;
}

namespace {

// The items of "(a, b)", "[a, b]", "a" or "()", each read by `item` (which throws on a bad one).
template <class T, class F>
std::vector<T> parse_items(const std::string& s, F item, const char* what) {
  std::string t = trim(s);
  if (!t.empty() && (t.front() == '(' || t.front() == '[')) {
    char close = t.front() == '(' ? ')' : ']';
    if (t.back() != close) throw Error(cat("'", s, "' is not a tuple like (3, 3)"));
    t = t.substr(1, t.size() - 2);
  }
  std::vector<T> items;
  size_t pos = 0;
  while (pos <= t.size()) {
    size_t comma = t.find(',', pos);
    std::string one = trim(t.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
    if (!one.empty()) {
      try {
        items.push_back(item(one));
      } catch (const Error&) {
        throw Error(cat("'", s, "' is not a tuple of ", what));
      }
    } else if (comma != std::string::npos && !items.empty() && trim(t.substr(comma + 1)).size()) {
      throw Error(cat("'", s, "' has an empty element"));
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return items;
}

}  // namespace

std::vector<int64_t> parse_tuple(const std::string& s) {
  return parse_items<int64_t>(s, parse_int, "integers like (3, 3)");
}

std::vector<double> parse_float_tuple(const std::string& s) {
  return parse_items<double>(s, parse_float, "numbers like (0.5, 0.25)");
}

template <>
int64_t ParamReader::convert<int64_t>(const std::string& key, const std::string& v) const {
  try {
    return parse_int(v);
  } catch (const Error&) {
    fail_value(key, v, "an integer");
  }
}
template <>
int ParamReader::convert<int>(const std::string& key, const std::string& v) const {
  return static_cast<int>(convert<int64_t>(key, v));
}
template <>
double ParamReader::convert<double>(const std::string& key, const std::string& v) const {
  try {
    return parse_float(v);
  } catch (const Error&) {
    fail_value(key, v, "a number");
  }
}
template <>
float ParamReader::convert<float>(const std::string& key, const std::string& v) const {
  return static_cast<float>(convert<double>(key, v));
}
template <>
bool ParamReader::convert<bool>(const std::string& key, const std::string& v) const {
  try {
    return parse_bool(v);
  } catch (const Error&) {
    fail_value(key, v, "True or False");
  }
}
template <>
std::string ParamReader::convert<std::string>(const std::string&, const std::string& v) const {
  return v;
}
template <>
std::vector<int64_t> ParamReader::convert<std::vector<int64_t>>(const std::string& key, const std::string& v) const {
  try {
    return parse_tuple(v);
  } catch (const Error&) {
    fail_value(key, v, "a tuple like (3, 3)");
  }
}
template <>
std::vector<double> ParamReader::convert<std::vector<double>>(const std::string& key, const std::string& v) const {
  try {
    return parse_float_tuple(v);
  } catch (const Error&) {
    fail_value(key, v, "a tuple of numbers like (0.5, 0.25)");
  }
}
template <>
std::vector<std::optional<int64_t>> ParamReader::convert<std::vector<std::optional<int64_t>>>(
    const std::string& key, const std::string& v) const {
  auto item = [](const std::string& x) -> std::optional<int64_t> {
    if (x == "None") return std::nullopt;
    return parse_int(x);
  };
  try {
    return parse_items<std::optional<int64_t>>(v, item, "integers or None like (0, None)");
  } catch (const Error&) {
    fail_value(key, v, "a tuple of integers or None like (0, None)");
  }
}
template <>
Shape ParamReader::convert<Shape>(const std::string& key, const std::string& v) const {
  return Shape(convert<std::vector<int64_t>>(key, v));
}

std::string ParamReader::get_enum(const std::string& key, const std::vector<std::string>& choices,
                                  const std::string& fallback) {
  auto it = find(key);
  if (ParamCatalog* catalog = ParamCatalog::current(); catalog && it == attrs_.end()) {
    const bool required = std::find(choices.begin(), choices.end(), fallback) == choices.end();
    catalog->note(key, required ? cat(choice_set(choices), ", required")
                                : cat(choice_set(choices), ",optional, default='", fallback, "'"));
    if (required) return choices.empty() ? fallback : choices[0];
  }
  std::string v = it == attrs_.end() ? fallback : trim(it->second);
  for (const auto& c : choices)
    if (c == v) return v;
  std::string list;
  for (const auto& c : choices) list += cat(list.empty() ? "" : ", ", "'", c, "'");
  fail_value(key, v, cat("one of ", list));
}

void ParamReader::finish() const {
  for (const auto& [k, v] : attrs_) {
    if (read_.count(k) || k.rfind("__", 0) == 0) continue;
    std::string known;
    for (const auto& r : read_) known += cat(known.empty() ? "" : ", ", r);
    throw Error(cat("operator ", op_, ": unknown attribute '", k, "'='", v, "'; it accepts ",
                    known.empty() ? "no attributes" : known));
  }
}

void ParamReader::fail_missing(const std::string& key) const {
  throw Error(cat("operator ", op_, ": required attribute '", key, "' is missing"));
}

void ParamReader::fail_value(const std::string& key, const std::string& value, const std::string& expected) const {
  throw Error(cat("operator ", op_, ": attribute ", key, "='", value, "' must be ", expected));
}

}  // namespace braid::op
