// The harnesses' equality of RayEvents (decode -> encode -> decode): field by
// field, with NaN equal to NaN, since a double field that held NaN round-trips
// as NaN and NaN != NaN would report every such input as a finding.
#pragma once

#include <google/protobuf/util/field_comparator.h>
#include <google/protobuf/util/message_differencer.h>

#include "src/ray/protobuf/public/events_base_event.pb.h"

namespace rayagg::fuzz {

inline bool SameEvent(const ray::rpc::events::RayEvent& a, const ray::rpc::events::RayEvent& b) {
  google::protobuf::util::DefaultFieldComparator comparator;
  comparator.set_treat_nan_as_equal(true);
  google::protobuf::util::MessageDifferencer differencer;
  differencer.set_field_comparator(&comparator);
  return differencer.Compare(a, b);
}

}  // namespace rayagg::fuzz
