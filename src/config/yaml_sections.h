// YAML sections that more than one program's config file has: the daemon's
// (yaml_config.cc) and ray-task-history's (src/history/history_config.cc)
// read them with the same keys, limits and messages.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

#include "config/yaml_reader.h"
#include "rayagg/config.h"

namespace rayagg {

// `tls:` (ca_file, cert_file, key_file, server_name, insecure_skip_verify).
void ReadTls(YamlReader& r, const YAML::Node& node, const std::string& path, TlsConfig& tls);
// `s3:` of an object store (endpoint, region, addressing, connect_address,
// credential files, multipart_threshold, part_size).
void ReadS3(YamlReader& r, const YAML::Node& node, const std::string& path, S3Config& s3);
// `log:` (level, format, file, max_file_bytes, max_files).
void ReadLog(YamlReader& r, const YAML::Node& node, const std::string& path, LogConfig& log);

}  // namespace rayagg
