#include "lab/tool_run.h"

#include <fmt/format.h>
#include <signal.h>

#include <filesystem>

#include "core/file.h"
#include "core/text.h"

namespace servescope {

namespace fs = std::filesystem;

Result<ToolRun> ToolRunner::run(const std::vector<std::string>& argv, double timeout_s) {
  std::error_code ec;
  fs::create_directories(scratch_dir_, ec);
  const int n = ++calls_;
  const std::string base = fmt::format("{}/{}-{}", scratch_dir_, argv.front(), n);
  LaunchSpec spec{argv, {}, "", base + ".out", base + ".err", ""};
  auto child = host_.launch(spec);
  if (!child)
    return child.error();
  const double until = host_.now() + timeout_s;
  std::optional<int> status;
  while (!(status = (*child)->exit_status()) && host_.now() < until)
    host_.sleep(0.01);
  if (!status) {
    (*child)->signal_group(SIGKILL);
    return fail(fmt::format("{} {} did not answer within {:g} s", argv.front(),
                            argv.size() > 1 ? argv[1] : "", timeout_s));
  }
  ToolRun run;
  run.status = *status;
  if (auto out = read_file(base + ".out"))
    run.out = std::move(*out);
  if (auto err = read_file(base + ".err"))
    run.err = std::move(*err);
  fs::remove(base + ".out", ec);
  fs::remove(base + ".err", ec);
  if (run.status == 127 && contains(run.err, "cannot execute"))
    return fail(fmt::format("servescope needs {} on PATH{}; {}", argv.front(),
                            missing_hint_.empty() ? "" : " (" + missing_hint_ + ")",
                            std::string(trim(run.err))));
  return run;
}

}  // namespace servescope
