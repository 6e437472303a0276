# Type stubs for croqjit._croqjit, the nanobind extension (python/src).
from typing import Any, Mapping, Optional, Sequence, Tuple, Union

__version__: str

class Error(Exception):
    """Base class of every croqjit error."""

class CompileError(Error):
    """The source did not compile; str() shows each problem with a caret."""

    diagnostics: list[Diagnostic]
    source_name: str
    json: str

class ArgumentError(Error):
    """A kernel was called with arguments that do not fit its signature, or compile(),
    TensorSpec or a call was given an option it cannot take."""

class CudaError(Error):
    """A CUDA driver call failed, or no driver is present."""

    call: str
    code: int

class CacheError(Error):
    """The on-disk kernel cache could not be used."""

class Diagnostic:
    """One message about the source; str() renders the line and a caret."""

    @property
    def severity(self) -> str: ...
    @property
    def message(self) -> str: ...
    @property
    def line(self) -> int: ...
    @property
    def column(self) -> int: ...
    @property
    def length(self) -> int: ...
    @property
    def hint(self) -> str: ...

class ParamInfo:
    """A parameter of the kernel's __co__ function, as declared."""

    @property
    def name(self) -> str: ...
    @property
    def is_tensor(self) -> bool: ...
    @property
    def type(self) -> str: ...
    @property
    def rank(self) -> int: ...
    @property
    def dynamic(self) -> Tuple[bool, ...]: ...

class CallInfo:
    """What a call with a given argument signature returns and writes."""

    @property
    def has_result(self) -> bool: ...
    @property
    def result_dtype(self) -> Optional[str]: ...
    @property
    def result_shape(self) -> Optional[Tuple[int, ...]]: ...
    @property
    def result_extent_sources(self) -> Optional[Tuple[Tuple[int, int], ...]]: ...
    @property
    def written(self) -> Tuple[bool, ...]: ...

class TensorSpec:
    """A tensor described by dtype and shape only, for Kernel.prepare."""

    def __init__(self, shape: Sequence[int], dtype: Any, device: Optional[int] = None) -> None: ...
    @property
    def shape(self) -> Tuple[int, ...]: ...
    @property
    def dtype(self) -> str: ...
    @property
    def device(self) -> Optional[int]: ...

class SpecializationStats:
    """One argument signature of a kernel: where its images came from and why it compiled."""

    @property
    def signature(self) -> str: ...
    @property
    def arch(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def reason(self) -> str: ...
    @property
    def compile_ms(self) -> float: ...
    @property
    def specialize_ms(self) -> float: ...
    @property
    def images(self) -> int: ...
    @property
    def images_compiled(self) -> int: ...

class KernelStats:
    """A kernel's specializations so far, and totals."""

    @property
    def specializations(self) -> list[SpecializationStats]: ...
    @property
    def memory(self) -> int: ...
    @property
    def disk(self) -> int: ...
    @property
    def remote(self) -> int: ...
    @property
    def compiled(self) -> int: ...
    @property
    def nvrtc_compiles(self) -> int: ...
    @property
    def compile_ms(self) -> float: ...

class Kernel:
    """A compiled Croqtile function; call it with tensors and scalars."""

    def __call__(self, *args: Any, stream: Any = None, peer_access: bool = False) -> Any: ...
    def prepare(self, *args: Any, stream: Any = None, peer_access: bool = False) -> CallInfo: ...
    def stats(self) -> KernelStats: ...
    @property
    def name(self) -> str: ...
    @property
    def params(self) -> list[ParamInfo]: ...
    @property
    def returns_tensor(self) -> bool: ...

def compile(
    source: str,
    *,
    entry: Optional[str] = None,
    defines: Optional[Mapping[str, Union[int, float]]] = None,
    arch: Optional[str] = None,
    dynamic_dims: Union[str, Sequence[str], None] = None,
    source_name: Optional[str] = None,
    debug_line_info: bool = False,
) -> Kernel: ...
def precompile(
    source: str,
    signatures: Sequence[Sequence[Any]],
    *,
    archs: Optional[Sequence[str]] = None,
    entry: Optional[str] = None,
    defines: Optional[Mapping[str, Union[int, float]]] = None,
    dynamic_dims: Union[str, Sequence[str], None] = None,
    source_name: Optional[str] = None,
    debug_line_info: bool = False,
) -> KernelStats: ...
def cuda_available() -> bool: ...
def device_count() -> int: ...
def can_access_peer(a: int, b: int) -> bool: ...
def enable_peer_access(a: int, b: int) -> None: ...
def cuda_unavailable_reason() -> str: ...
