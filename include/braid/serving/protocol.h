#pragma once
/// The Open Inference Protocol v2 (KServe) on the wire: datatypes, inference requests (JSON, and
/// the binary-tensor extension: `Inference-Header-Content-Length` bytes of JSON, then each input's
/// `binary_data_size` bytes in order) and responses. Malformed input throws RequestError with the
/// HTTP status to answer (400) and a message saying what is wrong.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "braid/base/error.h"
#include "braid/ndarray/ndarray.h"

namespace braid::serving {

struct RequestError : Error {
  RequestError(int status, const std::string& what) : Error(what), status(status) {}
  int status;
};

/// "FP32" -> Float32, ... (BOOL, UINT8..UINT64, INT8..INT64, FP16, FP32, FP64); throws RequestError.
DType dtype_of(const std::string& datatype);
/// Float32 -> "FP32", ...
std::string datatype_of(DType dtype);

struct InferInput {
  std::string name;
  NDArray data;  // of the request's shape and datatype
};

struct InferRequest {
  std::string id;
  std::vector<InferInput> inputs;
  std::vector<std::string> outputs;  // asked for by name; empty: all
  bool binary_outputs = false;       // "parameters": {"binary_data_output": true}
};

/// JSON nested deeper than this is refused while it is parsed, before any of it is built.
constexpr int kMaxJsonDepth = 64;

/// What a request may hold, checked before anything is allocated for its inputs.
struct RequestLimits {
  size_t max_inputs = 64;
  /// Called with each input's name, datatype and shape before its tensor is allocated; throws
  /// RequestError when the model does not take it (none: any).
  std::function<void(const std::string& name, DType dtype, const std::vector<int64_t>& shape)> check_input;
};

/// Parses a request body; `json_bytes` is Inference-Header-Content-Length (the JSON part), or the
/// whole body without the extension. JSON numbers outside the range of their input's datatype
/// (1e300 for FP32, 256 or 1.5 for UINT8) are refused.
InferRequest parse_infer_request(std::string_view body, size_t json_bytes, const RequestLimits& limits = {});

struct InferOutput {
  std::string name;
  NDArray data;
};
/// The response: JSON, or with `binary` the JSON header (each output's "binary_data_size") then
/// the outputs' raw bytes in order. `json_bytes` gets the header's length
/// (Inference-Header-Content-Length). JSON cannot carry inf or nan: a JSON answer whose outputs
/// hold them is refused (RequestError 400 naming the output, and binary outputs as the way).
std::string infer_response(const std::string& model, const std::string& version, const std::string& id,
                           const std::vector<InferOutput>& outputs, bool binary = false, size_t* json_bytes = nullptr);

}  // namespace braid::serving
