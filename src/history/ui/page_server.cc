#include "history/ui/page_server.h"

#include <utility>

#include "http/accept_encoding.h"
#include "http/gzip.h"
#include "http/request.h"

namespace rayagg::history {
namespace {

constexpr std::string_view kNoCache = "no-cache";
// Assets are named by their content hash in index.html (`?v=<hash>`): such
// a URL never changes meaning, so a browser may keep it for a year.
constexpr std::string_view kImmutable = "public, max-age=31536000, immutable";
constexpr std::string_view kAssets = "/assets/";

std::string_view ToStd(beast::string_view text) { return {text.data(), text.size()}; }

std::string_view PathOf(std::string_view target) { return target.substr(0, target.find('?')); }

// Whether the query string carries a `v` (the asset's content hash).
bool HasVersion(std::string_view target) {
  const size_t question = target.find('?');
  if (question == std::string_view::npos) return false;
  std::string_view query = target.substr(question + 1);
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view item = query.substr(0, amp);
    if (item.starts_with("v=") && item.size() > 2) return true;
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return false;
}

// Compressing what is compressed already (PNG) only costs.
bool WorthCompressing(std::string_view content_type) { return content_type != "image/png"; }

}  // namespace

bool IsPagePath(std::string_view target) {
  const std::string_view path = PathOf(target);
  for (std::string_view route : kPageRoutes) {
    if (path == route) return true;
  }
  return path == "/favicon.ico" || path.starts_with(kAssets);
}

HttpHeaderCheck ExceptThePage(HttpHeaderCheck check) {
  return [check = std::move(check)](const HttpRequest::header_type& header) {
    return IsPagePath(ToStd(header.target())) || check(header);
  };
}

PageServer::PageServer(std::span<const EmbeddedUiFile> files) {
  for (const EmbeddedUiFile& embedded : files) {
    File file{
        .bytes = std::string_view(reinterpret_cast<const char*>(embedded.data), embedded.size),
        .gzipped = {},
        .content_type = UiContentType(embedded.path)};
    if (WorthCompressing(file.content_type) && (!GzipCompress(file.bytes, file.gzipped).ok() ||
                                                file.gzipped.size() >= file.bytes.size())) {
      file.gzipped.clear();
    }
    files_.emplace(embedded.path, std::move(file));
  }
}

HttpServerResponse PageServer::Answer(const HttpRequest& request, const File& file,
                                      std::string_view cache_control) const {
  const bool gzip =
      !file.gzipped.empty() && AcceptsGzip(ToStd(request[http::field::accept_encoding]));
  HttpServerResponse response = MakeHttpResponse(
      request, http::status::ok, std::string(gzip ? file.gzipped : file.bytes), file.content_type);
  response.set(http::field::cache_control, ToBeast(cache_control));
  if (!file.gzipped.empty()) response.set(http::field::vary, "Accept-Encoding");
  if (gzip) response.set(http::field::content_encoding, "gzip");
  return response;
}

HttpServerResponse PageServer::Asset(const HttpRequest& request) const {
  const std::string_view target = ToStd(request.target());
  const auto file = files_.find(PathOf(target).substr(1));
  if (file == files_.end()) {
    HttpServerResponse response = MakeHttpResponse(
        request, http::status::not_found, R"({"result":false,"msg":"no such file of the page"})",
        "application/json");
    response.set(http::field::cache_control, ToBeast(kNoCache));
    return response;
  }
  return Answer(request, file->second, HasVersion(target) ? kImmutable : kNoCache);
}

void PageServer::AddRoutes(HttpServer& server) const {
  const auto index = files_.find("index.html");
  for (std::string_view route : kPageRoutes) {
    server.AddRoute(std::string(route), {http::verb::get},
                    [this, index](HttpRequest& request) -> HttpServerResponse {
                      if (index == files_.end()) {
                        return MakeHttpResponse(request, http::status::not_found,
                                                "the page has no index.html\n");
                      }
                      return Answer(request, index->second, kNoCache);
                    });
  }
  server.AddPrefixRoute(std::string(kAssets), {http::verb::get},
                        [this](HttpRequest& request) { return Asset(request); });
  // Browsers ask for it on their own; a 404 there would be noise.
  server.AddRoute("/favicon.ico", {http::verb::get}, [this](HttpRequest& request) {
    const auto icon = files_.find("favicon.ico");
    if (icon != files_.end()) return Answer(request, icon->second, kNoCache);
    HttpServerResponse response = MakeHttpResponse(request, http::status::no_content, "");
    response.set(http::field::cache_control, ToBeast(kNoCache));
    return response;
  });
}

}  // namespace rayagg::history
