#include "imperative/tape.h"

#include "braid/base/error.h"

namespace braid::imperative {

Slot& Access::slot(const NDArray& a) {
  BRAID_CHECK(a.slot_, "autograd: the array is None or internal (saved on the tape)");
  return *a.slot_;
}

NDArray Access::stripped(const NDArray& a) {
  NDArray s = a;
  s.slot_ = nullptr;
  return s;
}

NDArray Access::attached(const NDArray& a, const Entry& e) {
  NDArray s = a;
  s.slot_ = std::make_shared<Slot>();
  s.slot_->entry = e;
  return s;
}

bool needs_grad(const NDArray& a) { return static_cast<bool>(Access::entry(a)); }

}  // namespace braid::imperative
