// The reason label of store errors travels as a Status payload, so that it
// survives being passed through layers that only look at the code.
#include <string>

#include "absl/strings/cord.h"
#include "common/text.h"
#include "rayagg/object_store.h"

namespace rayagg {
namespace {
constexpr char kReasonPayload[] = "rayagg.objstore/reason";
}  // namespace

absl::Status ObjectStoreError(absl::StatusCode code, std::string_view reason,
                              std::string_view message) {
  absl::Status status(code, absl::string_view(message.data(), message.size()));
  status.SetPayload(kReasonPayload, absl::Cord(absl::string_view(reason.data(), reason.size())));
  return status;
}

std::string ObjectStoreErrorReason(const absl::Status& status) {
  if (status.ok()) return "";
  const auto reason = status.GetPayload(kReasonPayload);
  if (!reason) return "";
  return std::string(*reason);
}

}  // namespace rayagg
