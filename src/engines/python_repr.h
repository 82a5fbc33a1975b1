// Reading what Python prints: `repr()` of a dataclass (`ServerArgs(model_path='x', tp_size=4,
// ...)`) and of the literals inside it. Engines print their resolved arguments this way
// (SGLang's `server_args=ServerArgs(...)`, vLLM's non-default args dict).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engines/log_grammar.h"

namespace servescope {

/// `Name(k=v, ...)` as read from a log line.
struct PythonCall {
  std::string type;  // "ServerArgs"
  /// Keyword arguments in order. Values: None → none, True/False → bool, ints, floats,
  /// 'strings' (escapes decoded), lists or tuples of ints → int list; anything else (nested
  /// objects, dicts, other lists, enum reprs) → its repr text. The fields of a nested object
  /// or of a dict with string keys follow their parent, flattened with dots:
  /// `cuda_graph_config.decode.max_bs`.
  std::vector<Field> fields;
  bool elided = false;     // "[...]" or "..." stood for omitted fields
  bool complete = false;   // the closing parenthesis was reached (false: the text was cut)
  bool malformed = false;  // some part could not be read and was skipped
};

/// Parses the call starting at the first `Name(` of `text`. Never fails: a cut or damaged
/// text yields the fields before the damage, and the flags say what happened.
PythonCall parse_python_call(std::string_view text);

/// The dict starting at the first `{` of `text` (vLLM's "non-default args: {...}"): each
/// string key is a field, in order, with values and flattening as in PythonCall (`type` is "").
PythonCall parse_python_dict(std::string_view text);

/// One Python literal (`None`, `True`, `12`, `0.85`, `'x'`, `[1, 2]`), as in PythonCall.
Value parse_python_literal(std::string_view text);

}  // namespace servescope
