// What the indexer does when the store will not give it something
// (docs/HISTORY.md "Objects that cannot be read"): which failed reads are
// the object's own and final, which are retried, which listings are skipped
// rather than ending a session's pass, and how names reach the log.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "history/ops/history_metrics.h"

namespace rayagg::history {

// A failed Get that is final for that object whatever the store does next:
// gone (404), too large, or a key the store client refuses. nullopt: the
// failure may pass (counted per pass, docs: "tries").
std::optional<AbandonReason> FinalReadFailure(const absl::Status& status);

// A failed List of one node or job directory that says nothing about the
// rest of the store: the store refuses the prefix (a control character in
// its name), denies it, or has no such thing. Such a directory is skipped
// for this pass; any other failure ends the session's pass (retried).
bool PrefixOnlyListFailure(const absl::Status& status);

// Printable ASCII as is, every other byte as \xNN: store names and store
// error messages (which quote keys) are anyone's bytes, never raw in a log.
std::string Escaped(std::string_view text);

// Failed tries per object key, as stored in sessions.retrying_objects (a
// JSON object {"key": tries}); text that is not that reads as empty.
using RetryCounts = std::map<std::string, uint32_t>;
RetryCounts DecodeRetryCounts(std::string_view text);
std::string EncodeRetryCounts(const RetryCounts& counts);

}  // namespace rayagg::history
