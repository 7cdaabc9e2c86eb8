// Must not compile: a target outside tests/ that includes another folder's internal header
// (tests/layering/CMakeLists.txt checks that the build refuses it).
#include "runtime/src/plan_runner.hpp"
