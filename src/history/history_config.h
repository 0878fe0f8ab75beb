// ray-task-history's configuration: built-in defaults < YAML file (--config)
// < the environment (AWS credentials) < flags, checked once
// (docs/HISTORY.md "Running it").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "config/environment.h"
#include "history/api/queries.h"
#include "history/api/ui_options.h"
#include "history/index/index_schema.h"
#include "history/index/indexer.h"
#include "rayagg/config.h"

namespace rayagg::history {

struct HistoryConfig {
  // `store:` — where the events are: s3://bucket[/prefix] (with s3.*, tls.*)
  // or dir:///absolute/path.
  ObjectStoreConfig store;
  // `index:` — the SQLite index on local disk.
  std::string index_dir;
  uint64_t cache_bytes = 64ull << 20;       // SQLite page cache of the indexer's connection
  uint64_t mmap_bytes = kDefaultMmapBytes;  // read through a memory map, every connection
  // `indexing:` (and index.max_bytes, index.retention) — see indexer.h.
  IndexerOptions indexing;
  // `http:` — the API listener.
  std::string http_address = "127.0.0.1";
  uint16_t http_port = 8090;
  // http.allowed_hosts: the Host names every listener answers (others get
  // 421); unset: AllowedHostsFor's defaults.
  std::optional<std::vector<std::string>> allowed_hosts{};
  // http.bearer_token_file: when set, every API route requires
  // `Authorization: Bearer <the file's token>` (re-read when it changes).
  std::string bearer_token_file;
  // http.allow_unauthenticated (or --allow-unauthenticated): serve without a
  // token on an address that is not loopback.
  bool allow_unauthenticated = false;
  // `ops:` — /healthz, /readyz and /metrics, without auth, on a listener and
  // thread of their own (never behind a query; no task data).
  std::string ops_address = "127.0.0.1";
  uint16_t ops_port = 8091;
  // `api:` — answer sizes and the query connection pool.
  QueryLimits limits;
  uint64_t readers = 4;
  uint64_t reader_cache_bytes = 16ull << 20;
  // `ui:` — the page's settings and the API's redaction (ui_options.h).
  UiOptions ui;
  LogConfig log;
};

struct HistoryCommandLine {
  std::optional<std::string> config_path;  // --config PATH
  std::optional<std::string> store_url;    // --store URL
  std::optional<std::string> index_dir;    // --index-dir DIR
  std::optional<std::string> http_address;
  std::optional<uint16_t> http_port;
  std::optional<std::string> port_file;  // written once serving
  std::optional<std::string> ops_address;
  std::optional<uint16_t> ops_port;
  std::optional<std::string> ops_port_file;
  bool allow_unauthenticated = false;
  std::optional<std::string> log_level;
  bool check_config = false;
  bool show_help = false;
};

// `args` excludes argv[0]; "--flag value" and "--flag=value". Unknown flags
// and bad values are InvalidArgument naming the flag.
absl::StatusOr<HistoryCommandLine> ParseHistoryCommandLine(const std::vector<std::string>& args);
std::string HistoryUsageText();

// The YAML text alone (empty: defaults); every problem, one per line, with
// its key path.
absl::StatusOr<HistoryConfig> ParseHistoryConfigYaml(std::string_view yaml_text);

// File, environment and flags; errors name the file, key or flag. A store
// URL and an index directory are required.
absl::StatusOr<HistoryConfig> LoadHistoryConfig(const HistoryCommandLine& cli,
                                                const Environment& env);

// The Host names a listener bound to `bound_address` answers:
// http.allowed_hosts when set, else localhost, 127.0.0.1, [::1] and the
// bound address itself (unless it is a wildcard like 0.0.0.0).
std::vector<std::string> AllowedHostsFor(const HistoryConfig& config,
                                         const std::string& bound_address);

// A few lines for the startup log and --check-config: never a secret.
std::string DescribeHistoryConfig(const HistoryConfig& config);

}  // namespace rayagg::history
