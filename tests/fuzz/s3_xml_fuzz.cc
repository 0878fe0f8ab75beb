// The S3 client's readers of server answers (objstore/s3_xml.h) on arbitrary
// bytes: error bodies, ListObjectsV2 pages, CreateMultipartUpload answers,
// and the ISO 8601 and HTTP dates they carry. Each body goes to every reader,
// as any of them may get any answer from a hostile or broken server. The
// property: no crash, no sanitizer report, and an error body is only found
// with a non-empty Code.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "objstore/s3_xml.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  if (const auto error = rayagg::s3::ParseErrorBody(body); error && error->code.empty()) {
    std::fprintf(stderr, "s3_xml_fuzz: an error body without a Code\n");
    std::abort();
  }
  (void)rayagg::s3::ParseListObjectsV2(body);
  (void)rayagg::s3::ParseUploadId(body);
  (void)rayagg::s3::ParseIso8601(body);
  (void)rayagg::s3::ParseHttpDate(body);
  return 0;
}
