// A program run as a subprocess the way a supervisor (or Ray) runs it, for
// tests of the real binary: its output goes to files, its exit is awaited
// with a deadline (a pidfd, no sleeps), and it is killed (SIGKILL) and
// reaped on destruction if still running, so a failing test never leaves a
// daemon behind.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace rayagg::test {

class Subprocess {
 public:
  // Starts `binary` with `args`; stdout and stderr go to the given files
  // (truncated). Ray's RAY_* variables are removed from its environment:
  // the test's config must be the only input, with `environment`
  // ("NAME=value" entries) added. Throws if it cannot start.
  Subprocess(const std::string& binary, const std::vector<std::string>& args,
             const std::string& stdout_path, const std::string& stderr_path,
             const std::vector<std::string>& environment = {});
  ~Subprocess();
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  pid_t pid() const { return pid_; }
  // -1 without pidfd support (old kernel or a sandbox).
  int pidfd() const { return pidfd_; }

  // kill(2); returns whether it was delivered.
  bool Signal(int signal_number);

  // The raw waitpid status once the process has exited within `timeout`.
  std::optional<int> WaitForExit(std::chrono::milliseconds timeout);

  bool Running();

 private:
  pid_t pid_ = -1;
  int pidfd_ = -1;
  std::optional<int> exit_status_;
};

// "exited with 0", "exited with 2", "killed by signal 6": readable failures.
std::string DescribeStatus(const std::optional<int>& status);

bool ExitedWith(const std::optional<int>& status, int code);

// The content of the file at `path` once it exists (port files are written
// by rename, so it is whole), or nothing if `process` exits or `timeout`
// passes first. Wakes on directory events (inotify) and on the process
// exiting (pidfd).
std::optional<std::string> WaitForFile(Subprocess& process, const std::string& path,
                                       std::chrono::milliseconds timeout);

// The port in a port file written by the daemon (--port-file and friends),
// waited for as WaitForFile does; nothing if it did not appear or is no number.
std::optional<int> WaitForPortFile(Subprocess& process, const std::string& path,
                                   std::chrono::milliseconds timeout);

}  // namespace rayagg::test
