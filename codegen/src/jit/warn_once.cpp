#include "codegen/src/jit/warn_once.hpp"

#include <mutex>
#include <set>

#include <tensorjit/codegen/log.hpp>

namespace tensorjit::codegen {

void warn_once(const std::string& place, const std::string& message) noexcept {
  try {
    static std::mutex mutex;
    static std::set<std::string> warned;
    {
      std::lock_guard lock(mutex);
      if (!warned.insert(place).second) return;
    }
    logger().warn("{} (said once for {})", message, place);
  } catch (...) {
    // Logging itself failed (out of memory): there is nowhere left to report it.
  }
}

}  // namespace tensorjit::codegen
