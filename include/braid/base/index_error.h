#pragma once
/// braid::IndexError: an index outside the axis it indexes (gather_nd, scatter_nd). Python sees
/// it as IndexError (and MXNetError), as NumPy and MXNet raise.
#include "braid/base/error.h"

namespace braid {

class IndexError : public Error {
 public:
  using Error::Error;
};

}  // namespace braid
