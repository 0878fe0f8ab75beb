// Differential fuzzing: arbitrary bytes parsed as a RayEvent, encoded by our
// encoder and by protobuf's printer, in both naming modes; the two must both
// fail or produce equal JSON values (tests/support/encoder_diff.h). Any
// difference aborts with both outputs printed. A seed corpus of realistic
// random events: RAYAGG_JSON_CORPUS_DIR=dir json_differential_test.
#include <google/protobuf/stubs/logging.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "support/encoder_diff.h"

// protobuf logs every invalid UTF-8 string it rejects; keep the output readable.
extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static rayagg::testing::EncoderPair camel(rayagg::JsonOptions{});
  static rayagg::testing::EncoderPair preserved(
      rayagg::JsonOptions{.preserve_proto_field_names = true});
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  for (auto* pair : {&camel, &preserved}) {
    if (auto diff = rayagg::testing::DiffEncoders(*pair, bytes)) {
      std::fprintf(stderr, "encoders disagree (%s names): %s\n",
                   pair == &camel ? "camelCase" : "preserved", diff->c_str());
      std::abort();
    }
  }
  return 0;
}
