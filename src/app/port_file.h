// Writes the bound port as plain decimal, atomically (temp file + rename), so
// a reader never sees a partial number — the contract Ray's agent keeps with
// the raylet for its port files.
#pragma once

#include <string>

#include "absl/status/status.h"

namespace rayagg {

absl::Status WritePortFile(const std::string& path, int port);

}  // namespace rayagg
