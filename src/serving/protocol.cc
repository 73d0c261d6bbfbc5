#include "braid/serving/protocol.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#include "braid/base/convert.h"

namespace braid::serving {
namespace {

using json = nlohmann::json;

const std::vector<std::pair<std::string, DType>> kDatatypes = {
    {"BOOL", DType::Bool},     {"UINT8", DType::UInt8},  {"UINT16", DType::UInt16}, {"UINT32", DType::UInt32},
    {"UINT64", DType::UInt64}, {"INT8", DType::Int8},    {"INT16", DType::Int16},   {"INT32", DType::Int32},
    {"INT64", DType::Int64},   {"FP16", DType::Float16}, {"FP32", DType::Float32},  {"FP64", DType::Float64}};

RequestError bad(const std::string& what) { return RequestError(400, what); }

// The values of `data` (flat or nested) in order. Iterative: the nesting is the client's.
std::vector<const json*> flattened(const json& data) {
  if (!data.is_array()) return {&data};
  std::vector<const json*> out;
  std::vector<std::pair<const json*, size_t>> open{{&data, 0}};  // arrays entered, and the next element
  while (!open.empty()) {
    auto& [array, next] = open.back();
    if (next == array->size()) {
      open.pop_back();
      continue;
    }
    const json* v = &(*array)[next++];
    if (v->is_array())
      open.push_back({v, 0});
    else
      out.push_back(v);
  }
  return out;
}

// The values a datatype holds: [lo, hi] for floating point, [lo, hi) and whole numbers for
// integers (hi = max + 1 is exact in a double, even for 64 bits).
struct Range {
  double lo, hi;
  bool integral;
};

template <class T>
Range integer_range() {
  return {static_cast<double>(std::numeric_limits<T>::min()), static_cast<double>(std::numeric_limits<T>::max()) + 1.0,
          true};
}

Range range_of(DType dtype) {
  switch (dtype) {
    case DType::UInt8:
      return integer_range<uint8_t>();
    case DType::UInt16:
      return integer_range<uint16_t>();
    case DType::UInt32:
      return integer_range<uint32_t>();
    case DType::UInt64:
      return integer_range<uint64_t>();
    case DType::Int8:
      return integer_range<int8_t>();
    case DType::Int16:
      return integer_range<int16_t>();
    case DType::Int32:
      return integer_range<int32_t>();
    case DType::Int64:
      return integer_range<int64_t>();
    case DType::Float16:
      return {-65504.0, 65504.0, false};
    case DType::Float32:
      return {-std::numeric_limits<float>::max(), std::numeric_limits<float>::max(), false};
    default:
      return {-std::numeric_limits<double>::max(), std::numeric_limits<double>::max(), false};
  }
}

// Refuses a value its input's datatype cannot hold: it would become inf, wrap, or be cut.
void check_in_range(double v, DType dtype, const std::string& input, size_t element) {
  const Range r = range_of(dtype);
  const bool fits = r.integral ? v >= r.lo && v < r.hi : v >= r.lo && v <= r.hi;
  if (!fits)
    throw bad(cat("input '", input, "': element ", element, " is ", v, ", outside the range of ", datatype_of(dtype),
                  " (", r.lo, " to ", r.integral ? r.hi - 1 : r.hi, ")"));
  if (r.integral && std::floor(v) != v)
    throw bad(cat("input '", input, "': element ", element, " is ", v, ", not a whole number (", datatype_of(dtype),
                  " data)"));
}

void fill_from_json(const json& data, NDArray& a, const std::string& input) {
  const std::vector<const json*> values = flattened(data);
  if (static_cast<int64_t>(values.size()) != a.size())
    throw bad(cat("input '", input, "': ", values.size(), " data elements for shape ", a.shape().str(),
                  ", which holds ", a.size()));
  const bool booleans = a.dtype() == DType::Bool;
  std::vector<double> numbers(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    const json& v = *values[i];
    if (booleans ? !v.is_boolean() : !v.is_number())
      throw bad(
          cat("input '", input, "': element ", i, booleans ? " is not a boolean (BOOL data)" : " is not a number"));
    numbers[i] = booleans ? v.get<bool>() : v.get<double>();
    if (!booleans) check_in_range(numbers[i], a.dtype(), input, i);
  }
  convert_elements(numbers.data(), DType::Float64, a.raw_data(), a.dtype(), a.size());
}

// Floating-point values for JSON, which has no inf or nan (nlohmann would write null).
template <class T>
json finite_json(const std::vector<T>& values, const std::string& output) {
  const auto non_finite = std::count_if(values.begin(), values.end(), [](T v) { return !std::isfinite(v); });
  if (non_finite > 0)
    throw bad(cat("output '", output, "' holds ", non_finite,
                  " values that are not finite (inf or nan), which JSON cannot carry; ask for binary outputs "
                  "(\"parameters\": {\"binary_data_output\": true}) to receive them"));
  return values;
}

// Parses JSON, refusing nesting deeper than kMaxJsonDepth as it is met.
json parse_bounded(std::string_view text) {
  try {
    return json::parse(text, [](int depth, json::parse_event_t event, json&) {
      if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
          depth >= kMaxJsonDepth)
        throw bad(cat("the request nests JSON deeper than the server's limit of ", kMaxJsonDepth, " levels"));
      return true;
    });
  } catch (const json::exception& e) {
    throw bad(cat("the request is not valid JSON: ", e.what()));
  }
}

json to_json_data(const NDArray& a, const std::string& name) {
  switch (a.dtype()) {
    case DType::Bool: {
      json out = json::array();
      for (auto v : a.to_vector<uint8_t>()) out.push_back(v != 0);
      return out;
    }
    case DType::Float32:
    case DType::Float16:
      return finite_json(a.to_vector<float>(), name);
    case DType::Float64:
      return finite_json(a.to_vector<double>(), name);
    default:
      return a.to_vector<int64_t>();  // integers (UINT64 above 2^63 would wrap)
  }
}

}  // namespace

DType dtype_of(const std::string& datatype) {
  for (const auto& [name, dtype] : kDatatypes)
    if (name == datatype) return dtype;
  throw bad(cat("unknown datatype '", datatype,
                "'; valid: BOOL, UINT8, UINT16, UINT32, UINT64, INT8, INT16, INT32, INT64, FP16, FP32, FP64"));
}

std::string datatype_of(DType dtype) {
  for (const auto& [name, d] : kDatatypes)
    if (d == dtype) return name;
  throw Error(cat("dtype ", dtype_name(dtype), " has no Open Inference Protocol datatype"));
}

InferRequest parse_infer_request(std::string_view body, size_t json_bytes, const RequestLimits& limits) {
  if (json_bytes > body.size())
    throw bad(cat("Inference-Header-Content-Length is ", json_bytes, " but the body has only ", body.size(), " bytes"));
  const json j = parse_bounded(body.substr(0, json_bytes));
  if (!j.is_object()) throw bad("the request must be a JSON object with \"inputs\"");
  InferRequest r;
  if (j.contains("id")) {
    if (!j["id"].is_string()) throw bad("\"id\" must be a string");
    r.id = j["id"].get<std::string>();
  }
  if (!j.contains("inputs") || !j["inputs"].is_array() || j["inputs"].empty())
    throw bad("the request needs \"inputs\": a non-empty array of {name, shape, datatype, data}");
  if (j["inputs"].size() > limits.max_inputs)
    throw bad(cat("the request has ", j["inputs"].size(), " inputs; the model takes at most ", limits.max_inputs));
  size_t binary_at = json_bytes;
  for (const auto& in : j["inputs"]) {
    if (!in.is_object() || !in.contains("name") || !in["name"].is_string())
      throw bad("every input needs a \"name\" (a string)");
    const std::string name = in["name"].get<std::string>();
    if (!in.contains("shape") || !in["shape"].is_array()) throw bad(cat("input '", name, "' needs a \"shape\" array"));
    std::vector<int64_t> shape;
    for (const auto& d : in["shape"]) {
      if (!d.is_number_integer() || d.get<int64_t>() < 0)
        throw bad(cat("input '", name, "': the shape must hold non-negative integers"));
      shape.push_back(d.get<int64_t>());
    }
    if (!in.contains("datatype") || !in["datatype"].is_string())
      throw bad(cat("input '", name, "' needs a \"datatype\" (e.g. \"FP32\")"));
    // Every element takes at least a byte of the body: a larger shape is a lie, refused before
    // anything is allocated for it.
    uint64_t elements = 1;
    for (int64_t d : shape)
      if (d != 0 && elements > body.size() / static_cast<uint64_t>(d))
        elements = body.size() + 1;
      else
        elements *= static_cast<uint64_t>(d);
    if (elements > body.size())
      throw bad(cat("input '", name, "': shape ", Shape(shape).str(), " holds more elements than the ", body.size(),
                    "-byte request could carry"));
    const DType dtype = dtype_of(in["datatype"].get<std::string>());
    if (limits.check_input) limits.check_input(name, dtype, shape);
    NDArray a(Shape(shape), cpu(), dtype);
    const bool binary =
        in.contains("parameters") && in["parameters"].is_object() && in["parameters"].contains("binary_data_size");
    if (binary) {
      const json& size = in["parameters"]["binary_data_size"];
      if (!size.is_number_unsigned()) throw bad(cat("input '", name, "': binary_data_size must be a byte count"));
      const auto bytes = size.get<size_t>();
      const size_t want = static_cast<size_t>(a.size()) * dtype_size(a.dtype());
      if (bytes != want)
        throw bad(cat("input '", name, "': binary_data_size ", bytes, " but shape ", a.shape().str(), " of ",
                      in["datatype"].get<std::string>(), " holds ", want, " bytes"));
      if (binary_at + bytes > body.size())
        throw bad(cat("input '", name, "': the body ends before its ", bytes, " binary bytes"));
      std::memcpy(a.raw_data(), body.data() + binary_at, bytes);
      binary_at += bytes;
    } else {
      if (!in.contains("data")) throw bad(cat("input '", name, "' needs \"data\" (or binary_data_size)"));
      fill_from_json(in["data"], a, name);
    }
    r.inputs.push_back({name, a});
  }
  if (binary_at != body.size())
    throw bad(cat("the body has ", body.size() - binary_at, " bytes after the inputs' binary data"));
  if (j.contains("parameters") && j["parameters"].is_object() && j["parameters"].contains("binary_data_output")) {
    if (!j["parameters"]["binary_data_output"].is_boolean()) throw bad("\"binary_data_output\" must be true or false");
    r.binary_outputs = j["parameters"]["binary_data_output"].get<bool>();
  }
  if (j.contains("outputs")) {
    if (!j["outputs"].is_array()) throw bad("\"outputs\" must be an array of {name}");
    for (const auto& o : j["outputs"]) {
      if (!o.is_object() || !o.contains("name") || !o["name"].is_string())
        throw bad("every requested output needs a \"name\"");
      r.outputs.push_back(o["name"].get<std::string>());
    }
  }
  return r;
}

std::string infer_response(const std::string& model, const std::string& version, const std::string& id,
                           const std::vector<InferOutput>& outputs, bool binary, size_t* json_bytes) {
  json j{{"model_name", model}, {"model_version", version}, {"outputs", json::array()}};
  if (!id.empty()) j["id"] = id;
  std::string data;
  for (const auto& o : outputs) {
    json out{{"name", o.name}, {"datatype", datatype_of(o.data.dtype())}, {"shape", o.data.shape().dims()}};
    if (binary) {
      const size_t bytes = static_cast<size_t>(o.data.size()) * dtype_size(o.data.dtype());
      out["parameters"] = {{"binary_data_size", bytes}};
      o.data.wait_to_read();
      data.append(static_cast<const char*>(o.data.raw_data()), bytes);
    } else {
      out["data"] = to_json_data(o.data, o.name);
    }
    j["outputs"].push_back(std::move(out));
  }
  std::string body = j.dump();
  if (json_bytes) *json_bytes = body.size();
  return body + data;
}

}  // namespace braid::serving
