#include "app/port_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace rayagg {

absl::Status WritePortFile(const std::string& path, int port) {
  const std::string temp_path = path + ".tmp";
  {
    std::ofstream out(temp_path, std::ios::trunc);
    out << port;
    out.close();
    if (!out) return absl::UnavailableError("cannot write port file " + temp_path);
  }
  if (std::rename(temp_path.c_str(), path.c_str()) != 0) {
    return absl::UnavailableError("cannot rename port file to " + path + ": " +
                                  std::strerror(errno));
  }
  return absl::OkStatus();
}

}  // namespace rayagg
