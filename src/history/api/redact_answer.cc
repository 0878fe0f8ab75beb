#include "history/api/redact_answer.h"

#include <string>

namespace rayagg::history {
namespace {

using nlohmann::json;

// answer[key], or null when `answer` has no such member.
json* Member(json& answer, const char* key) {
  if (!answer.is_object()) return nullptr;
  const auto found = answer.find(key);
  return found == answer.end() ? nullptr : &*found;
}

// A runtime env as the answers hold it: its serialized JSON text.
void RedactRuntimeEnvText(const Redactor& redactor, json* text) {
  if (text != nullptr && text->is_string()) {
    *text = redactor.RedactRuntimeEnv(text->get_ref<const std::string&>());
  }
}

// Job metadata: a map of strings (Ray's JobConfig.metadata); text that was
// not JSON is hidden whole.
void RedactMetadata(const Redactor& redactor, json* metadata) {
  if (metadata == nullptr) return;
  if (metadata->is_string() && !metadata->get_ref<const std::string&>().empty()) {
    *metadata = std::string(kRedactedValue);
    return;
  }
  redactor.RedactMembers(*metadata);
}

}  // namespace

void RedactAnswer(ApiRoute route, const Redactor& redactor, json& answer) {
  switch (route) {
    case ApiRoute::kTask:
    case ApiRoute::kActor:
      if (json* definition = Member(answer, "definition")) {
        RedactRuntimeEnvText(redactor, Member(*definition, "runtime_env"));
      }
      return;
    case ApiRoute::kJob:
      if (json* definition = Member(answer, "definition")) {
        RedactRuntimeEnvText(redactor, Member(*definition, "runtime_env"));
        RedactMetadata(redactor, Member(*definition, "metadata"));
      }
      return;
    case ApiRoute::kRayTasks: {
      // {"data": {"result": {"result": [task, ...]}}}, each task's
      // runtime_env_info.serialized_runtime_env (detail=true only).
      json* data = Member(answer, "data");
      json* outer = data != nullptr ? Member(*data, "result") : nullptr;
      json* tasks = outer != nullptr ? Member(*outer, "result") : nullptr;
      if (tasks == nullptr || !tasks->is_array()) return;
      for (json& task : *tasks) {
        if (json* info = Member(task, "runtime_env_info")) {
          RedactRuntimeEnvText(redactor, Member(*info, "serialized_runtime_env"));
        }
      }
      return;
    }
    default:
      return;
  }
}

}  // namespace rayagg::history
