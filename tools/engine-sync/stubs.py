"""Import stand-ins for the engine-sync flag readers (adapted from the research oracle scripts, docs/research/oracle-sglang-verified.md):
inert stub modules (torchvision and the like) and SGLang's own triton stub run on Linux without triton."""
import importlib.abc, importlib.machinery, sys, types

class _StubMeta(type):
    """Stub classes answer any attribute with another stub class (enum members, nested names)."""
    def __getattr__(cls, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        v = _StubMeta(attr, (_StubBase,), {"__module__": cls.__module__})
        setattr(cls, attr, v)
        return v


class _StubBase(metaclass=_StubMeta):
    def __init__(self, *a, **k):
        pass

    def __call__(self, *a, **k):
        return _StubBase()

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        return _StubBase()

class StubModule(types.ModuleType):
    """Module whose every attribute is a child stub (CamelCase -> stub class)."""
    def __init__(self, name):
        super().__init__(name)
        self.__path__ = []
        self.__spec__ = importlib.machinery.ModuleSpec(name, None, is_package=True)
    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        full = f"{self.__name__}.{attr}"
        if full in sys.modules:
            return sys.modules[full]
        if attr[:1].isupper():
            v = _StubMeta(attr, (_StubBase,), {"__module__": self.__name__})
        else:
            v = StubModule(full); sys.modules[full] = v
        setattr(self, attr, v)
        return v
    def __call__(self, *a, **k):
        if len(a) == 1 and callable(a[0]) and not k:
            return a[0]
        return lambda fn: fn

class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, roots, versions=None):
        self.roots = set(roots)
        self.versions = versions or {}
    def find_spec(self, fullname, path=None, target=None):
        if any(fullname == r or fullname.startswith(r + ".") for r in self.roots):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None
    def create_module(self, spec):
        m = StubModule(spec.name)
        if spec.name in self.versions:
            m.__version__ = self.versions[spec.name]
            m.__file__ = f"<stub {spec.name}>"
        return m
    def exec_module(self, module):
        pass

class _NativeModule(types.ModuleType):
    """A compiled extension's stand-in: every attribute is a function that returns None."""
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return lambda *a, **k: None


class _NativeFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, matches):
        self.matches = matches
    def find_spec(self, name, path=None, target=None):
        return importlib.machinery.ModuleSpec(name, self) if self.matches(name) else None
    def create_module(self, spec):
        return _NativeModule(spec.name)
    def exec_module(self, module):
        pass

def install_native_stubs(matches):
    """Answer `import NAME` for every NAME that matches(NAME) (an engine wheel's compiled
    extensions, which need CUDA) with a module whose functions return None; the Python
    around them stays the release's own."""
    sys.meta_path.insert(0, _NativeFinder(matches))


def install_stub_modules(roots, versions=None):
    """Make `import ROOT[.anything]` succeed with inert stubs (only if ROOT is not installed).
    versions={'torchvision': '0.28.0'} gives the root a __version__/__file__, so that
    transformers' availability probe (find_spec, then import + __version__) says 'available'."""
    import importlib.util
    missing = [r for r in roots if r not in sys.modules and importlib.util.find_spec(r) is None]
    if missing:
        sys.meta_path.insert(0, _Finder(missing, versions))
    return missing


def install_sglang_triton_stub(sglang_pkg_dir):
    """Use SGLang's own macOS triton stub (sglang/_platform_stubs.py) on Linux, without triton.
    Loads the file standalone (not via `import sglang`, whose __init__ already needs triton) and
    runs install_platform_stubs() with the darwin/arm64/MPS checks satisfied, then undoes the
    MPS-only side effects (torch.Tensor.to/copy_ wrappers)."""
    import importlib.util, os, platform
    if importlib.util.find_spec("triton") is not None:
        return False
    import torch
    # 0.5.1x: sglang/_triton_stub.py has an unconditional install()
    override = os.environ.get("SG_ORACLE_TRITON_STUB")  # path to another release's stub file
    path = override or os.path.join(sglang_pkg_dir, "_triton_stub.py")
    if os.path.exists(path) and os.path.basename(path) == "_triton_stub.py":
        spec = importlib.util.spec_from_file_location("_sglang_triton_stub_copy", path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod
        spec.loader.exec_module(mod)
        mod.install()
        return "triton" in sys.modules
    # 0.5.2x: sglang/_platform_stubs.py, gated on darwin/arm64/MPS
    path = override or os.path.join(sglang_pkg_dir, "_platform_stubs.py")
    if not os.path.exists(path):
        raise RuntimeError("this sglang ships no triton stub: pip install triton, "
                           "or set SG_ORACLE_TRITON_STUB to a copy of sglang 0.5.23 _platform_stubs.py")
    spec = importlib.util.spec_from_file_location("_sglang_platform_stubs_copy", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    saved = (sys.platform, platform.machine, torch.backends.mps.is_available,
             torch.Tensor.to, torch.Tensor.copy_)
    try:
        mod.sys.platform = "darwin"
        mod.platform.machine = lambda: "arm64"
        torch.backends.mps.is_available = lambda: True
        mod.install_platform_stubs()
    finally:
        sys.platform = saved[0]
        platform.machine = saved[1]
        torch.backends.mps.is_available = saved[2]
        torch.Tensor.to, torch.Tensor.copy_ = saved[3], saved[4]
    return "triton" in sys.modules


def install_subtree_stubs(prefixes):
    """Answer `import P[.anything]` for each package P (installed, but needing a GPU runtime
    when imported, e.g. flashinfer.comm's module-level libcudart handle) with inert stubs."""
    sys.meta_path.insert(0, _Finder(prefixes))


# GPU-DSL packages the CUDA wheels require (CuTe-DSL router GEMMs, GDN chunk kernels, humming
# quantized kernels, ...), not installed on this CPU machine.
DSL_PACKAGES = ("cutlass", "quack", "tilelang", "tokenspeed_mla", "humming")


def stub_dsl_kernel_modules(src):
    """The release's Python kernel modules written in a GPU DSL (a top-level `import cutlass` /
    quack / tilelang / humming ...) are inert stub modules, like the compiled extensions: the code
    around them is the release's own. Returns the stubbed module names."""
    import glob
    import importlib.util
    import os
    import re
    missing = [p for p in DSL_PACKAGES if importlib.util.find_spec(p.split(".")[0]) is None]
    if not missing:
        return []
    pat = re.compile(r"^(?:import|from)\s+(%s)\b" % "|".join(re.escape(p) for p in missing), re.M)
    names = []
    root = os.path.join(src, "vllm")
    for path in sorted(glob.glob(os.path.join(root, "**", "*.py"), recursive=True)):
        with open(path, errors="replace") as f:
            if not pat.search(f.read()):
                continue
        rel = os.path.relpath(path, src)[:-3].replace(os.sep, ".")
        names.append(rel[: -len(".__init__")] if rel.endswith(".__init__") else rel)
    install_subtree_stubs(names)
    return names
