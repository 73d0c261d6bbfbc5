#pragma once
// Internal: _random_pdf_<distribution> (random_pdf.cc).
#include "braid/op/registry.h"

namespace braid::op::detail {

void register_random_pdf_ops(Registry& r);

}  // namespace braid::op::detail
