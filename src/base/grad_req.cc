#include "braid/base/grad_req.h"

#include "braid/base/error.h"

namespace braid {

GradReq parse_grad_req(const std::string& s) {
  if (s == "null") return GradReq::Null;
  if (s == "write" || s == "inplace") return GradReq::Write;
  if (s == "add") return GradReq::Add;
  throw Error(cat("unknown grad_req '", s, "'; valid: 'write', 'add', 'null'"));
}

const char* grad_req_name(GradReq req) {
  switch (req) {
    case GradReq::Null:
      return "null";
    case GradReq::Write:
      return "write";
    case GradReq::Add:
      return "add";
  }
  return "?";
}

}  // namespace braid
