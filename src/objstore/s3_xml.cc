#include "objstore/s3_xml.h"

#include <time.h>

#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>
#include <charconv>
#include <sstream>

#include "common/text.h"

namespace rayagg::s3 {
namespace {

namespace pt = boost::property_tree;

// Boost's XML reader (RapidXML) descends one call per nested element, so a
// body of deeply nested elements from a broken or hostile server overflows
// the stack (tests/fuzz/s3_xml_fuzz). S3's documents nest four deep.
constexpr int kMaxXmlDepth = 64;

// Whether elements nest deeper than `limit`, counting every start tag that
// is not also an end tag ("<a/>"). Declarations, comments and CDATA count
// as nothing; text inside them that looks like a tag may only overcount.
bool NestsDeeperThan(std::string_view body, int limit) {
  int depth = 0;
  // The first '>' after the current '<' (looked up again only once passed,
  // so the scan stays linear).
  size_t end = body.find('>');
  for (size_t at = body.find('<'); at != std::string_view::npos; at = body.find('<', at + 1)) {
    const char next = at + 1 < body.size() ? body[at + 1] : '\0';
    if (next == '/') {
      --depth;
    } else if (next != '?' && next != '!') {
      if (end != std::string_view::npos && end < at) end = body.find('>', at);
      if (end == std::string_view::npos || body[end - 1] != '/') ++depth;
      if (depth > limit) return true;
    }
  }
  return false;
}

std::optional<pt::ptree> Parse(std::string_view body) {
  if (NestsDeeperThan(body, kMaxXmlDepth)) return std::nullopt;
  pt::ptree tree;
  std::istringstream in{std::string(body)};
  try {
    pt::read_xml(in, tree, pt::xml_parser::no_comments);
  } catch (const pt::xml_parser_error&) {
    return std::nullopt;
  }
  return tree;
}

std::string Text(const pt::ptree& node, const char* child) {
  return node.get<std::string>(child, "");
}

std::string Unquote(std::string etag) {
  if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') {
    etag = etag.substr(1, etag.size() - 2);
  }
  return etag;
}

void EscapeXml(std::string& out, std::string_view text) {
  for (char c : text) {
    switch (c) {
      case '&':
        out.append("&amp;");
        break;
      case '<':
        out.append("&lt;");
        break;
      case '>':
        out.append("&gt;");
        break;
      default:
        out.push_back(c);
    }
  }
}

int Digits(std::string_view text, size_t at, size_t count) {
  int value = 0;
  if (at + count > text.size()) return -1;
  for (size_t i = at; i < at + count; ++i) {
    if (text[i] < '0' || text[i] > '9') return -1;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

// system_clock counts nanoseconds in 64 bits, which ends in 2262: a later
// date (only a broken or hostile server sends one) is refused, not wrapped.
constexpr int kLatestYear = 2200;

absl::Status Malformed(std::string_view what) {
  return ObjectStoreError(absl::StatusCode::kUnavailable, "malformed_answer",
                          strings::Cat("the server's ", what, " answer is not the XML S3 sends"));
}

}  // namespace

std::optional<ErrorBody> ParseErrorBody(std::string_view body) {
  if (body.find("<Error") == std::string_view::npos) return std::nullopt;
  std::optional<pt::ptree> tree = Parse(body);
  if (!tree) return std::nullopt;
  const auto error = tree->get_child_optional("Error");
  if (!error) return std::nullopt;
  ErrorBody parsed{Text(*error, "Code"), Text(*error, "Message"), Text(*error, "RequestId")};
  if (parsed.code.empty()) return std::nullopt;
  return parsed;
}

absl::StatusOr<ListObjectsPage> ParseListObjectsV2(std::string_view body) {
  std::optional<pt::ptree> tree = Parse(body);
  if (!tree) return Malformed("ListObjectsV2");
  const auto result = tree->get_child_optional("ListBucketResult");
  if (!result) return Malformed("ListObjectsV2");
  ListObjectsPage page;
  for (const auto& [name, child] : *result) {
    if (name == "Contents") {
      ObjectInfo info;
      info.key = Text(child, "Key");
      info.etag = Unquote(Text(child, "ETag"));
      const std::string size = Text(child, "Size");
      std::from_chars(size.data(), size.data() + size.size(), info.size);
      if (auto modified = ParseIso8601(Text(child, "LastModified"))) {
        info.last_modified = *modified;
      }
      page.objects.push_back(std::move(info));
    } else if (name == "CommonPrefixes") {
      page.common_prefixes.push_back(Text(child, "Prefix"));
    }
  }
  if (Text(*result, "IsTruncated") == "true") {
    page.next_continuation_token = Text(*result, "NextContinuationToken");
    if (page.next_continuation_token.empty()) {
      return Malformed("ListObjectsV2 (truncated without NextContinuationToken)");
    }
  }
  return page;
}

absl::StatusOr<std::string> ParseUploadId(std::string_view body) {
  std::optional<pt::ptree> tree = Parse(body);
  if (!tree) return Malformed("CreateMultipartUpload");
  std::string id = tree->get<std::string>("InitiateMultipartUploadResult.UploadId", "");
  if (id.empty()) return Malformed("CreateMultipartUpload");
  return id;
}

std::string CompleteMultipartUploadXml(const std::vector<std::string>& part_etags) {
  std::string xml = "<CompleteMultipartUpload>";
  for (size_t i = 0; i < part_etags.size(); ++i) {
    strings::Append(xml, "<Part><PartNumber>", i + 1, "</PartNumber><ETag>");
    EscapeXml(xml, part_etags[i]);
    xml.append("</ETag></Part>");
  }
  xml.append("</CompleteMultipartUpload>");
  return xml;
}

std::optional<std::chrono::system_clock::time_point> ParseIso8601(std::string_view text) {
  // 2026-12-03T10:04:05[.fff...]Z
  if (text.size() < 20 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' ||
      text[16] != ':' || text.back() != 'Z') {
    return std::nullopt;
  }
  struct tm parts {};
  parts.tm_year = Digits(text, 0, 4) - 1900;
  parts.tm_mon = Digits(text, 5, 2) - 1;
  parts.tm_mday = Digits(text, 8, 2);
  parts.tm_hour = Digits(text, 11, 2);
  parts.tm_min = Digits(text, 14, 2);
  parts.tm_sec = Digits(text, 17, 2);
  if (parts.tm_year < 70 || parts.tm_year > kLatestYear - 1900 || parts.tm_mon < 0 ||
      parts.tm_mday < 1 || parts.tm_hour < 0 || parts.tm_min < 0 || parts.tm_sec < 0) {
    return std::nullopt;
  }
  auto time = std::chrono::system_clock::from_time_t(timegm(&parts));
  if (text[19] == '.') {
    int64_t nanos = 0;
    size_t digits = 0;
    for (size_t i = 20; i + 1 < text.size() && digits < 9; ++i, ++digits) {
      if (text[i] < '0' || text[i] > '9') return std::nullopt;
      nanos = nanos * 10 + (text[i] - '0');
    }
    for (; digits < 9; ++digits) nanos *= 10;
    time += std::chrono::duration_cast<std::chrono::system_clock::duration>(
        std::chrono::nanoseconds(nanos));
  }
  return time;
}

std::optional<std::chrono::system_clock::time_point> ParseHttpDate(std::string_view text) {
  // Thu, 03 Dec 2026 10:04:05 GMT
  static constexpr std::string_view kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  if (text.size() != 29 || text.substr(3, 2) != ", " || text.substr(25) != " GMT") {
    return std::nullopt;
  }
  struct tm parts {};
  parts.tm_mday = Digits(text, 5, 2);
  parts.tm_mon = -1;
  for (int i = 0; i < 12; ++i) {
    if (text.substr(8, 3) == kMonths[i]) parts.tm_mon = i;
  }
  parts.tm_year = Digits(text, 12, 4) - 1900;
  parts.tm_hour = Digits(text, 17, 2);
  parts.tm_min = Digits(text, 20, 2);
  parts.tm_sec = Digits(text, 23, 2);
  if (parts.tm_mon < 0 || parts.tm_mday < 1 || parts.tm_year < 70 ||
      parts.tm_year > kLatestYear - 1900 || parts.tm_hour < 0 || parts.tm_min < 0 ||
      parts.tm_sec < 0 || text[16] != ' ' || text[19] != ':' || text[22] != ':') {
    return std::nullopt;
  }
  return std::chrono::system_clock::from_time_t(timegm(&parts));
}

}  // namespace rayagg::s3
