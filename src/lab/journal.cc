#include "lab/journal.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "core/file.h"

namespace servescope {

using nlohmann::json;

namespace {

Status write_line(int fd, const std::string& line, const std::string& path) {
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t w = ::write(fd, line.data() + done, line.size() - done);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return fail(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
    done += static_cast<std::size_t>(w);
  }
  ::fsync(fd);
  return ok_status();
}

Result<ExperimentRecord> launched_from_json(const json& j) {
  ExperimentRecord r;
  try {
    r.id = j.at("id").get<int>();
    r.flags = j.at("flags").get<std::vector<std::string>>();
    r.changes = j.at("changes").get<std::vector<std::string>>();
    r.run_dir = j.at("run_dir").get<std::string>();
    r.launcher = j.at("launcher").get<std::string>();
    r.job_id = j.at("job_id").get<std::string>();
    r.started_at = j.value("started_at", 0.0);
  } catch (const json::exception& e) {
    return fail(std::string("a launched line: ") + e.what());
  }
  return r;
}

}  // namespace

Journal::Journal(Journal&& other) noexcept
    : path_(std::move(other.path_)),
      fd_(other.fd_),
      previous_(std::move(other.previous_)),
      by_key_(std::move(other.by_key_)),
      in_flight_(std::move(other.in_flight_)),
      last_id_(other.last_id_),
      notes_(std::move(other.notes_)) {
  other.fd_ = -1;
}

Journal::~Journal() {
  if (fd_ >= 0)
    ::close(fd_);
}

Status Journal::open_for_append() {
  fd_ = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0)
    return fail(fmt::format("cannot open {}: {}", path_, std::strerror(errno)));
  return ok_status();
}

Result<Journal> Journal::create(const std::string& path, const json& header) {
  if (is_regular_file(path))
    return fail(fmt::format(
        "{} already holds a bisection; add --resume to continue it, or give another --out", path));
  Journal j;
  j.path_ = path;
  if (Status st = j.open_for_append(); !st)
    return st.error();
  if (Status st = write_line(j.fd_, header.dump() + "\n", path); !st)
    return st.error();
  return j;
}

Result<Journal> Journal::resume(const std::string& path, const json& header) {
  if (!is_regular_file(path))
    return create(path, header);
  auto text = read_file(path);
  if (!text)
    return text.error();
  Journal j;
  j.path_ = path;
  std::size_t start = 0;
  std::uint64_t number = 0;
  bool have_header = false;
  bool needs_newline = false;
  while (start < text->size()) {
    std::size_t end = text->find('\n', start);
    const bool torn = end == std::string::npos;  // the tool died while writing this line
    if (torn)
      end = text->size();
    const std::string line = text->substr(start, end - start);
    start = end + 1;
    ++number;
    if (line.empty())
      continue;
    const json parsed = json::parse(line, nullptr, false);
    if (parsed.is_discarded()) {
      if (start < text->size())
        return fail(fmt::format("{}:{}: not a JSON line; the journal is damaged", path, number));
      // The tool died while writing its last line: drop it, and cut it off so appends start
      // on a fresh line.
      j.notes_.push_back(fmt::format("{}:{}: an unfinished last line was dropped", path, number));
      if (::truncate(path.c_str(),
                     static_cast<off_t>(text->size() - line.size() - (torn ? 0 : 1))) != 0)
        return fail(fmt::format("cannot repair {}: {}", path, std::strerror(errno)));
      break;
    }
    needs_newline = torn;
    if (!have_header) {
      for (const auto& [key, value] : header.items()) {
        if (!parsed.contains(key) || parsed.at(key) != value)
          return fail(fmt::format(
              "{}: the journal is for another bisection ({} differs: journal {}, now {}); use "
              "another --out, or run it as it was",
              path, key, parsed.contains(key) ? parsed.at(key).dump() : "none", value.dump()));
      }
      have_header = true;
      continue;
    }
    if (parsed.is_object() && parsed.contains("launched")) {
      auto launched = launched_from_json(parsed.at("launched"));
      if (!launched)
        return fail(fmt::format("{}:{}: {}", path, number, launched.message()));
      j.last_id_ = std::max(j.last_id_, launched->id);
      j.in_flight_[configuration_key(launched->flags)] = std::move(*launched);
      continue;
    }
    auto record = experiment_from_json(parsed);
    if (!record)
      return fail(fmt::format("{}:{}: {}", path, number, record.message()));
    j.last_id_ = std::max(j.last_id_, record->id);
    j.by_key_[configuration_key(record->flags)] = j.previous_.size();
    j.previous_.push_back(std::move(*record));
  }
  if (!have_header)
    return fail(fmt::format("{}: no header line; the journal is damaged", path));
  for (const auto& [key, index] : j.by_key_)
    j.in_flight_.erase(key);  // finished after it was launched
  if (Status st = j.open_for_append(); !st)
    return st.error();
  if (needs_newline) {
    if (Status st = write_line(j.fd_, "\n", path); !st)
      return st.error();
  }
  return j;
}

Status Journal::append(const ExperimentRecord& record) {
  std::lock_guard lock(mutex_);
  last_id_ = std::max(last_id_, record.id);
  return write_line(fd_, to_json(record).dump() + "\n", path_);
}

Status Journal::append_launched(const ExperimentRecord& record) {
  std::lock_guard lock(mutex_);
  last_id_ = std::max(last_id_, record.id);
  const json line = {{"launched",
                      {{"id", record.id},
                       {"flags", record.flags},
                       {"changes", record.changes},
                       {"run_dir", record.run_dir},
                       {"launcher", record.launcher},
                       {"job_id", record.job_id},
                       {"started_at", record.started_at}}}};
  return write_line(fd_, line.dump() + "\n", path_);
}

const ExperimentRecord* Journal::in_flight(const std::string& key) const {
  auto it = in_flight_.find(key);
  return it == in_flight_.end() ? nullptr : &it->second;
}

const ExperimentRecord* Journal::find(const std::string& key) const {
  auto it = by_key_.find(key);
  return it == by_key_.end() ? nullptr : &previous_[it->second];
}

}  // namespace servescope
