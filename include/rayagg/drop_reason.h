// Why an event was dropped. Every drop is counted with one of these; the names
// are the `reason` label values of the drop counters.
#pragma once

#include <string_view>

namespace rayagg {

enum class DropReason {
  kOverflow,          // evicted unread by the buffer's drop_oldest policy
  kTooLarge,          // a single event larger than the buffer or a batch allows
  kEncodeError,       // could not be converted to JSON (never expected)
  kRetriesExhausted,  // the sink gave up after its retry limit
  kShutdown,          // still undelivered when the drain deadline passed
  kDuplicate,         // event_id seen within the dedup window (a sender's re-send);
                      // counted once by the event log, not per sink
  kBadElement,        // an HTTP-ingested JSON element that does not map to a RayEvent
                      // (unknown event type or enum name, wrong type, invalid base64);
                      // counted once by ingest, not per sink
  kRejected,          // the endpoint refused the batch for good (3xx, 4xx but 408/413/429,
                      // 501 under retry_policy default); an object store's refusal
                      // of an object's bytes after 3 tries
  kBadSession,        // object-store sinks: sessionName empty, "." or "..", or outside
                      // [A-Za-z0-9._-]+ (it names a directory of the layout)
  kNoNode,            // object-store sinks: no nodeId in the event and no node_id configured
  kCorrupt,           // lost in a damaged region of the disk spool (a failed checksum)
};

constexpr std::string_view DropReasonName(DropReason reason) {
  switch (reason) {
    case DropReason::kOverflow:
      return "overflow";
    case DropReason::kTooLarge:
      return "too_large";
    case DropReason::kEncodeError:
      return "encode_error";
    case DropReason::kRetriesExhausted:
      return "retries_exhausted";
    case DropReason::kShutdown:
      return "shutdown";
    case DropReason::kDuplicate:
      return "duplicate";
    case DropReason::kBadElement:
      return "bad_element";
    case DropReason::kRejected:
      return "rejected";
    case DropReason::kBadSession:
      return "bad_session";
    case DropReason::kNoNode:
      return "no_node";
    case DropReason::kCorrupt:
      return "corrupt";
  }
  return "unknown";
}

}  // namespace rayagg
