// The page's files (ui/, bundled into build/ui/ by `npm run build`), as
// embedded into ray-task-history at build time (cmake/EmbedUi.cmake): one
// binary to deploy, nothing read from disk, no path ever reaches a file
// system.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace rayagg::history {

struct EmbeddedUiFile {
  std::string_view path;  // relative to the bundle: "index.html", "assets/app.js"
  const unsigned char* data;
  size_t size;
};

// Written by cmake/EmbedUi.cmake (embedded_ui_files.cc in the build tree).
extern const EmbeddedUiFile kEmbeddedUiFiles[];
extern const size_t kEmbeddedUiFileCount;
// False when the build found no build/ui/index.html and embedded the
// one-line page that says how to build it.
extern const bool kEmbeddedUiBuilt;

std::span<const EmbeddedUiFile> EmbeddedUiFiles();

struct UiFile {
  std::string_view bytes;
  std::string_view content_type;
};

// The file at `path` ("/assets/app.js" or "assets/app.js"; no query), with
// the Content-Type its extension calls for; nullopt when there is none.
std::optional<UiFile> FindUiFile(std::string_view path,
                                 std::span<const EmbeddedUiFile> files = EmbeddedUiFiles());

// The Content-Type of a file of the page, by its extension
// (application/octet-stream for one the page has no use for).
std::string_view UiContentType(std::string_view path);

}  // namespace rayagg::history
