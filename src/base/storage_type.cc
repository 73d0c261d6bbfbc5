#include "braid/base/storage_type.h"

#include "braid/base/error.h"

namespace braid {

const char* storage_type_name(StorageType stype) {
  switch (stype) {
    case StorageType::Default:
      return "default";
    case StorageType::RowSparse:
      return "row_sparse";
    case StorageType::CSR:
      return "csr";
  }
  return "?";
}

StorageType parse_storage_type(const std::string& s) {
  if (s == "default") return StorageType::Default;
  if (s == "row_sparse") return StorageType::RowSparse;
  if (s == "csr") return StorageType::CSR;
  throw Error(cat("unknown storage type '", s, "'; valid: 'default', 'row_sparse', 'csr'"));
}

}  // namespace braid
