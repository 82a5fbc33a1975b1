#include "intake/shell_words.h"

#include <fmt/format.h>

namespace servescope {
namespace {

class Splitter {
 public:
  explicit Splitter(std::string_view text) : t_(text) {}

  Result<std::vector<ShellCommand>> run() {
    while (i_ < t_.size()) {
      const char c = t_[i_];
      if (c == '\\') {
        if (peek(1) == '\n') {  // a continuation: the two characters vanish
          i_ += 2;
          ++line_;
        } else if (peek(1) == '\r' && peek(2) == '\n') {
          i_ += 3;
          ++line_;
        } else {
          if (i_ + 1 < t_.size())
            add(t_[i_ + 1]);
          i_ += 2;
        }
      } else if (c == '\'') {
        if (Status s = single_quoted(); !s)
          return s.error();
      } else if (c == '"') {
        if (Status s = double_quoted(); !s)
          return s.error();
      } else if (c == '$' && (peek(1) == '(' || peek(1) == '{')) {
        if (Status s = substitution(); !s)
          return s.error();
      } else if (c == '`') {
        if (Status s = backquoted(); !s)
          return s.error();
      } else if (c == '#' && !in_word_) {
        while (i_ < t_.size() && t_[i_] != '\n')
          ++i_;
      } else if (c == '\n') {
        end_word();
        end_command("\n");
        ++line_;
        ++i_;
      } else if (c == ' ' || c == '\t' || c == '\r') {
        end_word();
        ++i_;
      } else if (c == '<' || c == '>' || (c == '&' && peek(1) == '>')) {
        redirection();
      } else if (c == '|' || c == '&' || c == ';') {
        end_word();
        std::string op(1, c);
        if ((c == '|' || c == '&' || c == ';') && peek(1) == c)
          op += c;
        else if (c == '|' && peek(1) == '&')
          op += '&';
        i_ += op.size();
        end_command(op);
      } else {
        add(c);
        ++i_;
      }
    }
    end_word();
    end_command("");
    return std::move(commands_);
  }

 private:
  char peek(std::size_t ahead) const { return i_ + ahead < t_.size() ? t_[i_ + ahead] : '\0'; }

  void add(char c) {
    if (!in_word_ && cur_.words.empty())
      cur_.line = line_;
    cur_word_ += c;
    in_word_ = true;
  }

  void end_word() {
    if (!in_word_)
      return;
    if (drop_next_word_) {
      drop_next_word_ = false;  // a redirection's target
    } else {
      cur_.words.push_back(std::move(cur_word_));
    }
    cur_word_.clear();
    in_word_ = false;
  }

  void end_command(std::string terminator) {
    drop_next_word_ = false;
    if (!cur_.words.empty()) {
      cur_.terminator = std::move(terminator);
      commands_.push_back(std::move(cur_));
    }
    cur_ = ShellCommand{};
  }

  // > >> >| >& < << <& <> &> &>>: drop the operator, an fd number written before it ("2>")
  // and the target word after it ("2>&1", "> server.log").
  void redirection() {
    if (in_word_) {
      bool digits = !cur_word_.empty();
      for (char d : cur_word_)
        digits = digits && d >= '0' && d <= '9';
      if (digits) {
        cur_word_.clear();
        in_word_ = false;
      } else {
        end_word();
      }
    }
    if (t_[i_] == '&')
      ++i_;
    const char dir = t_[i_++];
    if (i_ < t_.size() &&
        (t_[i_] == dir || t_[i_] == '&' || t_[i_] == '|' || (dir == '<' && t_[i_] == '>')))
      ++i_;
    drop_next_word_ = true;
  }

  Status single_quoted() {
    const int opened = line_;
    mark_word();
    ++i_;
    while (i_ < t_.size() && t_[i_] != '\'') {
      if (t_[i_] == '\n')
        ++line_;
      cur_word_ += t_[i_++];
    }
    if (i_ >= t_.size())
      return fail(fmt::format("line {}: a single quote is never closed", opened));
    ++i_;
    return ok_status();
  }

  Status double_quoted() {
    const int opened = line_;
    mark_word();
    ++i_;
    while (i_ < t_.size() && t_[i_] != '"') {
      const char c = t_[i_];
      if (c == '\\' && i_ + 1 < t_.size()) {
        const char n = t_[i_ + 1];
        if (n == '\n') {
          ++line_;
        } else if (n == '$' || n == '`' || n == '"' || n == '\\') {
          cur_word_ += n;
        } else {
          cur_word_ += c;
          cur_word_ += n;
        }
        i_ += 2;
        continue;
      }
      if (c == '\n')
        ++line_;
      cur_word_ += c;
      ++i_;
    }
    if (i_ >= t_.size())
      return fail(fmt::format("line {}: a double quote is never closed", opened));
    ++i_;
    return ok_status();
  }

  // $( ... ) and ${ ... } are kept as typed, spaces included: their value is not ours to know.
  Status substitution() {
    const int opened = line_;
    const char open = t_[i_ + 1];
    const char close = open == '(' ? ')' : '}';
    mark_word();
    cur_word_ += t_[i_++];
    int depth = 0;
    while (i_ < t_.size()) {
      const char c = t_[i_++];
      cur_word_ += c;
      if (c == '\n')
        ++line_;
      if (c == open) {
        ++depth;
      } else if (c == close && --depth == 0) {
        return ok_status();
      }
    }
    return fail(fmt::format("line {}: '${}' is never closed", opened, open));
  }

  Status backquoted() {
    const int opened = line_;
    mark_word();
    cur_word_ += t_[i_++];
    while (i_ < t_.size() && t_[i_] != '`') {
      if (t_[i_] == '\n')
        ++line_;
      cur_word_ += t_[i_++];
    }
    if (i_ >= t_.size())
      return fail(fmt::format("line {}: a backquote is never closed", opened));
    cur_word_ += t_[i_++];
    return ok_status();
  }

  void mark_word() {
    if (!in_word_ && cur_.words.empty())
      cur_.line = line_;
    in_word_ = true;  // '' is an empty word, not nothing
  }

  std::string_view t_;
  std::size_t i_ = 0;
  int line_ = 1;
  bool in_word_ = false;
  bool drop_next_word_ = false;
  std::string cur_word_;
  ShellCommand cur_;
  std::vector<ShellCommand> commands_;
};

}  // namespace

Result<std::vector<ShellCommand>> split_shell_commands(std::string_view text) {
  return Splitter(text).run();
}

Result<std::vector<std::string>> split_shell_words(std::string_view text) {
  auto commands = split_shell_commands(text);
  if (!commands)
    return commands.error();
  if (commands->empty())
    return std::vector<std::string>{};
  return std::move(commands->front().words);
}

std::string shell_quote(std::string_view word) {
  if (word.empty())
    return "''";
  bool plain = true;
  for (char c : word) {
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '_' || c == '.' || c == '/' || c == ':' || c == '=' ||
                      c == ',' || c == '+' || c == '@' || c == '%';
    plain = plain && safe;
  }
  if (plain)
    return std::string(word);
  std::string out = "'";
  for (char c : word) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

}  // namespace servescope
