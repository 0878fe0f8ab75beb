#include "support/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/inotify.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "support/condition_wait.h"
#include "support/temp_dir.h"

extern char** environ;

namespace rayagg::test {

Subprocess::Subprocess(const std::string& binary, const std::vector<std::string>& args,
                       const std::string& stdout_path, const std::string& stderr_path,
                       const std::vector<std::string>& environment) {
  std::vector<std::string> argv_strings = {binary};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& arg : argv_strings) argv.push_back(arg.data());
  argv.push_back(nullptr);
  std::vector<std::string> added = environment;
  std::vector<char*> envp;
  // An added variable replaces an inherited one of the same name.
  auto overridden = [&added](const char* var) {
    return std::any_of(added.begin(), added.end(), [var](const std::string& entry) {
      const size_t equals = entry.find('=');
      return equals != std::string::npos && std::strncmp(var, entry.c_str(), equals + 1) == 0;
    });
  };
  for (char** var = environ; *var != nullptr; ++var) {
    if (std::strncmp(*var, "RAY_", 4) != 0 && !overridden(*var)) envp.push_back(*var);
  }
  for (std::string& var : added) envp.push_back(var.data());
  envp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, stdout_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  // A clean signal state, whatever the test runner blocked or ignored.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t no_signals;
  sigemptyset(&no_signals);
  sigset_t default_signals;
  sigemptyset(&default_signals);
  sigaddset(&default_signals, SIGTERM);
  sigaddset(&default_signals, SIGINT);
  sigaddset(&default_signals, SIGPIPE);
  posix_spawnattr_setsigmask(&attributes, &no_signals);
  posix_spawnattr_setsigdefault(&attributes, &default_signals);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  const int error =
      posix_spawn(&pid_, binary.c_str(), &actions, &attributes, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (error != 0) {
    throw std::runtime_error(std::string("posix_spawn failed: ") + std::strerror(error));
  }
  // A pidfd turns "wait for exit with a deadline" into a poll(), no sleeps.
  pidfd_ = static_cast<int>(syscall(SYS_pidfd_open, pid_, 0));
}

Subprocess::~Subprocess() {
  if (!exit_status_) {
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
  if (pidfd_ >= 0) close(pidfd_);
}

bool Subprocess::Signal(int signal_number) { return kill(pid_, signal_number) == 0; }

std::optional<int> Subprocess::WaitForExit(std::chrono::milliseconds timeout) {
  if (exit_status_) return exit_status_;
  const auto reaped = [this] {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) != pid_) return false;
    exit_status_ = status;
    return true;
  };
  // No pidfd (old kernel or a sandbox): poll for the exit.
  if (pidfd_ < 0) return WaitFor(reaped, timeout) ? exit_status_ : std::nullopt;
  const WaitDeadline deadline(timeout);
  while (!reaped()) {
    if (deadline.Passed()) return std::nullopt;
    pollfd exited{pidfd_, POLLIN, 0};
    poll(&exited, 1, deadline.RemainingMs());
  }
  return exit_status_;
}

bool Subprocess::Running() {
  if (exit_status_) return false;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) == pid_) {
    exit_status_ = status;
    return false;
  }
  return true;
}

std::string DescribeStatus(const std::optional<int>& status) {
  if (!status) return "still running";
  if (WIFEXITED(*status)) return "exited with " + std::to_string(WEXITSTATUS(*status));
  if (WIFSIGNALED(*status)) return "killed by signal " + std::to_string(WTERMSIG(*status));
  return "status " + std::to_string(*status);
}

bool ExitedWith(const std::optional<int>& status, int code) {
  return status && WIFEXITED(*status) && WEXITSTATUS(*status) == code;
}

std::optional<std::string> WaitForFile(Subprocess& process, const std::string& path,
                                       std::chrono::milliseconds timeout) {
  const std::string directory = std::filesystem::path(path).parent_path().string();
  const int inotify = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  if (inotify >= 0) inotify_add_watch(inotify, directory.c_str(), IN_MOVED_TO | IN_CLOSE_WRITE);
  const WaitDeadline deadline(timeout);
  std::optional<std::string> text;
  while (true) {
    if (std::filesystem::exists(path)) {
      text = ReadWholeFile(path);
      break;
    }
    if (!process.Running() || deadline.Passed()) break;
    pollfd fds[2] = {{inotify, POLLIN, 0}, {process.pidfd(), POLLIN, 0}};
    // Without inotify or pidfd, the short timeout makes this a bounded poll.
    const bool event_driven = inotify >= 0 && process.pidfd() >= 0;
    poll(fds, 2, event_driven ? deadline.RemainingMs() : std::min(deadline.RemainingMs(), 10));
    char drain[4096];
    while (inotify >= 0 && read(inotify, drain, sizeof(drain)) > 0) {
    }
  }
  if (inotify >= 0) close(inotify);
  return text;
}

std::optional<int> WaitForPortFile(Subprocess& process, const std::string& path,
                                   std::chrono::milliseconds timeout) {
  const std::optional<std::string> text = WaitForFile(process, path, timeout);
  if (!text) return std::nullopt;
  try {
    return std::stoi(*text);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace rayagg::test
