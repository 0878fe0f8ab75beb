// Where the API's answers hold values `ui.redact` hides (redactor.h): every
// runtime env (task, actor and job detail, and Ray's task list with
// detail=true) and job metadata. Nothing else the API answers holds a
// runtime env or metadata: the lists, counts, groups and exports do not.
#pragma once

#include <nlohmann/json.hpp>

#include "history/api/redactor.h"
#include "history/ops/history_metrics.h"

namespace rayagg::history {

// Hides the secrets in `answer`, the successful answer of `route`.
void RedactAnswer(ApiRoute route, const Redactor& redactor, nlohmann::json& answer);

}  // namespace rayagg::history
