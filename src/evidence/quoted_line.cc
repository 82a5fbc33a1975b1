#include "evidence/quoted_line.h"

namespace servescope {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t';
}

std::string_view trim_left(std::string_view s) {
  while (!s.empty() && is_space(s.front()))
    s.remove_prefix(1);
  return s;
}

std::string_view trim_right(std::string_view s) {
  while (!s.empty() && is_space(s.back()))
    s.remove_suffix(1);
  return s;
}

// Whether text starts as an engine's log line does: a timestamp or rank in brackets, a process
// prefix in parentheses, a date, or a level. A bullet or an indent before anything else is the
// engine's own text (vLLM's " - leaked function …" lists, a traceback), not quoting.
bool starts_like_a_log_line(std::string_view s) {
  if (s.empty())
    return false;
  const char c = s.front();
  if (c == '[' || c == '(' || (c >= '0' && c <= '9'))
    return true;
  for (std::string_view level : {"INFO", "WARNING", "ERROR", "DEBUG", "CRITICAL"}) {
    if (s.substr(0, level.size()) == level)
      return true;
  }
  return false;
}

// One Markdown marker at the start: a blockquote ">", a bullet "- " "* " "+ ", an ordered item
// "12. ", a table cell "|". Returns the rest, or nullopt-like (the same view) when none.
bool strip_marker(std::string_view& s) {
  if (s.empty())
    return false;
  if (s.front() == '>' || s.front() == '|') {
    s = trim_left(s.substr(1));
    return true;
  }
  std::string_view rest;
  if ((s.front() == '-' || s.front() == '*' || s.front() == '+') && s.size() > 1 &&
      is_space(s[1])) {
    rest = trim_left(s.substr(2));
  } else {
    std::size_t digits = 0;
    while (digits < s.size() && digits < 4 && s[digits] >= '0' && s[digits] <= '9')
      ++digits;
    if (digits > 0 && digits + 1 < s.size() && s[digits] == '.' && is_space(s[digits + 1]))
      rest = trim_left(s.substr(digits + 2));
  }
  // A list item holds a quoted line only when a log line (or more quoting) follows it.
  if (rest.empty() || !(starts_like_a_log_line(rest) || rest.front() == '`' ||
                        rest.front() == '>' || rest.front() == '|'))
    return false;
  s = rest;
  return true;
}

}  // namespace

std::string_view unquote_log_line(std::string_view line) {
  std::string_view s = trim_left(line);
  if (s.empty())
    return line;
  const char first = s.front();
  // Only lines that start with a quoting mark are touched: an engine's own line starts with
  // its prefix ("[2025-…", "(APIServer …", "INFO …"), never with one of these.
  if (first != '>' && first != '|' && first != '-' && first != '*' && first != '+' &&
      first != '`' && !(first >= '0' && first <= '9' && s.find(". ") < 5))
    return line.size() - s.size() >= 4 && starts_like_a_log_line(s) ? s : line;  // a code block
  bool table = first == '|';
  int stripped = 0;
  while (stripped < 8 && strip_marker(s))
    ++stripped;
  if (stripped == 0 && first != '`')
    return line;  // a bullet or a number the engine printed itself
  s = trim_right(s);
  if (table && !s.empty() && s.back() == '|')
    s = trim_right(s.substr(0, s.size() - 1));
  // An inline code span: `…` around the whole line (or what is left of it).
  if (s.size() >= 2 && s.front() == '`' && s.back() == '`') {
    s.remove_prefix(1);
    s.remove_suffix(1);
  } else if (!s.empty() && s.front() == '`') {
    s.remove_prefix(1);
  }
  return s.empty() ? line : s;
}

}  // namespace servescope
