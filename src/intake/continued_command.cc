#include "intake/continued_command.h"

namespace servescope {
namespace {

constexpr std::size_t kMaxCommandBytes = 64 * 1024;

std::string_view trim_right(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

}  // namespace

bool ContinuedCommand::continues(std::string_view line) {
  line = trim_right(line);
  return !line.empty() && line.back() == '\\';
}

bool ContinuedCommand::start(std::string_view line, std::uint64_t number) {
  text_.assign(trim_right(line));
  first_line_ = number;
  pending_ = continues(line);
  return pending_;
}

bool ContinuedCommand::add(std::string_view line) {
  // The shell joins "\<newline>" away; trailing blanks after the backslash are a copy-paste
  // artefact, so the backslash is kept as the last character of each line.
  text_ += '\n';
  text_.append(trim_right(line));
  pending_ = continues(line) && text_.size() <= kMaxCommandBytes;
  return pending_;
}

std::string ContinuedCommand::take() {
  pending_ = false;
  return std::move(text_);
}

}  // namespace servescope
