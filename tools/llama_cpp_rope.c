// ggml's own RoPE (ggml_rope_ext, computed by ggml-cpu's ggml_compute_forward_rope) on rows read from stdin.
// stdin: int32 d_head, n_head, T, mode; float32 base; int32 positions[T]; float32 x[T][n_head][d_head].
// stdout: float32 x_rot[T][n_head][d_head]. Built and run by tools/llama_cpp_rope_golden.py.
#include <stdio.h>
#include <stdlib.h>
#include "ggml.h"
#include "ggml-cpu.h"

static void read_exactly(void * into, size_t size, size_t count) {
    if (fread(into, size, count, stdin) != count) { fprintf(stderr, "short input\n"); exit(1); }
}

int main(void) {
    int32_t head[4];  // d_head, n_head, T, mode
    float base;
    read_exactly(head, sizeof(int32_t), 4);
    read_exactly(&base, sizeof(float), 1);
    const int d_head = head[0], n_head = head[1], T = head[2], mode = head[3];
    struct ggml_init_params params = { 64 * 1024 * 1024, NULL, false };
    struct ggml_context * ctx = ggml_init(params);
    // ne = {d_head, n_head, T}: llama.cpp's Qcur/Kcur layout, rows of d_head fastest
    struct ggml_tensor * x = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, d_head, n_head, T);
    struct ggml_tensor * pos = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, T);
    read_exactly(pos->data, sizeof(int32_t), T);
    read_exactly(x->data, sizeof(float), (size_t) d_head * n_head * T);
    // llama.cpp's plain RoPE: every dimension rotated, no scaling (freq_scale 1, ext_factor 0, attn_factor 1)
    struct ggml_tensor * y = ggml_rope_ext(ctx, x, pos, NULL, d_head, mode, 0, base, 1.0f, 0.0f, 1.0f, 0.0f, 0.0f);
    struct ggml_cgraph * graph = ggml_new_graph(ctx);
    ggml_build_forward_expand(graph, y);
    if (ggml_graph_compute_with_ctx(ctx, graph, 1) != GGML_STATUS_SUCCESS) { fprintf(stderr, "compute failed\n"); return 1; }
    fwrite(y->data, sizeof(float), (size_t) d_head * n_head * T, stdout);
    ggml_free(ctx);
    return 0;
}
