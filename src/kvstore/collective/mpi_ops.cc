#include "mpi_ops.h"

#include "braid/base/error.h"
#include "braid/base/half.h"

namespace braid::collective::detail {
namespace {

MPI_Datatype g_half = MPI_DATATYPE_NULL;
MPI_Op g_half_sum = MPI_OP_NULL;

void half_sum(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* a = static_cast<const half_t*>(in);
  auto* b = static_cast<half_t*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = float_to_half(half_to_float(a[i]) + half_to_float(b[i]));
}

template <class T>
void scale_as(void* data, int64_t n, double factor) {
  T* p = static_cast<T*>(data);
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(static_cast<double>(p[i]) * factor);
}

}  // namespace

void create_mpi_types() {
  MPI_Type_contiguous(2, MPI_BYTE, &g_half);
  MPI_Type_commit(&g_half);
  MPI_Op_create(&half_sum, 1, &g_half_sum);
}

void free_mpi_types() {
  if (g_half_sum != MPI_OP_NULL) MPI_Op_free(&g_half_sum);
  if (g_half != MPI_DATATYPE_NULL) MPI_Type_free(&g_half);
}

MPI_Datatype mpi_type(DType dtype) {
  switch (dtype) {
    case DType::Float32:
      return MPI_FLOAT;
    case DType::Float64:
      return MPI_DOUBLE;
    case DType::Float16:
      return g_half;
    case DType::Int32:
      return MPI_INT32_T;
    case DType::Int64:
      return MPI_INT64_T;
    case DType::Int8:
      return MPI_INT8_T;
    case DType::UInt8:
      return MPI_UINT8_T;
    default:
      throw Error(cat("collective: dtype ", dtype_name(dtype), " cannot be reduced; use float32, float64, ",
                      "float16, int8, int32, int64 or uint8"));
  }
}

MPI_Op mpi_sum(DType dtype) { return dtype == DType::Float16 ? g_half_sum : MPI_SUM; }

void scale(DType dtype, void* data, int64_t n, double factor) {
  if (factor == 1) return;
  switch (dtype) {
    case DType::Float32: {
      float* p = static_cast<float*>(data);
      const auto f = static_cast<float>(factor);
      for (int64_t i = 0; i < n; ++i) p[i] *= f;
      return;
    }
    case DType::Float64:
      scale_as<double>(data, n, factor);
      return;
    case DType::Float16: {
      auto* p = static_cast<half_t*>(data);
      for (int64_t i = 0; i < n; ++i) p[i] = float_to_half(static_cast<float>(half_to_float(p[i]) * factor));
      return;
    }
    case DType::Int32:
      scale_as<int32_t>(data, n, factor);
      return;
    case DType::Int64:
      scale_as<int64_t>(data, n, factor);
      return;
    case DType::Int8:
      scale_as<int8_t>(data, n, factor);
      return;
    case DType::UInt8:
      scale_as<uint8_t>(data, n, factor);
      return;
    default:
      throw Error(cat("collective: cannot scale dtype ", dtype_name(dtype)));
  }
}

void check_mpi(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw Error(cat("collective: ", what, " failed: ", std::string(text, static_cast<size_t>(len))));
}

}  // namespace braid::collective::detail
