#pragma once
/// How a gradient is stored (MXNet's grad_req): not at all, overwritten by each backward, or
/// added to (for gradient accumulation over several backward passes).
#include <string>

namespace braid {

enum class GradReq { Null, Write, Add };

/// "null", "write" or "add" (MXNet's spellings; "inplace" is read as "write").
GradReq parse_grad_req(const std::string& s);
const char* grad_req_name(GradReq req);

}  // namespace braid
