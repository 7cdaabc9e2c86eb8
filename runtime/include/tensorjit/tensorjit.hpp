// The one header a user includes.
#pragma once

#include <tensorjit/autodiff.hpp>
#include <tensorjit/dtype.hpp>
#include <tensorjit/error.hpp>
#include <tensorjit/files.hpp>
#include <tensorjit/functions.hpp>
#include <tensorjit/optim.hpp>
#include <tensorjit/random.hpp>
#include <tensorjit/tensor.hpp>
