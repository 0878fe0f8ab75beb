#include "history/ui/ui_files.h"

#include <utility>

namespace rayagg::history {

std::span<const EmbeddedUiFile> EmbeddedUiFiles() {
  return {kEmbeddedUiFiles, kEmbeddedUiFileCount};
}

std::optional<UiFile> FindUiFile(std::string_view path, std::span<const EmbeddedUiFile> files) {
  if (path.starts_with('/')) path.remove_prefix(1);
  for (const EmbeddedUiFile& file : files) {
    if (file.path == path) {
      return UiFile{.bytes = std::string_view(reinterpret_cast<const char*>(file.data), file.size),
                    .content_type = UiContentType(path)};
    }
  }
  return std::nullopt;
}

std::string_view UiContentType(std::string_view path) {
  static constexpr std::pair<std::string_view, std::string_view> kTypes[] = {
      {".html", "text/html; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".json", "application/json"},
      {".map", "application/json"},
      {".svg", "image/svg+xml"},
      {".png", "image/png"},
      {".ico", "image/x-icon"},
      {".txt", "text/plain; charset=utf-8"},
  };
  const std::string_view name = path.substr(path.rfind('/') + 1);
  for (const auto& [extension, type] : kTypes) {
    if (name.ends_with(extension)) return type;
  }
  return "application/octet-stream";
}

}  // namespace rayagg::history
