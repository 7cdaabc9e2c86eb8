#include <memory>
#include <oneapi/dnnl/dnnl.hpp>

#include "peers.hpp"

namespace epilogue_bench {

DenseLayer onednn_dense_relu(std::int64_t rows, std::int64_t in, std::int64_t out) {
  using tag = dnnl::memory::format_tag;
  using dt = dnnl::memory::data_type;
  struct State {
    dnnl::engine engine{dnnl::engine::kind::cpu, 0};
    dnnl::stream stream{engine};
    dnnl::memory::desc x, w, bias, y;
    dnnl::matmul primitive;
  };
  auto state = std::make_shared<State>();
  state->x = dnnl::memory::desc({rows, in}, dt::f32, tag::ab);
  state->w = dnnl::memory::desc({in, out}, dt::f32, tag::ab);
  state->bias = dnnl::memory::desc({1, out}, dt::f32, tag::ab);
  state->y = dnnl::memory::desc({rows, out}, dt::f32, tag::ab);
  dnnl::post_ops post_ops;
  post_ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
  dnnl::primitive_attr attributes;
  attributes.set_post_ops(post_ops);
  dnnl::matmul::desc description(state->x, state->w, state->bias, state->y);
  state->primitive = dnnl::matmul(dnnl::matmul::primitive_desc(description, attributes, state->engine));
  return [state](const float* x, const float* w, const float* bias, float* y) {
    dnnl::memory x_memory(state->x, state->engine, const_cast<float*>(x));
    dnnl::memory w_memory(state->w, state->engine, const_cast<float*>(w));
    dnnl::memory bias_memory(state->bias, state->engine, const_cast<float*>(bias));
    dnnl::memory y_memory(state->y, state->engine, y);
    state->primitive.execute(state->stream, {{DNNL_ARG_SRC, x_memory},
                                             {DNNL_ARG_WEIGHTS, w_memory},
                                             {DNNL_ARG_BIAS, bias_memory},
                                             {DNNL_ARG_DST, y_memory}});
    state->stream.wait();
  };
}

}  // namespace epilogue_bench
