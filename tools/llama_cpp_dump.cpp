// llama-cpp-dump: run a GGUF model through llama.cpp's own graph and write the full tensors that
// llama-eval-callback only prints elided (3 values per end of each axis, 4 decimals).
//
//   llama-cpp-dump MODEL.gguf OUT_PREFIX CACHE_TYPE CHUNKS PROMPT
//     CACHE_TYPE  f16 (llama.cpp's default KV cache) or f32
//     CHUNKS      "all", or token counts decoded one call after another, e.g. "2,1,2"
//
// Writes OUT_PREFIX.tsv (one line per tensor: call, name, op, ne0..3, nb0..3, view source, view
// offset in bytes, offset of its values in OUT_PREFIX.f32) and OUT_PREFIX.f32 (each tensor's values
// as float32, gathered in GGML order through its strides: element (i0, i1, i2, i3) at
// i0 + ne0·(i1 + ne1·(i2 + ne2·i3))), and prints "tokens: id id …" on stdout.
// Built by tools/llama_cpp_golden.py against a llama.cpp build (its docstring says how).
#include "ggml.h"
#include "ggml-backend.h"
#include "llama.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

static const char * KEPT[] = {"attn_norm-", "wqkv_b-", "Qcur-", "Kcur-", "Vcur-", "kq-", "kq_soft_max-",
                              "kqv-", "kqv_out-", "ffn_inp-", "l_out-", "inpL"};

struct Dump {
    FILE * index;
    FILE * values;
    long written = 0;  // floats written so far
    int call = 0;      // which llama_decode call is running
};

static bool kept(const char * name) {
    if (strchr(name, ' ')) return false;  // "Qcur-0 (view) (permuted)" and the like: llama.cpp's own copies
    for (const char * prefix : KEPT) {
        if (strncmp(name, prefix, strlen(prefix)) == 0) {  // "kq-" cannot take "kq_soft_max-0"
            return true;
        }
    }
    return false;
}

static float value_at(const ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    const char * at = (const char *) t->data + i0 * t->nb[0] + i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3];
    if (t->type == GGML_TYPE_F16) {
        return ggml_fp16_to_fp32(*(const ggml_fp16_t *) at);
    }
    return *(const float *) at;
}

static bool on_tensor(ggml_tensor * t, bool ask, void * user_data) {
    auto * dump = (Dump *) user_data;
    if (ask) {
        return kept(t->name);
    }
    if (!kept(t->name) || (t->type != GGML_TYPE_F32 && t->type != GGML_TYPE_F16)) {
        return true;
    }
    if (!ggml_backend_buffer_is_host(t->buffer)) {
        fprintf(stderr, "llama-cpp-dump: %s is not in host memory (build llama.cpp for the CPU only)\n", t->name);
        return false;
    }
    fprintf(dump->index, "%d\t%s\t%s", dump->call, t->name, ggml_op_desc(t));
    for (int k = 0; k < 4; k++) fprintf(dump->index, "\t%lld", (long long) t->ne[k]);
    for (int k = 0; k < 4; k++) fprintf(dump->index, "\t%zu", t->nb[k]);
    fprintf(dump->index, "\t%s\t%zu\t%ld\n", t->view_src ? t->view_src->name : "-", t->view_offs, dump->written);
    for (int64_t i3 = 0; i3 < t->ne[3]; i3++)
        for (int64_t i2 = 0; i2 < t->ne[2]; i2++)
            for (int64_t i1 = 0; i1 < t->ne[1]; i1++)
                for (int64_t i0 = 0; i0 < t->ne[0]; i0++) {
                    const float v = value_at(t, i0, i1, i2, i3);
                    fwrite(&v, sizeof v, 1, dump->values);
                    dump->written++;
                }
    return true;
}

static std::vector<int> chunk_sizes(const std::string & chunks, int n_tokens) {
    if (chunks == "all") return {n_tokens};
    std::vector<int> sizes;
    size_t start = 0;
    while (start <= chunks.size()) {
        size_t comma = chunks.find(',', start);
        if (comma == std::string::npos) comma = chunks.size();
        sizes.push_back(std::stoi(chunks.substr(start, comma - start)));
        start = comma + 1;
    }
    return sizes;
}

int main(int argc, char ** argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: %s MODEL.gguf OUT_PREFIX f16|f32 CHUNKS PROMPT\n", argv[0]);
        return 2;
    }
    const std::string prefix = argv[2], cache = argv[3], chunks = argv[4], prompt = argv[5];
    llama_backend_init();
    llama_model * model = llama_model_load_from_file(argv[1], llama_model_default_params());
    if (!model) return 1;
    const llama_vocab * vocab = llama_model_get_vocab(model);

    std::vector<llama_token> tokens(prompt.size() + 8);
    const int n = llama_tokenize(vocab, prompt.c_str(), (int) prompt.size(), tokens.data(), (int) tokens.size(),
                                 llama_vocab_get_add_bos(vocab), false);
    if (n <= 0) return 1;
    tokens.resize(n);

    Dump dump{fopen((prefix + ".tsv").c_str(), "w"), fopen((prefix + ".f32").c_str(), "wb")};
    llama_context_params params = llama_context_default_params();
    params.n_ctx = 256;  // the KV-cache view is then the minimum 256 slots
    params.n_batch = params.n_ubatch = 256;
    params.n_threads = params.n_threads_batch = 1;
    params.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_DISABLED;
    params.type_k = params.type_v = cache == "f32" ? GGML_TYPE_F32 : GGML_TYPE_F16;
    params.cb_eval = on_tensor;
    params.cb_eval_user_data = &dump;
    llama_context * ctx = llama_init_from_model(model, params);
    if (!ctx) return 1;

    printf("tokens:");
    for (llama_token id : tokens) printf(" %d", id);
    printf("\n");
    int start = 0;
    for (int size : chunk_sizes(chunks, n)) {
        if (start + size > n) {
            fprintf(stderr, "llama-cpp-dump: the chunks %s add up to more than the %d tokens\n", chunks.c_str(), n);
            return 2;
        }
        if (llama_decode(ctx, llama_batch_get_one(tokens.data() + start, size))) return 1;
        start += size;
        dump.call++;
    }
    fclose(dump.index);
    fclose(dump.values);
    llama_free(ctx);
    llama_model_free(model);
    return 0;
}
