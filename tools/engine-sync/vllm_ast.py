"""vLLM's `vllm serve` flags read statically from a wheel's source with Python's `ast`.

Scopes read: make_arg_parser (entrypoints/{openai,common,launchers}/cli_args.py), the
add_cli_args of every class in those files and in engine/arg_utils.py (EngineArgs,
AsyncEngineArgs, FrontendArgs, ...) and entrypoints/cli/serve.py. An add_argument call with
`**X_kwargs["field"]` (X_kwargs = get_kwargs(SomeConfig)) and the FrontendArgs loop over
`get_kwargs(cls).items()` take their kwargs from the dataclass field, following
arg_utils.py::_compute_kwargs: a nested dataclass is one JSON value; `bool | str | None` is an
optional value; a bool field is BooleanOptionalAction (--FLAG / --no-FLAG); Literal gives
choices; list/tuple/set give nargs '+'; anything else one value. Explicit keywords and the
`_customize_cli_kwargs` edits (`kw["f"]["nargs"] = ...`, `del kw["f"]["nargs"]`) win.
Type = the field's annotation text; default = its default's source text.
"""
from __future__ import annotations

import ast
import re
import zipfile

import ast_reader

CLI_FILES = ["engine/arg_utils.py", "entrypoints/openai/cli_args.py", "entrypoints/common/cli_args.py",
             "entrypoints/launchers/cli_args.py", "entrypoints/cli/serve.py", "scripts.py"]
SERVE_PARSER = "serve_parser"  # `serve_parser.add_argument(...)` in scripts.py / cli/serve.py
BOOL_ACTIONS = ("BooleanOptionalAction",)


class Source:
    """The wheel's vllm/*.py files, parsed on demand; classes and module constants by name."""

    def __init__(self, wheel: str):
        self.z = zipfile.ZipFile(wheel)
        self.names = [n for n in self.z.namelist() if n.startswith("vllm/") and n.endswith(".py")]
        self.trees: dict[str, ast.Module] = {}
        self.text: dict[str, str] = {}
        self.class_cache: dict[str, tuple[ast.ClassDef, str] | None] = {}
        self.const: dict[str, ast.AST] = {}
        for n in self.names:
            if n.startswith("vllm/config") or n[5:] in CLI_FILES:
                self.tree(n)

    def read(self, n: str) -> str:
        if n not in self.text:
            self.text[n] = self.z.read(n).decode("utf-8", "replace")
        return self.text[n]

    def tree(self, n: str) -> ast.Module | None:
        if n not in self.trees:
            try:
                t = ast.parse(self.read(n))
            except SyntaxError:
                t = None
            self.trees[n] = t
            if t is not None:
                for k, v in ast_reader.module_constants(t).items():
                    self.const.setdefault(k, v)
                for st in t.body:  # `X: TypeAlias = ...`, `type X = ...`
                    if hasattr(ast, "TypeAlias") and isinstance(st, getattr(ast, "TypeAlias")):
                        self.const.setdefault(st.name.id, st.value)
        return self.trees[n]

    def cls(self, name: str):
        if name in self.class_cache:
            return self.class_cache[name]
        if not hasattr(self, "class_index"):
            self.class_index: dict[str, list[str]] = {}
            pat = re.compile(r"^class (\w+)", re.M)
            for n in self.names:
                for m in pat.findall(self.read(n)):
                    self.class_index.setdefault(m, []).append(n)
        found = None
        files = sorted(self.class_index.get(name, []),
                       key=lambda n: (not (n.startswith("vllm/config") or n[5:] in CLI_FILES), n))
        for n in files:
            t = self.tree(n)
            if t is None:
                continue
            c = next((s for s in t.body if isinstance(s, ast.ClassDef) and s.name == name), None)
            if c is not None:
                found = (c, n)
                break
        self.class_cache[name] = found
        return found


def is_dataclass(c: ast.ClassDef) -> bool:
    for d in c.decorator_list:
        t = ast.unparse(d)
        if "dataclass" in t or t.split("(")[0].split(".")[-1] in ("config",):
            return True
    return False


class Field:
    def __init__(self, name, ann, default, doc):
        self.name, self.ann, self.default, self.doc = name, ann, default, doc


def class_fields(src: Source, name: str, depth: int = 0) -> dict[str, Field]:
    """Dataclass fields of `name`, base classes first."""
    hit = src.cls(name)
    if hit is None or depth > 5:
        return {}
    c, _ = hit
    out: dict[str, Field] = {}
    for b in c.bases:
        bn = ast.unparse(b).split(".")[-1].split("[")[0]
        out.update(class_fields(src, bn, depth + 1))
    body = c.body
    for i, st in enumerate(body):
        if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
            ann = ast.unparse(st.annotation)
            if ann.startswith("ClassVar") or ann.startswith("InitVar"):
                continue
            default = ""
            if st.value is not None:
                v = st.value
                if isinstance(v, ast.Call) and ast.unparse(v.func).split(".")[-1] in ("field", "Field"):
                    kw = {k.arg: k.value for k in v.keywords}
                    default = ast.unparse(kw["default"]) if "default" in kw else ast.unparse(v)
                else:
                    default = ast.unparse(v)
            doc = ""
            if i + 1 < len(body) and isinstance(body[i + 1], ast.Expr) and \
                    isinstance(body[i + 1].value, ast.Constant) and isinstance(body[i + 1].value.value, str):
                doc = body[i + 1].value.value.strip()
            out[st.target.id] = Field(st.target.id, st.annotation, default, doc)
    return out


def flatten(src: Source, node: ast.AST, depth: int = 0) -> list[ast.AST]:
    """The members of a union annotation, with aliases, Optional and Annotated resolved."""
    if depth > 8:
        return [node]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            return flatten(src, ast.parse(node.value, mode="eval").body, depth + 1)
        except SyntaxError:
            return [node]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return flatten(src, node.left, depth + 1) + flatten(src, node.right, depth + 1)
    if isinstance(node, ast.Subscript):
        base = ast.unparse(node.value).split(".")[-1]
        elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if base == "Optional":
            return flatten(src, elts[0], depth + 1) + [ast.Constant(None)]
        if base == "Union":
            return [m for e in elts for m in flatten(src, e, depth + 1)]
        if base == "Annotated":
            return flatten(src, elts[0], depth + 1)
        return [node]
    if isinstance(node, ast.Name) and node.id in src.const and src.cls(node.id) is None:
        v = src.const[node.id]
        if isinstance(v, (ast.Subscript, ast.BinOp, ast.Name)) or (
                isinstance(v, ast.Call) and ast.unparse(v.func).endswith("TypeAliasType")):
            if isinstance(v, ast.Call):
                v = v.args[1] if len(v.args) > 1 else v
            return flatten(src, v, depth + 1)
    return [node]


def head(n: ast.AST) -> str:
    if isinstance(n, ast.Constant):
        return "None" if n.value is None else repr(n.value)
    if isinstance(n, ast.Subscript):
        return ast.unparse(n.value).split(".")[-1]
    return ast.unparse(n).split(".")[-1]


def literal_values(src: Source, n: ast.AST) -> list[str]:
    out = []
    for m in flatten(src, n):
        if isinstance(m, ast.Subscript) and head(m) == "Literal":
            elts = m.slice.elts if isinstance(m.slice, ast.Tuple) else [m.slice]
            for e in elts:
                v = ast_reader.literal(e)
                out.append(str(v))
    return out


def field_kwargs(src: Source, f: Field) -> dict:
    """argparse kwargs of a dataclass field, as _compute_kwargs makes them (the parts we need)."""
    members = flatten(src, f.ann)
    heads = {head(m) for m in members}
    kw: dict = {"default": f.default, "help": f.doc, "annotation": ast.unparse(f.ann)}
    dataclass_member = any(src.cls(head(m)) is not None and is_dataclass(src.cls(head(m))[0])
                           for m in members if isinstance(m, (ast.Name, ast.Attribute)))
    if dataclass_member:
        return kw
    r = src.rules
    if r["optval"] and heads == {"bool", "str", "None"}:
        kw["nargs"] = "?"
        return kw
    if "bool" in heads:
        if r["bool"]:
            kw["action"] = "BooleanOptionalAction"
        return kw
    lits = literal_values(src, f.ann)
    if "Literal" in heads:
        if r["literal"]:
            kw["choices"] = lits
        return kw
    colls = ("tuple", "list", "Tuple", "List", "Sequence") + (("set", "Set") if r["set"] else ())
    for coll in colls:
        if coll in heads and r["list"]:
            kw["nargs"] = "+"
            m = next(m for m in members if head(m) == coll)
            if isinstance(m, ast.Subscript):
                inner = m.slice.elts[0] if isinstance(m.slice, ast.Tuple) else m.slice
                li = literal_values(src, inner)
                if li:
                    kw["choices"] = li
            return kw
    return kw


def kwarg_sources(scope: ast.AST) -> dict[str, str]:
    """Local names bound to get_kwargs(SomeClass) (or cls) in a scope."""
    out = {}
    for n in ast.walk(scope):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                and isinstance(n.value, ast.Call) and ast.unparse(n.value.func).split(".")[-1] == "get_kwargs" \
                and n.value.args:
            out[n.targets[0].id] = ast.unparse(n.value.args[0]).split(".")[-1]
    return out


def customizations(scopes: list[ast.AST]) -> dict[str, dict]:
    """kw["field"]["key"] = value / del kw["field"]["key"] edits: field -> {key: node or None}."""
    out: dict[str, dict] = {}
    for sc in scopes:
        for n in ast.walk(sc):
            targets = []
            if isinstance(n, ast.Assign):
                targets = [(t, n.value) for t in n.targets]
            elif isinstance(n, ast.Delete):
                targets = [(t, None) for t in n.targets]
            for t, v in targets:
                if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Subscript):
                    f = ast_reader.literal(t.value.slice)
                    k = ast_reader.literal(t.slice)
                    if isinstance(f, str) and isinstance(k, str):
                        out.setdefault(f, {})[k] = v
    return out


def record(opts, kw: dict, explicit: dict, dest: str, ann_fallback: dict[str, str]) -> dict:
    """An action record (the shape sglang_dump.py/ast_reader.py write)."""
    k = dict(kw)
    for key, node in explicit.items():
        k[key] = node
    action = k.get("action")
    aname = "_StoreAction"
    if isinstance(action, str):
        aname = action
    elif isinstance(action, ast.AST):
        aname = ast_reader.STORE0.get(ast_reader.literal(action), None) or ast.unparse(action).split(".")[-1]
    nargs = k.get("nargs")
    if isinstance(nargs, ast.AST):
        nargs = ast_reader.literal(nargs)
    default = k.get("default", "")
    if isinstance(default, ast.AST):
        default = ast.unparse(default)
    if default == "" and aname in ("_StoreTrueAction",):
        default = "False"
    choices = k.get("choices")
    if isinstance(choices, ast.AST):
        lit = ast_reader.literal(choices)
        choices = [str(x) for x in lit] if isinstance(lit, (list, tuple)) else None
    help_ = k.get("help", "")
    if isinstance(help_, ast.AST):
        help_ = ast_reader.string_of(help_)
    deprecated = k.get("deprecated")
    if isinstance(deprecated, ast.AST):
        deprecated = ast_reader.literal(deprecated)
    t = k.get("type")
    tname = ast.unparse(t).split(".")[-1] if isinstance(t, ast.AST) else t
    opts = list(opts)
    mro = [aname]
    if aname in BOOL_ACTIONS:
        opts += ["--no-" + o[2:] for o in opts if o.startswith("--")]
    if deprecated:
        mro.append("Deprecated")
    if choices:  # optional_type() appends None; aliases may repeat members
        choices = [c for i, c in enumerate(choices) if c != "None" and c not in choices[:i]]
    return dict(option_strings=opts, dest=dest, default=default, type=tname, choices=choices or None,
                choices_is_set=False, nargs=nargs, const=None, action=aname, mro=mro,
                help=help_[:400], annotation=k.get("annotation") or ann_fallback.get(dest), extra={})


class ServeCalls(ast.Module):
    """Only the serve_parser.add_argument calls of a function (scripts.py's main has others)."""

    def __init__(self, fn):
        super().__init__(body=[ast.Expr(c) for c in ast_reader.add_argument_calls(fn)
                               if isinstance(c.func.value, ast.Name) and c.func.value.id == SERVE_PARSER],
                         type_ignores=[])


def read(wheel: str) -> list[dict]:
    src = Source(wheel)
    # which of _compute_kwargs' rules this release has (0.8.4's nested get_kwargs has none of them)
    t = src.read("vllm/engine/arg_utils.py") if "vllm/engine/arg_utils.py" in src.names else ""
    src.rules = dict(
        bool='kwargs[name]["action"] = argparse.BooleanOptionalAction' in t,
        optval="{bool, str, type(None)}" in t,
        literal="contains_type(type_hints, Literal)" in t,
        list="contains_type(type_hints, list)" in t,
        set="contains_type(type_hints, set)" in t)
    scopes: list[ast.AST] = []
    custom_scopes: list[ast.AST] = []
    for rel in CLI_FILES:
        t = src.trees.get("vllm/" + rel)
        if t is None:
            continue
        for st in t.body:
            if isinstance(st, ast.FunctionDef) and st.name in ("make_arg_parser",):
                scopes.append(st)
            if isinstance(st, ast.ClassDef):
                for f in st.body:
                    if isinstance(f, ast.FunctionDef) and f.name == "add_cli_args":
                        scopes.append(f)
                    if isinstance(f, ast.FunctionDef) and f.name == "_customize_cli_kwargs":
                        custom_scopes.append(f)
    for rel in ("scripts.py", "entrypoints/cli/serve.py"):
        t = src.trees.get("vllm/" + rel)
        if t is None:
            continue
        for fn in ast.walk(t):
            if isinstance(fn, ast.FunctionDef) and fn.name in ("main", "subparser_init") and any(
                    isinstance(c.func.value, ast.Name) and c.func.value.id == SERVE_PARSER
                    for c in ast_reader.add_argument_calls(fn)):
                scopes.append(ServeCalls(fn))
    # dest -> annotation of EngineArgs / FrontendArgs fields, for explicit add_argument calls
    ann_fallback = {}
    for cname in ("EngineArgs", "AsyncEngineArgs", "FrontendArgs"):
        for n, f in class_fields(src, cname).items():
            ann_fallback.setdefault(n, ast.unparse(f.ann))
    edits = customizations(custom_scopes)
    rows = []
    for sc in scopes:
        owner = None
        kwsrc = kwarg_sources(sc)
        for name, cname in list(kwsrc.items()):
            if cname == "cls":  # FrontendArgs.add_cli_args: get_kwargs(cls)
                kwsrc[name] = "FrontendArgs" if src.cls("FrontendArgs") else owner
        loops = {}
        for n in ast.walk(sc):
            if isinstance(n, ast.For) and isinstance(n.iter, ast.Call) and \
                    isinstance(n.iter.func, ast.Attribute) and n.iter.func.attr == "items" and \
                    isinstance(n.iter.func.value, ast.Name) and n.iter.func.value.id in kwsrc:
                loops[id(n)] = n
        in_loop = set()
        for lp in loops.values():
            cname = kwsrc[lp.iter.func.value.id]
            for call in ast_reader.add_argument_calls(lp):
                in_loop.add(id(call))
                explicit = {k.arg: k.value for k in call.keywords if k.arg}
                for fname, f in class_fields(src, cname).items():
                    kw = field_kwargs(src, f)
                    for key, node in edits.get(fname, {}).items():
                        if node is None:
                            kw.pop(key, None)
                        else:
                            kw[key] = node
                    opt = "--" + fname.replace("_", "-")
                    rows.append(record([opt], kw, explicit, fname, ann_fallback))
        for call in ast_reader.add_argument_calls(sc):
            if id(call) in in_loop:
                continue
            opts = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            if not opts or not all(o.startswith("-") for o in opts):
                continue
            explicit = {k.arg: k.value for k in call.keywords if k.arg}
            kw = {}
            dstar = [k.value for k in call.keywords if k.arg is None]
            fname = None
            spread = []
            for d in dstar:  # **kw["field"] or **{**kw["field"], "default": None}
                if isinstance(d, ast.Dict):
                    for key, val in zip(d.keys, d.values):
                        if key is None:
                            spread.append(val)
                        elif isinstance(ast_reader.literal(key), str):
                            explicit.setdefault(ast_reader.literal(key), val)
                else:
                    spread.append(d)
            for d in spread:
                if isinstance(d, ast.Subscript) and isinstance(d.value, ast.Name) and d.value.id in kwsrc:
                    fname = ast_reader.literal(d.slice)
                    f = class_fields(src, kwsrc[d.value.id]).get(fname)
                    if f is not None:
                        kw = field_kwargs(src, f)
            longs = [o for o in opts if o.startswith("--")]
            dest = ast_reader.literal(explicit["dest"]) if "dest" in explicit else \
                (longs[0] if longs else opts[0]).lstrip("-").replace("-", "_")
            rows.append(record(opts, kw, explicit, dest, ann_fallback))
    return rows
