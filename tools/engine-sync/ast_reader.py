"""Read argparse `add_argument` calls from an engine's source with Python's `ast` (no import).

The same action records as the import route (sglang_dump.py), so that flags.py writes both the
same way. Only literal values are evaluated; a keyword whose value is an expression is kept as
its source text (`default=ServerArgs.port` becomes the field's default in the class body).
"""
from __future__ import annotations

import ast

STORE0 = {"store_true": "_StoreTrueAction", "store_false": "_StoreFalseAction",
          "store_const": "_StoreConstAction", "count": "_CountAction",
          "append": "_AppendAction", "append_const": "_AppendConstAction",
          "store": "_StoreAction", "extend": "_ExtendAction"}


def literal(node):
    try:
        return ast.literal_eval(node)
    except Exception:  # noqa: BLE001 - not a literal
        return None


def string_of(node) -> str:
    """A help text: literal strings, implicit/explicit concatenation; f-string holes as {...}."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{...}" for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return string_of(node.left) + string_of(node.right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        return string_of(node.func.value)
    return ""


class ClassFields:
    """Annotations and defaults of the dataclass fields of one class body."""

    def __init__(self, cls: ast.ClassDef | None):
        self.ann: dict[str, str] = {}
        self.default: dict[str, str] = {}
        if cls is None:
            return
        for st in cls.body:
            if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
                name = st.target.id
                self.ann[name] = ast.unparse(st.annotation)
                if st.value is None:
                    continue
                v = st.value
                if isinstance(v, ast.Call) and ast.unparse(v.func).split(".")[-1] == "field":
                    kw = {k.arg: k.value for k in v.keywords}
                    if "default" in kw:
                        v = kw["default"]
                self.default[name] = ast.unparse(v)


def module_constants(tree: ast.Module) -> dict[str, ast.AST]:
    out = {}
    for st in tree.body:
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
            out[st.targets[0].id] = st.value
        elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.value is not None:
            out[st.target.id] = st.value
    return out


def find_class(tree: ast.Module, name: str) -> ast.ClassDef | None:
    for st in ast.walk(tree):
        if isinstance(st, ast.ClassDef) and st.name == name:
            return st
    return None


def find_function(node: ast.AST, name: str):
    for st in ast.walk(node):
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)) and st.name == name:
            return st
    return None


def add_argument_calls(scope: ast.AST):
    for n in ast.walk(scope):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "add_argument":
            yield n


def read_actions(source: str, class_name: str, func_name: str, fields: ClassFields | None = None,
                 extra_scopes: list[ast.AST] | None = None):
    """Action records for every add_argument call in class_name.func_name (plus extra scopes)."""
    tree = ast.parse(source)
    cls = find_class(tree, class_name)
    fields = fields or ClassFields(cls)
    consts = module_constants(tree)
    scope = find_function(cls, func_name) if cls is not None else None
    scopes = [scope if scope is not None else tree] + (extra_scopes or [])
    rows = []
    for sc in scopes:
        for call in add_argument_calls(sc):
            rec = action_record(call, fields, consts, class_name)
            if rec is not None:
                rows.append(rec)
    return rows


def action_record(call: ast.Call, fields: ClassFields, consts: dict, class_name: str):
    opts = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    if not opts or not all(o.startswith("-") for o in opts):
        return None  # positional or computed option strings
    kw = {k.arg: k.value for k in call.keywords if k.arg}
    action = kw.get("action")
    aname, mro = "_StoreAction", []
    if action is not None:
        if isinstance(action, ast.Constant):
            aname = STORE0.get(action.value, action.value)
        else:
            aname = ast.unparse(action).split(".")[-1]
        mro = [aname]
    longs = [o for o in opts if o.startswith("--")]
    dest = literal(kw["dest"]) if "dest" in kw else (longs[0] if longs else opts[0]).lstrip("-").replace("-", "_")
    if "BooleanOptional" in aname:  # argparse adds the --no- spellings itself
        opts = opts + ["--no-" + o[2:] for o in longs]
    if "default" in kw:
        d = kw["default"]
        txt = ast.unparse(d)
        if (isinstance(d, ast.Attribute) and isinstance(d.value, ast.Name)
                and d.value.id == class_name and d.attr in fields.default):
            txt = fields.default[d.attr]
        default = txt
    else:
        default = {"_StoreTrueAction": "False", "_StoreFalseAction": "True"}.get(aname, "None")
        if "BooleanOptional" in aname or "StoreTrue" in aname:
            default = "False" if "StoreTrue" in aname else "None"
    choices = None
    if "choices" in kw:
        c = kw["choices"]
        if isinstance(c, ast.Name) and c.id in consts:
            c = consts[c.id]
        lit = literal(c)
        if isinstance(lit, (list, tuple, set, frozenset)):
            choices = [str(x) for x in (sorted(lit, key=str) if isinstance(lit, (set, frozenset)) else lit)]
        elif isinstance(lit, dict):
            choices = [str(x) for x in lit]
    nargs = literal(kw["nargs"]) if "nargs" in kw else None
    t = kw.get("type")
    tname = None if t is None else ast.unparse(t).split(".")[-1]
    return dict(option_strings=opts, dest=dest, default=default, type=tname, choices=choices,
                choices_is_set=False, nargs=nargs, const=None, action=aname, mro=mro,
                help=string_of(kw["help"])[:400] if "help" in kw else "",
                annotation=fields.ann.get(dest), extra={})
