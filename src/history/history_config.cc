#include "history/history_config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "common/text.h"
#include "common/url.h"
#include "config/problems.h"
#include "config/units.h"
#include "config/validate_config.h"
#include "config/yaml_reader.h"
#include "config/yaml_sections.h"
#include "history/history_ui_config.h"
#include "http/host_allowlist.h"
#include "objstore/rules/store_url.h"

namespace rayagg::history {

namespace {

using Node = YAML::Node;
using Path = std::string;
constexpr uint64_t kNoMax = std::numeric_limits<uint64_t>::max();
constexpr Duration kMinInterval{10};

void ReadStore(YamlReader& r, const Node& node, const Path& path, ObjectStoreConfig& store) {
  r.Map(node, path,
        {{"url", [&](const Node& v, const Path& p) { r.String(v, p, store.url); }},
         {"s3", [&](const Node& v, const Path& p) { ReadS3(r, v, p, store.s3); }},
         {"tls", [&](const Node& v, const Path& p) { ReadTls(r, v, p, store.tls); }},
         {"request_timeout", [&](const Node& v, const Path& p) {
            r.Duration(v, p, Duration(100), store.request_timeout);
          }}});
}

// index.retention: 0 (with or without a unit) keeps every session; else a
// duration of at least a minute. Archives are kept for years, so beyond the
// one-year limit of other durations, whole hours and days ("d") are taken up
// to 100 years (far from overflowing millisecond arithmetic).
void ReadRetention(YamlReader& r, const Node& node, const Path& path, Duration& out) {
  std::string text;
  if (!r.String(node, path, text)) return;
  const std::string_view trimmed = strings::StripBlanks(text);
  size_t digits = 0;
  while (digits < trimmed.size() && strings::IsDigit(trimmed[digits])) ++digits;
  const std::string_view unit = strings::StripBlanks(trimmed.substr(digits));
  uint64_t number = 0;
  const bool whole =
      digits > 0 &&
      std::from_chars(trimmed.data(), trimmed.data() + digits, number).ec == std::errc();
  if (whole && number == 0 &&
      (unit.empty() || unit == "ms" || unit == "s" || unit == "m" || unit == "h" || unit == "d")) {
    out = Duration(0);
    return;
  }
  constexpr uint64_t kMaxHours = 100ull * 365 * 24;  // 876000h
  if (whole && (unit == "h" || unit == "d")) {
    const uint64_t hours =
        unit == "d" ? (number > kMaxHours / 24 ? kMaxHours + 1 : number * 24) : number;
    if (hours > kMaxHours) {
      r.Fail(node, path, "must be at most 100 years (876000h), or 0 to keep every session");
      return;
    }
    out = std::chrono::hours(hours);
    return;
  }
  absl::StatusOr<Duration> parsed = ParseDuration(trimmed);
  if (!parsed.ok()) {
    r.Fail(node, path,
           strings::Cat(strings::View(parsed.status().message()),
                        " (or whole hours or days such as \"720h\" or \"3650d\"; 0 keeps every "
                        "session)"));
  } else if (*parsed < std::chrono::minutes(1)) {
    r.Fail(node, path, "must be at least 1m, or 0 to keep every session");
  } else {
    out = *parsed;
  }
}

void ReadIndex(YamlReader& r, const Node& node, const Path& path, HistoryConfig& config) {
  r.Map(node, path,
        {{"dir", [&](const Node& v, const Path& p) { r.String(v, p, config.index_dir); }},
         {"max_bytes",
          [&](const Node& v, const Path& p) {
            r.ByteSize(v, p, 1ull << 20, kNoMax, config.indexing.max_index_bytes);
          }},
         {"retention",
          [&](const Node& v, const Path& p) { ReadRetention(r, v, p, config.indexing.retention); }},
         {"cache_bytes",
          [&](const Node& v, const Path& p) {
            r.ByteSize(v, p, 1ull << 20, kNoMax, config.cache_bytes);
          }},
         {"mmap_bytes", [&](const Node& v, const Path& p) {
            r.ByteSize(v, p, 0, kDefaultMmapBytes, config.mmap_bytes);
          }}});
}

void ReadIndexing(YamlReader& r, const Node& node, const Path& path, IndexerOptions& indexing) {
  r.Map(node, path,
        {{"poll_interval",
          [&](const Node& v, const Path& p) {
            r.Duration(v, p, kMinInterval, indexing.poll_interval);
          }},
         {"discovery_interval",
          [&](const Node& v, const Path& p) {
            r.Duration(v, p, Duration(0), indexing.discovery_interval);
          }},
         {"session_idle",
          [&](const Node& v, const Path& p) {
            r.Duration(v, p, kMinInterval, indexing.session_idle);
          }},
         {"presence_check_interval",
          [&](const Node& v, const Path& p) {
            r.Duration(v, p, kMinInterval, indexing.presence_check_interval);
          }},
         {"batch_max_bytes",
          [&](const Node& v, const Path& p) {
            r.ByteSize(v, p, 64 * 1024, kNoMax, indexing.batch_max_bytes);
          }},
         {"max_object_bytes",
          [&](const Node& v, const Path& p) {
            r.ByteSize(v, p, 1024, kNoMax, indexing.max_object_bytes);
          }},
         {"max_object_attempts", [&](const Node& v, const Path& p) {
            uint64_t attempts = indexing.max_object_attempts;
            r.Uint(v, p, 1, 1000, attempts);
            indexing.max_object_attempts = static_cast<uint32_t>(attempts);
          }}});
}

void ReadHttp(YamlReader& r, const Node& node, const Path& path, HistoryConfig& config) {
  r.Map(node, path,
        {{"address", [&](const Node& v, const Path& p) { r.String(v, p, config.http_address); }},
         {"port", [&](const Node& v, const Path& p) { r.Port(v, p, config.http_port); }},
         {"allowed_hosts",
          [&](const Node& v, const Path& p) {
            std::vector<std::string> hosts;
            r.List(v, p, "host names", [&](const Node& item, const Path& item_path, size_t) {
              std::string host;
              if (r.String(item, item_path, host)) hosts.push_back(std::move(host));
            });
            config.allowed_hosts = std::move(hosts);
          }},
         {"bearer_token_file",
          [&](const Node& v, const Path& p) { r.String(v, p, config.bearer_token_file); }},
         {"allow_unauthenticated",
          [&](const Node& v, const Path& p) { r.Bool(v, p, config.allow_unauthenticated); }}});
}

void ReadOps(YamlReader& r, const Node& node, const Path& path, HistoryConfig& config) {
  r.Map(node, path,
        {{"address", [&](const Node& v, const Path& p) { r.String(v, p, config.ops_address); }},
         {"port", [&](const Node& v, const Path& p) { r.Port(v, p, config.ops_port); }}});
}

// Off loopback, anyone who can reach the port could read every task,
// stack trace and runtime env: a token is required unless explicitly not.
void CheckAccessRule(const HistoryConfig& config, Problems& problems) {
  if (!config.bearer_token_file.empty() || config.allow_unauthenticated ||
      IsLoopbackAddress(config.http_address)) {
    return;
  }
  problems.Add("http.bearer_token_file",
               strings::Cat("is required when http.address (", config.http_address,
                            ") is not a loopback address; to serve without one, pass "
                            "--allow-unauthenticated (or set http.allow_unauthenticated: true)"));
}

void ReadApi(YamlReader& r, const Node& node, const Path& path, HistoryConfig& config) {
  r.Map(node, path,
        {{"max_page_rows",
          [&](const Node& v, const Path& p) {
            r.Uint(v, p, 1, 1'000'000, config.limits.max_page_rows);
          }},
         {"max_state_api_rows",
          [&](const Node& v, const Path& p) {
            r.Uint(v, p, 1, 100'000'000, config.limits.max_state_api_rows);
          }},
         {"max_query_steps_thousands",
          [&](const Node& v, const Path& p) {
            r.Uint(v, p, 1, kNoMax / 1000, config.limits.max_steps_thousands);
          }},
         {"max_answer_bytes",
          [&](const Node& v, const Path& p) {
            r.ByteSize(v, p, 64ull << 10, 1ull << 30, config.limits.max_answer_bytes);
          }},
         {"readers", [&](const Node& v, const Path& p) { r.Uint(v, p, 1, 64, config.readers); }},
         {"reader_cache_bytes", [&](const Node& v, const Path& p) {
            r.ByteSize(v, p, 1ull << 20, kNoMax, config.reader_cache_bytes);
          }}});
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return absl::NotFoundError(strings::Cat("config file ", path, ": ", std::strerror(errno)));
  }
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

absl::Status ParsePort(std::string_view flag, std::string_view value,
                       std::optional<uint16_t>& out) {
  unsigned port = 0;
  auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), port);
  if (error != std::errc() || end != value.data() + value.size() || port > 65535) {
    return absl::InvalidArgumentError(
        strings::Cat("--", flag, ": must be a port number from 0 to 65535, got \"", value, "\""));
  }
  out = static_cast<uint16_t>(port);
  return absl::OkStatus();
}

struct Flag {
  std::string_view name;
  std::string_view value_name;  // empty for a switch
  std::string_view help;
};

constexpr Flag kFlags[] = {
    {"store", "URL", "where the events are: s3://bucket[/prefix] or dir:///absolute/path"},
    {"index-dir", "DIR", "directory of the SQLite index (created if missing)"},
    {"http-address", "ADDR", "address of the API listener (default 127.0.0.1)"},
    {"http-port", "N", "port of the API listener (default 8090; 0: the OS picks)"},
    {"port-file", "PATH", "write the bound API port here once serving"},
    {"ops-address", "ADDR",
     "address of the ops listener: /healthz, /readyz, /metrics (default 127.0.0.1)"},
    {"ops-port", "N", "port of the ops listener (default 8091; 0: the OS picks)"},
    {"ops-port-file", "PATH", "write the bound ops port here once serving"},
    {"allow-unauthenticated", "", "serve the API off loopback without http.bearer_token_file"},
    {"config", "PATH", "YAML config file (docs/HISTORY.md); flags override it"},
    {"log-level", "LEVEL", "trace, debug, info, warn, error, critical or off"},
    {"check-config", "", "print the configuration and exit: 0 valid, 2 invalid"},
    {"help", "", "print this text and exit"},
};

}  // namespace

std::string HistoryUsageText() {
  std::string out = "Usage: ray-task-history --store URL --index-dir DIR [flags]\n";
  for (const Flag& flag : kFlags) {
    std::string left = strings::Cat("  --", flag.name);
    if (!flag.value_name.empty()) strings::Append(left, " ", flag.value_name);
    left.resize(std::max<size_t>(left.size() + 2, 26), ' ');
    strings::Append(out, left, flag.help, "\n");
  }
  return out;
}

absl::StatusOr<HistoryCommandLine> ParseHistoryCommandLine(const std::vector<std::string>& args) {
  HistoryCommandLine cli;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string_view arg = args[i];
    if (arg.substr(0, 2) != "--") {
      return absl::InvalidArgumentError(strings::Cat("unexpected argument \"", arg, "\""));
    }
    arg.remove_prefix(2);
    std::string_view name = arg;
    std::optional<std::string> value;
    if (const size_t equals = arg.find('='); equals != std::string_view::npos) {
      name = arg.substr(0, equals);
      value = std::string(arg.substr(equals + 1));
    }
    const Flag* flag = nullptr;
    for (const Flag& known : kFlags) {
      if (known.name == name) flag = &known;
    }
    if (flag == nullptr) return absl::InvalidArgumentError(strings::Cat("unknown flag --", name));
    if (flag->value_name.empty()) {
      if (value) return absl::InvalidArgumentError(strings::Cat("--", name, " takes no value"));
      if (name == "check-config") cli.check_config = true;
      if (name == "help") cli.show_help = true;
      if (name == "allow-unauthenticated") cli.allow_unauthenticated = true;
      continue;
    }
    if (!value) {
      if (i + 1 == args.size()) {
        return absl::InvalidArgumentError(
            strings::Cat("--", name, " needs a value (", flag->value_name, ")"));
      }
      value = args[++i];
    }
    if (name == "store") cli.store_url = *value;
    if (name == "index-dir") cli.index_dir = *value;
    if (name == "http-address") cli.http_address = *value;
    if (name == "port-file") cli.port_file = *value;
    if (name == "ops-address") cli.ops_address = *value;
    if (name == "ops-port-file") cli.ops_port_file = *value;
    if (name == "ops-port") {
      if (absl::Status parsed = ParsePort(name, *value, cli.ops_port); !parsed.ok()) return parsed;
    }
    if (name == "config") cli.config_path = *value;
    if (name == "log-level") cli.log_level = *value;
    if (name == "http-port") {
      if (absl::Status parsed = ParsePort(name, *value, cli.http_port); !parsed.ok()) return parsed;
    }
  }
  return cli;
}

absl::StatusOr<HistoryConfig> ParseHistoryConfigYaml(std::string_view yaml_text) {
  HistoryConfig config;
  Problems problems;
  Node root;
  try {
    root = YAML::Load(std::string(yaml_text));
  } catch (const YAML::Exception& error) {
    return absl::InvalidArgumentError(strings::Cat("not YAML: ", error.what()));
  }
  YamlReader r(problems);
  r.Map(
      root, "",
      {{"store", [&](const Node& v, const Path& p) { ReadStore(r, v, p, config.store); }},
       {"index", [&](const Node& v, const Path& p) { ReadIndex(r, v, p, config); }},
       {"indexing", [&](const Node& v, const Path& p) { ReadIndexing(r, v, p, config.indexing); }},
       {"http", [&](const Node& v, const Path& p) { ReadHttp(r, v, p, config); }},
       {"ops", [&](const Node& v, const Path& p) { ReadOps(r, v, p, config); }},
       {"api", [&](const Node& v, const Path& p) { ReadApi(r, v, p, config); }},
       {"ui", [&](const Node& v, const Path& p) { ReadUiSection(r, v, p, config.ui); }},
       {"log", [&](const Node& v, const Path& p) { ReadLog(r, v, p, config.log); }}});
  if (!problems.empty()) return problems.ToStatus();
  return config;
}

absl::StatusOr<HistoryConfig> LoadHistoryConfig(const HistoryCommandLine& cli,
                                                const Environment& env) {
  std::string text;
  if (cli.config_path) {
    absl::StatusOr<std::string> read = ReadFile(*cli.config_path);
    if (!read.ok()) return read.status();
    text = *std::move(read);
  }
  absl::StatusOr<HistoryConfig> parsed = ParseHistoryConfigYaml(text);
  if (!parsed.ok()) {
    if (!cli.config_path) return parsed.status();
    return absl::InvalidArgumentError(
        strings::Cat("config file ", *cli.config_path, ": ", parsed.status().message()));
  }
  HistoryConfig config = *std::move(parsed);
  // Credentials from the environment unless files are configured, as for
  // the daemon's object-store sinks (never logged).
  S3Config& s3 = config.store.s3;
  if (s3.access_key_id_file.empty()) s3.access_key_id = env.Get("AWS_ACCESS_KEY_ID").value_or("");
  if (s3.secret_access_key_file.empty()) {
    s3.secret_access_key = env.Get("AWS_SECRET_ACCESS_KEY").value_or("");
  }
  if (s3.session_token_file.empty()) s3.session_token = env.Get("AWS_SESSION_TOKEN").value_or("");

  if (cli.store_url) config.store.url = *cli.store_url;
  if (cli.index_dir) config.index_dir = *cli.index_dir;
  if (cli.http_address) config.http_address = *cli.http_address;
  if (cli.http_port) config.http_port = *cli.http_port;
  if (cli.ops_address) config.ops_address = *cli.ops_address;
  if (cli.ops_port) config.ops_port = *cli.ops_port;
  if (cli.allow_unauthenticated) config.allow_unauthenticated = true;
  if (cli.log_level) config.log.level = strings::ToLower(*cli.log_level);

  Problems problems;
  if (config.store.url.empty()) {
    problems.Add("store.url", "is required (or --store)");
  } else if (absl::StatusOr<StoreUrl> url = ParseStoreUrl(config.store.url); !url.ok()) {
    problems.Add("store.url", strings::View(url.status().message()));
  }
  if (config.index_dir.empty()) problems.Add("index.dir", "is required (or --index-dir)");
  if (!IsLogLevel(config.log.level)) {
    problems.Add("log.level", strings::Cat("must be one of ", strings::Join(kLogLevels, ", ")));
  }
  if (config.log.format != "text" && config.log.format != "json") {
    problems.Add("log.format", "must be text or json");
  }
  if (config.allowed_hosts && config.allowed_hosts->empty()) {
    problems.Add("http.allowed_hosts", "must not be empty (\"*\" answers any Host)");
  }
  if (config.allowed_hosts) {
    for (size_t i = 0; i < config.allowed_hosts->size(); ++i) {
      const std::string& host = (*config.allowed_hosts)[i];
      if (host != "*" && !NormalizeHost(host)) {
        problems.Add(strings::Cat("http.allowed_hosts[", i, "]"),
                     "must be a host name or address (an IPv6 address in brackets), or *");
      }
    }
  }
  CheckAccessRule(config, problems);
  if (!problems.empty()) return problems.ToStatus();
  return config;
}

std::vector<std::string> AllowedHostsFor(const HistoryConfig& config,
                                         const std::string& bound_address) {
  if (config.allowed_hosts) return *config.allowed_hosts;
  std::vector<std::string> hosts = {"localhost", "127.0.0.1", "[::1]"};
  // A wildcard bind names no host a client would send.
  if (bound_address != "0.0.0.0" && bound_address != "::" && NormalizeHost(bound_address)) {
    hosts.push_back(*NormalizeHost(bound_address));
  }
  return hosts;
}

std::string DescribeHistoryConfig(const HistoryConfig& config) {
  const IndexerOptions& i = config.indexing;
  return strings::Cat(
      "store=", RedactUrl(config.store.url), " index.dir=", config.index_dir,
      " index.max_bytes=", FormatByteSize(i.max_index_bytes),
      " index.retention=", i.retention.count() == 0 ? "0 (keep)" : FormatDuration(i.retention),
      "\nindexing: poll_interval=", FormatDuration(i.poll_interval),
      " discovery_interval=", FormatDuration(i.discovery_interval),
      " session_idle=", FormatDuration(i.session_idle),
      " batch_max_bytes=", FormatByteSize(i.batch_max_bytes), "\nhttp: ", config.http_address, ":",
      static_cast<uint32_t>(config.http_port), " max_page_rows=", config.limits.max_page_rows,
      " max_state_api_rows=", config.limits.max_state_api_rows, " readers=", config.readers,
      " auth=",
      config.bearer_token_file.empty()
          ? std::string("none")
          : strings::Cat("bearer token from ", config.bearer_token_file),
      " allowed_hosts=", strings::Join(AllowedHostsFor(config, config.http_address), ","),
      "\nops: ", config.ops_address, ":", static_cast<uint32_t>(config.ops_port), "\n",
      DescribeUiOptions(config.ui));
}

}  // namespace rayagg::history
