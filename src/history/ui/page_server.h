// Serves the page (docs/HISTORY.md "The page") on ray-task-history's API
// listener: index.html for `/` and each of the page's own routes (the view
// is in the query, which the page reads), its files under /assets/, and
// /favicon.ico. The page and its files need no token, since the page must
// load before it can ask for one; everything else on the listener does
// (ExceptThePage). Security headers every answer of that listener carries
// are HistoryListenerOptions' (api_server.h).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

#include "history/ui/ui_files.h"
#include "http/http_server.h"

namespace rayagg::history {

// The paths index.html answers (the page's routes, docs/HISTORY.md "The page").
inline constexpr std::string_view kPageRoutes[] = {"/",      "/session", "/task", "/actors",
                                                   "/actor", "/jobs",    "/job"};

// Whether a request target is one of the page's own: a page route, a file
// under /assets/, or /favicon.ico (the query string does not matter).
bool IsPagePath(std::string_view target);

// `check` for every request except the page's own (IsPagePath): the page
// loads without a token and asks for one when the API answers 401.
HttpHeaderCheck ExceptThePage(HttpHeaderCheck check);

class PageServer {
 public:
  // Compresses each file once (gzip, when it makes it smaller), here rather
  // than per request.
  explicit PageServer(std::span<const EmbeddedUiFile> files = EmbeddedUiFiles());

  // Adds the page's routes to `server` (before it starts); this object
  // must outlive it.
  void AddRoutes(HttpServer& server) const;

  size_t file_count() const { return files_.size(); }

 private:
  struct File {
    std::string_view bytes;
    std::string gzipped;  // empty: sent as is
    std::string_view content_type;
  };
  HttpServerResponse Answer(const HttpRequest& request, const File& file,
                            std::string_view cache_control) const;
  HttpServerResponse Asset(const HttpRequest& request) const;

  std::unordered_map<std::string_view, File> files_;  // by path: "assets/app.js"
};

}  // namespace rayagg::history
