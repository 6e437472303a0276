#include "jit/tensor_map.hpp"

#include <atomic>
#include <mutex>
#include <shared_mutex>
#include <sstream>
#include <stdexcept>
#include <type_traits>
#include <unordered_map>

#include "croq/error.hpp"
#include "jit/driver.hpp"
#include "support/hash.hpp"

namespace croq::jit {
namespace {

using u128 = unsigned __int128;

constexpr int kMaxRank = 5;
constexpr std::uint64_t kMaxDimExtent = std::uint64_t{1} << 32;
constexpr std::uint64_t kStrideLimitBytes = std::uint64_t{1} << 40;
constexpr std::uint32_t kMaxBoxExtent = 256;
constexpr std::size_t kCacheLimit = 4096;

// Accumulates one message: `what`, then the text streamed into it.
class Failure {
 public:
  explicit Failure(const TensorMapSpec& spec) {
    out_ << (spec.what.empty() ? std::string("TMA tensor map") : spec.what) << ": ";
  }
  template <typename T> Failure& operator<<(const T& v) {
    out_ << v;
    return *this;
  }
  Failure& operator<<(u128 v) {
    std::string digits;
    do {
      digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
      v /= 10;
    } while (v != 0);
    out_ << digits;
    return *this;
  }
  [[noreturn]] void raise() const { throw ArgumentError(out_.str()); }

 private:
  std::ostringstream out_;
};

bool tma_data_type(DType t, CUtensorMapDataType& out) {
  switch (t) {
    // Sub-byte types take a byte per element in memory: TMA moves them as bytes.
    case DType::u8: case DType::s8: case DType::f8_e4m3: case DType::f8_e5m2:
    case DType::f6_e2m3: case DType::f6_e3m2: case DType::f4_e2m1: case DType::u6: case DType::s6:
    case DType::u4: case DType::s4: case DType::u2: case DType::s2: case DType::u1: case DType::bin1:
    case DType::f8_ue8m0: case DType::f8_ue4m3:
      out = CU_TENSOR_MAP_DATA_TYPE_UINT8; return true;
    // tf32 moves as its 32 bits, untouched (as the other storage types move as bytes).
    case DType::tf32: out = CU_TENSOR_MAP_DATA_TYPE_UINT32; return true;
    case DType::u16: case DType::s16: out = CU_TENSOR_MAP_DATA_TYPE_UINT16; return true;
    case DType::f16: out = CU_TENSOR_MAP_DATA_TYPE_FLOAT16; return true;
    case DType::bf16: out = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16; return true;
    case DType::u32: out = CU_TENSOR_MAP_DATA_TYPE_UINT32; return true;
    case DType::s32: out = CU_TENSOR_MAP_DATA_TYPE_INT32; return true;
    case DType::f32: out = CU_TENSOR_MAP_DATA_TYPE_FLOAT32; return true;
    case DType::u64: out = CU_TENSOR_MAP_DATA_TYPE_UINT64; return true;
    case DType::s64: out = CU_TENSOR_MAP_DATA_TYPE_INT64; return true;
    case DType::f64: out = CU_TENSOR_MAP_DATA_TYPE_FLOAT64; return true;
  }
  return false;
}

bool tma_swizzle(int bytes, CUtensorMapSwizzle& out) {
  switch (bytes) {
    case 0: out = CU_TENSOR_MAP_SWIZZLE_NONE; return true;
    case 32: out = CU_TENSOR_MAP_SWIZZLE_32B; return true;
    case 64: out = CU_TENSOR_MAP_SWIZZLE_64B; return true;
    case 128: out = CU_TENSOR_MAP_SWIZZLE_128B; return true;
  }
  return false;
}

// Checks every rule while converting, so validate() and encode_args() cannot
// disagree. Dimension numbers in messages are Croqtile's (outermost first).
EncodeArgs convert(const TensorMapSpec& spec) {
  EncodeArgs a{};
  const std::size_t rank = spec.dims.size();
  if (rank < 1 || rank > kMaxRank)
    (Failure(spec) << "TMA tensors must have rank 1.." << kMaxRank << ", got rank " << rank).raise();
  if (spec.box.size() != rank)
    (Failure(spec) << "the TMA box has " << spec.box.size() << " extents for a rank-" << rank
                   << " tensor; it needs one a dimension").raise();
  if (!spec.strides.empty() && spec.strides.size() != rank)
    (Failure(spec) << spec.strides.size() << " strides given for a rank-" << rank
                   << " tensor; give one a dimension, or none for dense row-major").raise();
  if (!tma_data_type(spec.dtype, a.dtype))
    (Failure(spec) << "element type #" << static_cast<int>(spec.dtype)
                   << " is not supported by TMA").raise();
  const std::uint64_t esize = dtype_size(spec.dtype);

  const auto address = reinterpret_cast<std::uintptr_t>(spec.base);
  if (address == 0) (Failure(spec) << "the TMA base address is null").raise();
  if (address % 16 != 0)
    (Failure(spec) << "the TMA base address 0x" << std::hex << address << std::dec
                   << " is not 16-byte aligned").raise();

  if (!tma_swizzle(spec.swizzle_bytes, a.swizzle))
    (Failure(spec) << "TMA swizzle must be 0, 32, 64 or 128 bytes, got "
                   << spec.swizzle_bytes).raise();

  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t d = spec.dims[i];
    if (d < 1 || static_cast<std::uint64_t>(d) > kMaxDimExtent)
      (Failure(spec) << "dim " << i << " has extent " << d
                     << "; TMA dims must be 1..2^32").raise();
  }

  // Strides in elements, outermost first. Checked innermost-out, so a dense
  // stride is computed only from inner strides already known to be < 2^40
  // bytes (and so cannot overflow 128 bits).
  const bool dense = spec.strides.empty();
  const std::int64_t innermost = dense ? 1 : spec.strides[rank - 1];
  if (innermost != 1)
    (Failure(spec) << "the innermost stride (dim " << rank - 1 << ") is " << innermost
                   << " elements; TMA needs the innermost dimension contiguous (stride 1)").raise();
  u128 stride_elems[kMaxRank] = {};
  stride_elems[rank - 1] = 1;
  for (std::size_t i = rank - 1; i-- > 0;) {
    if (dense) {
      stride_elems[i] = stride_elems[i + 1] * static_cast<u128>(spec.dims[i + 1]);
    } else {
      if (spec.strides[i] <= 0)
        (Failure(spec) << "the stride of dim " << i << " is " << spec.strides[i]
                       << "; TMA strides must be positive").raise();
      stride_elems[i] = static_cast<u128>(spec.strides[i]);
    }
    const u128 bytes = stride_elems[i] * esize;
    const char* kind = dense ? "the dense row-major stride of dim " : "the stride of dim ";
    if (bytes % 16 != 0)
      (Failure(spec) << kind << i << " is " << stride_elems[i] << " elements = " << bytes
                     << " bytes; TMA strides must be multiples of 16 bytes").raise();
    if (bytes >= kStrideLimitBytes)
      (Failure(spec) << kind << i << " is " << bytes
                     << " bytes; TMA strides must be less than 2^40 bytes").raise();
    a.strides[rank - 2 - i] = static_cast<cuuint64_t>(bytes);
  }

  for (std::size_t i = 0; i < rank; ++i) {
    const std::uint32_t b = spec.box[i];
    if (b < 1 || b > kMaxBoxExtent)
      (Failure(spec) << "the TMA box extent of dim " << i << " is " << b
                     << "; box extents must be 1.." << kMaxBoxExtent).raise();
  }
  const std::uint64_t inner_box_bytes = spec.box[rank - 1] * esize;
  if (inner_box_bytes % 16 != 0)
    (Failure(spec) << "the innermost TMA box extent is " << spec.box[rank - 1] << " elements = "
                   << inner_box_bytes << " bytes; it must be a multiple of 16 bytes").raise();
  if (spec.swizzle_bytes != 0 && inner_box_bytes > static_cast<std::uint64_t>(spec.swizzle_bytes))
    (Failure(spec) << "the innermost TMA box extent is " << spec.box[rank - 1] << " elements = "
                   << inner_box_bytes << " bytes; with a " << spec.swizzle_bytes
                   << "-byte swizzle it must be at most " << spec.swizzle_bytes << " bytes").raise();

  a.rank = static_cast<cuuint32_t>(rank);
  a.base = const_cast<void*>(spec.base);
  for (std::size_t i = 0; i < rank; ++i) {
    a.dims[i] = static_cast<cuuint64_t>(spec.dims[rank - 1 - i]);
    a.box[i] = spec.box[rank - 1 - i];
    a.element_strides[i] = 1;
  }
  a.l2 = inner_box_bytes <= 128 ? CU_TENSOR_MAP_L2_PROMOTION_L2_128B
                                : CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
  return a;
}

// Everything that determines the encoded map, without padding, so equal
// keys are equal bytes and the bytes can be hashed directly.
struct MapKey {
  std::uint64_t base = 0;
  std::uint64_t dims[kMaxRank] = {};
  std::uint64_t strides[kMaxRank - 1] = {};
  std::uint32_t box[kMaxRank] = {};
  std::uint8_t dtype = 0, rank = 0, swizzle = 0, l2 = 0;
  bool operator==(const MapKey&) const = default;
};
static_assert(std::has_unique_object_representations_v<MapKey>, "MapKey must have no padding");

MapKey key_of(const EncodeArgs& a) {
  MapKey k;
  k.base = reinterpret_cast<std::uintptr_t>(a.base);
  for (int i = 0; i < kMaxRank; ++i) k.dims[i] = a.dims[i], k.box[i] = a.box[i];
  for (int i = 0; i < kMaxRank - 1; ++i) k.strides[i] = a.strides[i];
  k.dtype = static_cast<std::uint8_t>(a.dtype);
  k.rank = static_cast<std::uint8_t>(a.rank);
  k.swizzle = static_cast<std::uint8_t>(a.swizzle);
  k.l2 = static_cast<std::uint8_t>(a.l2);
  return k;
}

struct MapKeyHash {
  std::size_t operator()(const MapKey& k) const { return support::checksum64(&k, sizeof k); }
};

struct MapCache {
  std::shared_mutex mutex;
  std::unordered_map<MapKey, CUtensorMap, MapKeyHash> maps;
};

MapCache& map_cache() {
  static MapCache cache;
  return cache;
}

std::atomic<std::uint64_t> encode_calls{0};

// cuTensorMapEncodeTiled needs a current context (it fails with
// CUDA_ERROR_INVALID_CONTEXT on a thread without one). The map itself does
// not depend on which: with unified addressing it is a pure function of its
// arguments. A thread without one gets the primary context of the device
// that owns `base` (device 0 when the driver cannot tell).
void ensure_context(const void* base) {
  const DriverApi& api = driver();
  CUcontext current = nullptr;
  if (api.cuCtxGetCurrent(&current) == CUDA_SUCCESS && current != nullptr) return;
  int ordinal = 0;
  if (api.cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                reinterpret_cast<CUdeviceptr>(base)) != CUDA_SUCCESS)
    ordinal = 0;
  make_current(ordinal);
}

CUtensorMap encode(const EncodeArgs& a, const std::string& what) {
  CUtensorMap map{};
  try {
    ensure_context(a.base);
    CROQ_CU(cuTensorMapEncodeTiled, &map, a.dtype, a.rank, a.base, a.dims, a.strides, a.box,
            a.element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, a.swizzle, a.l2,
            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  } catch (const CudaError& e) {
    // Say which tensor map it was; e.what() is "call: detail".
    std::string detail = e.what();
    if (detail.starts_with(e.call() + ": ")) detail.erase(0, e.call().size() + 2);
    throw CudaError(e.call(), e.code(),
                    (what.empty() ? std::string("TMA tensor map") : what) + ": " + detail);
  }
  encode_calls.fetch_add(1, std::memory_order_relaxed);
  return map;
}

}  // namespace

void validate(const TensorMapSpec& spec) { (void)convert(spec); }

EncodeArgs encode_args(const TensorMapSpec& spec) { return convert(spec); }

CUtensorMap encoded_tensor_map(const TensorMapSpec& spec) {
  const EncodeArgs args = convert(spec);
  const MapKey key = key_of(args);
  MapCache& cache = map_cache();
  {
    std::shared_lock lock(cache.mutex);
    auto it = cache.maps.find(key);
    if (it != cache.maps.end()) return it->second;
  }
  std::unique_lock lock(cache.mutex);
  auto it = cache.maps.find(key);  // another thread may have encoded it meanwhile
  if (it != cache.maps.end()) return it->second;
  const CUtensorMap map = encode(args, spec.what);
  if (cache.maps.size() >= kCacheLimit) cache.maps.clear();  // see the header: maps are copied out
  cache.maps.emplace(key, map);
  return map;
}

std::uint64_t tensor_map_encode_count() { return encode_calls.load(std::memory_order_relaxed); }

int swizzle_bytes_from_mode(int n) {
  switch (n) {
    case 0: return 0;
    case 1: return 32;
    case 2: return 64;
    case 3: return 128;
    case 32: case 64: case 128: return n;
  }
  throw std::invalid_argument("swiz<" + std::to_string(n) +
                              ">: the swizzle mode must be 0, 1, 2 or 3 (none, 32, 64, 128 bytes) "
                              "or a byte count 32, 64 or 128");
}

}  // namespace croq::jit
