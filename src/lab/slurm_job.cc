#include "lab/slurm_job.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <ctime>
#include <filesystem>

#include "core/text.h"
#include "intake/shell_words.h"

namespace servescope {

Status read_slurm_config(const std::string& path, SlurmOptions& o) {
  if (!std::filesystem::is_regular_file(path))
    return fail(
        fmt::format("--slurm-config {}: no such file; give a YAML file such as "
                    "'partition: gpu' / 'gpus: 4'",
                    path));
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::Exception& e) {
    return fail(fmt::format("--slurm-config {}: {}", path, e.what()));
  }
  if (!root.IsMap())
    return fail(
        fmt::format("--slurm-config {}: give a YAML mapping (partition: gpu, gpus: 4)", path));
  try {
    for (const auto& item : root) {
      const std::string key = item.first.as<std::string>();
      const YAML::Node& v = item.second;
      if (key == "allocation")
        o.allocation = v.as<std::string>();
      else if (key == "gpus")
        o.gpus = v.as<int>();
      else if (key == "nodes")
        o.nodes = v.as<int>();
      else if (key == "partition")
        o.partition = v.as<std::string>();
      else if (key == "time")
        o.time_limit = v.as<std::string>();
      else if (key == "account")
        o.account = v.as<std::string>();
      else if (key == "sbatch")
        o.sbatch_lines = v.as<std::vector<std::string>>();
      else if (key == "node")
        o.node = v.as<std::string>();
      else if (key == "poll")
        o.poll_s = v.as<double>();
      else
        return fail(fmt::format(
            "--slurm-config {}: unknown key '{}'; the keys are allocation, gpus, nodes, "
            "partition, time, account, sbatch, node and poll",
            path, key));
    }
  } catch (const YAML::Exception& e) {
    return fail(fmt::format("--slurm-config {}: {}", path, e.what()));
  }
  if (o.gpus < 0 || o.nodes < 1 || o.poll_s <= 0)
    return fail(fmt::format("--slurm-config {}: gpus ≥ 0, nodes ≥ 1 and poll > 0", path));
  return ok_status();
}

std::string slurm_batch_script(const SlurmOptions& o, const LaunchSpec& spec) {
  std::string s = "#!/bin/bash\n";
  s += fmt::format("#SBATCH --job-name={}\n", spec.name.empty() ? "servescope" : spec.name);
  s += fmt::format("#SBATCH --output={}\n", spec.stdout_path);
  s += fmt::format("#SBATCH --error={}\n", spec.stderr_path);
  s += fmt::format("#SBATCH --nodes={}\n", o.nodes);
  s += fmt::format("#SBATCH --ntasks-per-node=1\n");
  if (o.gpus > 0)
    s += fmt::format("#SBATCH --gres=gpu:{}\n", o.gpus);
  if (!o.partition.empty())
    s += fmt::format("#SBATCH --partition={}\n", o.partition);
  if (!o.time_limit.empty())
    s += fmt::format("#SBATCH --time={}\n", o.time_limit);
  if (!o.account.empty())
    s += fmt::format("#SBATCH --account={}\n", o.account);
  for (const std::string& line : o.sbatch_lines) {
    const std::string_view l = trim(line);
    s += l.rfind("#SBATCH", 0) == 0 ? std::string(l) + "\n" : fmt::format("#SBATCH {}\n", l);
  }
  s += "# A servescope experiment: the engine's command, as the launch template expanded it.\n";
  if (!spec.cwd.empty())
    s += fmt::format("cd {} || exit 127\n", shell_quote(spec.cwd));
  for (const auto& [k, v] : spec.env)
    s += fmt::format("export {}={}\n", k, shell_quote(v));
  std::string command;
  for (const std::string& w : spec.argv)
    command += (command.empty() ? "" : " ") + shell_quote(w);
  // One engine process per node for multi-node engines (each reads SLURM_NODEID / PROCID).
  if (o.nodes > 1)
    s += fmt::format("exec srun --nodes={} --ntasks-per-node=1 --kill-on-bad-exit=1 {}\n", o.nodes,
                     command);
  else
    s += fmt::format("exec {}\n", command);
  return s;
}

std::map<std::string, std::string> parse_scontrol_record(std::string_view line) {
  std::map<std::string, std::string> out;
  line = trim(line);
  // A key starts a word and runs to '='; its value runs to the next such key.
  std::vector<std::pair<std::size_t, std::size_t>> keys;  // (key start, '=' position)
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (i > 0 && line[i - 1] != ' ')
      continue;
    std::size_t j = i;
    while (j < line.size() && (std::isalnum(static_cast<unsigned char>(line[j])) != 0 ||
                               line[j] == '_' || line[j] == ':' || line[j] == '/'))
      ++j;
    if (j > i && j < line.size() && line[j] == '=' &&
        std::isupper(static_cast<unsigned char>(line[i])) != 0)
      keys.emplace_back(i, j);
  }
  for (std::size_t k = 0; k < keys.size(); ++k) {
    const auto [start, eq] = keys[k];
    const std::size_t end = k + 1 < keys.size() ? keys[k + 1].first : line.size();
    out[std::string(line.substr(start, eq - start))] =
        std::string(trim(line.substr(eq + 1, end - eq - 1)));
  }
  return out;
}

std::string first_node(std::string_view list) {
  list = trim(list);
  if (list.empty() || list == "(null)")
    return "";
  // The first entry: up to a ',' outside brackets.
  std::size_t depth = 0, end = 0;
  for (; end < list.size(); ++end) {
    if (list[end] == '[')
      ++depth;
    else if (list[end] == ']' && depth > 0)
      --depth;
    else if (list[end] == ',' && depth == 0)
      break;
  }
  const std::string_view entry = list.substr(0, end);
  const auto open = entry.find('[');
  if (open == std::string_view::npos)
    return std::string(entry);
  // "gpu[03-05,07]": the prefix and the first number of the range, its zero padding kept.
  std::string_view range = entry.substr(open + 1);
  const std::size_t stop = range.find_first_of("-,]");
  return std::string(entry.substr(0, open)) + std::string(range.substr(0, stop));
}

bool SlurmJobState::pending() const {
  return state == "PENDING" || state == "REQUEUED" || state == "REQUEUE_HOLD" ||
         state == "REQUEUE_FED" || state == "CONFIGURING" || state == "RESV_DEL_HOLD";
}

bool SlurmJobState::finished() const {
  if (!exists)
    return true;
  return state == "COMPLETED" || state == "CANCELLED" || state == "FAILED" || state == "TIMEOUT" ||
         state == "NODE_FAIL" || state == "PREEMPTED" || state == "BOOT_FAIL" ||
         state == "DEADLINE" || state == "OUT_OF_MEMORY" || state == "REVOKED" ||
         state == "SPECIAL_EXIT";
}

namespace {

// Seconds since an arbitrary epoch of a Slurm time stamp, "2026-12-02T08:23:04" (the
// controller's local time: only differences are taken); nullopt for "Unknown" and the like.
std::optional<double> slurm_time(const std::string& text) {
  std::tm tm{};
  int y, mo, d, h, mi, sec;
  if (std::sscanf(text.c_str(), "%d-%d-%dT%d:%d:%d", &y, &mo, &d, &h, &mi, &sec) != 6)
    return std::nullopt;
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = sec;
  return static_cast<double>(timegm(&tm));
}

}  // namespace

SlurmJobState slurm_job_state(const std::map<std::string, std::string>& record) {
  SlurmJobState s;
  auto get = [&](const char* key) {
    auto it = record.find(key);
    return it == record.end() ? std::string() : it->second;
  };
  s.exists = !get("JobId").empty();
  s.state = get("JobState");
  s.reason = get("Reason");
  if (s.reason == "None")
    s.reason.clear();
  s.node = get("BatchHost");
  if (s.node.empty() || s.node == "(null)")
    s.node = first_node(get("NodeList"));
  if (!s.pending()) {
    const auto submitted = slurm_time(get("SubmitTime"));
    const auto started = slurm_time(get("StartTime"));
    if (submitted && started && *started >= *submitted)
      s.queued_seconds = *started - *submitted;
  }
  if (s.finished() && s.exists) {
    // ExitCode=a:b — the batch script's exit code, or the signal that ended it.
    const std::string code = get("ExitCode");
    const auto colon = code.find(':');
    const auto a = parse_int(std::string_view(code).substr(0, colon));
    const auto b = colon == std::string::npos ? std::optional<long long>(0)
                                              : parse_int(std::string_view(code).substr(colon + 1));
    if (a && b)
      s.exit_status = *b != 0 ? 128 + static_cast<int>(*b) : static_cast<int>(*a);
  }
  return s;
}

Result<std::string> parse_sbatch_job_id(std::string_view output) {
  std::string_view id = trim(output);
  id = id.substr(0, id.find(';'));
  if (id.empty() || !parse_int(id))
    return fail(fmt::format("sbatch printed no job id ('{}')", trim(output)));
  return std::string(id);
}

}  // namespace servescope
